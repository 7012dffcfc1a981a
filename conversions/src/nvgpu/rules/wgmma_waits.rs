//! Where the register rules wait for wgmma groups (sm_90a).
//!
//! A wgmma gemm commits its instructions as one group and goes on: the tensor cores work while the
//! warpgroup runs the ops after it that neither touch the gemm's fragments nor write its shared
//! operands (FlashAttention's softmax of one key block runs beside the product of the previous
//! block's P and V). The first op that does touch them waits: `wgmma.wait_group N` before it, N the
//! groups committed after the youngest group it needs (PTX: "all but the N most recent groups are
//! complete"). So a program orders its ops to overlap them, and the wait lands where a reader of the
//! IR expects it. Each wait pins registers ([`Wait`]): LLVM, which sees a wgmma's results as
//! defined where it is issued and the wait as an op without operands, would otherwise sink the
//! work between two waits below the second (RESULTS run 232: a block-scaled GEMM's scaling of one
//! product, meant to run beside the next product, ran after it).
//!
//! Waits are decided per block, in program order, and every block waits for all its groups before
//! its terminator, so no group is pending across a branch or a loop's back edge, with one
//! exception: a GEMM's main loop expanded with `release = "previous"` (`tile.carries_gemm`) keeps
//! its gemm's group pending into the next iteration, whose gemm accumulates after it; the
//! iteration's release of the previous slot waits for it, and the op after the loop for all. Barriers and
//! `tile.arrive` wait too: a warpgroup that says it is done with a ring slot, or meets the block
//! before others write shared memory, must be done reading. A gemm that waits by itself (its shared
//! operands are written again without a barrier of their own) completes everything before it.

use super::*;
use tile_dialect::positions::OperationAt;

/// One committed, not yet waited for, wgmma group.
#[derive(Clone)]
struct Pending<'c, 'a> {
    /// The fragments its instructions read or write: the accumulator and a register A operand.
    fragments: Vec<Value<'c, 'a>>,
    /// The accumulator it writes.
    accumulator: Option<Value<'c, 'a>>,
    /// The allocations of the shared tiles it reads.
    shared: Vec<usize>,
}

/// A wait for wgmma groups, and the fragments whose registers it pins: LLVM sees the instructions'
/// results as defined where they are issued and the wait as an op without operands, so it would
/// move arithmetic across the wait either way. The fragments written since the previous wait (the
/// work meant to run beside the groups in flight) are pinned before it, so that none of that work
/// sinks past it; the accumulators it completes are pinned after it, so that no read of them
/// rises above it.
pub struct Wait<'c, 'a> {
    /// The op the wait goes before.
    pub before: OperationRef<'c, 'a>,
    /// How many groups may stay pending.
    pub groups: i64,
    /// The fragments ops wrote since the previous wait of the block.
    pub written: Vec<Value<'c, 'a>>,
    /// The accumulators of the groups it completes.
    pub completed: Vec<Value<'c, 'a>>,
}

/// The fragments `users` (an op and the ops nested in it) write.
fn written_fragments<'c, 'a>(users: &[OperationRef<'c, 'a>]) -> Vec<Value<'c, 'a>> {
    let mut written = Vec::new();
    for user in users {
        for value in user.operands() {
            if level(value) == Some(MemoryLevel::Fragment)
                && !crate::pipeline::ahead::reads_only(user, value)
                && !written.contains(&value)
            {
                written.push(value);
            }
        }
    }
    written
}

/// Whether the ops of `users` (an op and the ops nested in it) need `group` complete before they
/// run. Taking a ring slot's view (`tile.slot`) reads nothing; a `tile.copy_async` writes a ring
/// slot that its barriers say is free (and the arrival after it only says it was issued);
/// another wgmma gemm accumulating into the same fragment
/// is ordered after the group by the tensor cores; the arrival that releases the previous
/// iteration's slot is [`releases_previous`]'s.
fn needs(users: &[OperationRef], group: &Pending, wgmma: &HashSet<usize>, counting: &[Value]) -> bool {
    users.iter().any(|user| {
        let arrival = is(user, tile::ArriveOperation::name);
        // An arrival on a barrier that copies count on says they were issued, not that a ring
        // slot is free.
        let copies_issued = arrival && user.operand_at(0).is_some_and(|barriers| counting.contains(&barriers));
        if is(user, tile::CopyAsyncOperation::name) || releases_previous(user) || copies_issued {
            return false;
        }
        let accumulating = wgmma.contains(&key(user)).then(|| user.operand_at(2)).flatten();
        let barrier = arrival || is(user, gpu::BarrierOperation::name) || is(user, nvvm::Barrier0Operation::name);
        let slot_view = is(user, tile::SlotOperation::name);
        barrier
            || user.operands().any(|value| {
                (group.fragments.contains(&value) && Some(value) != accumulating)
                    || (!slot_view
                        && !crate::pipeline::ahead::reads_only(user, value)
                        && crate::pipeline::rings::tile_allocation(value)
                            .is_some_and(|tile| group.shared.contains(&key(&tile))))
            })
    })
}

/// Whether `op` is the arrival that releases the slot the previous iteration read
/// (`tile-expand-pipelines` with `release = "previous"`): it needs the groups of the earlier
/// iterations complete, not this one's.
fn releases_previous(op: &OperationRef) -> bool {
    is(op, tile::ArriveOperation::name) && op.attribute(crate::pipeline::RELEASES_PREVIOUS_ATTRIBUTE).is_ok()
}

/// Whether `block` is the body of a loop whose gemm's group may stay pending across its back edge.
fn carries(block: &melior::ir::block::BlockRef) -> bool {
    block
        .parent_operation()
        .is_some_and(|parent| parent.attribute(crate::pipeline::CARRIES_GEMM_ATTRIBUTE).is_ok())
}

/// The waits of one block, starting with the groups `carried` in from the previous iteration of
/// its loop; returns them and the groups still pending at its end.
fn block_waits<'c, 'a>(
    block: melior::ir::block::BlockRef<'c, 'a>,
    wgmma: &HashSet<usize>,
    deferred: &std::collections::HashSet<usize>,
    counting: &[Value<'c, 'a>],
    carried: Vec<Pending<'c, 'a>>,
) -> (Vec<Wait<'c, 'a>>, Vec<Pending<'c, 'a>>) {
    let carrying = carries(&block);
    let mut carried_left = carried.len();
    let mut pending = carried;
    let mut waits = Vec::new();
    let mut written: Vec<Value> = Vec::new();
    for op in std::iter::successors(block.first_operation(), |op| op.next_in_block()) {
        let terminator = op.next_in_block().is_none();
        let mut users = nested_ops(op);
        users.push(op);
        let mut youngest = if terminator && !pending.is_empty() && !carrying {
            Some(pending.len() - 1)
        } else {
            pending.iter().rposition(|group| needs(&users, group, wgmma, counting))
        };
        // Releasing the previous iteration's slot needs the groups carried in.
        if carried_left > 0 && users.iter().any(releases_previous) {
            youngest = youngest.max(Some(carried_left - 1));
        }
        if let Some(index) = youngest {
            let groups = (pending.len() - 1 - index) as i64;
            let drained: Vec<Pending> = pending.drain(..=index).collect();
            carried_left = carried_left.saturating_sub(index + 1);
            // Fragments of groups still in flight (a GEMM's accumulator, carried from the previous
            // iteration and accumulated into again) are the tensor cores' until their own wait;
            // one written before its group was issued (a zero fill of the accumulator, a register
            // A operand) is the completed group's, its accumulator pinned after the wait only.
            let in_flight = |value: &Value| pending.iter().any(|group| group.fragments.contains(value));
            let groups_read = |value: &Value| drained.iter().any(|group| group.fragments.contains(value));
            let written: Vec<Value> = std::mem::take(&mut written)
                .into_iter()
                .filter(|value| !in_flight(value) && !groups_read(value))
                .collect();
            let completed = drained.iter().filter_map(|group| group.accumulator);
            waits.push(Wait {
                before: op,
                groups,
                written,
                completed: completed.filter(|value| !in_flight(value)).collect(),
            });
        }
        if wgmma.contains(&key(&op)) {
            if !deferred.contains(&key(&op)) {
                pending.clear();
                carried_left = 0;
                continue;
            }
            let fragments = [0, 2]
                .iter()
                .filter_map(|i| op.operand_at(*i))
                .filter(|value| level(*value) == Some(MemoryLevel::Fragment))
                .collect();
            let accumulator = op.operand_at(2);
            let shared = [0, 1]
                .iter()
                .filter_map(|i| op.operand_at(*i))
                .filter(|value| level(*value) == Some(MemoryLevel::Shared))
                .filter_map(|value| crate::pipeline::rings::tile_allocation(value).map(|tile| key(&tile)))
                .collect();
            pending.push(Pending {
                fragments,
                accumulator,
                shared,
            });
        } else {
            for value in written_fragments(&users) {
                if !written.contains(&value) {
                    written.push(value);
                }
            }
        }
    }
    (waits, pending)
}

/// Puts each loop of `ops` that carries its gemm's group across its back edge and runs a number of
/// steps known at run time only in an `scf.if` on its running a step, so that the wait for its
/// last group (before the op after it: [`wgmma_waits`]) is in the branch that ran it. Otherwise
/// LLVM's loop rotation merges the accumulators the loop leaves with those of the path that runs
/// no step before that wait, and the copies of the merge read the registers of a wgmma in flight:
/// ptxas then serializes every wgmma of the kernel (C7514; the dynamic-shape GEMMs).
pub fn guard_run_time_loops<'c, 'a>(b: &Builder<'c>, ops: &[OperationRef<'c, 'a>]) {
    let rewriter = melior::IrRewriter::new(b.context);
    for looped in ops
        .iter()
        .filter(|op| op.attribute(crate::pipeline::CARRIES_GEMM_ATTRIBUTE).is_ok())
    {
        let (Some(lower), Some(upper)) = (looped.operand_at(0), looped.operand_at(1)) else {
            continue;
        };
        if tile_dialect::ops::constant_integer(lower).is_some() && tile_dialect::ops::constant_integer(upper).is_some()
        {
            continue;
        }
        let at = At::before(*looped);
        let runs = b.compare(at, "slt", lower, upper);
        let then = b.if_then(at, runs);
        rewriter.as_rewriter_base().move_op_before(*looped, then.before);
    }
}

/// The waits of a kernel's wgmma gemms: before which op, how many groups may stay pending, and
/// which fragments each pins ([`Wait`]). `deferred` are the gemms that do not wait by themselves;
/// the others (the rest of `wgmma`) end with a wait for every group.
pub fn wgmma_waits<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    wgmma: &HashSet<usize>,
    deferred: &std::collections::HashSet<usize>,
) -> Vec<Wait<'c, 'a>> {
    let mut blocks = Vec::new();
    for gemm in ops.iter().filter(|op| deferred.contains(&key(op))) {
        if let Some(block) = gemm.block()
            && !blocks.contains(&block)
        {
            blocks.push(block);
        }
    }
    let counting = crate::pipeline::mbarriers::counting_barriers_of(ops);
    let mut waits = Vec::new();
    for block in blocks {
        let (first, left) = block_waits(block, wgmma, deferred, &counting, Vec::new());
        if !carries(&block) || left.is_empty() {
            waits.extend(first);
            continue;
        }
        // A loop carrying its gemm's group: the waits of an iteration that starts with the
        // previous iteration's groups pending, and every group waited for after the loop.
        let (steady, _) = block_waits(block, wgmma, deferred, &counting, left);
        waits.extend(steady);
        if let Some(after) = block.parent_operation().and_then(|looped| looped.next_in_block()) {
            waits.push(Wait {
                before: after,
                groups: 0,
                written: Vec::new(),
                completed: Vec::new(),
            });
        }
    }
    waits
}
