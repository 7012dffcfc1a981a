//! Which copies of a `tile.pipelined` loop can be issued ahead of the iteration that reads them,
//! and how deep their ring can be.
//!
//! A copy runs ahead when it is a `tile.copy` from a global tensor into a shared tile, directly in
//! the loop's body, with one element type on both sides (an asynchronous copy does not convert),
//! into a tile allocated outside the loop that nothing else writes and that is read only later in
//! the same iteration (by gemms, reductions, copies out of it and loads); and when its source and offsets can be
//! computed for a later iteration: values from outside the loop, the induction variable, and pure
//! `arith`/`index` ops of the body over those.

use super::rings::{padded, tile_bytes};
use crate::target::Target;
use melior::dialect::DialectHandle;
use melior::ir::ShapedTypeLike;
use melior::ir::{
    BlockLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    level::{MemoryLevel, memory_level},
    ops::{copy_parts, integer_attribute, is_defined_inside, nested_ops},
};
use tile_ir::{affine, memref, scf, tile};

/// The shared memory a block may use on a TMA target, less room for reduction scratch, barriers
/// and the staging of accumulator stores.
const SHARED_BUDGET: i64 = 232_448 - 4096;

/// The same for a ring of two buffers, less room for reduction scratch and barriers alone: a
/// second buffer is what overlaps copies with compute (FlashMLA decode's 72 KiB a step beside
/// 152 KiB of tiles: 433 TFLOP/s with it, 157 without, RESULTS run 127), where a deeper ring
/// gives way to staged stores (a 192x256 GEMM lost 2-5% with a fourth buffer in place of them).
const TWO_BUFFER_BUDGET: i64 = 232_448 - 2048;

/// The plan of one loop: its ring depth and the copies issued ahead.
pub struct Ring<'c, 'a> {
    /// Tiles each ring holds (the copies of this many iterations are in flight).
    pub depth: i64,
    /// The copies issued ahead.
    pub copies: Vec<OperationRef<'c, 'a>>,
    /// The loop's one gemm accumulates across iterations: an iteration releases the slot the
    /// previous one read, so that its gemm may still run when the next one starts.
    pub release_previous: bool,
    /// The loop walks the tiles of a persistent kernel (`super::persistent`).
    pub persistent: bool,
    /// The ring's copies are issued by a producer warpgroup of their own (`tile.producer`): `None`
    /// where the loop cannot have one, `Some(false)` where the input asked for none.
    pub producer: Option<bool>,
    /// Why the loop cannot have a producer warpgroup, where it cannot (what a schedule asking
    /// for one is told).
    pub no_producer: Option<String>,
    /// The block's threads issue the copies as cp.async, one commit group an iteration, and
    /// iterations wait for theirs by group count ([`group_plan`]).
    pub groups: bool,
}

impl Ring<'_, '_> {
    /// The `tile.schedule` that records this plan.
    pub fn schedule(&self) -> String {
        if self.groups {
            return format!(
                "{{buffers = {} : i64, fill = \"async\", prefetch = {} : i64, wait = \"group\"}}",
                self.depth,
                self.depth - 1
            );
        }
        // A ring of 2 has no slot to spare for a late release: the block meets before a refill,
        // unless a producer warpgroup refills it (the threads then only say they are done with it).
        let producer = self.producer == Some(true);
        let release = match (self.depth >= 3 || producer, self.release_previous) {
            (false, _) => "barrier",
            (true, false) => "mbarrier",
            (true, true) => "previous",
        };
        let producer = match self.producer {
            Some(true) => ", producer = \"warpgroup\"",
            Some(false) => ", producer = \"none\"",
            None => "",
        };
        format!(
            "{{buffers = {} : i64, fill = \"async\", persistent = {}, prefetch = {} : i64{producer}, release = \"{release}\", wait = \"mbarrier\"}}",
            self.depth,
            self.persistent,
            self.depth - 1,
        )
    }
}

/// Whether `pipelined`'s body is a GEMM's main loop: its ops are the copies issued ahead, pure
/// index arithmetic, branches without gemms, `tile.gemm`s that accumulate into one fragment
/// allocated outside the loop, each reading a tile those copies fill as B and as A either such a
/// tile or a register tile the loop writes, and the `tile.parallel`s that write those register
/// tiles and no other fragment (weights widened in registers for wgmma). Then an iteration need
/// not wait for its gemms: the next one accumulates into the same fragment after them, and waits
/// for a register tile's gemm only where it writes that tile again (the wgmma waits).
fn accumulates_only(pipelined: OperationRef, copies: &[OperationRef]) -> bool {
    let Some(body) = pipelined.body() else {
        return false;
    };
    let ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    let gemms: Vec<&OperationRef> = ops
        .iter()
        .filter(|op| tile_ir::is(*op, tile::GemmOperation::name))
        .collect();
    let Some(first) = gemms.first() else { return false };
    let accumulator = first.operand_at(2);
    let tiles: Vec<Value> = copies.iter().filter_map(copy_parts).map(|parts| parts.dst).collect();
    let outside = |value: Value| !is_defined_inside(value, pipelined);
    let register_operands: Vec<Value> = gemms
        .iter()
        .filter_map(|gemm| gemm.operand_at(0))
        .filter(|a| memory_level(a.r#type()) == Some(MemoryLevel::Fragment))
        .collect();
    let gemms_fit = gemms.iter().all(|gemm| {
        let a_fits = gemm.operand_at(0).is_some_and(|a| {
            tiles.contains(&a) || (memory_level(a.r#type()) == Some(MemoryLevel::Fragment) && outside(a))
        });
        a_fits
            && gemm.operand_at(1).is_some_and(|b| tiles.contains(&b))
            && gemm.operand_at(2) == accumulator
            && accumulator.is_some_and(outside)
    });
    // A loop that writes register A operands and no other fragment.
    let widens = |op: &OperationRef| {
        tile_ir::is(op, tile::ParallelOperation::name)
            && nested_ops(*op).iter().all(|nested| {
                nested.operands().all(|value| {
                    memory_level(value.r#type()) != Some(MemoryLevel::Fragment)
                        || (register_operands.contains(&value)
                            && !tile_ir::is(nested, tile::GemmOperation::name)
                            && accumulator != Some(value))
                })
            })
    };
    // Conditional work without gemms: a persistent kernel's fills at a tile's first step and
    // epilogue at its last (`super::persistent`), which `split_tiles` inlines into those steps
    // after the expansion; the register rules' wgmma waits then wait where they touch the
    // accumulator.
    let conditional = |op: &OperationRef| {
        tile_ir::is(op, scf::IfOperation::name)
            && !nested_ops(*op)
                .iter()
                .any(|nested| tile_ir::is(nested, tile::GemmOperation::name))
    };
    let rest_is_arithmetic = ops.iter().all(|op| {
        gemms.contains(&op)
            || copies.contains(op)
            || tile_ir::is(op, tile::YieldOperation::name)
            || conditional(op)
            || widens(op)
            || index_arithmetic(op)
    });
    gemms_fit && rest_is_arithmetic
}

/// Whether `op` is a pure `arith` or `index` op (no regions): arithmetic a loop may recompute.
pub(super) fn index_arithmetic(op: &OperationRef) -> bool {
    (tile_ir::in_dialect(op, DialectHandle::arith()) || tile_ir::in_dialect(op, tile_ir::index_dialect()))
        && op.region_count() == 0
}

/// Returns the op of `block` that is `op` or holds it.
fn ancestor_in<'c, 'a>(
    op: OperationRef<'c, 'a>,
    body: &melior::ir::block::BlockRef<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut current = Some(op);
    while let Some(candidate) = current {
        if candidate.block().is_some_and(|block| block == *body) {
            return Some(candidate);
        }
        current = candidate.parent_operation();
    }
    None
}

/// Whether `value` can be computed for another iteration at the loop's top (see the module's
/// doc): defined outside `pipelined`, its induction variable, or a pure op of its body over those.
pub fn computable(value: Value, pipelined: OperationRef, depth: usize) -> bool {
    if !is_defined_inside(value, pipelined) {
        return true;
    }
    let body = pipelined.body().expect("loop body");
    if body.argument_at(0).is_some_and(|iv| Value::from(iv) == value) {
        return true;
    }
    let Some(result) = tile_dialect::ops::as_result(value) else {
        return false;
    };
    let owner = result.owner();
    // A persistent loop's search for a step's tile (`super::persistent`) is pure too, over what
    // its region reads (its inputs, below).
    let search = owner.attribute(tile_dialect::decisions::TILE_OF_STEP).is_ok();
    // A persistent loop's tile values may come from a loop over tables (a grouped GEMM's search
    // for its tile's group), over what it reads from outside.
    let table_search = crate::kernels::kernel_of(pipelined).is_some_and(|kernel| table_loop(&owner, kernel));
    let pure = index_arithmetic(&owner)
        || (tile_ir::is(&owner, affine::AffineApplyOperation::name) && owner.region_count() == 0)
        || table_load(&owner, pipelined)
        || table_search
        || search;
    depth < 32
        && pure
        && owner.block().is_some_and(|block| block == body)
        && inputs(owner)
            .into_iter()
            .all(|operand| computable(operand, pipelined, depth + 1))
}

/// Whether `op` loads an element of a global tensor from outside `pipelined` that nothing in its
/// kernel writes (a paged cache's block table): a value another iteration may read early.
fn table_load(op: &OperationRef, pipelined: OperationRef) -> bool {
    crate::kernels::kernel_of(pipelined).is_some_and(|kernel| reads_table(op, kernel))
        && op
            .operand_at(0)
            .is_some_and(|table| !is_defined_inside(table, pipelined))
}

/// Whether `op` loads an element of a global tensor that nothing in `kernel` writes (a block
/// table, a varlen kernel's sequence offsets): a value any thread may read at any time.
fn reads_table(op: &OperationRef, kernel: OperationRef) -> bool {
    let Some(table) = tile_ir::is(op, memref::LoadOperation::name)
        .then(|| op.operand_at(0))
        .flatten()
    else {
        return false;
    };
    let written = nested_ops(kernel)
        .iter()
        .any(|user| user.operands().any(|operand| operand == table) && !reads_only(user, table));
    memory_level(table.r#type()) == Some(MemoryLevel::Global) && !written
}

/// Whether `op` is an `scf.for` of `kernel` that only computes values from tables: every op in
/// it (nested loops' included) is pure index arithmetic, a load of a table ([`reads_table`]), a
/// loop or a yield (a grouped GEMM's search for its block's group in the group sizes). Any thread
/// may run it at any time, as it may run the arithmetic.
fn table_loop(op: &OperationRef, kernel: OperationRef) -> bool {
    tile_ir::is(op, scf::ForOperation::name)
        && nested_ops(*op).iter().all(|nested| {
            index_arithmetic(nested)
                || reads_table(nested, kernel)
                || tile_ir::is(nested, scf::ForOperation::name)
                || tile_ir::is(nested, scf::YieldOperation::name)
        })
}

/// Whether `op` is pure index arithmetic, a load of a table of `kernel` ([`reads_table`]) or a loop
/// over tables ([`table_loop`]): what any of its threads may compute at any time, as often as it
/// likes (a producer's copy offsets, a persistent kernel's tile values).
pub(crate) fn table_arithmetic(op: &OperationRef, kernel: OperationRef) -> bool {
    index_arithmetic(op) || reads_table(op, kernel) || table_loop(op, kernel)
}

/// The values `op` reads from outside itself: its operands and what its regions capture.
pub(crate) fn inputs<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let mut found: Vec<Value> = op.operands().collect();
    for nested in nested_ops(op) {
        found.extend(nested.operands().filter(|operand| !is_defined_inside(*operand, op)));
    }
    found
}

/// Whether `user`, an op with `tile` among its operands, only reads it: a gemm's A or B, a copy's
/// source, a reduction's source, a load.
pub fn reads_only(user: &OperationRef, tile: Value) -> bool {
    tile_ir::match_op!(user, {
        tile::GemmOperation => user.operand_at(2).is_some_and(|accumulator| accumulator != tile),
        tile::CopyOperation => copy_parts(user).is_some_and(|parts| parts.src == tile && parts.dst != tile),
        tile::ReduceOperation => user.operand_at(1).is_some_and(|dst| dst != tile),
        memref::LoadOperation => true,
        _ => false,
    })
}

/// Whether `copy` (in `pipelined`'s body) can run ahead (see the module's doc).
pub fn goes_ahead(kernel: OperationRef, pipelined: OperationRef, copy: OperationRef) -> bool {
    let body = pipelined.body().expect("loop body");
    // A persistent loop's copy made once a tile has a ring of its own (`super::expand`).
    if copy.attribute(super::persistent::ONCE_A_TILE).is_ok() {
        return false;
    }
    let Some(parts) = copy_parts(&copy) else { return false };
    let tile = parts.dst;
    fn element<'c>(value: Value<'c, '_>) -> Option<melior::ir::Type<'c>> {
        tile_dialect::ops::as_memref(value.r#type()).map(|memref| memref.element())
    }
    let allocated_outside = tile_dialect::ops::as_result(tile).is_some_and(|result| {
        tile_ir::is(&result.owner(), tile::AllocSharedOperation::name) && !is_defined_inside(tile, pipelined)
    });
    if memory_level(parts.src.r#type()) != Some(MemoryLevel::Global)
        || !parts.dst_offsets.is_empty()
        || !allocated_outside
        || element(parts.src) != element(tile)
        || !computable(parts.src, pipelined, 0)
        || !parts.src_offsets.iter().all(|offset| computable(*offset, pipelined, 0))
    {
        return false;
    }
    // Every other use of the tile reads it, later in the same iteration.
    let position = |op: OperationRef| {
        body.first_operation()
            .into_iter()
            .flat_map(|first| std::iter::successors(Some(first), |op| op.next_in_block()))
            .position(|candidate| candidate == op)
    };
    let Some(copy_position) = position(copy) else {
        return false;
    };
    nested_ops(kernel)
        .into_iter()
        .filter(|user| *user != copy && user.operands().any(|operand| operand == tile))
        .all(|user| {
            reads_only(&user, tile)
                && ancestor_in(user, &body)
                    .and_then(position)
                    .is_some_and(|at| at > copy_position)
        })
}

/// The ring of `pipelined` (in `kernel`) on a TMA target, its depth and the copies issued ahead into it:
/// `None` when no copy can run ahead, the loop has one stage or no ring of two fits. What
/// [`plan`] builds on, and what layout inference asks to know which tiles TMA will fill.
pub fn ring<'c, 'a>(kernel: OperationRef<'c, 'a>, pipelined: OperationRef<'c, 'a>) -> Option<RingFit<'c, 'a>> {
    ring_within(kernel, pipelined, &tma_budget, &shared_bytes)
}

/// The shared memory a TMA target's ring of `depth` may use beside the kernel's other tiles.
fn tma_budget(depth: i64) -> i64 {
    if depth == 2 { TWO_BUFFER_BUDGET } else { SHARED_BUDGET }
}

/// The bytes of a shared tile (or barriers) `tile`, as a TMA target stores it.
fn shared_bytes(tile: Value) -> i64 {
    tile_dialect::ops::as_memref(tile.r#type()).map_or(0, tile_bytes)
}

/// [`ring`] within `budget` bytes of shared memory for a ring of the given depth, counting a
/// tile's bytes as `bytes` says.
fn ring_within<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    pipelined: OperationRef<'c, 'a>,
    budget: &dyn Fn(i64) -> i64,
    bytes: &dyn Fn(Value) -> i64,
) -> Option<RingFit<'c, 'a>> {
    let stages = integer_attribute(&pipelined, "stages").unwrap_or(1);
    if stages < 2 {
        return None;
    }
    let sizes = ring_bytes(kernel, pipelined, bytes)?;
    let depth = (2..=stages.min(super::MAX_DEPTH))
        .rev()
        .find(|depth| sizes.needed(*depth) <= budget(*depth))?;
    Some(RingFit {
        depth,
        copies: sizes.copies,
        shared: sizes.shared,
        ring_tiles: sizes.ring_tiles,
    })
}

/// Where `pipelined` (in `kernel`) has copies to issue ahead but no ring of `depth` fits on
/// `target`: the bytes that ring needs beside the kernel's other shared tiles, and the bytes a
/// block has for them (`None` also on targets without rings, and for a loop of one stage, which
/// asks for none).
pub fn ring_misfit(kernel: OperationRef, pipelined: OperationRef, target: &Target, depth: i64) -> Option<(i64, i64)> {
    if integer_attribute(&pipelined, "stages").unwrap_or(1) < 2 {
        return None;
    }
    let (sizes, budget) = if target.tma {
        (ring_bytes(kernel, pipelined, &shared_bytes)?, tma_budget(depth))
    } else if target.cp_async_rings {
        (
            ring_bytes(kernel, pipelined, &crate::layout::stored::stored_bytes)?,
            group_budget(target),
        )
    } else {
        return None;
    };
    let needed = sizes.needed(depth);
    (needed > budget).then_some((needed, budget))
}

/// The shared memory a cp.async target's rings may use beside the kernel's other tiles: a block's
/// less room for reduction scratch.
fn group_budget(target: &Target) -> i64 {
    target.memory.max_shared_bytes - 2048
}

/// What the rings of a loop hold: the copies it issues ahead, and the bytes of the kernel's
/// shared tiles and barriers, of one slot of every ring, and of one slot of every ring of a
/// persistent loop's copies made once a tile.
struct RingBytes<'c, 'a> {
    copies: Vec<OperationRef<'c, 'a>>,
    shared: i64,
    ring_tiles: i64,
    once_tiles: i64,
    /// Steps of a persistent loop's tiles (0 elsewhere).
    tile_steps: i64,
}

impl RingBytes<'_, '_> {
    /// The shared memory a ring of `depth` needs in all: the kernel's tiles, the ring's further
    /// slots and its barriers, and the rings of copies made once a tile (as deep as
    /// [`once_a_tile_depth`] says) with their full and free barriers.
    fn needed(&self, depth: i64) -> i64 {
        let once = match self.once_tiles {
            0 => 0,
            tiles => {
                let once_depth = once_a_tile_depth(depth, self.tile_steps);
                (once_depth - 1) * tiles + 16 * once_depth
            }
        };
        self.shared + (depth - 1) * self.ring_tiles + 8 * depth + once
    }
}

/// The [`RingBytes`] of `pipelined` (in `kernel`), its tiles counted as `bytes` says; `None` where
/// no copy can run ahead.
fn ring_bytes<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    pipelined: OperationRef<'c, 'a>,
    bytes: &dyn Fn(Value) -> i64,
) -> Option<RingBytes<'c, 'a>> {
    let body = pipelined.body()?;
    let copies: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .filter(|op| tile_ir::is(op, tile::CopyOperation::name) && goes_ahead(kernel, pipelined, *op))
        .collect();
    if copies.is_empty() {
        return None;
    }
    // The deepest ring up to `stages` that fits beside the kernel's other shared tiles.
    let shared: i64 = nested_ops(kernel)
        .iter()
        .filter(|op| {
            tile_ir::is(*op, tile::AllocSharedOperation::name) || tile_ir::is(*op, tile::AllocBarriersOperation::name)
        })
        .filter_map(|op| op.result_at(0))
        .map(|result| bytes(result.into()))
        .sum();
    let ring_tiles: i64 = copies
        .iter()
        .filter_map(copy_parts)
        .map(|parts| padded(bytes(parts.dst)))
        .sum();
    let once_tiles: i64 = once_a_tile(pipelined)
        .iter()
        .filter_map(copy_parts)
        .map(|parts| padded(bytes(parts.dst)))
        .sum();
    Some(RingBytes {
        copies,
        shared,
        ring_tiles,
        once_tiles,
        tile_steps: integer_attribute(&pipelined, super::persistent::TILE_STEPS).unwrap_or(0),
    })
}

/// The copies of a persistent loop `pipelined` made once a tile (`tile.once_a_tile`), directly in
/// its body.
pub fn once_a_tile<'c, 'a>(pipelined: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let Some(body) = pipelined.body() else {
        return Vec::new();
    };
    std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .filter(|op| op.attribute(super::persistent::ONCE_A_TILE).is_ok())
        .collect()
}

/// The depth of the rings of a persistent loop's copies made once a tile, beside a ring of `depth`
/// and tiles of `tile_steps` steps: one slot for the tile the steps read and enough others that a
/// tile's copies, issued with the step `depth` steps ahead of the one that reads its first step,
/// never wait for a slot that tile's own steps release (a tile releases its slot at its last step).
pub fn once_a_tile_depth(depth: i64, tile_steps: i64) -> i64 {
    let steps = tile_steps.max(1);
    (depth + steps - 1) / steps + 1
}

/// The copies of `kernel` (whose ops are `ops`) that rings issue ahead on a TMA target: those
/// `tile-plan-pipelines` marked (`tile.ahead`: it planned their loop, whose rings the expansion
/// may be building), or where a loop has none, those its [`ring`] would issue; and a persistent
/// loop's copies made once a tile (or, before `tile-persistent-kernels`, the copies it will make
/// so).
pub fn issued_ahead<'c, 'a>(kernel: OperationRef<'c, 'a>, ops: &[OperationRef<'c, 'a>]) -> Vec<OperationRef<'c, 'a>> {
    let mut copies = super::persistent::copies_once_a_tile(kernel);
    for pipelined in ops.iter().filter(|op| tile_ir::is(*op, tile::PipelinedOperation::name)) {
        let marked: Vec<OperationRef> = nested_ops(*pipelined)
            .into_iter()
            .filter(|op| op.attribute(super::AHEAD_ATTRIBUTE).is_ok())
            .collect();
        if !marked.is_empty() {
            copies.extend(marked);
        } else if let Some(ring) = ring(kernel, *pipelined) {
            copies.extend(ring.copies);
        }
    }
    copies
}

/// A loop's [`ring`].
pub struct RingFit<'c, 'a> {
    /// Tiles each ring holds.
    pub depth: i64,
    /// The copies issued ahead.
    pub copies: Vec<OperationRef<'c, 'a>>,
    /// Bytes of the kernel's shared tiles and barriers.
    shared: i64,
    /// Bytes of one slot of every ring.
    ring_tiles: i64,
}

/// Plans `pipelined` (in `kernel`) on a TMA target: `None` where it has no [`ring`].
pub fn plan<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &'static Target,
    pipelined: OperationRef<'c, 'a>,
) -> Option<Ring<'c, 'a>> {
    let RingFit {
        depth,
        copies,
        shared,
        ring_tiles,
    } = ring(kernel, pipelined)?;
    let release_previous = accumulates_only(pipelined, &copies);
    let persistent = pipelined.attribute(super::persistent::TILE_STEPS).is_ok();
    // A producer pays where the ring is refilled (a loop whose every iteration fits in the ring
    // has all its copies issued before the first wait anyway), in a kernel that runs one block a
    // multiprocessor (persistent, or by its shared memory), whose registers the producer's
    // warpgroup does not take from other blocks.
    let refilled = static_trips(pipelined).is_none_or(|trips| trips > depth);
    let multiprocessor = target.multiprocessors.as_ref();
    let resident = integer_attribute(&kernel, "min_blocks_per_multiprocessor").unwrap_or(1);
    let alone = (persistent && resident <= 1)
        || multiprocessor.is_some_and(|multiprocessor| {
            2 * (shared + (depth - 1) * ring_tiles + multiprocessor.block_reserved_bytes) > multiprocessor.shared_bytes
                || registers_alone(kernel, multiprocessor)
        });
    let no_producer = if !refilled {
        Some(format!(
            "the loop's iterations all fit in its ring of {depth}, so every copy is issued before the first wait and no producer would refill it"
        ))
    } else if !alone {
        Some(format!(
            "a ring of {depth} leaves room for a second block on a multiprocessor, whose registers a producer warpgroup would take; a deeper ring (more stages) or larger tiles make the block run alone"
        ))
    } else if producer_site(
        kernel,
        target,
        pipelined,
        &[copies.clone(), once_a_tile(pipelined)].concat(),
    )
    .is_none()
    {
        Some("its copies cannot be issued by a warpgroup of their own (the kernel has another pipelined loop, its threads are not whole warpgroups with room for one more, or the copies read values computed in the kernel)".to_owned())
    } else {
        None
    };
    let producer = if no_producer.is_none() {
        match super::plan::requested_string(pipelined, "producer").as_deref() {
            Some("none") => Some(false),
            Some("warpgroup") => Some(true),
            _ => multiprocessor
                .is_some_and(|multiprocessor| registers_fit(kernel, multiprocessor, release_previous))
                .then_some(true),
        }
    } else {
        None
    };
    Some(Ring {
        depth,
        copies,
        release_previous,
        persistent,
        producer,
        no_producer,
        groups: false,
    })
}

/// Plans `pipelined` (in `kernel`) on a target whose rings are cp.async groups
/// ([`Target::cp_async_rings`]): the deepest ring up to the loop's stages whose tiles, their rows
/// padded as their layouts say, fit the block's shared memory less room for reduction scratch;
/// the block's threads issue the copies. `None` where it has no ring.
pub fn group_plan<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &'static Target,
    pipelined: OperationRef<'c, 'a>,
) -> Option<Ring<'c, 'a>> {
    let budget = group_budget(target);
    let fit = ring_within(kernel, pipelined, &|_| budget, &crate::layout::stored::stored_bytes)?;
    Some(Ring {
        depth: fit.depth,
        copies: fit.copies,
        release_previous: false,
        persistent: false,
        producer: None,
        no_producer: None,
        groups: true,
    })
}

/// The iterations of `pipelined` where its bounds and step are constants.
fn static_trips(pipelined: OperationRef) -> Option<i64> {
    let bound = |index: usize| {
        pipelined
            .operand_at(index)
            .and_then(tile_dialect::ops::constant_integer)
    };
    let step = if pipelined.operand_count() == 3 { bound(2)? } else { 1 };
    let (lower, upper) = (bound(0)?, bound(1)?);
    if step <= 0 {
        return None;
    }
    // Checked: bounds near the ends of the index range leave 64 bits (then the count is unknown).
    Some(upper.checked_sub(lower)?.max(0).checked_add(step - 1)? / step)
}

/// The registers a wgmma kernel's thread needs beside its fragments' (addresses, indices, the
/// loop's state), to judge whether a second block would fit on a multiprocessor: a 128x256 GEMM
/// on two warpgroups used 212 with 128 in its accumulator, a 128x128 FlashAttention on two
/// warpgroups fits 232 with 172 in its fragments.
const REGISTERS_BESIDE_FRAGMENTS: i64 = 60;

/// The same beside a producer warpgroup in a loop that is not a GEMM's main loop (several
/// fragments, a FlashAttention's): ptxas packs the consumers' code into their raised count (232
/// on two warpgroups), and head-dim-256 FlashAttention with 200 registers of fragments (128x80
/// blocks, a 64x256 accumulator a warpgroup) fits without spills in either order and runs 5-10%
/// faster with the producer; fp8 FlashAttention of 128x224 blocks (212) spills 16-196 bytes. A
/// GEMM's main loop keeps [`REGISTERS_BESIDE_FRAGMENTS`]: 256x192 tiles (192 in the accumulator)
/// ran 3-6% slower with a producer (RESULTS run 293).
const REGISTERS_BESIDE_FRAGMENTS_UNDER_PRODUCER: i64 = 32;

/// Where the `tile.producer` of `pipelined` (in `kernel`) goes, if its copies can be issued by a
/// producer warpgroup of their own (see `super::expand`): the loop is the kernel's one pipelined
/// loop, at its top level; every copy it issues ahead is a TMA copy (one thread issues them all:
/// `crate::registers::tma_fillable`); and the kernel's threads
/// are whole warpgroups with room for one more. The producer goes before the kernel's first op
/// that the larger block's every thread may not run (the ops before it only allocate, compute
/// indices and fill fragments: a producer thread writes nothing another thread reads), once
/// everything its copies read from outside the loop is defined, and when no op between there and
/// the loop writes a tensor its copies read; index arithmetic it needs from after the site is
/// hoisted before it ([`hoist`]).
pub fn producer_site<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &'static Target,
    pipelined: OperationRef<'c, 'a>,
    copies: &[OperationRef<'c, 'a>],
) -> Option<OperationRef<'c, 'a>> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let top_level = pipelined.parent_operation().is_some_and(|parent| parent == kernel);
    let loops = nested_ops(kernel)
        .iter()
        .filter(|op| tile_ir::is(*op, tile::PipelinedOperation::name))
        .count();
    let whole_warpgroups =
        threads % tile_dialect::PRODUCER_THREADS == 0 && threads + tile_dialect::PRODUCER_THREADS <= 1024;
    if !(top_level && loops == 1 && whole_warpgroups && crate::registers::tma_fillable(kernel, target, copies)) {
        return None;
    }
    // (melior's `previous_in_block` panics at a block's first op: walk forward to the loop.)
    let first = pipelined.block().and_then(|block| block.first_operation());
    let before: Vec<OperationRef> = std::iter::successors(first, |op| op.next_in_block())
        .take_while(|op| *op != pipelined)
        .collect();
    let replicable = |op: &OperationRef| {
        let allocation = tile_ir::match_op!(op, {
            tile::AllocSharedOperation | tile::AllocFragmentOperation | tile::AllocBarriersOperation => true,
            _ => false,
        });
        table_arithmetic(op, kernel)
            || allocation
            || (tile_ir::is(op, tile::FillOperation::name)
                && op
                    .operand_at(0)
                    .is_some_and(|tile| memory_level(tile.r#type()) == Some(MemoryLevel::Fragment)))
    };
    let position = before.iter().position(|op| !replicable(op)).unwrap_or(before.len());
    let site = before.get(position).copied().unwrap_or(pipelined);
    // What the copies read from outside the loop, defined before the site (or hoisted there).
    let outside = producer_inputs(pipelined, copies);
    let defined_before = |value: &Value| hoistable(*value, kernel, &before[..position], 0);
    let tensors: Vec<Value> = copies.iter().filter_map(copy_parts).map(|parts| parts.src).collect();
    let writes_tensor = |op: &OperationRef| {
        nested_ops(*op).into_iter().chain([*op]).any(|op| {
            tile_ir::match_op!(op, {
                tile::CopyOperation => copy_parts(&op).is_some_and(|parts| tensors.contains(&parts.dst)),
                memref::StoreOperation => op.operand_at(1).is_some_and(|memref| tensors.contains(&memref)),
                _ => false,
            })
        })
    };
    (outside.iter().all(defined_before) && !before[position..].iter().any(writes_tensor)).then_some(site)
}

/// Whether `value` is available at the `tile.producer` of `kernel`, whose top-level ops before it
/// are `earlier`: defined outside the kernel, a block index, by one of `earlier`, or by pure index
/// arithmetic, loads of tables ([`reads_table`]) or loops over tables ([`table_loop`]) of the
/// kernel's top level over such values ([`hoist`] moves it up).
fn hoistable(value: Value, kernel: OperationRef, earlier: &[OperationRef], depth: usize) -> bool {
    let Some(result) = tile_dialect::ops::as_result(value) else {
        return true;
    };
    let owner = result.owner();
    match ancestor_in(owner, &kernel_body(kernel)) {
        None => true,
        Some(op) if earlier.contains(&op) => true,
        Some(op) => {
            op == owner
                && depth < 32
                && table_arithmetic(&owner, kernel)
                && inputs(owner)
                    .into_iter()
                    .all(|operand| hoistable(operand, kernel, earlier, depth + 1))
        }
    }
}

/// Moves the top-level index arithmetic, table loads and table loops of `kernel` that `value` is
/// computed from before `site` (what [`hoistable`] accepted), operands first.
pub fn hoist<'c, 'a>(
    context: &'c melior::Context,
    value: Value<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    site: OperationRef<'c, 'a>,
) {
    let Some(result) = tile_dialect::ops::as_result(value) else {
        return;
    };
    let owner = result.owner();
    let body = kernel_body(kernel);
    let first = body.first_operation();
    let before_site = std::iter::successors(first, |op| op.next_in_block())
        .take_while(|op| *op != site)
        .any(|op| op == owner);
    if owner.block() != Some(body) || before_site || owner == site {
        return;
    }
    for operand in inputs(owner) {
        hoist(context, operand, kernel, site);
    }
    melior::IrRewriter::new(context)
        .as_rewriter_base()
        .move_op_before(owner, site);
}

/// The values the copies of `pipelined` read from outside it, and its bounds: what its producer
/// needs.
pub fn producer_inputs<'c, 'a>(pipelined: OperationRef<'c, 'a>, copies: &[OperationRef<'c, 'a>]) -> Vec<Value<'c, 'a>> {
    let mut outside = Vec::new();
    for parts in copies.iter().filter_map(copy_parts) {
        outside_values(parts.src, pipelined, &mut outside);
        for offset in &parts.src_offsets {
            outside_values(*offset, pipelined, &mut outside);
        }
    }
    outside.extend(pipelined.operands());
    outside
}

/// The body block of `kernel`.
fn kernel_body<'c, 'a>(kernel: OperationRef<'c, 'a>) -> melior::ir::block::BlockRef<'c, 'a> {
    kernel.body().expect("a kernel body")
}

/// Collects into `found` the values from outside `pipelined` that `value` is computed from (see
/// [`computable`]).
fn outside_values<'c, 'a>(value: Value<'c, 'a>, pipelined: OperationRef<'c, 'a>, found: &mut Vec<Value<'c, 'a>>) {
    if !is_defined_inside(value, pipelined) {
        found.push(value);
    } else if let Some(result) = tile_dialect::ops::as_result(value) {
        for operand in result.owner().operands() {
            outside_values(operand, pipelined, found);
        }
    }
}

/// Whether the fragments of `kernel` fit the registers its threads keep beside a producer
/// warpgroup, with room for addresses and indices (a 128x256 accumulator on two warpgroups: 128
/// of 232; on three, 192x256: not within 152), more room for a GEMM's main loop
/// (`gemm_main_loop`) than for other loops. An estimate: a program may ask for a producer where
/// it does not hold (`producer = "warpgroup"` in its schedule), or refuse one.
fn registers_fit(kernel: OperationRef, multiprocessor: &crate::target::Multiprocessors, gemm_main_loop: bool) -> bool {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let beside = if gemm_main_loop {
        REGISTERS_BESIDE_FRAGMENTS
    } else {
        REGISTERS_BESIDE_FRAGMENTS_UNDER_PRODUCER
    };
    fragment_registers(kernel) + beside <= (multiprocessor.registers_beside_producer)(threads)
}

/// Whether the registers `kernel`'s threads need (the estimate of [`registers_fit`]) leave no room
/// for a second block on a multiprocessor, unless the program asks for several there
/// (`min_blocks_per_multiprocessor`): a 128x128 fp8 FlashAttention block fits twice by its shared
/// memory, not by its 190-odd registers a thread.
fn registers_alone(kernel: OperationRef, multiprocessor: &crate::target::Multiprocessors) -> bool {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    integer_attribute(&kernel, "min_blocks_per_multiprocessor").is_none_or(|blocks| blocks <= 1)
        && fragment_registers(kernel) + REGISTERS_BESIDE_FRAGMENTS > (multiprocessor.registers_at_start)(2 * threads)
}

/// The registers a thread of `kernel` holds its fragments in (by their recorded layouts).
fn fragment_registers(kernel: OperationRef) -> i64 {
    nested_ops(kernel)
        .iter()
        .filter(|op| tile_ir::is(*op, tile::AllocFragmentOperation::name))
        .filter_map(|op| {
            Some((
                *op,
                tile_dialect::layout::FragmentLayout::from_attribute(
                    op.attribute(crate::layout::LAYOUT_ATTRIBUTE).ok()?,
                )?,
            ))
        })
        .map(|(op, layout)| {
            // 16-bit elements go two to a register.
            let bytes = op
                .result_at(0)
                .and_then(|result| tile_dialect::ops::as_memref(result.r#type()))
                .and_then(|memref| tile_dialect::element::Element::of(memref.element()))
                .map_or(4, |element| (element.bytes() as i64).min(4));
            (layout.slots() * bytes + 3) / 4
        })
        .sum()
}
