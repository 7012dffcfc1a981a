//! Reductions that keep the block busy. The loop lowering gives each destination element to one
//! thread, which walks the whole reduced dimension alone: a softmax over 4 rows of 1024 keeps 4 of
//! 128 threads working. Here a group of `g` threads shares each destination element instead: each
//! folds every g-th source element into its own slot of a workgroup scratch buffer, and after a
//! barrier one thread per element folds the group's g partial results into the destination.
//!
//! The destination element `e` is still written by thread `e` (`e < kept elements <= threads`), as
//! the loop lowering would, so a thread-owned destination fragment stays thread-owned.

use crate::cpu::{
    builder::{At, Builder},
    compute::{Reduction, accumulate, identity, reduction_input},
};
use melior::{
    Context, RewriterBase,
    ir::{
        BlockLike, Value,
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{alloc_shared, nested_ops, shared_type};
use tile_dialect::positions::OperationAt;

/// One reduction to split: the `tile.reduce`, its scratch tile and the group size.
pub struct Split<'c, 'a> {
    reduce: OperationRef<'c, 'a>,
    scratch: OperationRef<'c, 'a>,
    group: i64,
}

/// Picks the reductions of `kernel` worth splitting across `threads` threads and allocates their
/// scratch tiles (at the top of the kernel body, so the tile machinery places them), within
/// `budget` bytes of workgroup memory. Returns them and the bytes they use.
pub fn plan<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    threads: i64,
    budget: i64,
) -> (Vec<Split<'c, 'a>>, i64) {
    let Some(body) = kernel.body() else {
        return (Vec::new(), 0);
    };
    let mut splits = Vec::new();
    let mut used = 0;
    for reduce in nested_ops(kernel) {
        if !tile_ir::is(&reduce, tile_ir::tile::ReduceOperation::name)
            || super::owned::enclosing_parallel(reduce, kernel).is_some()
        {
            continue;
        }
        let reduction = Reduction::of(reduce);
        let outputs: i64 = reduction.kept.iter().product();
        let extent = reduction.src_shape[reduction.dim];
        // The largest power of two that fits the block and the reduced extent.
        let mut group = 1;
        while outputs * group * 2 <= threads && group * 2 <= extent {
            group *= 2;
        }
        let bytes = outputs * group * super::element_bytes(reduction.ty);
        if group < 2 || used + bytes > budget {
            continue;
        }
        let Some(first) = body.first_operation() else { continue };
        let tile = shared_type(context, &[outputs * group], reduction.ty);
        let Ok(alloc) = alloc_shared(tile, reduce.location()) else {
            continue;
        };
        let scratch = body.insert_operation_before(first, alloc);
        used += bytes;
        splits.push(Split { reduce, scratch, group });
    }
    (splits, used)
}

/// Lowers each planned reduction (before the loop lowering sees it).
pub fn lower<'c>(context: &'c Context, rewriter: &RewriterBase<'c, '_>, splits: &[Split<'c, '_>]) {
    for split in splits {
        let b = Builder {
            context,
            location: split.reduce.location(),
            threads: None,
        };
        lower_one(&b, split);
        rewriter.erase_op(split.reduce);
    }
}

fn lower_one<'c>(b: &Builder<'c>, split: &Split<'c, '_>) {
    let Reduction {
        src,
        dst,
        dim,
        kind,
        clear,
        ty,
        src_shape,
        kept,
    } = Reduction::of(split.reduce);
    let scratch: Value = split.scratch.result_at(0).expect("scratch tile").into();
    let at = At::before(split.reduce);
    let outputs: i64 = kept.iter().product();
    let tid = b.thread_id(at);
    let group = b.index(at, split.group);

    // Phase 1: thread `output * group + lane` folds source elements lane, lane + group, ... of its
    // output into scratch[tid].
    let workers = b.index(at, outputs * split.group);
    let working = b.compare(at, "ult", tid, workers);
    let then = b.if_then(at, working);
    let output = b.divui(then, tid, group);
    let lane = b.remui(then, tid, group);
    let kept_ivs = b.unflatten(then, output, &kept);
    let start = b.constant(then, ty, identity(kind));
    b.store(then, start, scratch, &[tid]);
    let extent = b.index(then, src_shape[dim]);
    let (inner, reduced) = b.for_loop(then, lane, extent, group);
    let mut src_indices = kept_ivs;
    src_indices.insert(dim, reduced);
    let value = b.load(inner, src, &src_indices);
    let value = reduction_input(b, inner, kind, value, ty);
    accumulate(b, inner, kind, value, scratch, &[tid]);
    b.barrier(at);

    // Phase 2: thread `output` folds the group's partial results into the destination.
    let leaders = b.index(at, outputs);
    let leading = b.compare(at, "ult", tid, leaders);
    let then = b.if_then(at, leading);
    let kept_ivs = b.unflatten(then, tid, &kept);
    if clear {
        let start = b.constant(then, ty, identity(kind));
        b.store(then, start, dst, &kept_ivs);
    }
    let base = b.muli(then, tid, group);
    let zero = b.index(then, 0);
    let one = b.index(then, 1);
    let (inner, lane) = b.for_loop(then, zero, group, one);
    let slot = b.addi(inner, base, lane);
    let partial = b.load(inner, scratch, &[slot]);
    accumulate(b, inner, kind, partial, dst, &kept_ivs);
    b.barrier(at);
}
