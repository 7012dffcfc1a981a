//! Typed builders for every tile op, and typed views of the ops with structured operands.
//!
//! Builders check what they can before building and return [`Error::InvalidArgument`] otherwise;
//! the op's verifier (run by `Operation::verify` or a pass manager) checks the rest.

use crate::positions::{BlockAt, OperationAt};
use crate::{Error, Result, ffi};
use melior::ir::AttributeLike;
use melior::{
    Context,
    ir::{
        Attribute, Block, BlockLike, Identifier, Location, Operation, Region, RegionLike, Type, TypeLike, Value,
        ValueLike,
        attribute::{BoolAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        operation::{OperationBuilder, OperationLike},
        r#type::{IntegerType, MemRefType},
    },
};

/// How `tile.reduce` combines elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionKind {
    /// Sum of the elements.
    Sum = 0,
    /// Largest element.
    Max = 1,
    /// Smallest element.
    Min = 2,
    /// Sum of absolute values.
    AbsSum = 3,
    /// Largest absolute value.
    AbsMax = 4,
}

/// Returns the type of a shared tile: `memref<shape x element, #gpu.address_space<workgroup>>`.
pub fn shared_type<'c>(context: &'c Context, shape: &[i64], element: Type<'c>) -> MemRefType<'c> {
    let space = unsafe { Attribute::from_raw(ffi::tileShimWorkgroupSpaceGet(context.to_raw())) };
    MemRefType::new(element, shape, None, Some(space))
}

/// Returns the type of a fragment: `memref<shape x element, #tile.fragment>`.
pub fn fragment_type<'c>(context: &'c Context, shape: &[i64], element: Type<'c>) -> MemRefType<'c> {
    crate::load(context);
    let space = unsafe { Attribute::from_raw(ffi::tileShimFragmentSpaceGet(context.to_raw())) };
    MemRefType::new(element, shape, None, Some(space))
}

/// Returns `memref<*x element>` in `memref`'s memory space: the type a ranked memref is cast to
/// where an op takes a tensor of any rank (`nvgpu.tma.create.descriptor`).
pub fn unranked_type<'c>(memref: MemRefType<'c>) -> Type<'c> {
    let space = memref
        .memory_space()
        .map_or_else(|| unsafe { mlir_sys::mlirAttributeGetNull() }, |space| space.to_raw());
    let element = melior::ir::ShapedTypeLike::element(&memref);
    unsafe { Type::from_raw(mlir_sys::mlirUnrankedMemRefTypeGet(element.to_raw(), space)) }
}

/// Returns the symbol reference `@root::@nested` (e.g. a kernel inside its `gpu.module`, as
/// `gpu.launch_func` names it); melior builds flat references only.
pub fn nested_symbol<'c>(context: &'c Context, root: &str, nested: &str) -> Attribute<'c> {
    let leaf = melior::ir::attribute::FlatSymbolRefAttribute::new(context, nested);
    unsafe {
        Attribute::from_raw(mlir_sys::mlirSymbolRefAttrGet(
            context.to_raw(),
            melior::StringRef::new(root).to_raw(),
            1,
            &leaf.to_raw(),
        ))
    }
}

/// Returns a block with `count` `index` arguments: the body of a kernel (block indices), a pipelined
/// loop (one induction variable) or a parallel loop nest (one index per dimension).
pub fn body_block<'c>(context: &'c Context, count: usize, location: Location<'c>) -> Block<'c> {
    Block::new(&vec![(Type::index(context), location); count])
}

fn attribute<'c>(context: &'c Context, name: &str, value: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
    (Identifier::new(context, name), value)
}

fn i64_attribute(context: &Context, value: i64) -> Attribute<'_> {
    IntegerAttribute::new(IntegerType::new(context, 64).into(), value).into()
}

/// Ends `body` with the implicit `tile.yield` and wraps it in a region.
fn body_region<'c>(body: Block<'c>, location: Location<'c>) -> Region<'c> {
    if body.terminator().is_none() {
        body.append_operation(yield_(location));
    }
    let region = Region::new();
    region.append_block(body);
    region
}

fn expect_arguments(op: &str, body: &Block, expected: usize) -> Result<()> {
    if body.argument_count() == expected {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{op} expects a body with {expected} index arguments, but got {}",
            body.argument_count()
        )))
    }
}

/// Creates `tile.yield`.
pub fn yield_(location: Location) -> Operation {
    OperationBuilder::new("tile.yield", location)
        .build()
        .expect("tile.yield has no operands")
}

/// Creates `tile.kernel grid(grid...) threads(threads) (body's arguments) { body }`. The body needs
/// one `index` argument per grid dimension (see [`body_block`]); its terminator is added.
pub fn kernel<'c>(
    context: &'c Context,
    grid: &[Value<'c, '_>],
    threads: i64,
    body: Block<'c>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    expect_arguments("tile.kernel", &body, grid.len())?;
    Ok(OperationBuilder::new("tile.kernel", location)
        .add_operands(grid)
        .add_attributes(&[attribute(context, "threads", i64_attribute(context, threads))])
        .add_regions([body_region(body, location)])
        .build()?)
}

/// Creates `tile.pipelined %k = lower to upper [step step] stages(stages) { body }`. The body needs one
/// `index` argument, the induction variable.
#[allow(clippy::too_many_arguments)]
pub fn pipelined<'c>(
    context: &'c Context,
    lower: Value<'c, '_>,
    upper: Value<'c, '_>,
    step: Option<Value<'c, '_>>,
    stages: i64,
    body: Block<'c>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    expect_arguments("tile.pipelined", &body, 1)?;
    let mut operands = vec![lower, upper];
    operands.extend(step);
    Ok(OperationBuilder::new("tile.pipelined", location)
        .add_operands(&operands)
        .add_attributes(&[attribute(context, "stages", i64_attribute(context, stages))])
        .add_regions([body_region(body, location)])
        .build()?)
}

/// Creates `tile.parallel (indices) in (extents) { body }`. The body needs one `index` argument per
/// extent.
pub fn parallel<'c>(
    context: &'c Context,
    extents: &[i64],
    body: Block<'c>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    expect_arguments("tile.parallel", &body, extents.len())?;
    Ok(OperationBuilder::new("tile.parallel", location)
        .add_attributes(&[attribute(
            context,
            "extents",
            DenseI64ArrayAttribute::new(context, extents).into(),
        )])
        .add_regions([body_region(body, location)])
        .build()?)
}

/// Returns the extents of a `tile.parallel` (`None` without its `extents` array).
pub fn parallel_extents(op: &melior::ir::operation::OperationRef) -> Option<Vec<i64>> {
    let extents = DenseI64ArrayAttribute::try_from(op.attribute("extents").ok()?).ok()?;
    Some(
        (0..extents.len())
            .filter_map(|index| extents.element(index).ok())
            .collect(),
    )
}

/// Creates `tile.producer { }`: an empty body (its `tile.yield`) to build the producer's code in.
pub fn producer<'c>(location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.producer", location)
        .add_regions([body_region(Block::new(&[]), location)])
        .build()?)
}

/// Creates `tile.alloc_shared : type` (see [`shared_type`]).
pub fn alloc_shared<'c>(r#type: MemRefType<'c>, location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.alloc_shared", location)
        .add_results(&[r#type.into()])
        .build()?)
}

/// Creates `tile.alloc_fragment : type` (see [`fragment_type`]).
pub fn alloc_fragment<'c>(r#type: MemRefType<'c>, location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.alloc_fragment", location)
        .add_results(&[r#type.into()])
        .build()?)
}

/// Creates `tile.copy src[src_offsets], dst[dst_offsets]` (offsets on at most one side), the tile
/// in the trailing dimensions of the side with offsets.
pub fn copy<'c>(
    context: &'c Context,
    src: Value<'c, '_>,
    src_offsets: &[Value<'c, '_>],
    dst: Value<'c, '_>,
    dst_offsets: &[Value<'c, '_>],
    location: Location<'c>,
) -> Result<Operation<'c>> {
    copy_spanning(context, src, src_offsets, dst, dst_offsets, None, location)
}

/// Creates `tile.copy src[src_offsets], dst[dst_offsets] dims [dims]`: the tile spans dimensions
/// `dims` of the side with offsets (its trailing dimensions when `None`).
pub fn copy_spanning<'c>(
    context: &'c Context,
    src: Value<'c, '_>,
    src_offsets: &[Value<'c, '_>],
    dst: Value<'c, '_>,
    dst_offsets: &[Value<'c, '_>],
    dims: Option<&[i64]>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    copy_limited(context, src, src_offsets, dst, dst_offsets, &[], dims, location)
}

/// Creates `tile.copy src[src_offsets], dst[dst_offsets] limits [limits] dims [dims]`: a store
/// into a global tensor that writes only the tile's elements below `limits` (one per tile
/// dimension; none: the whole tile).
#[allow(clippy::too_many_arguments)]
pub fn copy_limited<'c>(
    context: &'c Context,
    src: Value<'c, '_>,
    src_offsets: &[Value<'c, '_>],
    dst: Value<'c, '_>,
    dst_offsets: &[Value<'c, '_>],
    limits: &[Value<'c, '_>],
    dims: Option<&[i64]>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let mut operands = vec![src];
    operands.extend_from_slice(src_offsets);
    operands.push(dst);
    operands.extend_from_slice(dst_offsets);
    operands.extend_from_slice(limits);
    let segments = [
        1,
        src_offsets.len() as i32,
        1,
        dst_offsets.len() as i32,
        limits.len() as i32,
    ];
    let mut attributes = vec![attribute(
        context,
        "operandSegmentSizes",
        DenseI32ArrayAttribute::new(context, &segments).into(),
    )];
    attributes.extend(dims.map(|dims| dims_attribute(context, dims)));
    Ok(OperationBuilder::new("tile.copy", location)
        .add_operands(&operands)
        .add_attributes(&attributes)
        .build()?)
}

/// The name of the attribute of `tile.copy` and `tile.copy_async` that says which dimensions of the
/// buffer with offsets the tile spans.
pub const DIMS: &str = "dims";

fn dims_attribute<'c>(context: &'c Context, dims: &[i64]) -> (Identifier<'c>, Attribute<'c>) {
    attribute(context, DIMS, DenseI64ArrayAttribute::new(context, dims).into())
}

/// Creates `tile.gemm a, b, c {transpose_a?, transpose_b?}`: `c += op(a) * op(b)`.
pub fn gemm<'c>(
    context: &'c Context,
    [a, b, c]: [Value<'c, '_>; 3],
    transpose_a: bool,
    transpose_b: bool,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let unit = Attribute::unit(context);
    let flags: Vec<_> = [("transpose_a", transpose_a), ("transpose_b", transpose_b)]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(name, _)| attribute(context, name, unit))
        .collect();
    Ok(OperationBuilder::new("tile.gemm", location)
        .add_operands(&[a, b, c])
        .add_attributes(&flags)
        .build()?)
}

/// Creates `tile.matmul a, b, c {transpose_b?}`: `c = a * op(b)` on global tensors, in host code.
pub fn matmul<'c>(
    context: &'c Context,
    [a, b, c]: [Value<'c, '_>; 3],
    transpose_b: bool,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let flags: Vec<_> = transpose_b
        .then(|| attribute(context, "transpose_b", Attribute::unit(context)))
        .into_iter()
        .collect();
    Ok(OperationBuilder::new("tile.matmul", location)
        .add_operands(&[a, b, c])
        .add_attributes(&flags)
        .build()?)
}

/// Creates `tile.fill dst, value`.
pub fn fill<'c>(dst: Value<'c, '_>, value: Value<'c, '_>, location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.fill", location)
        .add_operands(&[dst, value])
        .build()?)
}

/// Creates `tile.reduce <kind> src, dst dim(dim) {clear = clear}`.
pub fn reduce<'c>(
    context: &'c Context,
    kind: ReductionKind,
    src: Value<'c, '_>,
    dst: Value<'c, '_>,
    dim: i64,
    clear: bool,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    crate::load(context);
    let kind = unsafe { Attribute::from_raw(ffi::tileShimReductionKindGet(context.to_raw(), kind as i32)) };
    Ok(OperationBuilder::new("tile.reduce", location)
        .add_operands(&[src, dst])
        .add_attributes(&[
            attribute(context, "kind", kind),
            attribute(context, "dim", i64_attribute(context, dim)),
            attribute(context, "clear", BoolAttribute::new(context, clear).into()),
        ])
        .build()?)
}

/// Creates `tile.scan <kind> src, dst dim(dim) {exclusive?}`: each element of `dst` the combination
/// of `src` along `dim` up to it (before it, `exclusive`).
pub fn scan<'c>(
    context: &'c Context,
    kind: ReductionKind,
    [src, dst]: [Value<'c, '_>; 2],
    dim: i64,
    exclusive: bool,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    crate::load(context);
    let kind = unsafe { Attribute::from_raw(ffi::tileShimReductionKindGet(context.to_raw(), kind as i32)) };
    let mut attributes = vec![
        attribute(context, "kind", kind),
        attribute(context, "dim", i64_attribute(context, dim)),
    ];
    if exclusive {
        attributes.push(attribute(context, "exclusive", Attribute::unit(context)));
    }
    Ok(OperationBuilder::new("tile.scan", location)
        .add_operands(&[src, dst])
        .add_attributes(&attributes)
        .build()?)
}

/// Creates `tile.print "message", value`: prints a scalar or every element of a tile, once per block.
pub fn print<'c>(
    context: &'c Context,
    message: &str,
    value: Value<'c, '_>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    crate::load(context);
    Ok(OperationBuilder::new("tile.print", location)
        .add_operands(&[value])
        .add_attributes(&[attribute(
            context,
            "message",
            melior::ir::attribute::StringAttribute::new(context, message).into(),
        )])
        .build()?)
}

/// Creates `tile.alloc_barriers : type` (a 1-D `memref` of `i64` in workgroup memory).
pub fn alloc_barriers<'c>(r#type: MemRefType<'c>, location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.alloc_barriers", location)
        .add_results(&[r#type.into()])
        .build()?)
}

/// Creates `tile.slot ring[index] : ring type -> tile type`.
pub fn slot<'c>(
    ring: Value<'c, '_>,
    index: Value<'c, '_>,
    tile: MemRefType<'c>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.slot", location)
        .add_operands(&[ring, index])
        .add_results(&[tile.into()])
        .build()?)
}

/// Creates `tile.copy_async src[src_offsets], dst, barriers[index] dims [dims]` (the tile in the
/// trailing dimensions of `src` when `dims` is `None`).
pub fn copy_async<'c>(
    context: &'c Context,
    src: Value<'c, '_>,
    src_offsets: &[Value<'c, '_>],
    dst: Value<'c, '_>,
    [barriers, index]: [Value<'c, '_>; 2],
    dims: Option<&[i64]>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let mut operands = vec![src];
    operands.extend_from_slice(src_offsets);
    operands.extend_from_slice(&[dst, barriers, index]);
    let attributes: Vec<_> = dims.map(|dims| dims_attribute(context, dims)).into_iter().collect();
    Ok(OperationBuilder::new("tile.copy_async", location)
        .add_operands(&operands)
        .add_attributes(&attributes)
        .build()?)
}

/// Creates `tile.arrive barriers[index]`.
pub fn arrive<'c>(barriers: Value<'c, '_>, index: Value<'c, '_>, location: Location<'c>) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.arrive", location)
        .add_operands(&[barriers, index])
        .build()?)
}

/// Creates `tile.wait barriers[index], phase`.
pub fn wait<'c>(
    barriers: Value<'c, '_>,
    index: Value<'c, '_>,
    phase: Value<'c, '_>,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    Ok(OperationBuilder::new("tile.wait", location)
        .add_operands(&[barriers, index, phase])
        .build()?)
}

/// The operands of a `tile.copy_async`: the copy, then the barriers and the barrier's index.
pub fn copy_async_parts<'c: 'a, 'a>(
    copy: &impl OperationLike<'c, 'a>,
) -> Option<(CopyParts<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>)> {
    let operands: Vec<Value<'c, 'a>> = copy.operands().collect();
    let count = operands.len();
    if count < 4 {
        return None;
    }
    let src_offsets = operands[1..count - 3].to_vec();
    let spans = spans_of(copy, src_offsets.len(), operands[count - 3]);
    Some((
        CopyParts {
            src: operands[0],
            src_offsets,
            dst: operands[count - 3],
            dst_offsets: Vec::new(),
            spans,
            limits: Vec::new(),
        },
        operands[count - 2],
        operands[count - 1],
    ))
}

/// The dimensions the copy's tile spans in the buffer with `offsets` offsets: its `dims`, else the
/// last ones (as many as `tile` has; all of them when the tile is not a ranked memref).
fn spans_of<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>, offsets: usize, tile: Value) -> Vec<usize> {
    if offsets == 0 {
        return Vec::new();
    }
    if let Some(dims) = copy_dims(copy) {
        return dims.iter().map(|dim| (*dim).max(0) as usize).collect();
    }
    let rank = as_memref(tile.r#type()).map_or(offsets, |memref| {
        use melior::ir::r#type::ShapedTypeLike;
        memref.rank()
    });
    let rank = rank.min(offsets);
    (offsets - rank..offsets).collect()
}

/// The `dims` a copy names, if it names them.
pub fn copy_dims<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>) -> Option<Vec<i64>> {
    let attribute = copy.attribute(DIMS).ok()?;
    let array = DenseI64ArrayAttribute::try_from(attribute).ok()?;
    Some((0..array.len()).filter_map(|i| array.element(i).ok()).collect())
}

/// The dimension of the tile that dimension `dim` of the buffer carries (`spans` as in
/// [`CopyParts::spans`]); `None` where the tile has extent 1 there (an offset alone indexes it).
pub fn tile_dim(spans: &[usize], dim: usize) -> Option<usize> {
    spans.iter().position(|span| *span == dim)
}

/// The indices in a buffer of a tile element: `offsets` (one per dimension of the buffer) with the
/// element's index in the tile (`tile`, one per dimension of the tile) added in the dimensions the
/// tile spans (`spans`, as in [`CopyParts::spans`]).
pub fn place_in<T: Copy>(offsets: &[T], spans: &[usize], tile: &[T], mut add: impl FnMut(T, T) -> T) -> Vec<T> {
    offsets
        .iter()
        .enumerate()
        .map(|(dim, offset)| match tile_dim(spans, dim) {
            Some(tile_dim) if tile_dim < tile.len() => add(*offset, tile[tile_dim]),
            _ => *offset,
        })
        .collect()
}

/// The operands of a `tile.copy`, split into its two sides.
pub struct CopyParts<'c, 'a> {
    /// The buffer read.
    pub src: Value<'c, 'a>,
    /// The tile's origin in `src` (empty when `src` is the tile).
    pub src_offsets: Vec<Value<'c, 'a>>,
    /// The buffer written.
    pub dst: Value<'c, 'a>,
    /// The tile's origin in `dst` (empty when `dst` is the tile).
    pub dst_offsets: Vec<Value<'c, 'a>>,
    /// The dimensions of the side with offsets that the tile spans, increasing (its last ones
    /// unless the copy's `dims` names others); empty when neither side has offsets.
    pub spans: Vec<usize>,
    /// Where the tile written ends, one index per tile dimension (empty: the whole tile).
    pub limits: Vec<Value<'c, 'a>>,
}

/// Returns the two sides of a `tile.copy`. Buffers are memrefs and offsets are `index` values, so the
/// operand types tell where one side ends.
pub fn copy_parts<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>) -> Option<CopyParts<'c, 'a>> {
    let mut operands: Vec<Value<'c, 'a>> = copy.operands().collect();
    let limits = operands.split_off(operands.len().checked_sub(limit_count(copy))?);
    let split = 1 + operands
        .get(1..)?
        .iter()
        .position(|value| value.r#type().is_mem_ref())?;
    let (src_offsets, dst_offsets) = (operands[1..split].to_vec(), operands[split + 1..].to_vec());
    let spans = if src_offsets.is_empty() {
        spans_of(copy, dst_offsets.len(), operands[0])
    } else {
        spans_of(copy, src_offsets.len(), operands[split])
    };
    Some(CopyParts {
        src: operands[0],
        src_offsets,
        dst: operands[split],
        dst_offsets,
        spans,
        limits,
    })
}

/// The number of `limits` operands of a `tile.copy` (its last operand segment; 0 for an op
/// without one).
fn limit_count<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>) -> usize {
    copy.attribute("operandSegmentSizes")
        .ok()
        .and_then(|attribute| DenseI32ArrayAttribute::try_from(attribute).ok())
        .filter(|segments| segments.len() == 5)
        .and_then(|segments| segments.element(4).ok())
        .map_or(0, |count| count.max(0) as usize)
}

/// Returns the value of an integer attribute of `op`.
pub fn integer_attribute<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<i64> {
    op.attribute(name)
        .ok()
        .and_then(|attr| IntegerAttribute::try_from(attr).ok())
        .map(|attr| attr.value())
}

/// Whether `memref`'s layout has a strided form (what LLVM's memref descriptors need; melior's
/// `strides_and_offset` drops the answer).
pub fn has_strided_form(memref: melior::ir::r#type::MemRefType) -> bool {
    use melior::ir::{ShapedTypeLike, TypeLike};
    let mut strides = vec![0i64; memref.rank()];
    let mut offset = 0i64;
    let ty: melior::ir::Type = memref.into();
    unsafe { mlir_sys::mlirMemRefTypeGetStridesAndOffset(ty.to_raw(), strides.as_mut_ptr(), &mut offset).value != 0 }
}

/// Whether some op uses `value`.
pub fn has_uses(value: Value) -> bool {
    use melior::ir::ValueLike;
    unsafe { !mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// The ops that use `value`, each once, from its use list.
pub fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<melior::ir::operation::OperationRef<'c, 'a>> {
    use melior::ir::ValueLike;
    let mut users: Vec<melior::ir::operation::OperationRef> = Vec::new();
    let mut operand = unsafe { mlir_sys::mlirValueGetFirstUse(value.to_raw()) };
    while !unsafe { mlir_sys::mlirOpOperandIsNull(operand) } {
        let user = unsafe { melior::ir::operation::OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(operand)) };
        if !users.contains(&user) {
            users.push(user);
        }
        operand = unsafe { mlir_sys::mlirOpOperandGetNextUse(operand) };
    }
    users
}

/// Returns the element type of a shaped type (memref, vector, tensor), or `ty` itself.
pub fn scalar_type(ty: Type) -> Type {
    unsafe {
        if mlir_sys::mlirTypeIsAShaped(ty.to_raw()) {
            Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw()))
        } else {
            ty
        }
    }
}

/// The lanes of `ty` where it is a 1-D vector.
pub fn vector_lanes(ty: Type) -> Option<i64> {
    unsafe {
        (mlir_sys::mlirTypeIsAVector(ty.to_raw()) && mlir_sys::mlirShapedTypeGetRank(ty.to_raw()) == 1)
            .then(|| mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), 0))
    }
}

/// `ty` with its element type replaced by `element` where it is a vector (its shape kept), else
/// `element` itself where `ty` is a scalar; `None` for other shaped types.
pub fn vector_or_scalar_of<'c>(ty: Type<'c>, element: Type<'c>) -> Option<Type<'c>> {
    unsafe {
        if mlir_sys::mlirTypeIsAVector(ty.to_raw()) {
            let rank = mlir_sys::mlirShapedTypeGetRank(ty.to_raw());
            let shape: Vec<u64> = (0..rank)
                .map(|dim| mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), dim as isize) as u64)
                .collect();
            Some(Type::vector(&shape, element))
        } else if mlir_sys::mlirTypeIsAShaped(ty.to_raw()) {
            None
        } else {
            Some(element)
        }
    }
}

/// Returns whether `memref` has the identity layout (row-major and contiguous: no strided or affine
/// map layout), asked of its layout attribute rather than of its printed form.
pub fn has_identity_layout(memref: melior::ir::r#type::MemRefType) -> bool {
    use melior::ir::TypeLike;
    unsafe {
        let layout = mlir_sys::mlirMemRefTypeGetLayout(memref.to_raw());
        mlir_sys::mlirAttributeIsAAffineMap(layout)
            && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirAffineMapAttrGetValue(layout))
    }
}

/// Returns the sizes of a memref type, `None` for dynamic ones.
pub fn static_sizes(memref: melior::ir::r#type::MemRefType) -> Vec<Option<i64>> {
    use melior::ir::{ShapedTypeLike, r#type::DimSize};
    (0..memref.rank())
        .map(|dim| match memref.dim_size(dim) {
            Ok(DimSize::Static(size)) => Some(size as i64),
            _ => None,
        })
        .collect()
}

/// Returns `ty` as a memref type, or `None` for any other type. Asked of the type: melior's
/// `MemRefType::try_from` prints a type it refuses into its error, and printing builds an
/// `AsmState`, which gathers every loaded dialect's interfaces (2-3% of a compilation when the
/// lowerings asked it of every operand).
pub fn as_memref(ty: Type) -> Option<MemRefType> {
    ty.is_mem_ref().then(|| MemRefType::try_from(ty).ok()).flatten()
}

/// Returns the op result `value` is, or `None` for a block argument (without printing it, as
/// melior's `OperationResult::try_from` does into its error: see [`as_memref`]).
pub fn as_result<'c, 'a>(value: Value<'c, 'a>) -> Option<melior::ir::operation::OperationResult<'c, 'a>> {
    value
        .is_operation_result()
        .then(|| melior::ir::operation::OperationResult::try_from(value).ok())
        .flatten()
}

/// Returns the block argument `value` is, or `None` for an op result (without printing it, as
/// melior's `BlockArgument::try_from` does into its error: see [`as_memref`]).
pub fn as_argument<'c, 'a>(value: Value<'c, 'a>) -> Option<melior::ir::block::BlockArgument<'c, 'a>> {
    value
        .is_block_argument()
        .then(|| melior::ir::block::BlockArgument::try_from(value).ok())
        .flatten()
}

/// Returns the shape of a memref value, -1 for dynamic sizes (empty for a value that is not a
/// memref).
pub fn memref_shape(value: Value) -> Vec<i64> {
    as_memref(value.r#type())
        .map(|memref| {
            static_sizes(memref)
                .into_iter()
                .map(|size| size.unwrap_or(-1))
                .collect()
        })
        .unwrap_or_default()
}

/// Returns the value of an `arith.constant` of integer or index type that defines `value`.
pub fn constant_integer(value: Value) -> Option<i64> {
    let result = as_result(value)?;
    let owner = result.owner();
    if owner.name().as_string_ref().as_str().ok()? != "arith.constant" {
        return None;
    }
    integer_attribute(&owner, "value")
}

/// Returns the value of a float `arith.constant` that defines `value`.
pub fn constant_float(value: Value) -> Option<f64> {
    let owner = as_result(value)?.owner();
    if op_name(&owner) != "arith.constant" {
        return None;
    }
    melior::ir::attribute::FloatAttribute::try_from(owner.attribute("value").ok()?)
        .ok()
        .map(|attribute| attribute.value())
}

/// Returns a detached deep copy of `op` (same operands, attributes and regions), to be inserted
/// elsewhere and have its operands remapped.
pub fn clone_detached<'c>(op: melior::ir::operation::OperationRef<'c, '_>) -> Operation<'c> {
    unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) }
}

/// Returns every op named `name` nested (at any depth) in `root`, in pre-order.
pub fn find_ops<'c, 'a>(
    root: melior::ir::operation::OperationRef<'c, 'a>,
    name: &str,
) -> Vec<melior::ir::operation::OperationRef<'c, 'a>> {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let mut found = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok(name) {
            // The walk hands out shorter-lived references to ops that live as long as `root`'s.
            found.push(unsafe { melior::ir::operation::OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    found
}

/// Sets the discardable attribute `name` of `op` (an op the caller may modify, e.g. in a pass).
pub fn set_attribute(op: melior::ir::operation::OperationRef, name: &str, value: Attribute) {
    use melior::ir::operation::OperationMutLike;
    unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.set_attribute(name, value);
}

/// Removes the attribute `name` of `op`, if it has one.
pub fn remove_attribute(op: melior::ir::operation::OperationRef, name: &str) {
    use melior::ir::operation::OperationMutLike;
    let _ = unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.remove_attribute(name);
}

/// Runs `body` with the context `op` lives in, for melior APIs that take `&Context`.
pub fn with_context<'c, T>(op: melior::ir::operation::OperationRef<'c, '_>, body: impl FnOnce(&'c Context) -> T) -> T {
    let context = op.context();
    // `to_ref` reinterprets the ContextRef itself, so it must outlive the borrow: it lives in this
    // frame for the whole call of `body`.
    body(unsafe { context.to_ref() })
}

/// Returns every op nested (at any depth) in `root`, without `root`, in pre-order.
pub fn nested_ops<'c, 'a>(
    root: melior::ir::operation::OperationRef<'c, 'a>,
) -> Vec<melior::ir::operation::OperationRef<'c, 'a>> {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let mut found = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        // The walk hands out shorter-lived references to ops that live as long as `root`'s.
        found.push(unsafe { melior::ir::operation::OperationRef::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
    found.retain(|op| *op != root);
    found
}

/// Returns true when `value` is computed inside `ancestor` (by an op nested in it, or as an argument
/// of a block in one of its regions).
pub fn is_defined_inside(value: Value, ancestor: melior::ir::operation::OperationRef) -> bool {
    let start = if let Some(result) = as_result(value) {
        Some(result.owner().to_raw())
    } else {
        as_argument(value).and_then(|argument| argument.owner().parent_operation().map(|op| op.to_raw()))
    };
    let mut current = start.map(|raw| unsafe { melior::ir::operation::OperationRef::from_raw(raw) });
    while let Some(op) = current {
        if op == ancestor {
            return true;
        }
        current = op.parent_operation();
    }
    false
}

/// Returns the reduction kind of a `tile.reduce`.
pub fn reduction_kind<'c: 'a, 'a>(reduce: &impl OperationLike<'c, 'a>) -> Option<ReductionKind> {
    reduction_kind_attribute(reduce, "kind")
}

/// Returns how a `tile.copy` with `atomic <kind>` updates its destination's elements (`None`: it
/// stores them).
pub fn copy_atomic<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>) -> Option<ReductionKind> {
    reduction_kind_attribute(copy, "atomic")
}

/// Whether a `tile.copy` into 8-bit floats saturates: values past the largest finite one become it.
pub fn copy_saturates<'c: 'a, 'a>(copy: &impl OperationLike<'c, 'a>) -> bool {
    copy.attribute("saturate").is_ok()
}

/// Reads the `#tile.reduction` attribute `name` of `op`.
fn reduction_kind_attribute<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<ReductionKind> {
    let attr = op.attribute(name).ok()?;
    Some(match unsafe { ffi::tileShimReductionKindValue(attr.to_raw()) } {
        0 => ReductionKind::Sum,
        1 => ReductionKind::Max,
        2 => ReductionKind::Min,
        3 => ReductionKind::AbsSum,
        4 => ReductionKind::AbsMax,
        _ => return None,
    })
}

/// Sets operand `index` of `op` to `value` (an op the caller may modify, e.g. in a pass).
pub fn set_operand<'c, 'a>(op: melior::ir::operation::OperationRef<'c, 'a>, index: usize, value: Value<'c, 'a>) {
    use melior::ir::operation::OperationMutLike;
    unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.set_operand(index, value);
}

/// Returns the string attribute `name` of `op` (for example `sym_name`), if it has one.
pub fn string_attribute<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name)
        .ok()
        .filter(|attribute| attribute.is_string())
        .and_then(attribute_text)
}

/// The text of a string or flat symbol reference attribute (`None` for other attributes or text
/// that is not UTF-8), read from MLIR's string reference itself: melior's reading of an empty one
/// (`@""`, `""`) indexes before its start and panics.
pub fn attribute_text(attribute: Attribute) -> Option<String> {
    use melior::ir::AttributeLike;
    let raw = attribute.to_raw();
    unsafe {
        let text = if mlir_sys::mlirAttributeIsAString(raw) {
            mlir_sys::mlirStringAttrGetValue(raw)
        } else if mlir_sys::mlirAttributeIsAFlatSymbolRef(raw) {
            mlir_sys::mlirFlatSymbolRefAttrGetValue(raw)
        } else {
            return None;
        };
        if text.length == 0 {
            return Some(String::new());
        }
        let bytes = std::slice::from_raw_parts(text.data as *const u8, text.length);
        std::str::from_utf8(bytes).ok().map(str::to_owned)
    }
}

/// Returns the symbol a `FlatSymbolRefAttr` attribute `name` of `op` names (a call's `callee`).
pub fn flat_symbol<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name)
        .ok()
        .filter(|attribute| attribute.is_flat_symbol_ref())
        .and_then(attribute_text)
}

/// Returns the name of `op` (`tile.gemm`, `memref.load`, ...), as the context holds it: no copy (the
/// rules ask every op's name, often several times).
pub fn op_name<'c>(op: &melior::ir::operation::OperationRef<'c, '_>) -> &'c str {
    // An op's name is an identifier interned in its context, which outlives `'c`.
    let name = unsafe {
        let name = mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw()));
        std::slice::from_raw_parts(name.data as *const u8, name.length)
    };
    // Op names are ASCII: checked word by word, that is a fraction of full UTF-8 validation
    // (asked some 150,000 times per attention kernel).
    if name.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(name) }
    } else {
        std::str::from_utf8(name).unwrap_or_default()
    }
}

/// Returns the symbol name of the closest op around `op` that has one (the host function of a
/// kernel), or `fallback`.
pub fn enclosing_symbol(op: melior::ir::operation::OperationRef, fallback: &str) -> String {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if let Some(name) = string_attribute(&current, "sym_name") {
            return name;
        }
        parent = current.parent_operation();
    }
    fallback.into()
}

/// The `function_type` of a function op (`func.func`, `gpu.func`), if it has one.
pub fn function_signature<'c>(
    function: &melior::ir::operation::OperationRef<'c, '_>,
) -> Option<melior::ir::r#type::FunctionType<'c>> {
    use melior::ir::{attribute::TypeAttribute, r#type::FunctionType};
    let attribute = TypeAttribute::try_from(function.attribute("function_type").ok()?).ok()?;
    FunctionType::try_from(attribute.value()).ok()
}

/// Sets a function op's `function_type` to take what its entry block takes (its results
/// unchanged), after a pass changed the types of the block's arguments.
pub fn signature_from_entry(context: &Context, function: melior::ir::operation::OperationRef) {
    use melior::ir::{attribute::TypeAttribute, r#type::FunctionType};
    let (Some(entry), Some(signature)) = (function.body(), function_signature(&function)) else {
        return;
    };
    // The entry block's first arguments only: a gpu.func's memory attributions follow them.
    let inputs: Vec<Type> = (0..signature.input_count())
        .filter_map(|index| entry.argument_at(index).map(|argument| argument.r#type()))
        .collect();
    let results: Vec<Type> = (0..signature.result_count())
        .filter_map(|index| signature.result(index).ok())
        .collect();
    let updated = TypeAttribute::new(FunctionType::new(context, &inputs, &results).into());
    set_attribute(function, "function_type", updated.into());
}
