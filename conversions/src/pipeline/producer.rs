//! The producer warpgroup on TMA targets: a kernel with a `tile.producer` (what `tile-expand-pipelines`
//! writes for schedules with `producer = "warpgroup"`) is launched with one warpgroup more than its
//! `threads`. Thread `threads` (the warpgroup's first) runs the producer's body, issuing every
//! TMA copy of the ring and arriving on the barriers its copies count on; the ops after the
//! producer run on threads 0 .. `threads` - 1, whose block-wide barriers become named barrier 1
//! of those threads (the producer never meets them); the ops before it run on the whole block
//! (allocations, the barriers' initialization and its block-wide barrier).
//!
//! Registers: ptxas gives each thread of a block of W warpgroups at most 16,384 / (32 W) (168
//! for three: [`crate::target::Multiprocessors`]). The producer's warpgroup gives back all but
//! `PRODUCER_REGISTERS` (`setmaxnreg.dec`), and the kernel's threads take what that frees
//! (`setmaxnreg.inc`): 232 each for two warpgroups, what a 128x256 f32 accumulator needs. One
//! warpgroup beside the producer starts with 255 a thread, all it can address: nothing moves.

use crate::cpu::builder::{At, Builder};
use crate::target::Target;
use melior::{
    Context,
    ir::{
        BlockLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use tile_dialect::ops::{nested_ops, op_name};
use tile_dialect::positions::OperationAt;

/// The named barrier the kernel's threads meet at when a producer runs beside them (0 is the
/// whole block's).
const THREADS_BARRIER: i64 = 1;

/// `nvvm.setmaxregister <action> <count>` at `at`.
fn set_max_registers<'c>(b: &Builder<'c>, at: At<'c, '_>, action: &str, count: i64) {
    let context = b.context;
    let action = melior::ir::Attribute::parse(context, &format!("#nvvm<action {action}>")).expect("nvvm action");
    let count = IntegerAttribute::new(IntegerType::new(context, 32).into(), count);
    b.insert(
        at,
        tile_ir::nvvm::setmaxregister(context, count, action, b.location).into(),
    );
}

/// The `tile.producer` of `kernel`, if it has one.
pub fn producer_of<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    nested_ops(kernel)
        .into_iter()
        .find(|op| tile_ir::is(op, tile_ir::tile::ProducerOperation::name))
}

/// The threads `kernel`'s block is launched with: its `threads`, and the producer's warpgroup where it has
/// a `tile.producer`.
pub fn block_threads(kernel: OperationRef, threads: i64) -> i64 {
    threads
        + if producer_of(kernel).is_some() {
            tile_dialect::PRODUCER_THREADS
        } else {
            0
        }
}

/// Checks that the register rules lower `kernel`'s producer (`planned`: their plan): its one
/// thread issues TMA copies, which only those rules write, and nothing the threads copy
/// themselves.
pub fn check<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &Target,
    planned: &Result<crate::registers::Plan<'c, 'a>, crate::registers::Unsupported<'c, 'a>>,
) -> Result<(), crate::kernels::Failure<'c, 'a>> {
    let Some(producer) = producer_of(kernel) else {
        return Ok(());
    };
    let plan = planned.as_ref().map_err(|(op, why)| {
        (producer, format!("needs the kernel's fragments in registers on {target} (its copies are TMA copies, which only those rules write), but '{}' at {} {why}", op_name(op), op.location()))
    })?;
    for copy in nested_ops(producer)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile_ir::tile::CopyAsyncOperation::name))
    {
        let Some((parts, _, _)) = tile_dialect::ops::copy_async_parts(&copy) else {
            continue;
        };
        if !plan.filled_by_tma(parts.dst) {
            return Err((
                copy,
                format!(
                    "is in a tile.producer, whose one thread issues TMA copies only, but TMA does not fill this tile on {target} (TMA fills rings of wgmma operand tiles read from 2-D to 5-D tensors in 128-byte swizzled boxes, and plain tiles of rows of 16-byte multiples from static tensors in unswizzled ones); issue the copy from the kernel's threads"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `op` is inside a `tile.producer`, which one thread runs: the copies and arrivals that
/// one thread of the block issues elsewhere (thread 0) need no guard there.
pub fn in_producer(op: OperationRef) -> bool {
    std::iter::successors(op.parent_operation(), |parent| parent.parent_operation())
        .any(|parent| tile_ir::is(&parent, tile_ir::tile::ProducerOperation::name))
}

/// Whether a producer warpgroup beside `threads` threads gives its registers to them: only where
/// they gain a step of 8 by it (one warpgroup beside the producer already holds all a thread can
/// address). The counts assume the block has its multiprocessor to itself, which the kernel then
/// declares (one block a multiprocessor at least: without it ptxas cannot tell the count a thread
/// starts from and ignores the moves, C7508).
fn moves_registers(threads: i64, target: &Target) -> bool {
    target.multiprocessors.as_ref().is_some_and(|multiprocessor| {
        (multiprocessor.registers_beside_producer)(threads)
            >= (multiprocessor.registers_at_start)(threads + tile_dialect::PRODUCER_THREADS) + 8
    })
}

/// Splits the lowered `kernel` at its `tile.producer` (see the module's doc): the producer's body
/// into `if tid == threads` (after its warpgroup's `setmaxnreg.dec`, where registers move), the
/// ops after it into `if tid < threads` (after `setmaxnreg.inc`) with their `gpu.barrier`s made
/// named barriers of `threads` threads. Returns whether registers moved (see [`moves_registers`]),
/// which the kernel then declares.
pub fn split<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, threads: i64, target: &Target) -> bool {
    let Some(producer) = producer_of(kernel) else {
        return false;
    };
    let multiprocessor = target
        .multiprocessors
        .as_ref()
        .expect("a producer only where the target has TMA rings (checked before the lowering)");
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let b = Builder {
        context,
        location: producer.location(),
        threads: None,
    };
    let at = At::before(producer);
    let tid = b.thread_id(at);
    let bound = b.index(at, threads);
    // The kernel's threads: every op after the producer but the kernel's terminator.
    let after: Vec<OperationRef> = std::iter::successors(producer.next_in_block(), |op| op.next_in_block()).collect();
    let consumers = b.if_then(
        At::before(*after.last().expect("the kernel's terminator")),
        b.compare(at, "ult", tid, bound),
    );
    for op in &after[..after.len() - 1] {
        rewriter.move_op_before(*op, consumers.before);
    }
    let consumer_if = consumers.block.parent_operation().expect("scf.if");
    for barrier in nested_ops(consumer_if)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile_ir::gpu::BarrierOperation::name))
    {
        let at = At::before(barrier);
        let b = Builder {
            location: barrier.location(),
            ..b
        };
        super::mbarriers::named_barrier(
            &b,
            at,
            super::mbarriers::i32_constant(&b, at, THREADS_BARRIER),
            super::mbarriers::i32_constant(&b, at, threads),
        );
        rewriter.erase_op(barrier);
    }
    let first = consumers.block.first_operation().expect("the kernel's threads' ops");
    let moves = moves_registers(threads, target);
    if moves {
        let raised = (multiprocessor.registers_beside_producer)(threads);
        set_max_registers(&b, At::before(first), "increase", raised);
    }
    // The producer: its warpgroup gives its registers back, its first thread runs the body.
    let warpgroup = b.if_then(at, b.compare(at, "uge", tid, bound));
    if moves {
        set_max_registers(&b, warpgroup, "decrease", multiprocessor.producer_registers);
    }
    let leader = b.if_then(warpgroup, b.compare(warpgroup, "eq", tid, bound));
    let body = producer.body().expect("the producer's body");
    let ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    for op in &ops[..ops.len() - 1] {
        rewriter.move_op_before(*op, leader.before);
    }
    rewriter.erase_op(producer);
    moves
}
