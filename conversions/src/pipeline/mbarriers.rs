//! The barrier ops as mbarriers in shared memory, on the targets that have them (TMA rings:
//! [`crate::target::Target::tma`]).
//!
//! | op | lowering |
//! |----|----------|
//! | `tile.alloc_barriers` | kept as a shared tile of `i64`s; after it, once every thread is past it, thread 0 initializes each mbarrier to expect one arrival per thread of the kernel where copies count on it, one per warp where none does (a slot's release), one in all on barriers only TMA fills or a `tile.producer` arrives on |
//! | `tile.arrive` | per thread `cp.async.mbarrier.arrive` where the barriers count copies (the phase also waits for the thread's cp.async copies), then `mbarrier.arrive` (release: its plain stores and reads are ordered before the waiters'); on barriers no copy counts on, `bar.warp.sync` then the warp's first lane's `mbarrier.arrive`; on barriers only TMA fills, thread 0's `mbarrier.arrive` alone |
//! | `tile.wait` | `mbarrier.try_wait.parity` on the phase's parity (acquire), then, in a kernel whose threads write ring slots that wgmma reads (cp.async), the async-proxy fence, so that wgmma reads what the copies wrote |
//!
//! `tile.copy_async` into a tile that wgmma reads as core matrices, or into a plain row-major tile
//! with rows of whole 16-byte pieces, is the register rules' (16-byte cp.async copies, the
//! target's tensor-core rules); any other becomes synchronous (`super::rings`).

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        Attribute, Type, Value, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use tile_dialect::ops::{nested_ops, static_sizes};
use tile_dialect::positions::OperationAt;
use tile_ir::{nvvm, tile};

/// The unit attribute on a `tile.alloc_barriers` some copy written by the threads themselves
/// (cp.async: the generic proxy) counts on: the waits of a kernel with one fence the async proxy,
/// so that wgmma reads what those copies wrote (and those copies do not overtake its reads). A
/// kernel whose rings only TMA fills (the async proxy, like wgmma) waits without the fence.
pub const GENERIC_WRITES_ATTRIBUTE: &str = tile_dialect::decisions::GENERIC_WRITES;

/// The unit attribute on a `tile.alloc_barriers` that TMA copies count on (set by the TMA copy rule).
/// Where no other copy counts on those barriers, a phase waits only for the copy engine's bytes,
/// which the thread issuing the copies expects before it issues them: that thread's arrival is
/// the only one the phase needs (the other threads wrote nothing the waiters read).
pub const TMA_FILLS_ATTRIBUTE: &str = tile_dialect::decisions::TMA_FILLS;

/// The unit attribute on a `tile.alloc_barriers` that copies the threads issue themselves (cp.async)
/// into tiles only the threads read count on: every thread's arrival counts (they track their own
/// copies), but no reader is in the async proxy, so the waits need no fence.
pub const THREAD_COPIES_ATTRIBUTE: &str = tile_dialect::decisions::THREAD_COPIES;

/// Threads of a warp.
const WARP: i64 = 32;

/// The suspend-time hint of a wait, in nanoseconds (the try_wait loop re-polls after it).
const WAIT_HINT_NS: i64 = 10_000_000;

/// `!llvm.ptr<3>` to barrier `index` of `barriers`.
pub(crate) fn barrier_pointer<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    barriers: Value<'c, 'a>,
    index: Value<'c, 'a>,
) -> Value<'c, 'a> {
    let context = b.context;
    let base = b.aligned_pointer(at, barriers);
    // A computed index outside the barriers wraps around rather than reach other shared memory.
    let count = tile_dialect::ops::as_memref(barriers.r#type())
        .map(|memref| static_sizes(memref)[0].unwrap_or(1))
        .unwrap_or(1);
    let index = if tile_dialect::ops::constant_integer(index).is_some() {
        index
    } else {
        b.remui(at, index, b.index(at, count))
    };
    let offset = b.muli(at, index, b.index(at, 8));
    let address = b.addi(at, base, offset);
    let i64_type: Type = IntegerType::new(context, 64).into();
    let address = b.cast(at, tile_ir::arith::index_cast, address, i64_type);
    b.cast(
        at,
        tile_ir::llvm::inttoptr,
        address,
        crate::attributes::llvm_pointer(context, 3),
    )
}

/// An `i32` constant at `at`.
pub(crate) fn i32_constant<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, value: i64) -> Value<'c, 'a> {
    b.integer(at, IntegerType::new(b.context, 32).into(), value)
}

/// `bar.sync id, threads` at `at`: named barrier `id` (an i32) of `threads` (an i32) threads.
pub(crate) fn named_barrier<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, id: Value<'c, 'a>, threads: Value<'c, 'a>) {
    let barrier = nvvm::BarrierOperation::builder(b.context, b.location)
        .barrier_id(id)
        .number_of_threads(threads)
        .build();
    // The id, the thread count, no reduction predicate.
    b.insert(at, tile_ir::with_segments(b.context, barrier, &[1, 1, 0]));
}

/// The barriers of `kernel` that some `tile.copy_async` counts on (read before the copies are
/// lowered).
pub fn counting_barriers<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    counting_barriers_of(&nested_ops(kernel))
}

/// [`counting_barriers`] among `ops`.
pub fn counting_barriers_of<'c, 'a>(ops: &[OperationRef<'c, 'a>]) -> Vec<Value<'c, 'a>> {
    ops.iter()
        .filter(|op| tile_ir::is(*op, tile::CopyAsyncOperation::name))
        .filter_map(|copy| tile_dialect::ops::copy_async_parts(copy).map(|(_, barriers, _)| barriers))
        .collect()
}

/// Lowers the barrier ops of `kernel` (see the module's doc); `threads` is the block's size,
/// `counting` what [`counting_barriers`] said.
pub fn lower_barriers<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    threads: i64,
    counting: &[Value<'c, 'a>],
) {
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let ops = nested_ops(kernel);
    let fence = ops.iter().any(|op| {
        tile_ir::is(op, tile::AllocBarriersOperation::name) && op.attribute(GENERIC_WRITES_ATTRIBUTE).is_ok()
    });
    // The copies left here become synchronous (`super::rings`): the threads write those slots.
    let thread_filled = counting_barriers_of(&ops);
    let leader_only = |barriers: Value<'c, 'a>| {
        tile_dialect::ops::as_result(barriers).is_some_and(|result| {
            let allocation = result.owner();
            allocation.attribute(TMA_FILLS_ATTRIBUTE).is_ok()
                && allocation.attribute(GENERIC_WRITES_ATTRIBUTE).is_err()
                && allocation.attribute(THREAD_COPIES_ATTRIBUTE).is_err()
        }) && !thread_filled.contains(&barriers)
    };
    // Barriers a producer arrives on count its one thread's arrival (the verifier keeps the
    // kernel's threads off them).
    let produced: Vec<Value> = ops
        .iter()
        .filter(|op| tile_ir::is(*op, tile::ArriveOperation::name) && super::producer::in_producer(**op))
        .filter_map(|op| op.operand_at(0))
        .collect();
    // Barriers no copy counts on only say that the threads are done reading a slot: a warp says
    // it once, its first lane after the warp has met (32 times fewer arrivals on one mbarrier).
    let released = |barriers: Value<'c, 'a>| {
        !counting.contains(&barriers) && !leader_only(barriers) && !produced.contains(&barriers)
    };
    // In a kernel whose clusters multicast, a block's copies write every block's slots: a slot is
    // free once the threads of every block are done reading it, so each warp releases it in every
    // block of its cluster, and the barriers are set up (and their setup seen) cluster-wide.
    let cluster = tile_dialect::ops::integer_attribute(&kernel, tile_dialect::decisions::MULTICAST.name);
    let last_allocation = ops
        .iter()
        .rev()
        .find(|op| tile_ir::is(*op, tile::AllocBarriersOperation::name))
        .copied();
    for op in ops {
        let b = Builder {
            context,
            location: op.location(),
            threads: None,
        };
        tile_ir::match_op!(op, {
            tile::AllocBarriersOperation => {
                let barriers: Value = op.result_at(0).expect("barriers").into();
                let count = tile_dialect::ops::as_memref(barriers.r#type())
                    .map(|memref| static_sizes(memref)[0].unwrap_or(1))
                    .unwrap_or(1);
                let Some(next) = op.next_in_block() else { continue };
                let at = At::before(next);
                // A loop run again re-initializes its barriers: every thread is done with them.
                b.barrier(at);
                let tid = b.thread_id(at);
                let first = b.compare(at, "eq", tid, b.index(at, 0));
                let inside = b.if_then(at, first);
                let arrivals = if leader_only(barriers) || produced.contains(&barriers) {
                    1
                } else if released(barriers) {
                    threads / WARP * cluster.unwrap_or(1)
                } else {
                    threads
                };
                let arrivals = i32_constant(&b, inside, arrivals);
                for index in 0..count {
                    let pointer = barrier_pointer(&b, inside, barriers, b.index(inside, index));
                    b.insert(inside, nvvm::mbarrier_init(context, pointer, arrivals, b.location).into());
                }
                if cluster.is_some() {
                    b.insert(inside, nvvm::fence_mbarrier_init(context, b.location).into());
                }
                b.barrier(at);
                // The cluster's blocks meet once, after the last barriers' setup.
                if cluster.is_some() && Some(op) == last_allocation {
                    cluster_barrier(&b, at);
                }
            },
            tile::ArriveOperation => {
                let at = At::before(op);
                let barriers = op.operand_at(0).expect("barriers");
                // On barriers only TMA fills, the thread that issued the copies (thread 0, or a
                // producer's one thread).
                let leader = leader_only(barriers) || produced.contains(&barriers);
                let at = if leader && !super::producer::in_producer(op) {
                    let tid = b.thread_id(at);
                    let first = b.compare(at, "eq", tid, b.index(at, 0));
                    b.if_then(at, first)
                } else if released(barriers) {
                    // The warp's lanes are done reading (bar.warp.sync orders their reads before
                    // the first lane's release).
                    let all_lanes = i32_constant(&b, at, -1);
                    b.insert(at, nvvm::bar_warp_sync(context, all_lanes, b.location).into());
                    let lane = b.remui(at, b.thread_id(at), b.index(at, WARP));
                    let first = b.compare(at, "eq", lane, b.index(at, 0));
                    b.if_then(at, first)
                } else {
                    at
                };
                let pointer = barrier_pointer(&b, at, barriers, op.operand_at(1).expect("index"));
                if let Some(blocks) = cluster.filter(|_| released(barriers)) {
                    release_in_cluster(&b, at, pointer, blocks);
                    rewriter.erase_op(op);
                    continue;
                }
                // Barriers that count copies also wait for the thread's cp.async copies.
                if counting.contains(&barriers) && !leader {
                    b.insert(at, nvvm::cp_async_mbarrier_arrive(context, pointer, b.location).into());
                }
                b.insert(
                    at,
                    nvvm::MBarrierArriveOperation::builder(context, b.location)
                        .res(IntegerType::new(context, 64).into())
                        .addr(pointer)
                        .build()
                        .into(),
                );
                rewriter.erase_op(op);
            },
            tile::WaitOperation => {
                let at = At::before(op);
                let pointer = barrier_pointer(&b, at, op.operand_at(0).expect("barriers"), op.operand_at(1).expect("index"));
                let parity = b.remui(at, op.operand_at(2).expect("phase"), b.index(at, 2));
                let parity = b.cast(
                    at,
                    tile_ir::arith::index_cast,
                    parity,
                    IntegerType::new(context, 32).into(),
                );
                let hint = i32_constant(&b, at, WAIT_HINT_NS);
                b.insert(
                    at,
                    nvvm::mbarrier_try_wait_parity(context, pointer, parity, hint, b.location).into(),
                );
                if fence {
                    let parse = |text| Attribute::parse(context, text).expect("nvvm attribute");
                    b.insert(
                        at,
                        nvvm::FenceProxyOperation::builder(context, b.location)
                            .kind(parse("#nvvm.proxy_kind<async.shared>"))
                            .space(parse("#nvvm.shared_space<cta>"))
                            .build()
                            .into(),
                    );
                }
                rewriter.erase_op(op);
            },
            _ => {},
        })
    }
}

/// Every thread of the cluster's blocks meets every other: writes before it are visible after it
/// (release, acquire).
pub(crate) fn cluster_barrier<'c>(b: &Builder<'c>, at: At<'c, '_>) {
    b.insert(at, nvvm::cluster_arrive(b.context, b.location).into());
    b.insert(at, nvvm::cluster_wait(b.context, b.location).into());
}

/// Arrives on the barrier at `pointer` (this block's shared memory) and at the same place in each
/// other block of a cluster of `blocks`. The release is the default, the block's: the slot's
/// readers are wgmmas the warp has waited for, and the copies that overwrite it are issued after
/// the barrier's phase completes. (A release at cluster scope is a fence of the whole GPU's memory,
/// `MEMBAR.ALL.GPU`, at every arrival: the GEMMs ran at 0.46 of their speed with it.)
fn release_in_cluster<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, pointer: Value<'c, 'a>, blocks: i64) {
    let context = b.context;
    let cluster_pointer = crate::attributes::llvm_pointer(context, 7);
    for rank in 0..blocks {
        let rank = i32_constant(b, at, rank);
        let remote = b.value(
            at,
            nvvm::mapa(context, cluster_pointer, pointer, rank, b.location).into(),
        );
        b.insert(
            at,
            nvvm::MBarrierArriveOperation::builder(context, b.location)
                .addr(remote)
                .build()
                .into(),
        );
    }
}
