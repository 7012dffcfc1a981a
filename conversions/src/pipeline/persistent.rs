//! `tile-persistent-kernels` (targets that count their multiprocessors): a GEMM kernel with more
//! output tiles than the chip has multiprocessors becomes a persistent kernel, written as tile IR. One block per multiprocessor
//! walks the output tiles in groups of [`GROUP_ROWS`] grid rows (neighbouring blocks share their A
//! rows and B columns in L2), and the main loops of its tiles become one `tile.pipelined` loop
//! over (tile, step) pairs, so that the ring `tile-expand-pipelines` builds runs on from one tile
//! into the next: the first steps of the next tile are loading while the last ones of this tile
//! multiply and its epilogue stores.
//!
//! A kernel is taken when its grid is static and 1-D or 2-D with more tiles than multiprocessors
//! and one block fills a multiprocessor's shared memory (blocks that share one already overlap
//! each other's epilogues and loads), or when its loop's `tile.schedule` asks for
//! `persistent = true` (then min(tiles, P) blocks);
//! its body is: allocations, pure index arithmetic, fills of fragments, one `tile.pipelined` loop
//! with the kernel's gemms and static bounds (at least one step), then any epilogue; and its layouts
//! say the per-op rules lower it (`tile.strategy` "per-op"). A loop whose `tile.schedule` says
//! `persistent = false` keeps one tile a block. A kernel whose grid or loop bounds are known at run
//! time only is taken where its schedule asks: the host then counts the tiles (P = min(tiles,
//! multiprocessors) blocks), each block its tiles' steps (K, 0 where the loop runs none: then a
//! loop of its own fills and writes out each of its tiles). Such a kernel may bound its own
//! blocks by a guard around its work ([`unguard`]: a grouped GEMM counts its groups' row tiles on
//! the device, the host bounds them); the walk then covers the blocks below the bound only, and
//! loops over tables before the loop (the tile's search for its group) run for each tile.
//!
//! Where its schedule asks, a kernel may also have a static 3-D grid (walked in order, x fastest:
//! an attention's query blocks of one head, which read the same keys, on neighbouring blocks),
//! work without results before and after its loop (gemms too: FlashAttention-3's order computes
//! the first key block's S before the loop and the last block's P V after it), which runs at a
//! tile's first and last steps, and copies before or after its loop from a global tensor into
//! shared tiles that are only read (a FlashAttention item's Q, that order's first K and last V):
//! such a copy moves to the top of the loop, marked `tile.once_a_tile`. The IR
//! then copies the same tile at each step of an output tile; `tile-expand-pipelines` makes the
//! copy once a tile, into a ring of its own, so that the next item's Q loads while this item's
//! steps run.
//!
//! Where its schedule asks, a static grid's tiles may also run their own step counts (a causal
//! attention's query blocks: the loop runs from 0 by 1 to index arithmetic over the block indices,
//! which the rewrite evaluates for every block, each at least 1). The flattened loop then runs the
//! block's counts summed; a step's tile comes from a search over the block's tiles (an `scf.for`
//! marked `tile.tile_of_step` that adds up their counts: the interpreter runs it, the expansion
//! replaces it), the tile's own count, marked `tile.steps_of_tile`, ends it, and
//! `tile.tile_steps` is the fewest (what the rings made once a tile are sized by). A producer
//! warpgroup then carries the tile, its step and its count from step to step
//! ([`carry_tile_values`]), the kernel's threads each tile's first step ([`split_tiles`]). So that
//! the blocks' steps even out, the walk's waves go back and forth, and a 3-D grid's rows are
//! walked in pairs from both ends where a simulation of the walk over the counts says that
//! balances better (`pairs_balance`).
//!
//! A loop whose schedule asks for `multicast = N` (static sizes, a 2-D grid) is taken on
//! clusters of N blocks (`tile.multicast` on the kernel): block x mod N is its rank, x / N its
//! cluster, and the clusters walk the grid of N-row groups as blocks walk the grid, a block taking
//! row N r + rank of its cluster's group r (the last row again past the grid); the copies whose
//! offsets do not depend on the block's row (B's) are marked `tile.cluster_shared`, and the
//! lowering loads them once for the cluster (TMA multicast). The rewrite (G the grid, P = the
//! target's multiprocessors blocks, K the loop's steps):
//!
//! ```text
//! tile.kernel grid(P, 1) (%pid, %unused) {
//!   allocations
//!   tile.pipelined %s = 0 to ceil((tiles - %pid) / P) * K stages(S) {
//!     %t = %pid + (%s / K) * P            // this block's tile
//!     %bx, %by = the grouped walk of %t    // the program's block indices
//!     %i = lower + (%s mod K) * step       // the program's induction variable
//!     index arithmetic of the body, over %bx, %by
//!     scf.if %s mod K == 0 { fills }
//!     the loop's body, over %i
//!     scf.if %s mod K == K - 1 { epilogue }
//!   }
//! }
//! ```

use crate::target::{Clusters, Multiprocessors};
use crate::{
    cpu::builder::{At, Builder},
    kernels::Failure,
};
use melior::{
    Context,
    ir::{
        Block, BlockLike, Type, Value, ValueLike,
        operation::{OperationLike, OperationRef, OperationResult},
    },
};
use tile_dialect::ops::{constant_integer, integer_attribute, nested_ops, set_operand};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::tile;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-persistent-kernels";
/// Grid rows a group of the walk spans: consecutive tiles go down a group's rows, then to its
/// next column.
pub const GROUP_ROWS: i64 = 8;

/// The attribute on the flattened loop: steps per tile (K). `tile-expand-pipelines` keeps it on
/// the `scf.for` it writes, and [`split_tiles`] nests that loop by it.
pub const TILE_STEPS: &str = tile_dialect::decisions::TILE_STEPS.name;
/// Unit attributes on the flattened loop's ops that [`split_tiles`] reads: the tile of a step
/// (`s / K`), the step within its tile (`s mod K`), and the branches of a tile's first and last
/// steps.
use tile_dialect::decisions::{FIRST_STEP, LAST_STEP, STEP_IN_TILE, STEPS_OF_TILE, TILE_OF_STEP};
/// The kernel's cluster size and its shared copies, where a schedule asks for multicast.
const MULTICAST: &str = tile_dialect::decisions::MULTICAST.name;
const CLUSTER_SHARED: &str = tile_dialect::decisions::CLUSTER_SHARED.name;
/// A copy the flattened loop makes once a tile (see [`copied_once_a_tile`]).
pub const ONCE_A_TILE: &str = tile_dialect::decisions::ONCE_A_TILE.name;

/// Warns at each loop of `kernel` that asks for `multicast`, where the kernel is not of the form
/// the rewrite takes (`why`): its blocks load their own tiles.
fn warn_unshared(kernel: OperationRef, why: &str) {
    for pipelined in nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile::PipelinedOperation::name))
    {
        let blocks = requested_multicast(pipelined);
        if blocks > 1 {
            tile_dialect::diagnostics::emit_warning(
                pipelined.location(),
                &format!(
                    "'tile.pipelined' asks for multicast = {blocks}, which clusters of a persistent GEMM kernel make, but {why}; each block loads its own tiles"
                ),
            );
        }
    }
}

/// The blocks of a cluster that a loop's `tile.schedule` asks to share loads (`multicast = N`;
/// 1 where it does not ask).
pub fn requested_multicast(main: OperationRef) -> i64 {
    crate::pipeline::plan::requested_integer(main, "multicast").unwrap_or(1)
}

fn mark(op: OperationRef, name: &str) {
    tile_dialect::ops::with_context(op, |context| {
        tile_dialect::ops::set_attribute(op, name, melior::ir::Attribute::unit(context));
    });
}

/// The sizes of a kernel the rewrite takes.
enum Sizes<'c, 'a> {
    /// Known at compile time: the grid (x, y; y is 1 for a 1-D grid), the blocks the kernel
    /// launches (one per multiprocessor, at most one per tile), and the steps of the main loop.
    Static {
        grid: (i64, i64),
        /// The grid's z (1 for a 1-D or 2-D grid): a 3-D grid is walked in order, x fastest.
        planes: i64,
        /// The grid the walkers walk: the grid, or with clusters its columns of `cluster`-row
        /// groups.
        walked: (i64, i64),
        blocks: i64,
        /// The main loop's steps, or where tiles run different counts, the fewest.
        steps: i64,
        /// The blocks of each cluster that walks one grid column's rows together (1: no clusters).
        cluster: i64,
        /// Where tiles run different counts: the loop's upper bound, index arithmetic over the
        /// block indices (the loop starts at 0 with step 1).
        varying: Option<Value<'c, 'a>>,
        /// A 3-D grid's rows walked in pairs from both ends (see [`pairs_balance`]).
        paired: bool,
    },
    /// Known at run time: the grid (x, and y for a 2-D grid), and the main loop's bounds (first
    /// value, end, and step where it has one).
    Dynamic {
        grid: (Value<'c, 'a>, Option<Value<'c, 'a>>),
        bounds: Vec<Value<'c, 'a>>,
        /// Where the kernel guards its work by a block index below a bound of its own (see
        /// [`unguard`]): the dimension and the bound.
        extent: Option<(usize, Value<'c, 'a>)>,
    },
}

/// What the rewrite needs of a kernel it takes.
struct Persistent<'c, 'a> {
    sizes: Sizes<'c, 'a>,
    /// The main loop.
    main: OperationRef<'c, 'a>,
    /// Pure ops before the loop that depend on the block indices (moved into the loop).
    indexing: Vec<OperationRef<'c, 'a>>,
    /// Fills before the loop (run at each tile's first step).
    fills: Vec<OperationRef<'c, 'a>>,
    /// Copies before or after the loop into shared tiles that are only read (copied once a tile).
    once_a_tile: Vec<OperationRef<'c, 'a>>,
    /// Ops after the loop (run at each tile's last step).
    epilogue: Vec<OperationRef<'c, 'a>>,
    /// The loop's copies whose tile is the same for every grid row (a cluster's blocks share it),
    /// where the schedule asks for clusters that multicast.
    shared: Vec<OperationRef<'c, 'a>>,
}

/// Whether the tiles of `sizes` run different step counts.
fn varying(sizes: &Sizes) -> bool {
    matches!(sizes, Sizes::Static { varying: Some(_), .. })
}

/// The grid and the step count of every tile (x fastest) of a kernel whose grid (`grid`) is static
/// and whose loop (`bounds`) runs from 0 by 1 to an upper bound computed from the block indices
/// (`indices`) and constants, evaluated here for every block; `None` where the grid is not static
/// or the bound does not depend on the block indices, the reason where the counts cannot be known.
fn steps_of_tiles(grid: &[Value], bounds: &[Value], indices: &[Value]) -> Result<Option<(Vec<i64>, Vec<i64>)>, String> {
    let Some(grid) = grid
        .iter()
        .map(|size| constant_integer(*size))
        .collect::<Option<Vec<i64>>>()
    else {
        return Ok(None);
    };
    let Some(&upper) = bounds.get(1) else { return Ok(None) };
    if !depends_on(upper, indices) || grid.len() != indices.len() {
        return Ok(None);
    }
    let step = bounds.get(2).map_or(Some(1), |step| constant_integer(*step));
    if constant_integer(bounds[0]) != Some(0) || step != Some(1) {
        return Err(
            "its loop's upper bound depends on the block indices (each tile its own step count), which needs the loop to run from 0 by 1".into(),
        );
    }
    let tiles: i64 = grid.iter().product();
    if grid.iter().any(|size| *size < 1) || tiles > 1 << 20 {
        return Err("its grid has no blocks, or too many to count each one's steps at compile time".into());
    }
    let mut counts = Vec::with_capacity(tiles as usize);
    for tile in 0..tiles {
        let mut rest = tile;
        let environment: Vec<(Value, i64)> = indices
            .iter()
            .zip(&grid)
            .map(|(index, size)| {
                let value = rest % size;
                rest /= size;
                (*index, value)
            })
            .collect();
        let Some(steps) = evaluate(upper, &environment, 0) else {
            return Err(
                "its loop's upper bound depends on the block indices but is not integer arithmetic over them and constants (each tile's step count is computed at compile time)".into(),
            );
        };
        counts.push(steps);
    }
    let fewest = counts.iter().copied().min().unwrap_or(0);
    if fewest < 1 {
        return Err(format!(
            "some of its tiles run no step (the loop's upper bound is {fewest} for one); each tile needs at least one"
        ));
    }
    Ok(Some((grid, counts)))
}

/// Whether walking a 3-D grid's rows (`row` tiles of x) in pairs from both ends (x = 0, row - 1,
/// 1, row - 2, ...) gives the busiest of `walkers` walkers fewer steps than the grid's order,
/// both going back and forth (see `Walk::walker`), for tiles of `counts` steps (x fastest). In the
/// grid's order a walker takes tiles whose x differ by the walkers modulo the row: where a wave
/// holds one row rising (16384 causal tokens: 128 query blocks a head) the walkers' steps differ
/// by 1.5x; paired, by a few percent. Other grids balance better in their order.
fn pairs_balance(counts: &[i64], row: i64, walkers: i64) -> bool {
    let busiest = |paired: bool| {
        let mut steps = vec![0i64; walkers as usize];
        for tile in 0..counts.len() as i64 {
            let (wave, place) = (tile / walkers, tile % walkers);
            let walker = if wave % 2 == 1 { walkers - 1 - place } else { place };
            let x = tile % row;
            let walked = match paired {
                true if x % 2 == 1 => row - 1 - x / 2,
                true => x / 2,
                false => x,
            };
            steps[walker as usize] += counts[(tile - x + walked) as usize];
        }
        steps.into_iter().max().unwrap_or(0)
    };
    // Only a clear gain: the grid's order keeps each walker's neighbours' tiles its own.
    busiest(true) * 20 < busiest(false) * 19
}

/// The value of `value` where the block indices are as `environment` says: constants and integer
/// arithmetic (`arith`) over them, `None` for anything else or an undefined result.
fn evaluate(value: Value, environment: &[(Value, i64)], depth: usize) -> Option<i64> {
    if let Some((_, known)) = environment.iter().find(|(index, _)| *index == value) {
        return Some(*known);
    }
    if let Some(constant) = constant_integer(value) {
        return Some(constant);
    }
    let op = tile_dialect::ops::as_result(value)?.owner();
    if depth > 64 || op.region_count() > 0 {
        return None;
    }
    let operands: Vec<i64> = op
        .operands()
        .map(|operand| evaluate(operand, environment, depth + 1))
        .collect::<Option<_>>()?;
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;
    let unsigned = |values: &[i64]| values.iter().all(|value| *value >= 0);
    match (name, &operands[..]) {
        ("arith.addi", [a, b]) => a.checked_add(*b),
        ("arith.subi", [a, b]) => a.checked_sub(*b),
        ("arith.muli", [a, b]) => a.checked_mul(*b),
        ("arith.divui", [a, b]) if unsigned(&[*a, *b]) && *b > 0 => Some(a / b),
        ("arith.remui", [a, b]) if unsigned(&[*a, *b]) && *b > 0 => Some(a % b),
        ("arith.ceildivui", [a, b]) if unsigned(&[*a, *b]) && *b > 0 => Some((a + b - 1) / b),
        ("arith.divsi", [a, b]) if *b != 0 => a.checked_div(*b),
        ("arith.remsi", [a, b]) if *b != 0 => a.checked_rem(*b),
        ("arith.floordivsi" | "arith.ceildivsi", [a, b]) if *b != 0 => {
            let (quotient, inexact) = (a.checked_div(*b)?, a % b != 0);
            let negative = (*a < 0) != (*b < 0);
            Some(match name {
                "arith.floordivsi" if inexact && negative => quotient - 1,
                "arith.ceildivsi" if inexact && !negative => quotient + 1,
                _ => quotient,
            })
        }
        ("arith.minui", [a, b]) if unsigned(&[*a, *b]) => Some(*a.min(b)),
        ("arith.maxui", [a, b]) if unsigned(&[*a, *b]) => Some(*a.max(b)),
        ("arith.minsi", [a, b]) => Some(*a.min(b)),
        ("arith.maxsi", [a, b]) => Some(*a.max(b)),
        ("arith.select", [condition, a, b]) => Some(if *condition != 0 { *a } else { *b }),
        ("arith.index_cast" | "arith.index_castui", [a]) => Some(*a),
        ("arith.cmpi", [a, b]) => {
            let holds = match integer_attribute(&op, "predicate")? {
                0 => a == b,
                1 => a != b,
                2 => a < b,
                3 => a <= b,
                4 => a > b,
                5 => a >= b,
                6..=9 if !unsigned(&[*a, *b]) => return None,
                6 => a < b,
                7 => a <= b,
                8 => a > b,
                9 => a >= b,
                _ => return None,
            };
            Some(i64::from(holds))
        }
        _ => None,
    }
}

/// The ops of `indexing` (in their order) that `value` is computed by.
fn computed_by<'c, 'a>(value: Value<'c, 'a>, indexing: &[OperationRef<'c, 'a>]) -> Vec<OperationRef<'c, 'a>> {
    fn visit<'c, 'a>(value: Value<'c, 'a>, indexing: &[OperationRef<'c, 'a>], found: &mut Vec<OperationRef<'c, 'a>>) {
        let Some(result) = tile_dialect::ops::as_result(value) else {
            return;
        };
        let op = result.owner();
        if indexing.contains(&op) && !found.contains(&op) {
            found.push(op);
            for operand in op.operands() {
                visit(operand, indexing, found);
            }
        }
    }
    let mut found = Vec::new();
    visit(value, indexing, &mut found);
    indexing.iter().copied().filter(|op| found.contains(op)).collect()
}

/// Whether `value` is, or is computed from, one of `arguments` (the block indices), also through
/// what a loop computing it reads inside.
fn depends_on(value: Value, arguments: &[Value]) -> bool {
    // (A walk with a worklist: a kernel's chains of values are long, and shared.)
    let mut pending = vec![value];
    let mut seen = std::collections::HashSet::new();
    while let Some(value) = pending.pop() {
        if arguments.contains(&value) {
            return true;
        }
        if !seen.insert(value.to_raw().ptr as usize) {
            continue;
        }
        if let Some(result) = tile_dialect::ops::as_result(value) {
            pending.extend(crate::pipeline::ahead::inputs(result.owner()));
        }
    }
    false
}

/// Whether `op`, in `kernel`'s body, is a copy that a persistent kernel makes once a tile: from a
/// global tensor into a whole shared tile of the kernel, of one element type, that nothing else
/// writes, only read (a FlashAttention block's Q; the first K and the last V of
/// FlashAttention-3's order, read by the work before and after the loop).
fn copied_once_a_tile(kernel: OperationRef, op: OperationRef) -> bool {
    if !tile_ir::is(&op, tile::CopyOperation::name) {
        return false;
    }
    let Some(parts) = tile_dialect::ops::copy_parts(&op) else {
        return false;
    };
    fn element<'c>(value: Value<'c, '_>) -> Option<Type<'c>> {
        tile_dialect::ops::as_memref(value.r#type()).map(|memref| melior::ir::ShapedTypeLike::element(&memref))
    }
    let shared_tile = tile_dialect::ops::as_result(parts.dst).is_some_and(|result| {
        tile_ir::is(&result.owner(), tile::AllocSharedOperation::name)
            && result.owner().parent_operation() == Some(kernel)
    });
    shared_tile
        && tile_dialect::level::memory_level(parts.src.r#type()) == Some(tile_dialect::level::MemoryLevel::Global)
        && parts.dst_offsets.is_empty()
        && element(parts.src) == element(parts.dst)
        && nested_ops(kernel)
            .into_iter()
            .filter(|user| *user != op && user.operands().any(|operand| operand == parts.dst))
            .all(|user| crate::pipeline::ahead::reads_only(&user, parts.dst))
}

/// The copies of `kernel` made once a tile of its persistent loop: those `tile-persistent-kernels`
/// marked, or, before it runs, those it will move into the loop of a kernel whose schedule asks
/// for `persistent = true` (what layout inference asks, to lay out the tiles TMA fills).
pub fn copies_once_a_tile<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let marked: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| op.attribute(ONCE_A_TILE).is_ok())
        .collect();
    if !marked.is_empty() {
        return marked;
    }
    // (Layout inference asks before it decides the kernel's strategy, which `gemm_loop_form`
    // reads.)
    let Some(main) = first_loop(kernel) else {
        return Vec::new();
    };
    if crate::pipeline::plan::requested_persistent(main) != Some(true)
        || kernel.attribute(super::split_k::SPLITS).is_ok()
    {
        return Vec::new();
    }
    std::iter::successors(kernel.body().and_then(|body| body.first_operation()), |op| {
        op.next_in_block()
    })
    .filter(|op| *op != main && copied_once_a_tile(kernel, *op))
    .collect()
}

/// The block indices of a kernel whose body is `body` (its arguments).
fn block_indices<'c, 'a>(body: &melior::ir::BlockRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    (0..body.argument_count())
        .filter_map(|i| body.argument_at(i).map(Value::from))
        .collect()
}

/// Takes the guard off a kernel that bounds its own blocks: one whose body ends in an `scf.if`
/// without results or else branch, over `%index < %bound` (`arith.cmpi ult`; a block index, a
/// bound no block index gives), around a loop whose schedule asks for `persistent = true` (a
/// grouped GEMM: the host bounds the grid's row tiles, the kernel counts those of its groups on
/// the device). The branch's ops move into the body, and the guard's dimension and bound are
/// returned: a persistent kernel's walk covers the blocks below it only.
fn unguard<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>) -> Option<(usize, Value<'c, 'a>)> {
    let body = kernel.body()?;
    let terminator = body.terminator()?;
    let mut ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .take_while(|op| *op != terminator)
        .collect();
    let guard = ops.pop()?;
    let indices = block_indices(&body);
    let no_else = guard
        .region_at(1)
        .is_none_or(|region| melior::ir::RegionLike::first_block(&region).is_none());
    if !tile_ir::is(&guard, tile_ir::scf::IfOperation::name) || guard.result_count() != 0 || !no_else {
        return None;
    }
    let then = guard.body()?;
    let asks = std::iter::successors(then.first_operation(), |op| op.next_in_block()).any(|op| {
        tile_ir::is(&op, tile::PipelinedOperation::name)
            && crate::pipeline::plan::requested_persistent(op) == Some(true)
    });
    let compare = tile_dialect::ops::as_result(guard.operand_at(0)?)?.owner();
    const UNSIGNED_LESS: i64 = 6;
    if !asks
        || !tile_ir::is(&compare, tile_ir::arith::CmpIOperation::name)
        || integer_attribute(&compare, "predicate") != Some(UNSIGNED_LESS)
    {
        return None;
    }
    let (index, bound) = (compare.operand_at(0)?, compare.operand_at(1)?);
    let dimension = indices.iter().position(|value| *value == index)?;
    if depends_on(bound, &indices) {
        return None;
    }
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    if let Some(yielded) = then.terminator() {
        rewriter.erase_op(yielded);
    }
    rewriter.inline_block_before(then, guard, &[]);
    rewriter.erase_op(guard);
    let compared_elsewhere = nested_ops(kernel).into_iter().any(|user| {
        user.operands()
            .any(|operand| tile_dialect::ops::as_result(operand).is_some_and(|r| r.owner() == compare))
    });
    if !compared_elsewhere {
        rewriter.erase_op(compare);
    }
    Some((dimension, bound))
}

/// The first `tile.pipelined` loop directly in `kernel`'s body, if any.
fn first_loop<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    std::iter::successors(kernel.body()?.first_operation(), |op| op.next_in_block())
        .find(|op| tile_ir::is(op, tile::PipelinedOperation::name))
}

/// Whether two or more blocks of `kernel` fit on a multiprocessor's shared memory, its shared tiles
/// counted `stages` times (the ring `main` will get, at most): then blocks already overlap one
/// block's epilogue with another's loads, and one block a multiprocessor would hide less latency
/// (the 128x128x32 `gemm_relu` ran 0.44x cuBLAS persistent).
fn shares_multiprocessor(kernel: OperationRef, main: OperationRef, multiprocessor: &Multiprocessors) -> bool {
    let stages = integer_attribute(&main, "stages").unwrap_or(1).max(1);
    let shared = crate::pipeline::rings::shared_tile_bytes(kernel);
    2 * (shared.saturating_mul(stages) + multiprocessor.block_reserved_bytes) <= multiprocessor.shared_bytes
}

/// The kernel's shape when the rewrite takes it (see the module's doc): `Ok(None)` where it is not
/// taken, the reason where its loop's `tile.schedule` asks for `persistent = true` and it cannot be.
fn persistent<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    multiprocessors: &Multiprocessors,
    clusters: Option<&Clusters>,
    extent: Option<(usize, Value<'c, 'a>)>,
) -> Result<Option<Persistent<'c, 'a>>, String> {
    // A kernel split across clusters (`tile-split-k`) has few tiles by choice.
    if kernel.attribute(super::split_k::SPLITS).is_ok() {
        return Ok(None);
    }
    // A loop that asks for a persistent kernel may have gemms before and after it (a tile's first
    // and last work).
    let first = first_loop(kernel);
    let asked = first.is_some_and(|main| crate::pipeline::plan::requested_persistent(main) == Some(true));
    let form = super::loop_form(kernel, asked);
    let Ok(super::GemmLoopForm {
        grid: grid_values,
        ops,
        at: main_at,
        main,
        bounds,
    }) = form
    else {
        if let Err(why) = form {
            warn_unshared(kernel, why);
            // A loop that asks for a persistent kernel is told why it cannot have one.
            if asked && first.is_some_and(|main| requested_multicast(main) == 1) {
                return Err(why.to_owned());
            }
        }
        return Ok(None);
    };
    // More tiles than multiprocessors, or a schedule that asks for it (`persistent = false` keeps
    // one tile a block).
    let cluster = requested_multicast(main);
    let requested = crate::pipeline::plan::requested_persistent(main);
    if requested == Some(false) {
        if cluster > 1 {
            return Err(format!(
                "it also asks for persistent = false, and clusters that multicast are a persistent kernel's"
            ));
        }
        return Ok(None);
    }
    // Clusters that multicast are a persistent kernel's.
    let requested = if cluster > 1 { Some(true) } else { requested };
    let refuse = |why: &str| match requested {
        Some(true) => Err(why.to_string()),
        _ => Ok(None),
    };
    let body = kernel.body();
    let Some(body) = body else { return Ok(None) };
    let indices = block_indices(&body);
    // Static sizes; or, where the schedule asks, a static grid whose tiles run their own step
    // counts (the loop's upper bound over the block indices: a causal attention's query blocks).
    // (A kernel that bounds its own blocks walks a grid it knows at run time only.)
    let static_sizes = match super::loop_with_sizes(kernel, asked) {
        _ if extent.is_some() => None,
        Ok(super::GemmLoop { grid, steps, .. }) => Some((grid, steps, None)),
        Err(_) if requested == Some(true) && cluster == 1 => match steps_of_tiles(&grid_values, &bounds, &indices) {
            Ok(Some((grid, counts))) => {
                let fewest = counts.iter().copied().min().unwrap_or(1);
                Some((grid, fewest, Some((bounds[1], counts))))
            }
            Ok(None) => None,
            Err(why) => return refuse(&why),
        },
        Err(_) => None,
    };
    let sizes = match static_sizes {
        Some((sizes, steps, varying)) => {
            let (grid, planes) = match sizes[..] {
                [x] => ((x, 1), 1),
                [x, y] => ((x, y), 1),
                [x, y, z] => ((x, y), z),
                _ => return refuse("its grid is not 1-D, 2-D or 3-D"),
            };
            if grid.0 < 1 || grid.1 < 1 || planes < 1 {
                return refuse("its grid has no blocks");
            }
            let tiles = grid.0 * grid.1 * planes;
            // A 3-D grid (batched products, attention's query blocks, heads and batch) only
            // where the schedule asks.
            if requested.is_none()
                && (sizes.len() == 3
                    || tiles <= multiprocessors.count
                    || shares_multiprocessor(kernel, main, multiprocessors))
            {
                return Ok(None);
            }
            let walked = (grid.0, (grid.1 + cluster - 1) / cluster);
            let blocks = if cluster > 1 {
                if sizes.len() != 2 {
                    return refuse("its grid is not 2-D (a cluster's blocks take consecutive rows of one grid column)");
                }
                let Some(at_once) = clusters.and_then(|clusters| clusters.at_once_of(cluster)) else {
                    return refuse(&format!(
                        "the target runs no clusters of {cluster} blocks (multicast = {})",
                        clusters
                            .map(|clusters| clusters
                                .at_once
                                .iter()
                                .map(|(blocks, _)| blocks.to_string())
                                .collect::<Vec<_>>()
                                .join(" or "))
                            .unwrap_or_else(|| "none: the target has no clusters".to_owned())
                    ));
                };
                (walked.0 * walked.1).min(at_once) * cluster
            } else {
                // Blocks the program asks to share a multiprocessor walk the tiles beside each
                // other (each one's loads and epilogue under the other's work).
                let resident = integer_attribute(&kernel, "min_blocks_per_multiprocessor")
                    .unwrap_or(1)
                    .max(1);
                tiles.min(multiprocessors.count * resident)
            };
            // Rows walked in pairs from both ends, where that evens out the walkers' steps.
            let paired = match &varying {
                Some((_, counts)) if sizes.len() == 3 => pairs_balance(counts, grid.0, blocks),
                _ => false,
            };
            Sizes::Static {
                grid,
                planes,
                walked,
                blocks,
                steps,
                cluster,
                varying: varying.map(|(bound, _)| bound),
                paired,
            }
        }
        // Sizes known at run time: only where the schedule asks (the tile count is the host's).
        None if requested != Some(true) => return Ok(None),
        None if cluster > 1 => {
            return refuse(&format!(
                "multicast = {cluster} needs the grid and the loop's bounds known at compile time (a cluster's blocks walk the same tiles' steps)"
            ));
        }
        None => {
            let grid = match grid_values[..] {
                [x] => (x, None),
                [x, y] => (x, Some(y)),
                _ => return refuse("its grid is not 1-D or 2-D"),
            };
            if bounds.iter().any(|bound| depends_on(*bound, &indices)) {
                return refuse("the loop's bounds depend on the block indices");
            }
            Sizes::Dynamic { grid, bounds, extent }
        }
    };
    let mut indexing = Vec::new();
    let mut fills = Vec::new();
    let mut once_a_tile = Vec::new();
    for op in &ops[..main_at] {
        let allocation = tile_ir::match_op!(op, {
            tile::AllocSharedOperation | tile::AllocFragmentOperation | tile::AllocBarriersOperation => true,
            _ => false,
        });
        if allocation {
            continue;
        }
        // Index arithmetic, loads of tables and loops over them (a grouped GEMM's search for its
        // tile's group): those over the block indices run for each tile, the others stay.
        if super::ahead::table_arithmetic(op, kernel) {
            if super::ahead::inputs(*op)
                .into_iter()
                .any(|operand| depends_on(operand, &indices))
            {
                indexing.push(*op);
            }
            continue;
        }
        let fills_fragment = tile_ir::is(op, tile::FillOperation::name)
            && op.operand_at(0).is_some_and(|tile| {
                tile_dialect::level::memory_level(tile.r#type()) == Some(tile_dialect::level::MemoryLevel::Fragment)
            });
        if fills_fragment {
            fills.push(*op);
            continue;
        }
        // Where the schedule asks: copies into shared tiles made once a tile, and the tile's
        // first work (a FlashAttention-3 order's first S and its softmax), at its first step.
        if requested != Some(true) || op.result_count() > 0 {
            return refuse(
                "an op before the loop is neither an allocation, index arithmetic, a load of a table or a loop over tables, a fill of a fragment nor (where the schedule asks for persistent = true) an op without results (a persistent kernel runs those once a tile)",
            );
        }
        if matches!(sizes, Sizes::Dynamic { .. }) {
            return refuse(
                "work before the loop other than fills (copies, gemms) needs the grid and the loop's bounds known at compile time",
            );
        }
        match copied_once_a_tile(kernel, *op) {
            true => once_a_tile.push(*op),
            false => fills.push(*op),
        }
    }
    // The epilogue's copies into shared tiles (a FlashAttention-3 order's last V) are made once a
    // tile too, where the schedule asks, and its index arithmetic (the last block's offset) runs
    // at each step, before them.
    let early = requested == Some(true) && matches!(sizes, Sizes::Static { .. });
    let mut epilogue = Vec::new();
    for op in &ops[main_at + 1..] {
        let from_epilogue = |operand: Value| {
            tile_dialect::ops::as_result(operand).is_some_and(|result| epilogue.contains(&result.owner()))
        };
        if early && super::ahead::index_arithmetic(op) && !op.operands().any(from_epilogue) {
            indexing.push(*op);
        } else if early && copied_once_a_tile(kernel, *op) && !op.operands().any(from_epilogue) {
            once_a_tile.push(*op);
        } else {
            epilogue.push(*op);
        }
    }
    // With a run-time step count a tile's epilogue follows its steps' loop, where the ring's
    // slots are no longer the last step's.
    if matches!(sizes, Sizes::Dynamic { .. }) || varying(&sizes) {
        // (The copies from global tensors: those become rings.)
        let written: Vec<Value> = nested_ops(main)
            .iter()
            .filter(|op| tile_ir::is(*op, tile::CopyOperation::name))
            .filter_map(tile_dialect::ops::copy_parts)
            .filter(|parts| {
                tile_dialect::level::memory_level(parts.src.r#type()) == Some(tile_dialect::level::MemoryLevel::Global)
            })
            .map(|parts| parts.dst)
            .collect();
        let reads_ring = epilogue
            .iter()
            .flat_map(|op| std::iter::once(*op).chain(nested_ops(*op)))
            .any(|op| op.operands().any(|operand| written.contains(&operand)));
        if reads_ring {
            return refuse("its epilogue reads a shared tile that the loop's copies write");
        }
    }
    // The tiles a cluster's blocks share: copies whose offsets do not depend on the block's row.
    let shared: Vec<OperationRef> = if cluster > 1 {
        let row = &indices[1..2];
        nested_ops(main)
            .into_iter()
            .filter(|op| tile_ir::is(op, tile::CopyOperation::name))
            .filter(|op| {
                tile_dialect::ops::copy_parts(op).is_some_and(|parts| {
                    tile_dialect::level::memory_level(parts.src.r#type())
                        == Some(tile_dialect::level::MemoryLevel::Global)
                        && !parts.src_offsets.iter().any(|offset| depends_on(*offset, row))
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    if cluster > 1 && shared.is_empty() {
        return refuse(&format!(
            "multicast = {cluster} shares a tile among the blocks of a grid column, and no copy from a global tensor in the loop reads the same tile for every grid row"
        ));
    }
    Ok(Some(Persistent {
        sizes,
        main,
        indexing,
        fills,
        once_a_tile,
        epilogue,
        shared,
    }))
}

/// Rewrites `kernel` (see the module's doc), when it is taken; refuses it, at its loop, where the
/// loop's schedule asks for a persistent kernel that cannot be written.
pub fn rewrite_kernel<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    multiprocessors: &Multiprocessors,
    clusters: Option<&Clusters>,
) -> Result<(), Failure<'c, 'a>> {
    let extent = unguard(context, kernel);
    // A loop that asks for a persistent kernel from elsewhere than the kernel's body or a guard
    // the walk keeps is told so.
    if extent.is_none() && first_loop(kernel).is_none() {
        let nested = nested_ops(kernel).into_iter().find(|op| {
            tile_ir::is(op, tile::PipelinedOperation::name)
                && crate::pipeline::plan::requested_persistent(*op) == Some(true)
        });
        if let Some(main) = nested {
            return Err((
                main,
                "asks for persistent = true in its tile.schedule, but it is neither directly in its kernel's body nor in a guard a persistent kernel's walk keeps (the body's last op an 'scf.if' without results or else branch over 'arith.cmpi ult' of a block index and a bound no block index gives); drop the entry".to_owned(),
            ));
        }
    }
    let plan = match persistent(kernel, multiprocessors, clusters, extent) {
        Ok(Some(plan)) => plan,
        // (The guard is gone: its kernel must be rewritten.)
        Ok(None) if extent.is_some() => {
            let main = first_loop(kernel).expect("the guarded loop");
            return Err((
                main,
                "asks for persistent = true in its tile.schedule, and its kernel's work is guarded by a block index below a bound, which only a persistent kernel's walk keeps; but the kernel is not one tile-persistent-kernels takes; drop the entry".to_owned(),
            ));
        }
        Ok(None) => {
            walk_in_groups(context, kernel, multiprocessors);
            return Ok(());
        }
        Err(why) => {
            let main = first_loop(kernel).expect("a loop to refuse");
            let entry = match requested_multicast(main) {
                1 => "persistent = true".to_owned(),
                blocks => format!("multicast = {blocks}"),
            };
            return Err((
                main,
                format!("asks for {entry} in its tile.schedule, but {why}; drop the entry"),
            ));
        }
    };
    let body = kernel.body().expect("kernel body");
    let indices = block_indices(&body);
    // The ops that read the block indices, before the walk's ops (which read the first) exist.
    let mut readers: Vec<OperationRef> = plan.indexing.clone();
    readers.extend(plan.fills.iter().copied());
    readers.extend(plan.once_a_tile.iter().copied());
    readers.push(plan.main);
    readers.extend(plan.epilogue.iter().copied());
    let readers: Vec<OperationRef> = readers
        .into_iter()
        .flat_map(|op| {
            let mut all = nested_ops(op);
            all.push(op);
            all
        })
        .collect();
    let location = plan.main.location();
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let b = Builder {
        context,
        location,
        threads: None,
    };
    let before = At::before(plan.main);
    let host = At::before(kernel);
    // Tiles of this block: pid, pid + P, ... below `tiles`; K steps each. A cluster's blocks
    // walk the tiles of a column of `cluster` grid rows together, as one block walks its tiles.
    let pid = indices[0];
    // What walks the tiles: the block, or its cluster (and then its rank in it).
    let mut walker = pid;
    let mut cluster_rank = None;
    // The walk, and the block's steps (the flattened loop's end).
    let (sizes, total) = match plan.sizes {
        Sizes::Static {
            grid,
            planes,
            walked,
            blocks,
            steps,
            cluster,
            varying,
            paired,
        } => {
            if cluster > 1 {
                let size = b.index(before, cluster);
                cluster_rank = Some((cluster, b.remui(before, pid, size), grid.1));
                walker = b.divui(before, pid, size);
            }
            let walkers = blocks / cluster;
            let tiles = walked.0 * walked.1 * planes;
            let blocks_value = b.index(before, walkers);
            let count = match varying {
                // Waves of the walk go back and forth (see `Walk::walker`): the walker has a tile
                // in every full wave, and in the last one where its place in it is below the rest.
                Some(_) => {
                    let (waves, rest) = (tiles / walkers, tiles % walkers);
                    let place = match waves % 2 {
                        1 => b.subi(before, b.index(before, walkers - 1), walker),
                        _ => walker,
                    };
                    let in_last = b.compare(before, "ult", place, b.index(before, rest));
                    let last = b.select(before, in_last, b.index(before, 1), b.index(before, 0));
                    b.addi(before, b.index(before, waves), last)
                }
                None => {
                    let left = b.subi(before, b.index(before, tiles + walkers - 1), walker);
                    b.divui(before, left, blocks_value)
                }
            };
            let walk = Walk::Static {
                grid: walked,
                planes,
                blocks: (walkers, blocks_value),
                launched: blocks,
                rows: cluster_rank,
                steps,
                varying: varying.map(|bound| Varying { bound, count }),
                paired,
            };
            // The block's steps: its tiles' counts summed, or K for each.
            let total = match varying {
                Some(bound) => {
                    let zero = b.index(before, 0);
                    let one = b.index(before, 1);
                    let (each, local, sum) = b.for_loop_carrying(before, [zero, count, one], zero);
                    let own = walk.walk(&b, each, walker, local, indices.len());
                    let steps = steps_of_tile(&b, each, bound, &plan.indexing, &indices, &own);
                    b.yield_value(each, b.addi(each, sum, steps));
                    each.block
                        .parent_operation()
                        .and_then(|sum| sum.result_at(0))
                        .expect("the sum's scf.for")
                        .into()
                }
                None => b.muli(before, count, b.index(before, steps)),
            };
            (walk, total)
        }
        Sizes::Dynamic { grid, bounds, extent } => {
            let gx = grid.0;
            let gy = grid.1.unwrap_or_else(|| b.index(host, 1));
            let tiles = b.muli(host, gx, gy);
            let blocks = b.minui(host, tiles, b.index(host, multiprocessors.count));
            // The blocks the kernel's own bound leaves: the walk's grid and tiles.
            let (gx, gy, tiles) = match extent {
                Some((dimension, bound)) => {
                    let (gx, gy) = match dimension {
                        0 => (b.minui(before, gx, bound), gy),
                        _ => (gx, b.minui(before, gy, bound)),
                    };
                    (gx, gy, b.muli(before, gx, gy))
                }
                None => (gx, gy, tiles),
            };
            // K = ceil((upper - lower) / step) steps, none where upper <= lower.
            let step = bounds.get(2).copied().unwrap_or_else(|| b.index(before, 1));
            let runs = b.compare(before, "slt", bounds[0], bounds[1]);
            let span = b.subi(before, bounds[1], bounds[0]);
            let steps = b.select(before, runs, b.ceildivui(before, span, step), b.index(before, 0));
            let last = b.subi(before, b.addi(before, tiles, blocks), b.index(before, 1));
            let count = b.divui(before, b.subi(before, last, pid), blocks);
            let total = b.muli(before, count, steps);
            let walk = Walk::Dynamic {
                grid: (gx, gy),
                blocks,
                steps,
                count,
            };
            (walk, total)
        }
    };
    let index_type = Type::index(context);
    let loop_body = Block::new(&[(index_type, location)]);
    loop_body.append_operation(tile_dialect::ops::yield_(location));
    let stages = integer_attribute(&plan.main, "stages").unwrap_or(1);
    let looped = b.insert(
        before,
        tile_dialect::ops::pipelined(context, b.index(before, 0), total, None, stages, loop_body, location)
            .expect("tile.pipelined"),
    );
    let steps_attribute = melior::ir::attribute::IntegerAttribute::new(
        melior::ir::r#type::IntegerType::new(context, 64).into(),
        sizes.static_steps().unwrap_or(DYNAMIC_TILE_STEPS),
    );
    tile_dialect::ops::set_attribute(looped, TILE_STEPS, steps_attribute.into());
    if let Ok(schedule) = plan.main.attribute(crate::pipeline::plan::SCHEDULE_ATTRIBUTE) {
        tile_dialect::ops::set_attribute(looped, crate::pipeline::plan::SCHEDULE_ATTRIBUTE, schedule);
    }
    let inner = looped.body().expect("body");
    let s: Value = inner.argument_at(0).expect("induction variable").into();
    let at = At::before(inner.terminator().expect("tile.yield"));
    // This step's tile and the program's block indices for it: `s / K` and `s mod K`, or where
    // tiles run their own counts, a search over the block's tiles (only the interpreter runs it:
    // the expansion carries the tile and the step from step to step).
    let (local, step) = match sizes {
        Walk::Static {
            varying: Some(Varying { bound, count }),
            ..
        } => {
            let (search, start) = find_tile(&b, at, &sizes, walker, s, count, bound, &plan.indexing, &indices);
            (search, b.subi(at, s, start))
        }
        _ => {
            let steps = sizes.steps(&b, at);
            (b.divui(at, s, steps), b.remui(at, s, steps))
        }
    };
    for (value, name) in [(local, TILE_OF_STEP), (step, STEP_IN_TILE)] {
        mark(OperationResult::try_from(value).expect("an op's result").owner(), name);
    }
    let walked = sizes.walk(&b, at, walker, local, indices.len());
    if let Some((cluster, _, _)) = cluster_rank {
        tile_dialect::ops::set_attribute(kernel, MULTICAST, crate::attributes::integer(context, 64, cluster));
        for copy in &plan.shared {
            mark(*copy, CLUSTER_SHARED);
        }
    }
    for reader in &readers {
        for (position, operand) in reader.operands().enumerate().collect::<Vec<_>>() {
            if let Some(index) = indices.iter().position(|value| *value == operand) {
                set_operand(*reader, position, walked[index]);
            }
        }
    }
    // The program's induction variable, its index arithmetic, then the tile's first step's fills.
    // The step is optional: counted first, since a missing operand's error prints the whole module
    // (and reads the other parts that threads are compiling).
    let [lower, step_size] = [0, 2].map(|i| {
        (i < plan.main.operand_count())
            .then(|| plan.main.operand_at(i))
            .flatten()
    });
    let iv = match sizes {
        Walk::Static { .. } => b.addi(
            at,
            b.index(at, lower.and_then(constant_integer).unwrap_or(0)),
            b.muli(at, step, b.index(at, step_size.and_then(constant_integer).unwrap_or(1))),
        ),
        Walk::Dynamic { .. } => {
            let scaled = step_size.map_or(step, |size| b.muli(at, step, size));
            lower.map_or(scaled, |lower| b.addi(at, lower, scaled))
        }
    };
    for op in &plan.indexing {
        rewriter.move_op_before(*op, at.before);
    }
    // A tile's copies before the loop: at each step, as the IR says (the same tile at every step
    // of an output tile); `tile-expand-pipelines` issues them once a tile into a ring of their own.
    for copy in &plan.once_a_tile {
        rewriter.move_op_before(*copy, at.before);
        mark(*copy, ONCE_A_TILE);
    }
    let first = b.compare(at, "eq", step, b.index(at, 0));
    let first = b.if_then(at, first);
    for fill in &plan.fills {
        rewriter.move_op_before(*fill, first.before);
    }
    mark(first.block.parent_operation().expect("scf.if"), FIRST_STEP);
    let main_body = plan.main.body().expect("loop body");
    if let Some(terminator) = main_body.terminator() {
        rewriter.erase_op(terminator);
    }
    rewriter.inline_block_before(main_body, at.before, &[iv]);
    rewriter.erase_op(plan.main);
    let last_step = match sizes {
        Walk::Static {
            varying: Some(Varying { bound, .. }),
            ..
        } => {
            // The tile's own count, over the walk's indices (the moved index arithmetic's, or
            // the walk's where the bound is an index itself); marked for the expansion.
            let bound = indices
                .iter()
                .position(|index| *index == bound)
                .map_or(bound, |i| walked[i]);
            let steps = b.maxui(at, bound, b.index(at, 1));
            mark(
                OperationResult::try_from(steps).expect("an op's result").owner(),
                STEPS_OF_TILE,
            );
            b.subi(at, steps, b.index(at, 1))
        }
        Walk::Static { steps, .. } => b.index(at, steps - 1),
        Walk::Dynamic { steps, .. } => b.subi(at, steps, b.index(at, 1)),
    };
    let last = b.compare(at, "eq", step, last_step);
    let last = b.if_then(at, last);
    for op in &plan.epilogue {
        rewriter.move_op_before(*op, last.before);
    }
    mark(last.block.parent_operation().expect("scf.if"), LAST_STEP);
    // A loop of no steps: each of the block's tiles is only filled and written out.
    if let Walk::Dynamic { steps, count, .. } = sizes {
        let after = At::before(looped.next_in_block().expect("the kernel's terminator"));
        let none = b.if_then(after, b.compare(after, "eq", steps, b.index(after, 0)));
        let (each, local) = b.for_loop(none, b.index(none, 0), count, b.index(none, 1));
        let own = sizes.walk(&b, each, pid, local, indices.len());
        let mut map: Vec<(Value, Value)> = walked.iter().copied().zip(own).collect();
        for op in plan.indexing.iter().chain(&plan.fills).chain(&plan.epilogue) {
            clone_mapped(&b, each, *op, &mut map);
        }
    }
    // The launch: one block per multiprocessor (at most one per tile).
    set_operand(kernel, 0, sizes.blocks(&b, host));
    for dimension in 1..indices.len() {
        set_operand(kernel, dimension, b.index(host, 1));
    }
    Ok(())
}

/// Launches a GEMM kernel that keeps one tile a block (not made persistent) on a 2-D grid of more
/// tiles than multiprocessors (or a grid known at run time only) as a 1-D grid whose blocks take
/// the tiles in the persistent walk's order: groups of [`GROUP_ROWS`] grid rows, down a group's
/// rows first. The hardware starts blocks in the order of their index, so the tiles that run at
/// once then share their A rows and B columns in L2; in the grid's own order, row by row, each
/// wave of blocks reads all of B again (a 16384x14336x4096 GEMM one tile a block read 7.8 GB
/// from DRAM and ran at 0.72x cuBLAS; the same tiles in the walk's order, persistent, 2.5 GB and
/// 1.02x; RESULTS run 306). Kernels whose tiles run their own step counts keep the program's order
/// (a causal attention's longest first), and so do split and clustered kernels.
fn walk_in_groups<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, multiprocessors: &Multiprocessors) {
    if kernel.attribute(super::split_k::SPLITS).is_ok() || kernel.attribute(MULTICAST).is_ok() {
        return;
    }
    let Ok(super::GemmLoopForm { grid, main, bounds, .. }) = super::loop_form(kernel, false) else {
        return;
    };
    let Some(body) = kernel.body() else { return };
    let indices = block_indices(&body);
    if grid.len() != 2 || indices.len() != 2 || requested_multicast(main) > 1 {
        return;
    }
    if bounds.iter().any(|bound| depends_on(*bound, &indices)) {
        return;
    }
    let sizes: Option<Vec<i64>> = grid.iter().map(|size| constant_integer(*size)).collect();
    if let Some(sizes) = &sizes
        && (sizes[0] * sizes[1] <= multiprocessors.count || sizes[1] <= 1)
    {
        return;
    }
    let Some(first) = body.first_operation() else { return };
    // The ops that read the block indices, before the walk's ops (which read the first) exist.
    let readers: Vec<OperationRef> = nested_ops(kernel);
    let b = Builder {
        context,
        location: main.location(),
        threads: None,
    };
    let host = At::before(kernel);
    let top = At::before(first);
    let zero = b.index(top, 0);
    let one = b.index(top, 1);
    let walk = match sizes.as_deref() {
        Some(&[gx, gy]) => Walk::Static {
            grid: (gx, gy),
            planes: 1,
            blocks: (1, one),
            launched: gx * gy,
            rows: None,
            steps: 1,
            varying: None,
            paired: false,
        },
        _ => Walk::Dynamic {
            grid: (grid[0], grid[1]),
            blocks: one,
            steps: one,
            count: one,
        },
    };
    let walked = walk.walk(&b, top, indices[0], zero, 2);
    for reader in &readers {
        for (position, operand) in reader.operands().enumerate().collect::<Vec<_>>() {
            if let Some(index) = indices.iter().position(|value| *value == operand) {
                set_operand(*reader, position, walked[index]);
            }
        }
    }
    let tiles = match sizes.as_deref() {
        Some(&[gx, gy]) => b.index(host, gx * gy),
        _ => b.muli(host, grid[0], grid[1]),
    };
    set_operand(kernel, 0, tiles);
    set_operand(kernel, 1, b.index(host, 1));
}

/// [`TILE_STEPS`] of a loop whose tiles' step count is known at run time only: the divisor of its
/// op marked [`TILE_OF_STEP`]. (A loop with static sizes has at least one step a tile.)
pub const DYNAMIC_TILE_STEPS: i64 = 0;

/// Where a persistent loop's tiles run their own step counts: the original loop's upper bound
/// (over the block indices) and the number of the block's tiles.
#[derive(Clone, Copy)]
struct Varying<'c, 'a> {
    bound: Value<'c, 'a>,
    count: Value<'c, 'a>,
}

/// The step count of the tile whose block indices are `walked` (the program's `indices` there):
/// the ops of `indexing` that compute `bound`, cloned at `at` over them.
fn steps_of_tile<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    bound: Value<'c, 'a>,
    indexing: &[OperationRef<'c, 'a>],
    indices: &[Value<'c, 'a>],
    walked: &[Value<'c, 'a>],
) -> Value<'c, 'a> {
    let mut map: Vec<(Value<'c, 'a>, Value<'c, 'a>)> = indices.iter().copied().zip(walked.iter().copied()).collect();
    for op in computed_by(bound, indexing) {
        clone_mapped(b, at, op, &mut map);
    }
    map.iter()
        .find(|(original, _)| *original == bound)
        .map_or(bound, |(_, cloned)| *cloned)
}

/// The search, at `at`, for the tile of the block's step `s` where tiles run their own counts:
/// `scf.for %j = 0 to count iter_args(tile, start, sum, s)` adds up the counts of the block's
/// tiles, keeping the last tile whose first step (`sum` before it) is at most `s`. Returns the
/// tile and its first step. The loop reads nothing of the body it stands in but its operands (`s`
/// is carried in unchanged), so that the expansion can clone it for another step.
#[allow(clippy::too_many_arguments)]
fn find_tile<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    walk: &Walk<'c, 'a>,
    walker: Value<'c, 'a>,
    s: Value<'c, 'a>,
    count: Value<'c, 'a>,
    bound: Value<'c, 'a>,
    indexing: &[OperationRef<'c, 'a>],
    indices: &[Value<'c, 'a>],
) -> (Value<'c, 'a>, Value<'c, 'a>) {
    let zero = b.index(at, 0);
    let (each, j, carried) = b.for_loop_carrying_all(at, [zero, count, b.index(at, 1)], &[zero, zero, zero, s]);
    let [tile, start, sum, target] = carried[..] else {
        unreachable!("four carried values")
    };
    let own = walk.walk(b, each, walker, j, indices.len());
    let steps = steps_of_tile(b, each, bound, indexing, indices, &own);
    let reached = b.compare(each, "ule", sum, target);
    let yielded = [
        b.select(each, reached, j, tile),
        b.select(each, reached, sum, start),
        b.addi(each, sum, steps),
        target,
    ];
    b.yield_values(each, &yielded);
    let search = each.block.parent_operation().expect("the search's scf.for");
    let result = |index: usize| -> Value<'c, 'a> { search.result_at(index).expect("a result").into() };
    (result(0), result(1))
}

/// The quantities of the walk over a block's tiles, as the rewrite built them.
#[derive(Clone, Copy)]
enum Walk<'c, 'a> {
    Static {
        /// The grid the walk goes over (a cluster's: its rows are groups of `rows.0` grid rows).
        grid: (i64, i64),
        /// Its z: a 3-D grid is walked in order, x fastest.
        planes: i64,
        /// The walkers (blocks, or clusters), as a number and as the value before the loop.
        blocks: (i64, Value<'c, 'a>),
        /// The blocks the kernel launches.
        launched: i64,
        /// Where clusters walk: their blocks, this block's rank in its cluster, the grid's rows.
        rows: Option<(i64, Value<'c, 'a>, i64)>,
        /// K, or where tiles run their own counts, the fewest.
        steps: i64,
        varying: Option<Varying<'c, 'a>>,
        /// A 3-D grid's rows walked in pairs from both ends.
        paired: bool,
    },
    Dynamic {
        grid: (Value<'c, 'a>, Value<'c, 'a>),
        blocks: Value<'c, 'a>,
        steps: Value<'c, 'a>,
        /// This block's tiles.
        count: Value<'c, 'a>,
    },
}

impl<'c, 'a> Walk<'c, 'a> {
    fn static_steps(&self) -> Option<i64> {
        match self {
            Walk::Static { steps, .. } => Some(*steps),
            Walk::Dynamic { .. } => None,
        }
    }

    /// K, at `at`.
    fn steps(&self, b: &Builder<'c>, at: At<'c, 'a>) -> Value<'c, 'a> {
        match self {
            Walk::Static { steps, .. } => b.index(at, *steps),
            Walk::Dynamic { steps, .. } => *steps,
        }
    }

    /// The blocks the kernel launches, at `host`.
    fn blocks(&self, b: &Builder<'c>, host: At<'c, 'a>) -> Value<'c, 'a> {
        match self {
            Walk::Static { launched, .. } => b.index(host, *launched),
            Walk::Dynamic { blocks, .. } => *blocks,
        }
    }

    /// The place of walker `pid` in wave `local` of the walk (the `local`-th tile of every walker):
    /// `pid`, or where tiles run their own step counts, `pid` in even waves and `walkers - 1 - pid`
    /// in odd ones. Going back and forth evens out the walkers' steps where a wave holds tiles in
    /// the grid's order (a causal attention's query blocks of a few heads: the walker that takes a
    /// short one in a wave takes a long one in the next), and keeps the tiles that run at once
    /// those of one wave (neighbouring heads, whose keys L2 holds): at 512 causal tokens (4 query
    /// blocks a head of 2 to 8 steps) on 132 blocks the busiest block runs 1.65x the average steps
    /// walking in order, 1.03x back and forth.
    fn walker(&self, b: &Builder<'c>, at: At<'c, 'a>, pid: Value<'c, 'a>, local: Value<'c, 'a>) -> Value<'c, 'a> {
        match *self {
            Walk::Static {
                blocks: (walkers, _),
                varying: Some(_),
                ..
            } => {
                let odd = b.compare(at, "ne", b.remui(at, local, b.index(at, 2)), b.index(at, 0));
                b.select(at, odd, b.subi(at, b.index(at, walkers - 1), pid), pid)
            }
            _ => pid,
        }
    }

    /// The program's block indices (the first `rank`) of the `local`-th tile of walker `pid` (a
    /// block, or a cluster: see `rows`): groups of GROUP_ROWS grid rows (fewer in the last group),
    /// down a group's rows first.
    fn walk(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        pid: Value<'c, 'a>,
        local: Value<'c, 'a>,
        rank: usize,
    ) -> Vec<Value<'c, 'a>> {
        let (x, y) = match *self {
            Walk::Static {
                grid: (gx, gy),
                planes,
                blocks: (_, blocks),
                paired,
                ..
            } if rank == 3 => {
                // A 3-D grid in order, x fastest: neighbouring blocks take neighbouring x (an
                // attention's query blocks of one head, which read the same keys).
                let clamp = |value: Value<'c, 'a>, largest: i64| b.minui(at, value, b.index(at, largest));
                let pid = self.walker(b, at, pid, local);
                let tile = clamp(b.addi(at, pid, b.muli(at, local, blocks)), gx * gy * planes - 1);
                let x = b.remui(at, tile, b.index(at, gx));
                let x = match paired {
                    true => {
                        let half = b.divui(at, x, b.index(at, 2));
                        let odd = b.compare(at, "ne", b.remui(at, x, b.index(at, 2)), b.index(at, 0));
                        b.select(at, odd, b.subi(at, b.index(at, gx - 1), half), half)
                    }
                    false => x,
                };
                let rest = b.divui(at, tile, b.index(at, gx));
                let y = b.remui(at, rest, b.index(at, gy));
                let z = clamp(b.divui(at, rest, b.index(at, gy)), planes - 1);
                return [x, y, z].into_iter().take(rank).collect();
            }
            Walk::Static {
                grid: (gx, gy),
                blocks: (_, blocks),
                rows: cluster_rows,
                ..
            } => {
                // The clamps change nothing (a block's tiles are below `tiles`, the walk stays in
                // the grid) but bound the values for `tile-fold-launch-bounds`, which then drops
                // the epilogue's guards a static grid decides, as it would in a kernel with a
                // block a tile.
                let clamp = |value: Value<'c, 'a>, largest: i64| b.minui(at, value, b.index(at, largest));
                let pid = self.walker(b, at, pid, local);
                let tile = clamp(b.addi(at, pid, b.muli(at, local, blocks)), gx * gy - 1);
                let group_rows = GROUP_ROWS.min(gy);
                let group_tiles = b.index(at, group_rows * gx);
                let group = b.divui(at, tile, group_tiles);
                let first_row = b.muli(at, group, b.index(at, group_rows));
                // The last group may be short; with full groups only, `rows` is a constant (no
                // division by a run-time value below).
                let rows = if gy % group_rows == 0 {
                    b.index(at, group_rows)
                } else {
                    b.minui(at, b.subi(at, b.index(at, gy), first_row), b.index(at, group_rows))
                };
                let within = b.remui(at, tile, group_tiles);
                let y = clamp(b.addi(at, first_row, b.remui(at, within, rows)), gy - 1);
                let x = clamp(b.divui(at, within, rows), gx - 1);
                // A cluster's row of the walk is `blocks` grid rows, one a block (the last
                // block of a short last group takes the grid's last row again).
                let y = match cluster_rows {
                    Some((blocks, rank, grid_rows)) => {
                        clamp(b.addi(at, b.muli(at, y, b.index(at, blocks)), rank), grid_rows - 1)
                    }
                    None => y,
                };
                (x, y)
            }
            Walk::Dynamic {
                grid: (gx, gy), blocks, ..
            } => {
                let tile = b.addi(at, pid, b.muli(at, local, blocks));
                let group_rows = b.minui(at, gy, b.index(at, GROUP_ROWS));
                let group_tiles = b.muli(at, group_rows, gx);
                let group = b.divui(at, tile, group_tiles);
                let first_row = b.muli(at, group, group_rows);
                let rows = b.minui(at, b.subi(at, gy, first_row), group_rows);
                let within = b.remui(at, tile, group_tiles);
                (
                    b.divui(at, within, rows),
                    b.addi(at, first_row, b.remui(at, within, rows)),
                )
            }
        };
        [x, y].into_iter().take(rank).collect()
    }
}

tile_passes::rust_pass! {
    /// Creates the `tile-persistent-kernels` pass (on `builtin.module`).
    pub fn create_persistent_kernels_pass() {
        argument: ARGUMENT,
        name: "TilePersistentKernels",
        description: "Rewrite GEMM kernels the per-op rules lower on a target with TMA rings, with more output tiles than multiprocessors, into persistent kernels: one block per multiprocessor walks the tiles in groups, their main loops one pipelined loop so the ring runs on across tiles",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = crate::target::Target::of(module)?;
            let (true, Some(multiprocessors)) = (target.tma, &target.multiprocessors) else {
                return Ok(());
            };
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| {
                rewrite_kernel(context, kernel, multiprocessors, target.clusters.as_ref())
            })
        },
    }
}

/// The result of the op marked `mark` directly in the body of `owner` (a persistent loop), if any.
pub(super) fn marked_result<'c, 'a>(owner: OperationRef<'c, 'a>, mark: &str) -> Option<Value<'c, 'a>> {
    let body = owner.body()?;
    std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .find(|op| op.attribute(mark).is_ok())
        .and_then(|op| op.result_at(0))
        .map(Value::from)
}

/// The induction variable of the flattened `scf.for` `looped` and its body's ops before the
/// terminator (`None` for a body without one).
fn step_and_ops<'c, 'a>(looped: OperationRef<'c, 'a>) -> Option<(Value<'c, 'a>, Vec<OperationRef<'c, 'a>>)> {
    let body = looped.body().expect("loop body");
    let s: Value = body.argument_at(0).expect("induction variable").into();
    let mut ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    ops.pop()?;
    Some((s, ops))
}

/// Nests the flattened loop of a persistent kernel, once `tile-expand-pipelines` has written it
/// out as `looped` (`scf.for %s = 0 to tiles * K`, marked [`TILE_STEPS`]), by tile:
///
/// ```text
/// scf.for %t = 0 to tiles {
///   step 0 of tile %t, its fills inline           // the previous tile's epilogue waited for
///   scf.for %k = 1 to K { step %k }               //   every gemm; only this loop carries one
///   the epilogue
/// }
/// ```
///
/// K is a constant, a value of the host, or each tile's own count. The last step stays in the
/// loop rather than peeled before the epilogue: with the last step's softmax and products
/// straight-line beside the epilogue's stores, ptxas spilled 232 bytes of the 128x128
/// FlashAttention-2 kernel, none in this form (RESULTS run 283).
///
/// The ring and its barriers run on as before (each step's slot and phase are those of
/// `%s = %t * K + %k`): only the branches go. ptxas serializes every wgmma of a loop in which a
/// branch may touch their accumulators while one runs; here no loop does.
pub fn split_tiles<'c, 'a>(context: &'c Context, looped: OperationRef<'c, 'a>) {
    let Some(steps) = integer_attribute(&looped, TILE_STEPS) else {
        return;
    };
    let Some((s, ops)) = step_and_ops(looped) else { return };
    let ops = &ops[..];
    let b = Builder {
        context,
        location: looped.location(),
        threads: None,
    };
    let at = At::before(looped);
    let upper = looped.operand_at(1).expect("scf.for bounds");
    let tile_of = ops.iter().find(|op| op.attribute(TILE_OF_STEP).is_ok());
    // Where tiles run their own counts: the op computing the count (over the step's tile), and
    // the block's tiles, the upper bound of the search for the step's tile.
    let varying = ops
        .iter()
        .find(|op| op.attribute(STEPS_OF_TILE).is_ok())
        .and_then(|op| op.result_at(0))
        .map(Value::from);
    // K: the constant, or the divisor of the step's tile (`s / K`), defined before the loop.
    let dynamic = (steps == DYNAMIC_TILE_STEPS && varying.is_none())
        .then(|| tile_of.and_then(|op| op.operand_at(1)))
        .flatten();
    let tiles = match (varying, dynamic) {
        (Some(_), _) => tile_of
            .and_then(|search| search.operand_at(1))
            .expect("the search's tile count"),
        // No steps, no tiles (and no division by zero).
        (None, Some(k)) => b.divui(at, upper, b.maxui(at, k, b.index(at, 1))),
        (None, None) => b.divui(at, upper, b.index(at, steps)),
    };
    // A tile's first step: `tile * K`, or where tiles run their own counts, carried from tile to tile.
    let (zero, one) = (b.index(at, 0), b.index(at, 1));
    let (outer, tile, start) = match varying {
        Some(_) => {
            let (outer, tile, carried) = b.for_loop_carrying_all(at, [zero, tiles, one], &[zero]);
            (outer, tile, Some(carried[0]))
        }
        None => {
            let (outer, tile) = b.for_loop(at, zero, tiles, one);
            (outer, tile, None)
        }
    };
    // Warpgroups that take turns at the gemms go on taking them across the tiles.
    if let Ok(flag) = looped.attribute(super::PINGPONG_ATTRIBUTE) {
        tile_dialect::ops::set_attribute(
            outer.block.parent_operation().expect("scf.for"),
            super::PINGPONG_ATTRIBUTE,
            flag,
        );
    }
    let start = start.unwrap_or_else(|| b.muli(outer, tile, dynamic.unwrap_or_else(|| b.index(outer, steps))));
    let one_step = |at: At<'c, 'a>, step: Value<'c, 'a>, first: bool| {
        let mut map: Vec<(Value<'c, 'a>, Value<'c, 'a>)> = vec![(s, b.addi(at, start, step))];
        for op in ops {
            clone_step_op(&b, at, *op, (tile, step), first, &mut map);
        }
        map
    };
    let carries = |middle: At<'c, 'a>| {
        if looped.attribute(super::CARRIES_GEMM_ATTRIBUTE).is_ok() {
            let middle = middle.block.parent_operation().expect("scf.for");
            tile_dialect::ops::set_attribute(
                middle,
                super::CARRIES_GEMM_ATTRIBUTE,
                melior::ir::Attribute::unit(context),
            );
        }
    };
    let mut map = one_step(outer, b.index(outer, 0), true);
    // The tile's count as step 0 computed it, the host's K, or the constant.
    let k = match (varying, dynamic) {
        (Some(varying), _) => {
            map.iter()
                .find(|(original, _)| *original == varying)
                .expect("the tile's count, cloned with its first step")
                .1
        }
        (None, Some(k)) => k,
        (None, None) => b.index(outer, steps),
    };
    let (inner, step) = b.for_loop(outer, b.index(outer, 1), k, b.index(outer, 1));
    carries(inner);
    one_step(inner, step, false);
    // The epilogue, over the tile's values (step 0's).
    for op in ops.iter().filter(|op| op.attribute(LAST_STEP).is_ok()) {
        for nested in branch_ops(*op) {
            clone_mapped(&b, outer, nested, &mut map);
        }
    }
    if varying.is_some() {
        b.yield_values(outer, &[b.addi(outer, start, k)]);
        unmark(outer.block.parent_operation().expect("scf.for"), STEPS_OF_TILE);
    }
    let rewriter = melior::IrRewriter::new(context);
    rewriter.as_rewriter_base().erase_op(looped);
}

/// Clones `op` of the flattened loop's body at `at` for one step: the step's tile and its step
/// within it replace `s / K` and `s mod K`, the first step's branch is inlined where `first` says
/// the step is the tile's first and dropped elsewhere, the last step's always dropped; `map` takes
/// each value of the body to its clone.
fn clone_step_op<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    op: OperationRef<'c, 'a>,
    (tile, step): (Value<'c, 'a>, Value<'c, 'a>),
    first: bool,
    map: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    let result = |op: OperationRef<'c, 'a>| -> Value<'c, 'a> { op.result_at(0).expect("one result").into() };
    if op.attribute(TILE_OF_STEP).is_ok() {
        map.push((result(op), tile));
        return;
    }
    if op.attribute(STEP_IN_TILE).is_ok() {
        map.push((result(op), step));
        return;
    }
    // The last step's branch (the epilogue) is cloned once after the tile's loop.
    if op.attribute(LAST_STEP).is_ok() {
        return;
    }
    if op.attribute(FIRST_STEP).is_ok() {
        if first {
            for nested in branch_ops(op) {
                clone_step_op(b, at, nested, (tile, step), first, map);
            }
        }
        return;
    }
    clone_mapped(b, at, op, map);
}

/// The ops of the then block of `branch` (a step's first- or last-step `scf.if`) before its
/// terminator.
fn branch_ops<'c, 'a>(branch: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let then = branch.body().expect("then block");
    let mut ops: Vec<OperationRef> = std::iter::successors(then.first_operation(), |op| op.next_in_block()).collect();
    ops.pop();
    ops
}

/// Clones `op` at `at`, the operands of the clone and of the ops nested in it taken through `map`;
/// `map` then takes each result of `op` to its clone's.
fn clone_mapped<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    op: OperationRef<'c, 'a>,
    map: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    let clone = b.insert(at, tile_dialect::ops::clone_detached(op));
    let mut users = nested_ops(clone);
    users.push(clone);
    for user in users {
        let operands: Vec<Value> = user.operands().collect();
        for (position, operand) in operands.into_iter().enumerate() {
            if let Some((_, mapped)) = map.iter().find(|(original, _)| *original == operand) {
                set_operand(user, position, *mapped);
            }
        }
    }
    for index in 0..op.result_count() {
        map.push((
            op.result_at(index).expect("result").into(),
            clone.result_at(index).expect("result").into(),
        ));
    }
}

/// Carries a producer's per-tile values from step to step, once `tile-expand-pipelines` has
/// written its loop over a persistent kernel's (tile, step) pairs (`looped`: `scf.for %s`, its
/// body's `s / K` and `s mod K` marked [`TILE_OF_STEP`] and [`STEP_IN_TILE`]), where K is known at
/// run time only: each step would otherwise divide by K and walk the tile order (more divisions
/// by run-time values) to find its tile's offsets, which is what limits a producer whose steps
/// are short (a 16x4096x4096 GEMM on 64x128 tiles ran at 0.43x cuBLAS persistent, 0.93x one tile
/// a block). The loop becomes
///
/// ```text
/// %v0 = the tile values of tile lb / K          // where the loop runs at all
/// scf.for %s = lb to ub iter_args(%t = lb / K, %k = lb mod K, %v = %v0) {
///   the step's ops, over %t, %k and %v
///   %v' = %k + 1 == K and %s + 1 < ub ? the tile values of tile %t + 1 : %v
///   yield (%k + 1 == K ? (%t + 1, 0) : (%t, %k + 1)), %v'
/// }
/// ```
///
/// The tile values are the pure arithmetic of the body over `s / K` (not `s` nor `s mod K`),
/// computed only for tiles the loop reaches, as before; the loop's other ops (waits, copies,
/// arrivals) stay in order.
pub fn carry_tile_values<'c, 'a>(context: &'c Context, looped: OperationRef<'c, 'a>) {
    let Some((s, ops)) = step_and_ops(looped) else { return };
    let ops = &ops[..];
    let (Some(tile_of), Some(step_in)) = (
        ops.iter().find(|op| op.attribute(TILE_OF_STEP).is_ok()),
        ops.iter().find(|op| op.attribute(STEP_IN_TILE).is_ok()),
    ) else {
        return;
    };
    let result = |op: &OperationRef<'c, 'a>| -> Value<'c, 'a> { op.result_at(0).expect("one result").into() };
    let k = tile_of.operand_at(1).expect("s / K");
    // Where tiles run their own counts, the tile's count (a tile value, always carried); the
    // loop then starts at tile 0's first step.
    let steps_of_tile = ops.iter().find(|op| op.attribute(STEPS_OF_TILE).is_ok()).map(result);
    if steps_of_tile.is_some() && looped.operand_at(0).and_then(constant_integer) != Some(0) {
        return;
    }
    // The tile-level ops: pure ops over the tile, values from outside the loop and each other;
    // those over the tile or another per-tile op give the tile values (the others, invariant,
    // stay in the loop too).
    // (Loads of tables and loops over them too: a grouped GEMM's search for its tile's group.)
    let Some(kernel) = crate::kernels::kernel_of(looped) else {
        return;
    };
    let mut tile_level: Vec<OperationRef> = Vec::new();
    let mut per_tile: Vec<OperationRef> = Vec::new();
    for op in ops {
        if op == tile_of || op == step_in || !crate::pipeline::ahead::table_arithmetic(op, kernel) {
            continue;
        }
        let made_by = |operand: Value<'c, 'a>, set: &[OperationRef<'c, 'a>]| {
            tile_dialect::ops::as_result(operand).is_some_and(|r| set.contains(&r.owner()))
        };
        let inputs = crate::pipeline::ahead::inputs(*op);
        let over_tile = inputs.iter().all(|operand| {
            *operand == result(tile_of)
                || !tile_dialect::ops::is_defined_inside(*operand, looped)
                || made_by(*operand, &tile_level)
        });
        if !over_tile {
            continue;
        }
        tile_level.push(*op);
        if inputs
            .iter()
            .any(|operand| *operand == result(tile_of) || made_by(*operand, &per_tile))
        {
            per_tile.push(*op);
        }
    }
    // Only the values the step's ops read are carried (and the tile's count).
    let carried: Vec<Value> = per_tile
        .iter()
        .flat_map(|op| op.results().map(Value::from).collect::<Vec<_>>())
        .filter(|value| {
            Some(*value) == steps_of_tile
                || ops.iter().filter(|op| !per_tile.contains(op)).any(|op| {
                    nested_ops(*op)
                        .into_iter()
                        .chain([*op])
                        .any(|user| user.operands().any(|o| o == *value))
                })
        })
        .collect();
    if carried.is_empty() {
        return;
    }
    let b = Builder {
        context,
        location: looped.location(),
        threads: None,
    };
    let at = At::before(looped);
    let [lower, upper, step] = [0, 1, 2].map(|i| looped.operand_at(i).expect("scf.for bounds"));
    let (first_tile, first_step) = match steps_of_tile {
        Some(_) => (b.index(at, 0), b.index(at, 0)),
        None => {
            let divisor = b.maxui(at, k, b.index(at, 1));
            (b.divui(at, lower, divisor), b.remui(at, lower, divisor))
        }
    };
    // The tile values of `tile` where `condition` holds, else `otherwise` (defined before `at`).
    let tile_values = |at: At<'c, 'a>, condition: Value<'c, 'a>, tile: Value<'c, 'a>, otherwise: &[Value<'c, 'a>]| {
        let (then, _, results) = b.if_else_yielding(at, condition, otherwise);
        let mut map = vec![(result(tile_of), tile)];
        for op in &tile_level {
            clone_mapped(&b, then, *op, &mut map);
        }
        let values: Vec<Value> = carried
            .iter()
            .map(|value| {
                map.iter()
                    .find(|(original, _)| original == value)
                    .expect("a cloned tile value")
                    .1
            })
            .collect();
        b.yield_values(then, &values);
        results
    };
    // Where the loop runs no step, the carried values are never read.
    let zeros: Vec<Value> = carried
        .iter()
        .map(|value| match melior::ir::TypeLike::is_index(&value.r#type()) {
            true => b.index(at, 0),
            false => b.integer(at, value.r#type(), 0),
        })
        .collect();
    let initial = tile_values(at, b.compare(at, "ult", lower, upper), first_tile, &zeros);
    let mut inits = vec![first_tile, first_step];
    inits.extend(initial);
    let (inside, s_value, arguments) = b.for_loop_carrying_all(at, [lower, upper, step], &inits);
    let (tile, step_value, values) = (arguments[0], arguments[1], &arguments[2..]);
    let mut map: Vec<(Value, Value)> = vec![(s, s_value), (result(tile_of), tile), (result(step_in), step_value)];
    map.extend(carried.iter().copied().zip(values.iter().copied()));
    for op in ops {
        if *op != *tile_of && *op != *step_in && !per_tile.contains(op) {
            clone_mapped(&b, inside, *op, &mut map);
        }
    }
    let one = b.index(inside, 1);
    let next_step = b.addi(inside, step_value, one);
    let tile_steps = match steps_of_tile {
        Some(count) => {
            let position = carried
                .iter()
                .position(|value| *value == count)
                .expect("the tile's count, carried");
            values[position]
        }
        None => k,
    };
    let wraps = b.compare(inside, "eq", next_step, tile_steps);
    let next_tile = b.addi(inside, tile, one);
    let next = b.addi(inside, s_value, step);
    let more = b.compare(inside, "ult", next, upper);
    let next_values = tile_values(inside, b.andi(inside, wraps, more), next_tile, values);
    let mut yielded = vec![
        b.select(inside, wraps, next_tile, tile),
        b.select(inside, wraps, b.index(inside, 0), next_step),
    ];
    yielded.extend(next_values);
    b.yield_values(inside, &yielded);
    if let Some(owner) = at.block.parent_operation() {
        unmark(owner, STEPS_OF_TILE);
    }
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(looped);
}

/// Removes `mark` from `op` and the ops nested in it.
fn unmark(op: OperationRef, mark: &str) {
    for marked in nested_ops(op).into_iter().chain([op]) {
        if marked.attribute(mark).is_ok() {
            tile_dialect::ops::remove_attribute(marked, mark);
        }
    }
}
