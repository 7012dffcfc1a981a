//! Software pipelining as tile-level passes with visible IR.
//!
//! | flag | module | does |
//! |------|--------|------|
//! | `tile-plan-pipelines` | [`plan`] (with [`ahead`]) | records each loop's schedule for the module's `tile.target`, and marks the copies issued ahead (`tile.ahead`) |
//! | `tile-expand-pipelines` | [`expand`] | writes a planned loop out as rings of shared tiles, barriers, `tile.copy_async`, `tile.arrive` and `tile.wait` with their slot and phase arithmetic |
//!
//! [`producer`] lowers a `tile.producer` on TMA targets (a warpgroup of its own beside the kernel's threads);
//! [`groups`] lowers rings awaited by cp.async commit groups (`Target::cp_async_rings`).
//! [`rings`] lowers rings and, where nothing runs asynchronously, the asynchronous-copy ops; each GPU
//! lowering lowers the rest ([`mbarriers`] where rings are awaited on them).

pub mod ahead;
pub mod expand;
pub mod groups;
pub mod mbarriers;
pub mod persistent;
pub mod plan;
pub mod producer;
pub mod rings;
pub mod split_k;

/// The unit attribute that marks a copy `tile-expand-pipelines` issues ahead.
pub const AHEAD_ATTRIBUTE: &str = tile_dialect::decisions::AHEAD.name;
/// The deepest ring a loop may get (the barriers a `tile.alloc_barriers` may hold).
pub const MAX_DEPTH: i64 = tile_dialect::MAX_BARRIERS;
/// The unit attribute on the `scf.for` of a loop expanded with `release = "previous"`: its gemm
/// may still run when the next iteration starts (the register rules' wgmma waits carry its group
/// across the back edge and wait for it after the loop).
pub const CARRIES_GEMM_ATTRIBUTE: &str = tile_dialect::decisions::CARRIES_GEMM.name;
/// The unit attribute on the `scf.for` of a loop whose schedule has `pingpong = true`: its two
/// consumer warpgroups issue its gemms in turns (the register rules' named barriers).
pub const PINGPONG_ATTRIBUTE: &str = tile_dialect::decisions::PINGPONG.name;
/// The unit attribute on the `tile.arrive` that releases the slot the previous iteration read.
pub const RELEASES_PREVIOUS_ATTRIBUTE: &str = tile_dialect::decisions::RELEASES_PREVIOUS.name;
/// The expansion pass's flag.
pub const EXPAND_ARGUMENT: &str = "tile-expand-pipelines";

tile_passes::rust_pass! {
    /// Creates the `tile-expand-pipelines` pass (on `builtin.module`).
    pub fn create_expand_pipelines_pass() {
        argument: EXPAND_ARGUMENT,
        name: "TileExpandPipelines",
        description: "Write each planned tile.pipelined loop out as rings of shared tiles, barriers and asynchronous copies (tile.copy_async, tile.arrive, tile.wait)",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = crate::target::Target::of(module).ok();
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| expand::expand_kernel(context, kernel, target))
        },
    }
}

/// A GEMM kernel's main loop as `tile-persistent-kernels` takes it, its sizes static or not: the
/// kernel is lowered op by op and one `tile.pipelined` loop directly in its body holds every gemm.
pub(crate) struct GemmLoopForm<'c, 'a> {
    /// The kernel's grid.
    pub grid: Vec<melior::ir::Value<'c, 'a>>,
    /// The ops of the kernel's body, its terminator left out.
    pub ops: Vec<melior::ir::operation::OperationRef<'c, 'a>>,
    /// The loop's place among them.
    pub at: usize,
    /// The loop.
    pub main: melior::ir::operation::OperationRef<'c, 'a>,
    /// Its bounds: first value, end and step (where it has one).
    pub bounds: Vec<melior::ir::Value<'c, 'a>>,
}

/// [`GemmLoopForm`] with static sizes, as `tile-split-k` and `tile-persistent-kernels` take it:
/// the kernel's grid is static, and the loop's bounds too (at least one step).
pub(crate) struct GemmLoop<'c, 'a> {
    /// The kernel's grid.
    pub grid: Vec<i64>,
    /// The ops of the kernel's body, its terminator left out.
    pub ops: Vec<melior::ir::operation::OperationRef<'c, 'a>>,
    /// The loop's place among them.
    pub at: usize,
    /// The loop.
    pub main: melior::ir::operation::OperationRef<'c, 'a>,
    /// Its first value, step and steps.
    pub lower: i64,
    pub step: i64,
    pub steps: i64,
}

fn lowered_op_by_op(kernel: melior::ir::operation::OperationRef) -> Result<(), &'static str> {
    let strategy = tile_dialect::ops::string_attribute(&kernel, tile_dialect::decisions::STRATEGY.name);
    match strategy.as_deref() == Some(crate::target::Strategy::PerOp.name()) {
        true => Ok(()),
        false => Err("its kernel is not lowered op by op (tile.strategy)"),
    }
}

/// `kernel`'s [`GemmLoopForm`], or why it has none.
pub(crate) fn gemm_loop_form<'c, 'a>(
    kernel: melior::ir::operation::OperationRef<'c, 'a>,
) -> Result<GemmLoopForm<'c, 'a>, &'static str> {
    loop_form(kernel, false)
}

/// `kernel`'s [`GemmLoopForm`], or why it has none; with `gemms_around`, gemms may also stand
/// before and after the loop in the kernel's body (a FlashAttention-3 order's first S and last
/// P V, which a persistent kernel runs at a tile's first and last steps).
pub(crate) fn loop_form<'c, 'a>(
    kernel: melior::ir::operation::OperationRef<'c, 'a>,
    gemms_around: bool,
) -> Result<GemmLoopForm<'c, 'a>, &'static str> {
    use melior::ir::{BlockLike, operation::OperationLike};
    use tile_dialect::ops::nested_ops;
    use tile_dialect::positions::OperationAt;
    use tile_ir::tile;
    lowered_op_by_op(kernel)?;
    let body = kernel.body().ok_or("its kernel has no body")?;
    let mut ops: Vec<_> = std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    ops.pop().ok_or("its kernel has no body")?;
    let all = nested_ops(kernel);
    let count = |name: fn() -> &'static str, within: &[melior::ir::operation::OperationRef]| {
        within.iter().filter(|op| tile_ir::is(*op, name)).count()
    };
    let at = ops
        .iter()
        .position(|op| tile_ir::is(op, tile::PipelinedOperation::name))
        .filter(|_| count(tile::PipelinedOperation::name, &all) == 1)
        .ok_or("its kernel does not have exactly one tile.pipelined loop, directly in its body")?;
    let main = ops[at];
    let gemms = count(tile::GemmOperation::name, &nested_ops(main));
    let at_top = count(tile::GemmOperation::name, &ops) + gemms;
    if gemms == 0
        || (gemms != count(tile::GemmOperation::name, &all)
            && !(gemms_around && at_top == count(tile::GemmOperation::name, &all)))
    {
        return Err("the loop does not hold every gemm of its kernel");
    }
    Ok(GemmLoopForm {
        grid: kernel.operands().collect(),
        ops,
        at,
        main,
        bounds: main.operands().collect(),
    })
}

/// `kernel`'s [`GemmLoop`], or why it has none.
pub(crate) fn gemm_loop<'c, 'a>(
    kernel: melior::ir::operation::OperationRef<'c, 'a>,
) -> Result<GemmLoop<'c, 'a>, &'static str> {
    loop_with_sizes(kernel, false)
}

/// `kernel`'s [`GemmLoop`], or why it has none; `gemms_around` as [`loop_form`] takes it.
pub(crate) fn loop_with_sizes<'c, 'a>(
    kernel: melior::ir::operation::OperationRef<'c, 'a>,
    gemms_around: bool,
) -> Result<GemmLoop<'c, 'a>, &'static str> {
    use melior::ir::operation::OperationLike;
    use tile_dialect::ops::constant_integer;
    lowered_op_by_op(kernel)?;
    let grid: Vec<i64> = kernel
        .operands()
        .map(constant_integer)
        .collect::<Option<_>>()
        .ok_or("its kernel's grid is not constant")?;
    let GemmLoopForm {
        ops, at, main, bounds, ..
    } = loop_form(kernel, gemms_around)?;
    let bounds: Vec<i64> = bounds
        .into_iter()
        .map(constant_integer)
        .collect::<Option<_>>()
        .ok_or("the loop's bounds are not constant")?;
    let (lower, upper, step) = match bounds[..] {
        [lower, upper] => (lower, upper, 1),
        [lower, upper, step] => (lower, upper, step),
        _ => return Err("the loop's bounds are not constant"),
    };
    if step < 1 || upper <= lower {
        return Err("the loop runs no step");
    }
    Ok(GemmLoop {
        grid,
        ops,
        at,
        main,
        lower,
        step,
        steps: (upper - lower + step - 1) / step,
    })
}
