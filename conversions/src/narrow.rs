//! `tile-pack-narrow-types`: memory holds 4-bit elements (`i4`, `f4E2M1FN`) two to a byte along a
//! buffer's last dimension, element 2i in the low half of byte i and 2i + 1 in the high half (the
//! way quantized weights are shipped). This pass, the first of every target pipeline and of the
//! CPU reference, rewrites a program's 4-bit buffers into buffers of bytes before anything is laid
//! out or lowered, so that every later pass and every target sees whole bytes only:
//!
//! - a host function argument or `tile.alloc_shared` of `...xNxi4` becomes `...x(N/2)xi8` (the
//!   host passes the packed bytes, and the launch manifest says so);
//! - a `tile.copy` between 4-bit buffers copies their bytes: the offset along the last dimension
//!   is halved, which needs it even where the compiler can see it (a constant, a multiple of an
//!   even constant, sums of those);
//! - a `memref.load` of one element loads its byte and takes the half that holds it, and the op
//!   that widens the element (`arith.extsi`, `extui`, `sitofp`, `uitofp` for `i4`, `arith.extf`
//!   for `f4E2M1FN`) is rebuilt on that half in integer arithmetic (an integer widened to a float
//!   through the exponent bits of a power of two, with no conversion instruction): no 4-bit value
//!   is left in registers (SPIR-V has no 4-bit types);
//! - `memref.dim` of the last dimension doubles the count of bytes.
//!
//! Anything else a 4-bit buffer or value meets is a located error naming what works. The
//! interpreter runs programs as written, element by element, so that comparing it with any target
//! checks this rewrite too.

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        BlockLike, Location, RegionLike, ShapedTypeLike, Type, TypeLike, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    decisions::PACKED_BYTE,
    diagnostics::emit_error,
    element::Element,
    ops::{as_memref, constant_integer, find_ops, nested_ops, op_name, set_operand, with_context},
};
use tile_ir::{arith, func, memref, tile};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-pack-narrow-types";

tile_passes::rust_pass! {
    /// Creates the `tile-pack-narrow-types` pass (on `builtin.module`).
    pub fn create_pack_narrow_types_pass() {
        argument: ARGUMENT,
        name: "TilePackNarrowTypes",
        description: "Store 4-bit elements (i4, f4E2M1FN) two to a byte: buffers of bytes, and loads that take half a byte and widen it",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [tile_dialect::dialect_handle(), tile_dialect::registration::vector_dialect()],
        run: |module| with_context(module, |context| pack_module(context, module)),
    }
}

/// An op this pass cannot rewrite, and why.
type Failure<'c, 'a> = (OperationRef<'c, 'a>, String);

/// Returns the 4-bit element kind of a memref type, if it has one.
pub fn packed_element(ty: Type) -> Option<Element> {
    as_memref(ty)
        .and_then(|memref| Element::of(memref.element()))
        .filter(|element| element.is_packed())
}

fn pack_module<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), String> {
    let mut failed = false;
    for function in find_ops(module, func::FuncOperation::name()) {
        if let Err((op, message)) = pack_function(context, function) {
            emit_error(op.location(), &format!("'{}' op {message}", op_name(&op)));
            failed = true;
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

/// What the function's 4-bit buffers meet, checked before anything changes.
struct Uses<'c, 'a> {
    copies: Vec<OperationRef<'c, 'a>>,
    loads: Vec<OperationRef<'c, 'a>>,
    dims: Vec<OperationRef<'c, 'a>>,
}

fn pack_function<'c, 'a>(context: &'c Context, function: OperationRef<'c, 'a>) -> Result<(), Failure<'c, 'a>> {
    let Some(entry) = function.body() else {
        return Ok(());
    };
    let ops = nested_ops(function);
    let mut buffers: Vec<Value<'c, 'a>> = Vec::new();
    for index in 0..entry.argument_count() {
        let argument: Value = entry.argument_at(index).expect("an argument").into();
        if packed_element(argument.r#type()).is_some() {
            buffers.push(argument);
        }
    }
    for op in &ops {
        for result in op.results() {
            if packed_element(result.r#type()).is_none() {
                continue;
            }
            if !tile_ir::is(op, tile::AllocSharedOperation::name) {
                return Err((
                    *op,
                    format!(
                        "makes a {}: only host function arguments and tile.alloc_shared hold 4-bit \
                         elements (stored two to a byte)",
                        result.r#type()
                    ),
                ));
            }
            buffers.push(result.into());
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    let argument = current.argument_at(index).expect("an argument");
                    if packed_element(argument.r#type()).is_some() && *op != function {
                        return Err((
                            *op,
                            format!(
                                "takes a {} as a block argument: only host function arguments and \
                                 tile.alloc_shared hold 4-bit elements (stored two to a byte)",
                                argument.r#type()
                            ),
                        ));
                    }
                }
                block = current.next_in_region();
            }
        }
    }
    if buffers.is_empty() {
        return Ok(());
    }
    for buffer in &buffers {
        let memref = as_memref(buffer.r#type()).expect("a memref");
        if tile_dialect::ops::static_sizes(memref)
            .last()
            .copied()
            .flatten()
            .is_some_and(|size| size % 2 == 1)
        {
            let at = tile_dialect::ops::as_result(*buffer).map_or(function, |result| result.owner());
            return Err((
                at,
                format!(
                    "expects the last dimension of {} to be even: 4-bit elements are stored two to a \
                     byte along it",
                    buffer.r#type()
                ),
            ));
        }
    }
    let uses = classify(&ops, &buffers)?;
    for load in &uses.loads {
        let value: Value = load.result_at(0).expect("a loaded value").into();
        for user in tile_dialect::ops::users(value) {
            widening(user, value.r#type())?;
        }
    }
    let halved: Vec<(OperationRef, usize)> = uses
        .copies
        .iter()
        .map(|copy| last_offset(*copy).map(|index| index.map(|index| (*copy, index))))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    for dim in &uses.dims {
        let rank = as_memref(dim.operand_at(0).expect("a memref").r#type()).map_or(0, |memref| memref.rank());
        if dim.operand_at(1).and_then(constant_integer).is_none() && rank > 0 {
            return Err((
                *dim,
                "expects a constant dimension of a buffer of 4-bit elements (its last dimension counts \
                 bytes once they are packed)"
                    .into(),
            ));
        }
    }

    // Checked: now rewrite.
    for buffer in &buffers {
        buffer.set_type(bytes_type(context, buffer.r#type()));
    }
    for (copy, index) in halved {
        let offset = copy.operand_at(index).expect("an offset");
        let b = builder(context, copy.location());
        let at = At::before(copy);
        let half = match constant_integer(offset) {
            Some(constant) => b.index(at, constant / 2),
            None => b.shrui(at, offset, b.index(at, 1)),
        };
        set_operand(copy, index, half);
    }
    for dim in &uses.dims {
        let memref = as_memref(dim.operand_at(0).expect("a memref").r#type()).expect("a memref");
        if dim.operand_at(1).and_then(constant_integer) != Some(memref.rank() as i64 - 1) {
            continue;
        }
        let Some(next) = dim.next_in_block() else { continue };
        let b = builder(context, dim.location());
        let at = At::before(next);
        let bytes: Value = dim.result_at(0).expect("a size").into();
        let elements = b.muli(at, bytes, b.index(at, 2));
        let doubled = tile_dialect::ops::as_result(elements).expect("a product").owner();
        melior::IrRewriter::new(context)
            .as_rewriter_base()
            .replace_all_uses_except(bytes, elements, doubled);
    }
    for load in &uses.loads {
        unpack_load(context, *load)?;
    }
    if !buffers
        .iter()
        .any(|buffer| tile_dialect::ops::as_argument(*buffer).is_some())
    {
        return Ok(());
    }
    tile_dialect::ops::signature_from_entry(context, function);
    Ok(())
}

/// Sorts the ops that use a 4-bit buffer; anything but copies, element loads and `memref.dim`
/// fails.
fn classify<'c, 'a>(ops: &[OperationRef<'c, 'a>], buffers: &[Value<'c, 'a>]) -> Result<Uses<'c, 'a>, Failure<'c, 'a>> {
    let mut uses = Uses {
        copies: Vec::new(),
        loads: Vec::new(),
        dims: Vec::new(),
    };
    for op in ops {
        let Some(buffer) = op.operands().find(|operand| buffers.contains(operand)) else {
            continue;
        };
        tile_ir::match_op!(op, {
            tile::CopyOperation => uses.copies.push(*op),
            memref::LoadOperation => uses.loads.push(*op),
            memref::DimOperation => uses.dims.push(*op),
            _ => {
                return Err((
                    *op,
                    format!(
                        "takes a {}, whose 4-bit elements are stored two to a byte: only tile.copy, \
                         memref.load (then widened) and memref.dim take such buffers",
                        buffer.r#type()
                    ),
                ));
            },
        });
    }
    Ok(uses)
}

/// The operand index of a copy's offset along the last dimension of the buffer it indexes, which
/// must be even (`None`: neither side has offsets, whole tiles).
fn last_offset<'c, 'a>(copy: OperationRef<'c, 'a>) -> Result<Option<usize>, Failure<'c, 'a>> {
    let parts = tile_dialect::ops::copy_parts(&copy).expect("a verified copy");
    let index = if !parts.dst_offsets.is_empty() {
        copy.operand_count() - 1
    } else if !parts.src_offsets.is_empty() {
        parts.src_offsets.len()
    } else {
        return Ok(None);
    };
    let offset = copy.operand_at(index).expect("an offset");
    if parity(offset, 0) != Some(0) {
        return Err((
            copy,
            "expects its offset along the last dimension of a buffer of 4-bit elements to be even \
             where the compiler can see it (a constant, a multiple of an even constant, or sums of \
             those), since it copies the bytes that hold two elements"
                .into(),
        ));
    }
    Ok(Some(index))
}

/// Whether `value` is even (0) or odd (1), when that is known from how it was computed.
fn parity(value: Value, depth: usize) -> Option<i64> {
    if let Some(constant) = constant_integer(value) {
        return Some(constant & 1);
    }
    if depth > 8 {
        return None;
    }
    let owner = tile_dialect::ops::as_result(value)?.owner();
    let operand = |index: usize| owner.operand_at(index).and_then(|value| parity(value, depth + 1));
    tile_ir::match_op!(owner, {
        arith::MulIOperation => match (operand(0), operand(1)) {
            (Some(0), _) | (_, Some(0)) => Some(0),
            (Some(1), Some(1)) => Some(1),
            _ => None,
        },
        arith::AddIOperation => Some((operand(0)? + operand(1)?) & 1),
        arith::SubIOperation => Some((operand(0)? + operand(1)?) & 1),
        arith::ShLIOperation => owner
            .operand_at(1)
            .and_then(constant_integer)
            .filter(|shift| *shift >= 1)
            .map(|_| 0),
        _ => None,
    })
}

/// Checks that `user` widens a 4-bit value of type `ty` into a type this pass can build.
fn widening<'c, 'a>(user: OperationRef<'c, 'a>, ty: Type<'c>) -> Result<(), Failure<'c, 'a>> {
    let float = !ty.is_integer();
    let widened = user.results().next().map(|result| result.r#type());
    let fine = tile_ir::match_op!(user, {
        arith::ExtSIOperation => !float,
        arith::ExtUIOperation => !float,
        arith::SIToFPOperation => !float,
        arith::UIToFPOperation => !float,
        arith::ExtFOperation => float && widened.and_then(float_format).is_some(),
        _ => false,
    });
    if fine {
        return Ok(());
    }
    let what = if float {
        "arith.extf to f16, bf16, f32 or f64"
    } else {
        "arith.extsi, extui, sitofp or uitofp"
    };
    Err((
        user,
        format!(
            "uses a {ty} loaded from a buffer of 4-bit elements, which are stored two to a byte: \
             widen it first ({what})"
        ),
    ))
}

/// The layout of a float type a 4-bit float widens to: (its width, fraction bits, exponent bias).
fn float_format(ty: Type) -> Option<(u32, i64, i64)> {
    if ty.is_f16() {
        Some((16, 10, 15))
    } else if ty.is_bf16() {
        Some((16, 7, 127))
    } else if ty.is_f32() {
        Some((32, 23, 127))
    } else if ty.is_f64() {
        Some((64, 52, 1023))
    } else {
        None
    }
}

/// `...xNxT` as the bytes that hold it: `...x(N/2)xi8` (a dynamic size stays dynamic).
fn bytes_type<'c>(context: &'c Context, ty: Type<'c>) -> Type<'c> {
    let memref = as_memref(ty).expect("a memref");
    let mut shape: Vec<i64> = tile_dialect::ops::static_sizes(memref)
        .into_iter()
        .map(|size| size.unwrap_or(i64::MIN))
        .collect();
    if let Some(last) = shape.last_mut()
        && *last != i64::MIN
    {
        *last /= 2;
    }
    MemRefType::new(IntegerType::new(context, 8).into(), &shape, None, memref.memory_space()).into()
}

fn builder<'c>(context: &'c Context, location: Location<'c>) -> Builder<'c> {
    Builder {
        context,
        location,
        threads: None,
    }
}

/// Rewrites one element load of a packed buffer (already of bytes) and the ops that widen it.
fn unpack_load<'c, 'a>(context: &'c Context, load: OperationRef<'c, 'a>) -> Result<(), Failure<'c, 'a>> {
    let b = builder(context, load.location());
    let at = At::before(load);
    let operands: Vec<Value> = load.operands().collect();
    let (memref, indices) = (operands[0], &operands[1..]);
    let i8 = IntegerType::new(context, 8).into();
    // The byte, and whether the element is its high half (a constant where the index is one).
    let (byte, high) = match indices.last() {
        None => return Err((load, "expects an element of a buffer with a last dimension".into())),
        Some(last) => {
            let mut bytes: Vec<Value> = indices.to_vec();
            // An odd index's byte from its even neighbour's index: once a loop is unrolled, the
            // two elements of a byte then load it through one address, which LLVM merges.
            let byte_index = match constant_integer(*last) {
                Some(constant) => b.index(at, constant / 2),
                None => {
                    let odd = b.andi(at, *last, b.index(at, 1));
                    let even = b.subi(at, *last, odd);
                    b.shrui(at, even, b.index(at, 1))
                }
            };
            *bytes.last_mut().expect("an index") = byte_index;
            let byte = b.load(at, memref, &bytes);
            if let Some(position) = parallel_index(*last) {
                let byte_load = tile_dialect::ops::as_result(byte).expect("a load").owner();
                let position = IntegerAttribute::new(IntegerType::new(context, 64).into(), position);
                tile_dialect::ops::set_attribute(byte_load, PACKED_BYTE, position.into());
            }
            let high = match parity(*last, 0) {
                Some(parity) => Half::Known(parity == 1),
                None => Half::Index(b.andi(at, *last, b.index(at, 1))),
            };
            (byte, high)
        }
    };
    // The half that holds the element, in the low four bits of an i8 (a high half shifted down
    // has nothing above them).
    let half = |b: &Builder<'c>, at: At<'c, 'a>| {
        let down = shifted_down(b, at, byte, high);
        match high {
            Half::Known(true) => down,
            _ => b.andi(at, down, b.integer(at, i8, 15)),
        }
    };
    let loaded: Value = load.result_at(0).expect("a loaded value").into();
    let rewriter = melior::IrRewriter::new(context);
    for user in tile_dialect::ops::users(loaded) {
        let at = At::before(user);
        let b = builder(context, user.location());
        let result: Value = user.result_at(0).expect("a widened value").into();
        let ty = result.r#type();
        let signed = || {
            let four = b.integer(at, i8, 4);
            let high = b.shli(at, half(&b, at), four);
            b.value(at, tile_ir::arith::shrsi(context, high, four, b.location).into())
        };
        let width = |ty: Type| IntegerType::try_from(ty).map_or(8, |integer| integer.width());
        let resize = |value: Value<'c, 'a>, signed: bool| -> Value<'c, 'a> {
            match width(ty) {
                8 => value,
                wider if wider > 8 && signed => b.cast(at, tile_ir::arith::extsi, value, ty),
                wider if wider > 8 => b.cast(at, tile_ir::arith::extui, value, ty),
                _ => b.cast(at, tile_ir::arith::trunci, value, ty),
            }
        };
        let widened = tile_ir::match_op!(user, {
            arith::ExtSIOperation => resize(signed(), true),
            arith::ExtUIOperation => resize(half(&b, at), false),
            // Floats whose bits the exponent trick cannot build (the 8-bit floats): the code converted.
            arith::SIToFPOperation if float_format(ty).is_none() => b.cast(at, tile_ir::arith::sitofp, signed(), ty),
            arith::UIToFPOperation if float_format(ty).is_none() => b.cast(at, tile_ir::arith::uitofp, half(&b, at), ty),
            arith::SIToFPOperation => exact_integer_float(&b, at, byte, high, true, ty),
            arith::UIToFPOperation => exact_integer_float(&b, at, byte, high, false, ty),
            arith::ExtFOperation => decode_float(&b, at, half(&b, at), ty),
            _ => unreachable!("checked by widening"),
        });
        rewriter.as_rewriter_base().replace_all_uses_with(result, widened);
        rewriter.as_rewriter_base().erase_op(user);
    }
    rewriter.as_rewriter_base().erase_op(load);
    Ok(())
}

/// The number of the `tile.parallel` loop index `value` is, if it is one: a byte load indexed by
/// it is marked [`PACKED_BYTE`], since where the loop's layout gives a quad of lanes the four
/// bytes of a word, the registers strategy reads whole 16-byte lines of the row instead (one
/// load for 16 of a thread's bytes where each byte was one load).
fn parallel_index(value: Value) -> Option<i64> {
    let argument = tile_dialect::ops::as_argument(value)?;
    let owner = argument.owner().parent_operation()?;
    tile_ir::is(&owner, tile::ParallelOperation::name).then(|| argument.argument_number() as i64)
}

/// Which half of its byte an element is: known where its index's parity is, else the index's
/// low bit (an `index` value, 1 for the high half).
#[derive(Clone, Copy)]
enum Half<'c, 'a> {
    Known(bool),
    Index(Value<'c, 'a>),
}

/// `byte` shifted right so that its half `high` is its low four bits (the other half stays above
/// them where the element is the low half).
fn shifted_down<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, byte: Value<'c, 'a>, high: Half<'c, 'a>) -> Value<'c, 'a> {
    let i8 = IntegerType::new(b.context, 8).into();
    match high {
        Half::Known(false) => byte,
        Half::Known(true) => b.shrui(at, byte, b.integer(at, i8, 4)),
        Half::Index(odd) => {
            let odd = b.cast(at, tile_ir::arith::index_cast, odd, i8);
            let shift = b.shli(at, odd, b.integer(at, i8, 2));
            b.shrui(at, byte, shift)
        }
    }
}

/// The 4-bit integer in half `high` of `byte` (two's complement where `signed`) as float type `ty`,
/// without an integer-to-float conversion. A code in the low half, put under the exponent of 2^f
/// (f the type's fraction bits), gives the float 2^f + c exactly; one in the high half stays
/// where it is, under the exponent of 2^(f - 4), whose fraction bit 4 weighs 1: 2^(f - 4) + c,
/// with no shift (so the two halves of a byte become a pair of floats by one mask and one XOR of
/// the byte in both halves of a word, and one paired subtraction). From that float 2^f or
/// 2^(f - 4) (plus 8 for a signed code, flipped into offset form by its sign bit) is subtracted
/// exactly. A type with fewer than 8 fraction bits (bf16) takes the high half down first.
/// Conversion instructions run at a fraction of the rate of logic and float arithmetic on GPUs.
fn exact_integer_float<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    byte: Value<'c, 'a>,
    high: Half<'c, 'a>,
    signed: bool,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let (width, fraction, bias) = float_format(ty).expect("checked by widening");
    let bits: Type = IntegerType::new(b.context, width).into();
    // (mask of the code in the byte, bits to XOR or OR in, the float to subtract) for a code
    // `shift` bits up its byte: the power's bits lie above the code's, so one XOR puts the code
    // under the exponent and flips a signed code's sign bit.
    let form = |shift: i64| {
        let exponent = fraction - shift;
        let power = (bias + exponent) << fraction;
        let flip = if signed { 8 << shift } else { 0 };
        (
            15 << shift,
            power | flip,
            (1i64 << exponent) + if signed { 8 } else { 0 },
        )
    };
    let in_place = fraction >= 8;
    if width == 16 && in_place {
        return half_float_pair(b, at, byte, high, signed, [form(0), form(4)], ty);
    }
    let (mask, under, offset) = match high {
        Half::Known(is_high) if in_place || !is_high => {
            let (mask, under, offset) = form(if is_high { 4 } else { 0 });
            (
                b.integer(at, bits, mask),
                b.integer(at, bits, under),
                b.constant(at, ty, offset as f64),
            )
        }
        Half::Index(odd) if in_place => {
            let (low, high) = (form(0), form(4));
            let is_high = b.compare(at, "ne", odd, b.index(at, 0));
            let pick = |b: &Builder<'c>, high: Value<'c, 'a>, low: Value<'c, 'a>| b.select(at, is_high, high, low);
            (
                pick(b, b.integer(at, bits, high.0), b.integer(at, bits, low.0)),
                pick(b, b.integer(at, bits, high.1), b.integer(at, bits, low.1)),
                pick(b, b.constant(at, ty, high.2 as f64), b.constant(at, ty, low.2 as f64)),
            )
        }
        // A high half the type cannot hold in place (bf16), shifted down to the low one first.
        _ => {
            let shifted = shifted_down(b, at, byte, high);
            return exact_integer_float(b, at, shifted, Half::Known(false), signed, ty);
        }
    };
    // Masked in the float's width: both halves of a byte then mask one widened byte, which LLVM
    // pairs into one mask of a word.
    let code = b.andi(at, b.cast(at, tile_ir::arith::extui, byte, bits), mask);
    let placed = put_under(b, at, code, under, signed);
    let shifted = b.cast(at, tile_ir::arith::bitcast, placed, ty);
    b.binary(
        at,
        |c, x, y, l| tile_ir::arith::subf(c, x, y, l).into(),
        shifted,
        offset,
    )
}

/// The masked `code` put under the exponent bits `under`: by XOR for a signed code, whose sign bit
/// `under` also holds (flipping it gives the code's offset form), by OR for an unsigned one.
fn put_under<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    code: Value<'c, 'a>,
    under: Value<'c, 'a>,
    signed: bool,
) -> Value<'c, 'a> {
    if signed {
        b.xori(at, code, under)
    } else {
        b.ori(at, code, under)
    }
}

/// The ops of [`half_float_pair`] that put the byte `loaded` in both halves of a 32-bit word (its
/// `arith.muli` by 0x10001 of the byte widened to i32), which a target with a byte permute does
/// in one instruction from the word the byte came from.
pub fn byte_splats<'c, 'a>(loaded: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let widened = tile_dialect::ops::users(loaded).into_iter().filter(|user| {
        tile_ir::is(user, arith::ExtUIOperation::name)
            && user
                .result_at(0)
                .is_some_and(|result| IntegerType::try_from(result.r#type()).is_ok_and(|ty| ty.width() == 32))
    });
    widened
        .flat_map(|widen| tile_dialect::ops::users(widen.result_at(0).expect("a word").into()))
        .filter(|user| {
            tile_ir::is(user, arith::MulIOperation::name)
                && user.operand_at(1).and_then(constant_integer) == Some(SPLAT)
        })
        .collect()
}

/// The factor that puts a byte in both halves of a word.
const SPLAT: i64 = 0x10001;

/// Both halves of `byte` widened to the 16-bit float `ty` at once, each by its `forms` entry (low
/// half, high half: mask, bits to put under it, float to subtract), and the one `high` names
/// taken: the byte in both halves of a word, one mask and one XOR (or OR) of the word, its two
/// floats less their offsets in one paired subtraction. The two elements of a byte compute the
/// same pair, which LLVM keeps once, so a byte costs a splat, a mask-and-XOR and a paired
/// subtraction where each half took its own shift and mask and the two were then packed.
fn half_float_pair<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    byte: Value<'c, 'a>,
    high: Half<'c, 'a>,
    signed: bool,
    forms: [(i64, i64, i64); 2],
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let i32_type: Type = IntegerType::new(b.context, 32).into();
    let [(low_mask, low_under, low_offset), (high_mask, high_under, high_offset)] = forms;
    let word = b.cast(at, tile_ir::arith::extui, byte, i32_type);
    let both = b.muli(at, word, b.integer(at, i32_type, SPLAT));
    let masked = b.andi(at, both, b.integer(at, i32_type, low_mask | high_mask << 16));
    let under = b.integer(at, i32_type, low_under | high_under << 16);
    let placed = put_under(b, at, masked, under, signed);
    let one_word = b.value(
        at,
        tile_ir::vector::from_elements(b.context, crate::attributes::vector(1, i32_type), &[placed], b.location).into(),
    );
    let pair_type = crate::attributes::vector(2, ty);
    let pair = b.cast(at, tile_ir::vector::bitcast, one_word, pair_type);
    let offsets = melior::ir::Attribute::parse(
        b.context,
        &format!("dense<[{low_offset}.0, {high_offset}.0]> : {pair_type}"),
    )
    .expect("a dense pair of floats");
    let offsets = b.value(at, melior::dialect::arith::constant(b.context, offsets, b.location));
    let floats = b.binary(at, |c, x, y, l| tile_ir::arith::subf(c, x, y, l).into(), pair, offsets);
    let lane = |position: i64| {
        let position = crate::attributes::i64_array(b.context, &[position]);
        // Its result type (`ty`) is inferred.
        b.value(
            at,
            tile_ir::vector::extract(b.context, floats, &[], position, b.location).into(),
        )
    };
    match high {
        Half::Known(false) => lane(0),
        Half::Known(true) => lane(1),
        Half::Index(odd) => {
            let is_high = b.compare(at, "ne", odd, b.index(at, 0));
            b.select(at, is_high, lane(1), lane(0))
        }
    }
}

/// The value of an f4E2M1FN code (the low four bits of `half`: sign, two exponent bits, one
/// mantissa bit; exponent bias 1) as float type `ty`, built from its bits: a normal code keeps its
/// mantissa bit as the top fraction bit under the rebiased exponent; the subnormal code (exponent
/// 0) is 0 or 0.5.
fn decode_float<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, half: Value<'c, 'a>, ty: Type<'c>) -> Value<'c, 'a> {
    let (width, fraction, bias) = float_format(ty).expect("checked by widening");
    let bits: Type = IntegerType::new(b.context, width).into();
    let code = b.cast(at, tile_ir::arith::extui, half, bits);
    let exponent = b.andi(at, b.shrui(at, code, b.integer(at, bits, 1)), b.integer(at, bits, 3));
    let mantissa = b.andi(at, code, b.integer(at, bits, 1));
    let rebiased = b.addi(at, exponent, b.integer(at, bits, bias - 1));
    let normal = b.ori(
        at,
        b.shli(at, rebiased, b.integer(at, bits, fraction)),
        b.shli(at, mantissa, b.integer(at, bits, fraction - 1)),
    );
    let subnormal = b.muli(at, mantissa, b.integer(at, bits, (bias - 1) << fraction));
    let zero = b.compare(at, "eq", exponent, b.integer(at, bits, 0));
    let magnitude = b.select(at, zero, subnormal, normal);
    let sign = b.shli(
        at,
        b.andi(at, code, b.integer(at, bits, 8)),
        b.integer(at, bits, width as i64 - 4),
    );
    let value = b.ori(at, magnitude, sign);
    b.cast(at, tile_ir::arith::bitcast, value, ty)
}
