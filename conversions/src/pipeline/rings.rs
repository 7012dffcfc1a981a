//! The asynchronous-copy ops where nothing runs asynchronously (the CPU reference, and GPU targets
//! whose plan keeps copies synchronous), and rings of shared tiles on every target.
//!
//! - A ring (a shared buffer read through `tile.slot`) becomes a shared tile of bytes; each slot
//!   (and any other use of the whole ring) a `memref.view` of it: the slot's tile type is unchanged,
//!   so every lowering downstream sees an ordinary tile whose address starts at the slot.
//! - `tile.copy_async` becomes the `tile.copy` it describes, `tile.arrive` and
//!   `tile.alloc_barriers` disappear: a synchronous copy has landed when it returns (the GPU
//!   lowerings of `tile.copy` end with a barrier of the block); `tile.wait` becomes a barrier of
//!   the block on GPUs (no thread reads a slot, or refills one, before every thread is there).

use crate::cpu::builder::{At, Builder};
use melior::ir::ShapedTypeLike;
use melior::{
    Context,
    ir::{
        BlockLike, Value, ValueLike,
        operation::{OperationBuilder, OperationLike, OperationRef, OperationResult},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::positions::OperationAt;
use tile_dialect::{
    element::Element,
    ops::{copy_async_parts, nested_ops, static_sizes},
};
use tile_ir::tile;

/// Bytes a ring slot (or any shared tile) starts on: wgmma descriptors and 16-byte asynchronous
/// copies address shared memory in 16-byte units, and 128 keeps rows on bank boundaries.
pub const SLOT_ALIGNMENT: i64 = 128;

/// Bytes of one tile of type `memref`.
pub fn tile_bytes(memref: MemRefType) -> i64 {
    let elements: i64 = static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)).product();
    elements * Element::of(memref.element()).map_or(8, |element| element.bytes() as i64)
}

/// `bytes` rounded up to [`SLOT_ALIGNMENT`].
pub fn padded(bytes: i64) -> i64 {
    (bytes + SLOT_ALIGNMENT - 1) / SLOT_ALIGNMENT * SLOT_ALIGNMENT
}

/// Bytes of the shared tiles `kernel` allocates, each rounded up to [`SLOT_ALIGNMENT`]: what one
/// copy of them takes (a ring holds some of them several times).
pub fn shared_tile_bytes(kernel: OperationRef) -> i64 {
    tile_dialect::ops::nested_ops(kernel)
        .iter()
        .filter(|op| tile_ir::is(*op, tile_ir::tile::AllocSharedOperation::name))
        .filter_map(|op| {
            op.result_at(0)
                .and_then(|result| tile_dialect::ops::as_memref(melior::ir::Value::from(result).r#type()))
        })
        .map(|memref| padded(tile_bytes(memref)))
        .sum()
}

/// Bytes from one slot of `ring` to the next: a slot's tile, rounded up to [`SLOT_ALIGNMENT`].
pub fn slot_stride(ring: MemRefType) -> i64 {
    let slots = static_sizes(ring)[0].unwrap_or(1).max(1);
    padded(tile_bytes(ring) / slots)
}

/// Returns whether `alloc` (a `tile.alloc_shared`) is a ring: something reads it through `tile.slot`.
pub fn is_ring(alloc: OperationRef) -> bool {
    tile_ir::is(&alloc, tile::AllocSharedOperation::name)
        && alloc.result_at(0).is_some_and(|result| {
            nested_ops(alloc.parent_operation().expect("in a kernel"))
                .iter()
                .any(|op| {
                    tile_ir::is(op, tile::SlotOperation::name)
                        && op.operand_at(0).is_some_and(|ring| ring == result.into())
                })
        })
}

/// `memref.view bytes[shift][] : ... to ty`. (Built by its generated name: the generated builder
/// has no setter for the view's result, which ODS leaves unnamed, nor infers it.)
fn view<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    bytes: Value<'c, 'a>,
    shift: Value<'c, 'a>,
    ty: melior::ir::Type<'c>,
) -> Value<'c, 'a> {
    b.value(
        at,
        OperationBuilder::new(tile_ir::memref::ViewOperation::name(), b.location)
            .add_operands(&[bytes, shift])
            .add_results(&[ty])
            .build()
            .expect("memref.view"),
    )
}

/// Replaces every ring in `kernel` by a shared tile of bytes and its slots by views of it; on the
/// CPU (`in_workgroup` false) the views are plain memrefs, as the tiles become.
pub fn lower_rings<'c>(context: &'c Context, kernel: OperationRef<'c, '_>, in_workgroup: bool) {
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    // Every ring first: lowering one erases its slots, which a lazy walk would visit after.
    let rings: Vec<OperationRef> = nested_ops(kernel).into_iter().filter(|op| is_ring(*op)).collect();
    for ring in rings {
        let b = Builder {
            context,
            location: ring.location(),
            threads: None,
        };
        let at = At::before(ring);
        let value: Value = ring.result_at(0).expect("ring").into();
        let memref = MemRefType::try_from(value.r#type()).expect("memref");
        let stride = slot_stride(memref);
        let slots = static_sizes(memref)[0].unwrap_or(1);
        let byte_type = MemRefType::new(
            IntegerType::new(context, 8).into(),
            &[stride * slots],
            None,
            memref.memory_space(),
        );
        let bytes = b.value(
            at,
            tile_dialect::ops::alloc_shared(byte_type, ring.location()).expect("tile.alloc_shared"),
        );
        // An alignment the ring's lowering asked for (TMA's swizzled boxes) holds for its bytes.
        if let (Ok(alignment), Ok(result)) = (
            ring.attribute(crate::layout::tma::ALIGNMENT_ATTRIBUTE),
            OperationResult::try_from(bytes),
        ) {
            tile_dialect::ops::set_attribute(result.owner(), crate::layout::tma::ALIGNMENT_ATTRIBUTE, alignment);
        }
        let users: Vec<OperationRef> = nested_ops(kernel)
            .into_iter()
            .filter(|op| op.operands().any(|operand| operand == value))
            .collect();
        for user in users {
            let at = At::before(user);
            let b = Builder {
                location: user.location(),
                ..b
            };
            if tile_ir::is(&user, tile::SlotOperation::name) {
                // A computed slot outside the ring is the program's error (the interpreter reports
                // it); here it wraps around rather than reach memory past the ring.
                let mut slot = user.operand_at(1).expect("slot index");
                if tile_dialect::ops::constant_integer(slot).is_none() {
                    slot = b.remui(at, slot, b.index(at, slots));
                }
                let shift = b.muli(at, slot, b.index(at, stride));
                let tile = view(
                    &b,
                    at,
                    bytes,
                    shift,
                    view_type(user.result_at(0).expect("slot").r#type(), in_workgroup),
                );
                rewriter.replace_all_uses_with(user.result_at(0).expect("slot").into(), tile);
                rewriter.erase_op(user);
            } else {
                let whole = view(&b, at, bytes, b.index(at, 0), view_type(value.r#type(), in_workgroup));
                for (position, operand) in user.operands().enumerate() {
                    if operand == value {
                        tile_dialect::ops::set_operand(user, position, whole);
                    }
                }
            }
        }
        rewriter.erase_op(ring);
    }
}

/// `ty`, without its memory space unless `in_workgroup`.
fn view_type(ty: melior::ir::Type, in_workgroup: bool) -> melior::ir::Type {
    let memref = MemRefType::try_from(ty).expect("a tile");
    if in_workgroup {
        return ty;
    }
    let shape: Vec<i64> = static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)).collect();
    MemRefType::new(memref.element(), &shape, None, None).into()
}

/// Replaces the `tile.copy_async` `op` by the `tile.copy` it describes, which it returns.
pub fn as_copy<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>) -> OperationRef<'c, 'a> {
    let (parts, _, _) = copy_async_parts(&op).expect("verified tile.copy_async");
    let dims = tile_dialect::ops::copy_dims(&op);
    let copy = tile_dialect::ops::copy_spanning(
        context,
        parts.src,
        &parts.src_offsets,
        parts.dst,
        &[],
        dims.as_deref(),
        op.location(),
    )
    .expect("tile.copy");
    let copy = op.block().expect("in a block").insert_operation_before(op, copy);
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(op);
    copy
}

/// Makes every asynchronous copy of `kernel` synchronous: `tile.copy_async` becomes `tile.copy`;
/// barriers and arrivals go; a wait becomes a barrier of the block where the block's threads run
/// together (`on_gpu`: every thread arrived before it waits, so all have arrived once all meet),
/// and goes on the CPU, where one thread runs the block.
pub fn make_synchronous<'c>(context: &'c Context, kernel: OperationRef<'c, '_>, on_gpu: bool) {
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    for op in nested_ops(kernel) {
        tile_ir::match_op!(op, {
            tile::CopyAsyncOperation => {
                as_copy(context, op);
            },
            tile::WaitOperation if on_gpu => {
                Builder {
                    context,
                    location: op.location(),
                    threads: None,
                }
                .barrier(At::before(op));
                rewriter.erase_op(op);
            },
            tile::ArriveOperation | tile::WaitOperation => rewriter.erase_op(op),
            _ => {},
        })
    }
    // (Names first: asking an op without results for one prints it into the error.)
    for op in nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile::AllocBarriersOperation::name))
    {
        let barriers: Value = op.result_at(0).expect("barriers").into();
        if !nested_ops(kernel)
            .iter()
            .any(|user| user.operands().any(|operand| operand == barriers))
        {
            rewriter.erase_op(op);
        }
    }
}

/// What every target does with the asynchronous-copy ops its own lowering left: the copies
/// synchronous, rings as views of bytes (see the module's doc).
pub fn lower<'c>(context: &'c Context, kernel: OperationRef<'c, '_>, in_workgroup: bool) {
    make_synchronous(context, kernel, in_workgroup);
    lower_rings(context, kernel, in_workgroup);
}

/// The allocation a tile value comes from, through `tile.slot` to its ring.
pub fn tile_allocation<'c, 'a>(tile: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let owner = tile_dialect::ops::as_result(tile)?.owner();
    tile_ir::match_op!(owner, {
        tile::SlotOperation => tile_allocation(owner.operand_at(0)?),
        tile::AllocSharedOperation | tile::AllocFragmentOperation | tile::AllocBarriersOperation => Some(owner),
        _ => None,
    })
}
