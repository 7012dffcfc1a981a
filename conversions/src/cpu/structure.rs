//! Rules for the structure: tiles become heap buffers of one block, `tile.parallel` and
//! `tile.pipelined` become plain loops, and `tile.kernel` becomes a loop over the grid that runs each
//! block in turn.

use super::builder::{At, Builder};
use melior::{
    RewriterBase,
    ir::{
        BlockLike, ShapedTypeLike, Value, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use tile_dialect::ops::integer_attribute;
use tile_dialect::positions::OperationAt;

// ---- tile.alloc_shared, tile.alloc_fragment ------------------------------------------------------

/// Whether `op` allocates a tile: shared tiles, fragments and barrier arrays.
pub(crate) fn is_allocation<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    tile_ir::match_op!(op, {
        tile_ir::tile::AllocSharedOperation
        | tile_ir::tile::AllocFragmentOperation
        | tile_ir::tile::AllocBarriersOperation => true,
        _ => false,
    })
}

/// Replaces an allocation by a `memref.alloc` without memory space, freed at the end of the block
/// that holds it (each kernel block gets fresh tiles).
pub fn lower_alloc<'c>(
    b: &Builder<'c>,
    rewriter: &RewriterBase<'c, '_>,
    alloc: OperationRef<'c, '_>,
    memory_space: Option<melior::ir::Attribute<'c>>,
) {
    let at = At::before(alloc);
    let old = alloc.result_at(0).expect("allocation result");
    let tile = MemRefType::try_from(old.r#type()).expect("memref");
    let mut shape: Vec<i64> = tile_dialect::ops::static_sizes(tile)
        .into_iter()
        .map(|size| size.unwrap_or(1))
        .collect();
    // A SPIR-V tile whose layout pads its rows is allocated with the longer rows;
    // the lowered code reaches it at indices only, and its matrix loads stride over the padding.
    // (A target that rearranges its tiles stores padded ones itself, in place: `crate::layout::stored`.)
    if memory_space.is_some_and(tile_dialect::level::is_spirv_storage_class) {
        let padding = alloc
            .attribute(tile_dialect::layout::LAYOUT_ATTRIBUTE)
            .ok()
            .and_then(tile_dialect::layout::SharedLayout::from_attribute)
            .map_or(0, |layout| layout.padding);
        if let Some(last) = shape.last_mut() {
            *last += padding;
        }
    }
    let plain = MemRefType::new(tile.element(), &shape, None, memory_space);
    let new = b.value(
        at,
        melior::dialect::memref::alloc(b.context, plain, &[], &[], None, b.location),
    );
    // Heap tiles are freed at the end of their block; workgroup memory lives as long as the launch.
    if memory_space.is_none() {
        let block = alloc.block().expect("allocation in a block");
        let end = block.terminator().expect("region ops have terminators");
        b.insert(
            At { block, before: end },
            melior::dialect::memref::dealloc(new, b.location),
        );
    }
    rewriter.replace_all_uses_with(old.into(), new);
    rewriter.erase_op(alloc);
}

/// Moves the body of `op` (one block) into the loop body at `inside`, its arguments replaced by
/// `values`, dropping the body's `tile.yield`.
fn inline_body<'c>(
    rewriter: &RewriterBase<'c, '_>,
    op: OperationRef<'c, '_>,
    inside: At<'c, '_>,
    values: &[Value<'c, '_>],
) {
    let body = op.body().expect("body block");
    if let Some(terminator) = body.terminator()
        && tile_ir::is(&terminator, tile_ir::tile::YieldOperation::name)
    {
        rewriter.erase_op(terminator);
    }
    rewriter.inline_block_before(body, inside.before, values);
    rewriter.erase_op(op);
}

// ---- tile.parallel ------------------------------------------------------------------------------

/// Lowers `tile.parallel` to a loop nest over its extents.
pub fn lower_parallel<'c>(b: &Builder<'c>, rewriter: &RewriterBase<'c, '_>, parallel: OperationRef<'c, '_>) {
    let at = At::before(parallel);
    let extents = tile_dialect::ops::parallel_extents(&parallel).expect("verified parallel");
    let (inside, ivs) = b.parallel_nest(at, &extents);
    inline_body(rewriter, parallel, inside, &ivs);
}

// ---- tile.pipelined -----------------------------------------------------------------------------

/// Lowers `tile.pipelined` to the plain loop it means (`stages` only schedules copies on GPUs);
/// returns the end of the loop's body and its induction variable.
pub fn lower_pipelined<'c, 'a>(
    b: &Builder<'c>,
    rewriter: &RewriterBase<'c, '_>,
    pipelined: OperationRef<'c, 'a>,
) -> (At<'c, 'a>, Value<'c, 'a>) {
    let at = At::before(pipelined);
    let lower = pipelined.operand_at(0).expect("verified loop");
    let upper = pipelined.operand_at(1).expect("verified loop");
    let step = if pipelined.operand_count() == 3 {
        pipelined.operand_at(2).expect("step")
    } else {
        b.index(at, 1)
    };
    let _ = integer_attribute(&pipelined, "stages");
    let (inside, iv) = b.for_loop(at, lower, upper, step);
    inline_body(rewriter, pipelined, inside, &[iv]);
    (inside, iv)
}

// ---- tile.kernel --------------------------------------------------------------------------------

/// Lowers `tile.kernel` to a loop nest over the grid: block (bx, by, bz) runs as one iteration.
pub fn lower_kernel<'c>(b: &Builder<'c>, rewriter: &RewriterBase<'c, '_>, kernel: OperationRef<'c, '_>) {
    let at = At::before(kernel);
    let grid: Vec<Value> = kernel.operands().collect();
    let (inside, ivs) = b.loop_nest(at, &grid);
    inline_body(rewriter, kernel, inside, &ivs);
}
