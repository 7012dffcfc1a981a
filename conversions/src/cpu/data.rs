//! Rules for the data-movement ops: `tile.copy` and `tile.fill` as loop nests over the tile.
//!
//! A tile placed in a larger buffer is clipped: reads outside the buffer give zero, writes outside it
//! are dropped (the contract's semantics, which TMA implements in hardware). A tile of lower
//! rank than its global tensor lies in the dimensions it spans (see [`placed`]).

use super::builder::{At, Builder};
use melior::ir::{ShapedTypeLike, Type, Value, ValueLike, operation::OperationRef, r#type::MemRefType};
use tile_dialect::ops::{copy_parts, memref_shape};
use tile_dialect::positions::OperationAt;

/// Returns the element type of a memref value.
pub fn element_type<'c>(value: Value<'c, '_>) -> Type<'c> {
    MemRefType::try_from(value.r#type()).expect("a memref").element()
}

// Widths asked of the types rather than read from their printed names: printing a type builds an
// AsmState, which gathers every loaded dialect's interfaces (a conversion is made for each copied
// and widened element).
fn float_width(ty: Type) -> Option<u32> {
    use melior::ir::TypeLike;
    if ty.is_float8e4m3fn() || ty.is_float8e5m2() {
        Some(8)
    } else if ty.is_f16() || ty.is_bf16() {
        Some(16)
    } else if ty.is_f32() {
        Some(32)
    } else if ty.is_f64() {
        Some(64)
    } else {
        None
    }
}

/// The width of a signless integer type (what `iN` names).
fn int_width(ty: Type) -> Option<u32> {
    use melior::ir::TypeLike;
    if !ty.is_integer() {
        return None;
    }
    melior::ir::r#type::IntegerType::try_from(ty)
        .ok()
        .filter(|integer| integer.is_signless())
        .map(|integer| integer.width())
}

/// Converts `value` to `to`: the element conversion of a copy, a gemm's widening, a reduce's.
pub fn convert<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, value: Value<'c, 'a>, to: Type<'c>) -> Value<'c, 'a> {
    let from = value.r#type();
    if from == to {
        return value;
    }
    match (float_width(from), float_width(to), int_width(from), int_width(to)) {
        (Some(a), Some(z), _, _) if a < z => b.cast(at, tile_ir::arith::extf, value, to),
        (Some(a), Some(z), _, _) if a > z => b.cast(at, tile_ir::arith::truncf, value, to),
        // Same width, different format (f16 and bf16): through f32.
        (Some(_), Some(_), _, _) => {
            let wide = b.cast(at, tile_ir::arith::extf, value, Type::float32(b.context));
            b.cast(at, tile_ir::arith::truncf, wide, to)
        }
        (_, _, Some(a), Some(z)) if a < z => b.cast(at, tile_ir::arith::extsi, value, to),
        (_, _, Some(_), Some(_)) => b.cast(at, tile_ir::arith::trunci, value, to),
        (None, Some(_), Some(_), None) => b.cast(at, tile_ir::arith::sitofp, value, to),
        _ => b.cast(at, tile_ir::arith::fptosi, value, to),
    }
}

/// Returns the index of every dimension of `buffer` for the tile element at `ivs`, and whether all lie
/// inside `buffer`. The tile's dimensions are the buffer's `spans` (`offsets[d] + iv`); each other
/// dimension of a higher-rank global tensor is indexed by its offset alone. Every dimension is
/// checked, so a tile never wraps into the next row, head or batch.
fn placed<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    buffer: Value<'c, 'a>,
    (offsets, spans): (&[Value<'c, 'a>], &[usize]),
    ivs: &[Value<'c, 'a>],
) -> (Vec<Value<'c, 'a>>, Value<'c, 'a>) {
    let mut indices = Vec::new();
    let mut inside: Option<Value> = None;
    for (dim, offset) in offsets.iter().enumerate() {
        let index = match tile_dialect::ops::tile_dim(spans, dim) {
            Some(tile_dim) => b.addi(at, *offset, ivs[tile_dim]),
            None => *offset,
        };
        let size = b.dim(at, buffer, dim as i64);
        let fits = b.compare(at, "ult", index, size);
        inside = Some(match inside {
            Some(previous) => b.andi(at, previous, fits),
            None => fits,
        });
        indices.push(index);
    }
    (indices, inside.expect("rank >= 1"))
}

// ---- tile.copy ----------------------------------------------------------------------------------

/// Whether the tile's element at `coordinates` (in the tile), and along the last dimension the
/// `run - 1` after it, lies below a store's `limits` (one per tile dimension; signed, so a limit
/// below 0 writes nothing); `None` without limits.
pub fn below_limits<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    limits: &[Value<'c, 'a>],
    coordinates: &[Value<'c, 'a>],
    run: i64,
) -> Option<Value<'c, 'a>> {
    let last = limits.len().checked_sub(1)?;
    limits
        .iter()
        .zip(coordinates)
        .enumerate()
        .map(|(d, (limit, coordinate))| {
            let end = if d == last && run > 1 {
                b.addi(at, *coordinate, b.index(at, run - 1))
            } else {
                *coordinate
            };
            b.compare(at, "slt", end, *limit)
        })
        .reduce(|all, inside| b.andi(at, all, inside))
}

/// Lowers `tile.copy` (offsets on at most one side; the other side is the tile).
pub fn lower_copy<'c>(b: &Builder<'c>, copy: OperationRef<'c, '_>) {
    let at = At::before(copy);
    let parts = copy_parts(&copy).expect("verified copy");
    let atomic = tile_dialect::ops::copy_atomic(&copy);
    let (src, dst) = (parts.src, parts.dst);
    let to = element_type(dst);
    let tile_side = if parts.src_offsets.is_empty() { src } else { dst };
    let (body, ivs) = b.parallel_nest(at, &memref_shape(tile_side));
    if !parts.src_offsets.is_empty() {
        // Read from the larger buffer: zero outside it.
        let offsets: Vec<Value> = parts.src_offsets.clone();
        let (indices, inside) = placed(b, body, src, (&offsets, &parts.spans), &ivs);
        let then = b.if_then(body, inside);
        let value = b.load(then, src, &indices);
        let value = convert(b, then, value, to);
        b.store(then, value, dst, &ivs);
        let one = b.constant(body, Type::parse(b.context, "i1").expect("i1"), 1.0);
        let outside = b.xori(body, inside, one);
        let otherwise = b.if_then(body, outside);
        let zero = b.constant(otherwise, to, 0.0);
        b.store(otherwise, zero, dst, &ivs);
    } else if !parts.dst_offsets.is_empty() {
        // Write into the larger buffer: writes outside it are dropped.
        let offsets: Vec<Value> = parts.dst_offsets.clone();
        let (indices, mut inside) = placed(b, body, dst, (&offsets, &parts.spans), &ivs);
        // Past a limit nothing is written either.
        if let Some(below) = below_limits(b, body, &parts.limits, &ivs, 1) {
            inside = b.andi(body, inside, below);
        }
        let then = b.if_then(body, inside);
        let value = b.load(then, src, &ivs);
        let value = convert(b, then, value, to);
        b.write(then, value, dst, &indices, atomic);
    } else {
        let value = b.load(body, src, &ivs);
        let value = convert(b, body, value, to);
        b.write(body, value, dst, &ivs, atomic);
    }
}

// ---- tile.fill ----------------------------------------------------------------------------------

/// Lowers `tile.fill` to a store of the value in every element.
pub fn lower_fill<'c>(b: &Builder<'c>, fill: OperationRef<'c, '_>) {
    let at = At::before(fill);
    let dst = fill.operand_at(0).expect("verified fill");
    let value = fill.operand_at(1).expect("verified fill");
    let (body, ivs) = b.parallel_nest(at, &memref_shape(dst));
    b.store(body, value, dst, &ivs);
}
