//! `tile-split-k` (targets with thread block clusters): a GEMM kernel with too few output tiles to
//! fill the chip and a long reduction (decode-shaped products: M of 16 to 256, K in the thousands)
//! gets each output tile's main loop split across the `S` blocks of a cluster. Block `x` of the
//! grid becomes blocks `S x` to `S x + S - 1`; each runs a contiguous `1/S` of the loop's steps
//! into accumulators of its own, `tile.split_sum` adds them up in the cluster's first block, in
//! rank order (the result does not depend on which block finishes first), and that block alone
//! runs the epilogue:
//!
//! ```text
//! tile.kernel grid(S * gx, gy) (%b, %by) {tile.splits = S} {
//!   %bx = %b / S                             // the program's block index
//!   %rank = %b mod S                         // the block's part of the loop
//!   allocations, index arithmetic, fills (zero) of the accumulators
//!   tile.pipelined %j = 0 to K / S {
//!     %k = lower + (%rank * (K / S) + %j) * step
//!     the loop's body, over %k
//!   }
//!   tile.split_sum %C, %scratch, %rank splits(S)     // each accumulator
//!   scf.if %rank == 0 { epilogue }
//! }
//! ```
//!
//! A loop whose `tile.schedule` asks for `split = S` is split so; where it cannot be (a target
//! without clusters, a kernel of another shape) it stays whole with a warning that says why, and
//! a request that contradicts itself (more blocks than a cluster holds, a persistent split) is
//! refused at the loop. `split = 1` keeps it whole. Without the entry a loop is split when its
//! kernel's output tiles leave at least half of the multiprocessors idle: `S` is then the largest
//! cluster size up to [`MAX_AUTOMATIC`] whose clusters, one per tile, the chip runs at once (one
//! wave), that leaves every part at least [`MIN_STEPS`] steps, and that leaves the ring its depth
//! (up to 4) beside the scratch. Steps that `S` does not divide run in parts of ceil(steps / S),
//! the last ones shorter. The 128x4096x14336 product on 64x128 tiles went from 0.54x to 0.81x
//! cuBLAS split in two, 256x4096x14336 on 128x128 tiles from 0.62x to 0.91x (RESULTS runs
//! 200-203).
//! A kernel is split when: the per-op rules lower it, one `tile.pipelined` directly in its body
//! holds every gemm; what carries the loop's sum (the gemms' accumulators but those a step fills
//! before its gemms, and fragments a `tile.parallel` adds a step's scaled product to element by
//! element) is filled with zero before the loop, and nothing else in the loop touches a fragment
//! but tiles the step writes whole before reading them. An automatic split needs a static grid
//! and static bounds (the tile count decides it); a requested one takes sizes known at run time too: the
//! grid's first size times `S`, and each block runs its part of ceil(steps / S) steps from its
//! rank's first (the last parts shorter, or empty: their blocks add zeros).

use crate::kernels::Failure;
use crate::target::Target;
use crate::{
    cpu::builder::{At, Builder},
    registers::Placed,
};
use melior::{
    Context,
    ir::{
        Attribute, BlockLike, ShapedTypeLike, Type, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    layout::{FragmentLayout, SharedLayout},
    level::{MemoryLevel, memory_level},
    ops::{constant_float, constant_integer, integer_attribute, nested_ops, set_attribute, set_operand},
};
use tile_ir::{match_op, tile};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-split-k";
/// The fewest steps of the loop a block of an automatic split runs: fewer leave its ring filling
/// and draining for most of its time.
pub const MIN_STEPS: i64 = 8;
/// The most blocks an automatic split takes: the first block adds every other's accumulators
/// through distributed shared memory, which took longer than the loop it shortened for splits of
/// 8 (RESULTS run 205: 16x2048x8192 and 64x1024x16384 in 64x128 tiles ran fastest split in 4).
pub const MAX_AUTOMATIC: i64 = 4;
/// The decision on the kernel: the blocks of a cluster (the splits).
pub const SPLITS: &str = tile_dialect::decisions::SPLITS.name;

/// A kernel the rewrite can take.
struct Shape<'c, 'a> {
    /// Its grid and the main loop's bounds.
    sizes: Sizes<'c, 'a>,
    /// The main loop.
    main: OperationRef<'c, 'a>,
    /// The gemms' accumulators (fragment allocations), in order.
    accumulators: Vec<OperationRef<'c, 'a>>,
    /// Ops after the loop.
    epilogue: Vec<OperationRef<'c, 'a>>,
}

/// A kernel's grid and its main loop's bounds.
enum Sizes<'c, 'a> {
    /// Known when it is compiled: the grid, and the loop's first value, step and steps.
    Static {
        grid: Vec<i64>,
        lower: i64,
        step: i64,
        steps: i64,
    },
    /// Known at run time only (a split on request): the grid's first size, and the loop's first
    /// value, end and step (where it has one).
    RunTime {
        grid_x: Value<'c, 'a>,
        bounds: Vec<Value<'c, 'a>>,
    },
}

/// The `split` entry of `pipelined`'s `tile.schedule`, if it has one.
pub fn requested_split(pipelined: OperationRef) -> Option<i64> {
    super::plan::requested_integer(pipelined, "split")
}

/// The splits recorded on the kernel around `op` (1: none).
pub fn splits_of(op: OperationRef) -> i64 {
    let mut current = Some(op);
    while let Some(candidate) = current {
        if tile_ir::is(&candidate, tile::KernelOperation::name) {
            return integer_attribute(&candidate, SPLITS).unwrap_or(1);
        }
        current = candidate.parent_operation();
    }
    1
}

/// Rewrites the `split` entry of `main`'s `tile.schedule` to 1: the loop runs whole.
fn record_whole(main: OperationRef) {
    let one = tile_dialect::ops::with_context(main, |context| {
        IntegerAttribute::new(IntegerType::new(context, 64).into(), 1).into()
    });
    super::plan::set_schedule_entry(main, "split", Some(one));
}

fn fragment(value: Value) -> bool {
    memory_level(value.r#type()) == Some(MemoryLevel::Fragment)
}

fn allocation_of<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    tile_dialect::ops::as_result(value).map(|result| result.owner())
}

/// Whether `fill` writes zero into its tile.
fn fills_zero(fill: &OperationRef) -> bool {
    fill.operand_at(1)
        .is_some_and(|value| constant_float(value) == Some(0.0) || constant_integer(value) == Some(0))
}

/// The kernel's shape, or why the rewrite cannot take it.
fn shape<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<Shape<'c, 'a>, String> {
    let (ops, main_at, main, sizes) = match super::gemm_loop(kernel) {
        Ok(super::GemmLoop {
            grid,
            ops,
            at,
            main,
            lower,
            step,
            steps,
        }) => (
            ops,
            at,
            main,
            Sizes::Static {
                grid,
                lower,
                step,
                steps,
            },
        ),
        Err(why) => {
            // The same form with sizes known at run time: each block's part of the steps is
            // computed then.
            let form = super::gemm_loop_form(kernel).map_err(|_| why)?;
            let run_time = form
                .grid
                .iter()
                .chain(&form.bounds)
                .any(|size| constant_integer(*size).is_none());
            if !run_time {
                return Err(why.into());
            }
            let sizes = Sizes::RunTime {
                grid_x: form.grid[0],
                bounds: form.bounds,
            };
            (form.ops, form.at, form.main, sizes)
        }
    };
    let loop_body = main.body().ok_or("the loop has no body")?;
    let body_ops: Vec<OperationRef> =
        std::iter::successors(loop_body.first_operation(), |op| op.next_in_block()).collect();
    let gemms: Vec<OperationRef> = nested_ops(main)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile::GemmOperation::name))
        .collect();
    // What carries the loop's sum: the gemms' accumulators, but for those each step sets anew
    // (a step's own product, filled before its gemms), and the fragments a step adds a tile to
    // element by element (that product scaled into the sum: a block-scaled or group-quantized
    // GEMM whose scale changes with the step).
    let mut accumulators: Vec<OperationRef> = Vec::new();
    let sums = gemms
        .iter()
        .filter_map(|gemm| gemm.operand_at(2))
        .filter(|c| !written_whole_first(&body_ops, *c))
        .chain(body_ops.iter().filter_map(added_into));
    for sum in sums {
        let allocation = allocation_of(sum)
            .filter(|op| tile_ir::is(op, tile::AllocFragmentOperation::name))
            .ok_or("a gemm of the loop accumulates into something other than a fragment")?;
        if !accumulators.contains(&allocation) {
            accumulators.push(allocation);
        }
    }
    // The sum exchanges each thread's registers: a layout that deals a tile's elements out
    // unevenly (a blocked layout of 16x24 on 128 threads) has no scratch of whole registers.
    if accumulators.iter().any(|accumulator| registers(accumulator).is_none()) {
        return Err(
            "an accumulator's layout gives its threads uneven shares of registers, which the split's sum exchanges"
                .into(),
        );
    }
    let accumulator_values: Vec<Value> = accumulators
        .iter()
        .map(|op| op.result_at(0).expect("an allocation's tile").into())
        .collect();
    // Every part starts from zero: the sum of the parts is the whole loop's.
    for op in &ops[..main_at] {
        let touched = op.operands().find(|value| accumulator_values.contains(value));
        if touched.is_some() && !(tile_ir::is(op, tile::FillOperation::name) && fills_zero(op)) {
            return Err(format!(
                "'{}' before the loop sets an accumulator to something other than zero",
                tile_dialect::ops::op_name(op)
            ));
        }
    }
    // Each block runs some of the steps: only the sums may carry anything from one step to the
    // next. A register tile each step writes whole before any read (weights widened for a gemm's
    // register A operand, a step's own product) carries nothing.
    for op in &body_ops {
        let gemm = tile_ir::is(op, tile::GemmOperation::name);
        let added = added_into(op);
        let mut touched = nested_ops(*op);
        touched.push(*op);
        let touches = touched.iter().any(|inner| {
            inner.operands().enumerate().any(|(position, value)| {
                fragment(value)
                    && !(gemm && inner == op && position == 2)
                    && added != Some(value)
                    && !(!accumulator_values.contains(&value) && written_whole_first(&body_ops, value))
            })
        });
        if touches {
            return Err(format!(
                "'{}' in the loop touches a fragment (only the gemms' accumulators may be, by the gemms, sums a tile.parallel adds to element by element, and register tiles the step writes whole first)",
                tile_dialect::ops::op_name(op)
            ));
        }
    }
    Ok(Shape {
        sizes,
        main,
        accumulators,
        epilogue: ops[main_at + 1..].to_vec(),
    })
}

/// Whether the first of `body` (a loop's ops) to touch the fragment `tile` writes all of it: a
/// `tile.fill` of it, or a `tile.parallel` over its whole shape that only stores into it,
/// unconditionally (in the loop's body itself), at the loop's own indices: each step writes it
/// anew before reading it.
fn written_whole_first(body: &[OperationRef], tile: Value) -> bool {
    let Some(first) = body.iter().find(|op| {
        let mut touched = nested_ops(**op);
        touched.push(**op);
        touched.iter().any(|inner| inner.operands().any(|value| value == tile))
    }) else {
        return false;
    };
    if tile_ir::is(first, tile::FillOperation::name) {
        return first.operand_at(0) == Some(tile);
    }
    let shape = tile_dialect::ops::memref_shape(tile);
    tile_ir::is(first, tile::ParallelOperation::name)
        && tile_dialect::ops::parallel_extents(first).is_some_and(|extents| extents == shape)
        && nested_ops(*first).iter().all(|inner| {
            !inner.operands().any(|value| value == tile)
                || (tile_ir::is(inner, tile_ir::memref::StoreOperation::name)
                    && inner.operand_at(1).is_some_and(|memref| memref == tile)
                    && at_own_indices(first, inner, 2))
        })
}

/// Whether `access` (a load or a store whose indices are its operands from `first_index` on)
/// stands in the body of the `tile.parallel` `parallel` itself (under no condition) and indexes
/// by the loop's own indices, in order.
fn at_own_indices(parallel: &OperationRef, access: &OperationRef, first_index: usize) -> bool {
    let Some(body) = parallel.body() else {
        return false;
    };
    let indices = (0..body.argument_count())
        .filter_map(|i| body.argument_at(i))
        .map(Value::from);
    access.block() == Some(body) && access.operands().skip(first_index).eq(indices)
}

/// The fragment `op` adds to element by element, if it is a `tile.parallel` over that fragment's
/// whole shape whose only access to it, unconditional and at the loop's own indices, stores
/// `sum + x` (`arith.addf`, or `math.fma` with the sum as the addend) of the element it loads
/// there: the sum of the steps' additions does not depend on how the steps are split.
fn added_into<'c, 'a>(op: &OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    if !tile_ir::is(op, tile::ParallelOperation::name) {
        return None;
    }
    let body = op.body()?;
    let store = std::iter::successors(body.first_operation(), |next| next.next_in_block()).find(|inner| {
        tile_ir::is(inner, tile_ir::memref::StoreOperation::name) && inner.operand_at(1).is_some_and(fragment)
    })?;
    let sum = store.operand_at(1)?;
    let added = tile_dialect::ops::as_result(store.operand_at(0)?)?.owner();
    let load_of_sum = |value: Value<'c, 'a>| {
        tile_dialect::ops::as_result(value).is_some_and(|result| {
            let load = result.owner();
            tile_ir::is(&load, tile_ir::memref::LoadOperation::name)
                && load.operand_at(0) == Some(sum)
                && at_own_indices(op, &load, 1)
                && tile_dialect::ops::users(value).len() == 1
        })
    };
    let operands: Vec<Value> = added.operands().collect();
    let adds = match operands.as_slice() {
        [x, y] if tile_ir::is(&added, tile_ir::arith::AddFOperation::name) => load_of_sum(*x) || load_of_sum(*y),
        [_, _, addend] if tile_ir::is(&added, tile_ir::math::FmaOperation::name) => load_of_sum(*addend),
        _ => false,
    };
    let accesses = nested_ops(*op)
        .into_iter()
        .filter(|inner| inner.operands().any(|value| value == sum))
        .count();
    (tile_dialect::ops::parallel_extents(op) == Some(tile_dialect::ops::memref_shape(sum))
        && adds
        && at_own_indices(op, &store, 2)
        && accesses == 2)
        .then_some(sum)
}

/// Registers of `accumulator` a thread holds (what its part of the scratch takes), from the
/// layout `tile-infer-layouts` recorded.
fn registers(accumulator: &OperationRef) -> Option<i64> {
    let layout = FragmentLayout::from_attribute(accumulator.attribute(crate::layout::LAYOUT_ATTRIBUTE).ok()?)?;
    Placed::of(layout).ok().map(|placed| placed.register_count())
}

/// Bytes of the scratch the accumulators of `shape` are exchanged through, in a kernel of
/// `threads` threads: one area per element type, as large as its largest accumulator's registers.
fn scratch_areas<'c>(shape: &Shape<'c, '_>, threads: i64) -> Vec<(Type<'c>, i64)> {
    let mut areas: Vec<(Type, i64)> = Vec::new();
    for accumulator in &shape.accumulators {
        let value: Value = accumulator.result_at(0).expect("an allocation's tile").into();
        let element = tile_dialect::ops::as_memref(value.r#type())
            .expect("a fragment")
            .element();
        let elements = registers(accumulator).expect("checked by shape") * threads;
        match areas.iter_mut().find(|(ty, _)| *ty == element) {
            Some((_, most)) => *most = (*most).max(elements),
            None => areas.push((element, elements)),
        }
    }
    areas
}

/// Whether the kernel's shared tiles in a ring of its `stages` (4 at most: a deeper ring gives a
/// buffer to the scratch) and `scratch` more bytes fit the shared memory of a block of `target`.
fn fits(kernel: OperationRef, main: OperationRef, scratch: i64, target: &Target) -> bool {
    let stages = integer_attribute(&main, "stages").unwrap_or(1).clamp(1, 4);
    let shared = super::rings::shared_tile_bytes(kernel);
    shared.saturating_mul(stages) + scratch + 4096 <= target.memory.max_shared_bytes
}

/// The splits for `kernel` on `target` and its shape: `None` where it stays whole; an error at
/// the loop where its schedule asks for a split that cannot be made.
fn choose<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &Target,
) -> Result<Option<(i64, Shape<'c, 'a>)>, Failure<'c, 'a>> {
    let loops: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile::PipelinedOperation::name))
        .collect();
    let requested = loops
        .iter()
        .find_map(|main| requested_split(*main).map(|split| (*main, split)));
    let Some((main, split)) = requested else {
        return Ok(automatic(kernel, target));
    };
    if split == 1 {
        return Ok(None);
    }
    let asks = format!("'tile.pipelined' op asks for split = {split} in its tile.schedule, but");
    let refuse = |why: String| {
        Err((
            main,
            format!("asks for split = {split} in its tile.schedule, but {why}"),
        ))
    };
    // A split is a request for speed: where it cannot be made the loop runs whole on each block,
    // the warning says why, and the loop's schedule records it (`split = 1`, what is built).
    let whole = |why: String| {
        tile_dialect::diagnostics::emit_warning(
            main.location(),
            &format!("{asks} {why}; the loop runs whole on each block"),
        );
        record_whole(main);
        Ok(None)
    };
    let Some(most) = target.clusters.as_ref().map(|clusters| clusters.blocks) else {
        return whole(format!(
            "{} splits a loop across the blocks of a thread block cluster, which {} has not (split K in the program to split it here: blocks each adding their part with an atomic copy, as test/programs/split_k_atomic.mlir does)",
            crate::target::names_where(|target| target.clusters.is_some()),
            target.name
        ));
    };
    if !(2..=most).contains(&split) {
        return refuse(format!("a cluster holds 2 to {most} blocks on {}", target.name));
    }
    if super::plan::requested_persistent(main) == Some(true) {
        return refuse("a split kernel is not persistent: drop one of the entries".into());
    }
    let shape = match shape(kernel) {
        Ok(shape) => shape,
        Err(why) => return whole(why),
    };
    Ok(Some((split, shape)))
}

/// The automatic split of `kernel` (see the module's doc), if it gets one.
fn automatic<'c, 'a>(kernel: OperationRef<'c, 'a>, target: &Target) -> Option<(i64, Shape<'c, 'a>)> {
    let clusters = target.clusters.as_ref()?;
    let multiprocessors = target.multiprocessors.as_ref()?.count;
    let shape = shape(kernel).ok()?;
    // Only static sizes tell how many tiles leave the chip idle.
    let Sizes::Static { ref grid, steps, .. } = shape.sizes else {
        return None;
    };
    let tiles: i64 = grid.iter().product();
    if tiles < 1 || tiles * 2 > multiprocessors {
        return None;
    }
    let threads = integer_attribute(&kernel, "threads").unwrap_or(128);
    let scratch: i64 = scratch_areas(&shape, threads)
        .iter()
        .map(|(ty, elements)| elements * element_bytes(*ty))
        .sum();
    if !fits(kernel, shape.main, scratch, target) {
        return None;
    }
    let split = clusters
        .at_once
        .iter()
        .rev()
        .find(|(split, at_once)| {
            *split <= clusters.blocks.min(MAX_AUTOMATIC)
                && tiles <= *at_once
                && steps - (split - 1) * ((steps + split - 1) / split) >= MIN_STEPS
        })?
        .0;
    Some((split, shape))
}

fn element_bytes(ty: Type) -> i64 {
    tile_dialect::element::Element::of(ty).map_or(4, |element| element.bytes() as i64)
}

/// Rewrites `kernel` (see the module's doc), when it is split.
pub fn rewrite_kernel<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    target: &Target,
) -> Result<(), Failure<'c, 'a>> {
    let Some((splits, shape)) = choose(kernel, target)? else {
        return Ok(());
    };
    let body = kernel.body().expect("kernel body");
    let block_x: Value = body.argument_at(0).expect("a block index").into();
    let readers: Vec<OperationRef> = nested_ops(kernel);
    let b = Builder {
        context,
        location: shape.main.location(),
        threads: None,
    };
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    // The program's block index and the block's rank among the splits.
    let start = At::before(body.first_operation().expect("a kernel body"));
    let count = b.index(start, splits);
    let tile_x = b.divui(start, block_x, count);
    let rank = b.remui(start, block_x, count);
    for reader in &readers {
        for (position, operand) in reader.operands().enumerate().collect::<Vec<_>>() {
            if operand == block_x {
                set_operand(*reader, position, tile_x);
            }
        }
    }
    // The block's steps: a contiguous part of the loop (known at run time: the parts of
    // ceil(steps / S), the last ones shorter or empty), its bounds set before the loop and the
    // step's index (`k`) recomputed at the top of its body from the rank.
    let before_loop = At::before(shape.main);
    let loop_body = shape.main.body().expect("loop body");
    let j: Value = loop_body.argument_at(0).expect("induction variable").into();
    let users: Vec<OperationRef> = nested_ops(shape.main);
    let top = At::before(loop_body.first_operation().expect("a loop body"));
    let unit_step = |b: &Builder<'c>| {
        if shape.main.operand_count() > 2 {
            set_operand(shape.main, 2, b.index(before_loop, 1));
        }
    };
    let k = match &shape.sizes {
        &Sizes::Static { lower, step, steps, .. } if steps % splits == 0 => {
            set_operand(shape.main, 0, b.index(before_loop, 0));
            set_operand(shape.main, 1, b.index(before_loop, steps / splits));
            unit_step(&b);
            let first_step = b.muli(top, rank, b.index(top, steps / splits));
            let step_index = b.addi(top, first_step, j);
            let scaled = if step == 1 {
                step_index
            } else {
                b.muli(top, step_index, b.index(top, step))
            };
            if lower == 0 {
                scaled
            } else {
                b.addi(top, b.index(top, lower), scaled)
            }
        }
        sizes => {
            // Parts of ceil(steps / S) steps from the rank's first, the last ones shorter or
            // empty.
            let zero = b.index(before_loop, 0);
            let (lower, step, steps, part) = match sizes {
                &Sizes::Static { lower, step, steps, .. } => (
                    b.index(before_loop, lower),
                    (step != 1).then(|| b.index(before_loop, step)),
                    b.index(before_loop, steps),
                    b.index(before_loop, (steps + splits - 1) / splits),
                ),
                Sizes::RunTime { bounds, .. } => {
                    let (lower, upper) = (bounds[0], bounds[1]);
                    let runs = b.compare(before_loop, "slt", lower, upper);
                    let span = b.select(before_loop, runs, b.subi(before_loop, upper, lower), zero);
                    let steps = match bounds.get(2) {
                        Some(step) => b.ceildivui(before_loop, span, *step),
                        None => span,
                    };
                    let part = b.ceildivui(before_loop, steps, b.index(before_loop, splits));
                    (lower, bounds.get(2).copied(), steps, part)
                }
            };
            // The rank's first step (where it runs any).
            let first = b.minui(before_loop, b.muli(before_loop, rank, part), steps);
            let trips = b.minui(before_loop, b.subi(before_loop, steps, first), part);
            set_operand(shape.main, 0, zero);
            set_operand(shape.main, 1, trips);
            unit_step(&b);
            let step_index = b.addi(top, first, j);
            let scaled = match step {
                Some(step) => b.muli(top, step_index, step),
                None => step_index,
            };
            b.addi(top, lower, scaled)
        }
    };
    for user in &users {
        for (position, operand) in user.operands().enumerate().collect::<Vec<_>>() {
            if operand == j {
                set_operand(*user, position, k);
            }
        }
    }
    // The epilogue's allocations stay in the kernel's body, before the loop.
    let (allocations, epilogue): (Vec<OperationRef>, Vec<OperationRef>) = shape.epilogue.iter().partition(|op| {
        match_op!(op, {
            tile::AllocSharedOperation | tile::AllocFragmentOperation | tile::AllocBarriersOperation => true,
            _ => false,
        })
    });
    for allocation in allocations {
        rewriter.move_op_before(allocation, shape.main);
    }
    // The scratch areas, then each accumulator's sum, then the epilogue in the first block.
    let threads = integer_attribute(&kernel, "threads").unwrap_or(128);
    let workgroup = Attribute::parse(context, "#gpu.address_space<workgroup>").expect("an address space");
    let scratches: Vec<(Type, Value)> = scratch_areas(&shape, threads)
        .into_iter()
        .map(|(element, elements)| {
            let ty = MemRefType::new(element, &[elements], None, Some(workgroup));
            let allocation = b.insert(
                before_loop,
                tile::alloc_shared(context, ty.into(), kernel.location()).into(),
            );
            set_attribute(
                allocation,
                crate::layout::LAYOUT_ATTRIBUTE,
                SharedLayout::row_major().to_attribute(context),
            );
            (element, allocation.result_at(0).expect("a tile").into())
        })
        .collect();
    // The scratch takes shared memory the loop's ring had: the loop's stages become the deepest
    // ring that fits beside it, so that planning builds that ring without warning of memory the
    // split itself took (an automatic split is the compiler's choice, not the program's).
    let stages = integer_attribute(&shape.main, "stages").unwrap_or(1);
    if let Some(depth) = (2..stages)
        .rev()
        .find(|depth| super::ahead::ring_misfit(kernel, shape.main, target, *depth).is_none())
        && super::ahead::ring_misfit(kernel, shape.main, target, stages).is_some()
    {
        set_attribute(
            shape.main,
            "stages",
            IntegerAttribute::new(IntegerType::new(context, 64).into(), depth).into(),
        );
    }
    let after = At::before(
        epilogue
            .first()
            .copied()
            .unwrap_or_else(|| body.terminator().expect("tile.yield")),
    );
    let splits_attribute = IntegerAttribute::new(IntegerType::new(context, 64).into(), splits);
    for accumulator in &shape.accumulators {
        let value: Value = accumulator.result_at(0).expect("an allocation's tile").into();
        let element = tile_dialect::ops::as_memref(value.r#type())
            .expect("a fragment")
            .element();
        let scratch = scratches
            .iter()
            .find(|(ty, _)| *ty == element)
            .map(|(_, scratch)| *scratch)
            .expect("a scratch per element type");
        b.insert(
            after,
            tile::split_sum(context, value, scratch, rank, splits_attribute, shape.main.location()).into(),
        );
    }
    let leader = b.compare(after, "eq", rank, b.index(after, 0));
    let then = b.if_then(after, leader);
    for op in epilogue {
        rewriter.move_op_before(op, then.before);
    }
    set_attribute(kernel, SPLITS, splits_attribute.into());
    let host = At::before(kernel);
    let blocks_x = match &shape.sizes {
        Sizes::Static { grid, .. } => b.index(host, grid[0] * splits),
        Sizes::RunTime { grid_x, .. } => b.muli(host, *grid_x, b.index(host, splits)),
    };
    set_operand(kernel, 0, blocks_x);
    Ok(())
}

tile_passes::rust_pass! {
    /// Creates the `tile-split-k` pass (on `builtin.module`).
    pub fn create_split_k_pass() {
        argument: ARGUMENT,
        name: "TileSplitK",
        description: "Split the main loop of a GEMM kernel with few output tiles and a long reduction across the blocks of a thread block cluster (tile.split_sum adds their accumulators up in the first block, which runs the epilogue), where the loop's tile.schedule asks for split = S or the tile count leaves most multiprocessors idle",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = Target::of(module)?;
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| rewrite_kernel(context, kernel, target))
        },
    }
}
