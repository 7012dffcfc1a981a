//! Where the register rules wait for wgmma groups (sm_90a).
//!
//! A wgmma gemm commits its instructions as one group and goes on: the tensor cores work while the
//! warpgroup runs the ops after it that neither touch the gemm's fragments nor write its shared
//! operands (FlashAttention's softmax of one key block runs beside the product of the previous
//! block's P and V). The first op that does touch them waits: `wgmma.wait_group N` before it, N the
//! groups committed after the youngest group it needs (PTX: "all but the N most recent groups are
//! complete"). So a program orders its ops to overlap them, and the wait lands where a reader of the
//! IR expects it.
//!
//! Waits are decided per block, in program order, and every block waits for all its groups before
//! its terminator, so no group is pending across a branch or a loop's back edge. Barriers and
//! `tile.arrive` wait too: a warpgroup that says it is done with a ring slot, or meets the block
//! before others write shared memory, must be done reading. A gemm that waits by itself (its shared
//! operands are written again without a barrier of their own) completes everything before it.

use super::*;

/// One committed, not yet waited for, wgmma group.
struct Pending<'c, 'a> {
    /// The fragments its instructions read or write: the accumulator and a register A operand.
    fragments: Vec<Value<'c, 'a>>,
    /// The allocations of the shared tiles it reads.
    shared: Vec<usize>,
}

/// Whether the ops of `users` (an op and the ops nested in it) need `group` complete before they
/// run. Taking a ring slot's view (`tile.slot`) reads nothing.
fn needs(users: &[OperationRef], group: &Pending) -> bool {
    users.iter().any(|user| {
        matches!(op_name(user).as_str(), "gpu.barrier" | "tile.arrive" | "nvvm.barrier0")
            || user.operands().any(|value| {
                group.fragments.contains(&value)
                    || (op_name(user) != "tile.slot"
                        && !crate::pipeline::ahead::reads_only(user, value)
                        && crate::pipeline::rings::tile_allocation(value).is_some_and(|tile| group.shared.contains(&key(&tile))))
            })
    })
}

/// The waits of a kernel's wgmma gemms: before which op, and how many groups may stay pending.
/// `deferred` are the gemms that do not wait by themselves; the others (the rest of
/// `layouts.wgmma`) end with a wait for every group.
pub fn wgmma_waits<'c, 'a>(ops: &[OperationRef<'c, 'a>], layouts: &Layouts, deferred: &std::collections::HashSet<usize>) -> Vec<(OperationRef<'c, 'a>, i64)> {
    let mut blocks = Vec::new();
    for gemm in ops.iter().filter(|op| deferred.contains(&key(op))) {
        if let Some(block) = gemm.block()
            && !blocks.contains(&block)
        {
            blocks.push(block);
        }
    }
    let mut waits = Vec::new();
    for block in blocks {
        let mut pending: Vec<Pending> = Vec::new();
        for op in std::iter::successors(block.first_operation(), |op| op.next_in_block()) {
            let terminator = op.next_in_block().is_none();
            let youngest = if terminator && !pending.is_empty() {
                Some(pending.len() - 1)
            } else if pending.is_empty() {
                None
            } else {
                let mut users = nested_ops(op);
                users.push(op);
                pending.iter().rposition(|group| needs(&users, group))
            };
            if let Some(index) = youngest {
                waits.push((op, (pending.len() - 1 - index) as i64));
                pending.drain(..=index);
            }
            if layouts.wgmma.contains(&key(&op)) {
                if !deferred.contains(&key(&op)) {
                    pending.clear();
                    continue;
                }
                let fragments = [0, 2].iter().filter_map(|i| op.operand(*i).ok()).filter(|value| level(*value) == Some(MemoryLevel::Fragment)).collect();
                let shared = [0, 1]
                    .iter()
                    .filter_map(|i| op.operand(*i).ok())
                    .filter(|value| level(*value) == Some(MemoryLevel::Shared))
                    .filter_map(|value| crate::pipeline::rings::tile_allocation(value).map(|tile| key(&tile)))
                    .collect();
                pending.push(Pending { fragments, shared });
            }
        }
    }
    waits
}
