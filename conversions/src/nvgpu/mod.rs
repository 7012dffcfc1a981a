//! `convert-tile-to-nvgpu`: tile GEMM kernels to Hopper (sm_90a) kernels in `gpu`/`nvgpu`/`nvvm`.
//!
//! Per `tile.kernel`: [`plan`] reads the program, [`config`] picks warpgroups, swizzles, boxes and
//! the shared-memory ring (checking the chip's limits), [`outline`] clones the program's index and
//! epilogue arithmetic into helper functions, and [`emit`] renders the kernel. The kernel replaces
//! the `tile.kernel` as a `gpu.module`; its `gpu.func` carries a `tile.manifest` JSON string with
//! everything a launcher needs (grid, block, shared memory, tensor maps).

pub(crate) mod config;
pub(crate) mod emit;
mod manifest;
mod staging;
mod walk;

use crate::gemm::{host, install, launch, plan};

use melior::{
    Context,
    ir::operation::OperationRef,
};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-nvgpu";
/// The chip this lowering targets.
pub const CHIP: &str = "sm_90a";

/// The plain strategy on NVIDIA GPUs, for kernels outside the GEMM family: tiles in dynamic shared
/// memory (the whole 227 KiB a block may have), tensors as memref descriptors.
pub const GENERIC: crate::generic::Flavor = crate::generic::Flavor {
    target: CHIP,
    module_attributes: "",
    workgroup_space: "#gpu.address_space<workgroup>",
    attributions: true,
    static_tensors: false,
    max_shared_bytes: config::MAX_SHARED_BYTES,
    shared_limit_note: "shared memory of one block",
    private_space: "#gpu.address_space<private>",
    dynamic_shared: true,
};

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-nvgpu` pass (on `builtin.module`).
    pub fn create_convert_tile_to_nvgpu_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToNvgpu",
        description: "Lower tile GEMM kernels to sm_90a kernels: TMA + mbarrier pipelines feeding wgmma (gpu/nvgpu/nvvm)",
        anchor: "builtin.module",
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| lower_module(module),
    }
}

/// Lowers every `tile.kernel` of `module`.
fn lower_module(module: OperationRef) -> Result<(), String> {
    crate::support::check_supported(module, CHIP)?;
    crate::kernels::lower_each_kernel(module, &lower_kernel)
}

use crate::{
    kernels::Failure,
    layout::{Layout, Strategy, atoms},
};


/// Decides how `kernel` lowers on sm_90a: on wgmma with its configuration and tile layouts, or
/// with the plain strategy and why. Errors are programs neither can take.
pub(crate) fn resolve<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<Strategy<'c, 'a, config::HopperConfig>, Failure<'c, 'a>> {
    crate::layout::check_conflicts(kernel, CHIP)?;
    // Kernels outside the GEMM family run with the plain strategy: correct, not fast.
    let plan = match plan::plan_gemm(kernel) {
        Ok(plan) => plan,
        Err(error) => {
            let reason = format!("{} (chip {CHIP})", error.message.replace("{chip}", CHIP));
            return Ok(Strategy::Plain { op: error.op, reason });
        }
    };
    // What the template cannot take in this program runs on the per-op rules or the plain strategy,
    // with a warning at the op that decided it, never as a refusal of a program the dialect accepts.
    let fall_back = |op: OperationRef<'c, 'a>, message: String| Strategy::Plain {
        op,
        reason: format!("cannot be lowered for {CHIP} with TMA and wgmma: {message}"),
    };
    let threads = plan.threads;
    if threads % 128 != 0 || !(128..=512).contains(&threads) {
        return Ok(fall_back(
            kernel,
            format!("expects 128, 256, 384 or 512 threads (wgmma runs on warpgroups of 128 threads), but got {threads}"),
        ));
    }
    for (tile, role) in [(&plan.a, "A"), (&plan.b, "B"), (&plan.output, "the result")] {
        // The tensors are the program's, not a tile choice: warn at the copy of the tensor TMA
        // cannot take.
        if let Err(message) = config::check_tma_rows(tile.global, role) {
            return Ok(fall_back(tile.copy, message));
        }
    }
    // The ring refills the stage read one step before: with one stage, the step after the first
    // would wait for a copy issued after its own wait.
    if plan.main_loop.stages < 2 {
        let stages = plan.main_loop.stages;
        return Ok(fall_back(
            plan.main_loop.op,
            format!("expects stages(2) or more (its ring refills a stage while the next one is read), but got stages({stages})"),
        ));
    }
    let config = match config::configure(
        plan.threads,
        plan.a.shared,
        plan.accumulator,
        plan.output.global,
        plan.transpose_a,
        plan.transpose_b,
        plan.main_loop.stages,
    ) {
        Ok(config) => config,
        Err(message) => return Ok(fall_back(plan.main_loop.op, message)),
    };
    let ranks = [plan.a.rank(), plan.b.rank(), plan.output.rank()];
    let config = match config.with_leading_dimensions(ranks) {
        Ok(config) => config,
        Err(message) => {
            let tile = plan.nd_tiles().find(|tile| tile.rank() > 5).unwrap_or(&plan.a);
            return Ok(fall_back(tile.copy, message));
        }
    };
    let mut config = if plan.column_reduction().is_some() { config.with_column_exchange(plan.threads / 32) } else { config };
    config.check_shared_memory().map_err(|message| (plan.main_loop.op, format!("cannot be lowered for {CHIP}: {message}")))?;
    // Large tiles on a 2-D grid run persistent, unless the program's schedule says not to.
    let grid: Vec<Option<i64>> = plan.grid.iter().map(|size| tile_dialect::ops::constant_integer(*size)).collect();
    if let [x, y] = grid[..] {
        let tiles = x.zip(y);
        match crate::pipeline::plan::requested_persistent(plan.main_loop.op) {
            Some(false) => {}
            asked => config.make_persistent(tiles, asked == Some(true)),
        }
    }
    let layouts = layouts(&plan, &config);
    // The main loop's schedule: how many stages are in flight, how they are filled and awaited.
    let schedule = format!(
        "{{buffers = {} : i64, fill = \"tma\", mma_in_flight = 1 : i64, persistent = {}, prefetch = {} : i64, stage_bytes = {} : i64, wait = \"mbarrier\"}}",
        config.stages,
        config.persistent.is_some(),
        config.stages - 1,
        config.stage_bytes
    );
    Ok(Strategy::TensorCores(plan, config, layouts, schedule))
}

/// The layouts a wgmma kernel builds its tiles in.
fn layouts<'c, 'a>(plan: &plan::GemmPlan<'c, 'a>, config: &config::HopperConfig) -> Vec<(melior::ir::Value<'c, 'a>, Layout)> {
    let accumulator = atoms::wgmma_accumulator(config.bm, config.bn, config.warpgroups);
    let mut layouts = vec![
        (plan.a.shared, Layout::Shared(config.a.typed())),
        (plan.b.shared, Layout::Shared(config.b.typed())),
        (plan.accumulator, Layout::Fragment(accumulator.clone())),
    ];
    // A row of the accumulator lies in the 4 lanes of a quad; a column in the 8 quads of a warp
    // (lanes 4 apart) and in every warp, which exchange partial columns in shared memory.
    layouts.extend(plan.reduced.iter().map(|reduced| {
        let kept = match reduced.axis {
            plan::Axis::Rows => 0,
            plan::Axis::Columns => 1,
        };
        (reduced.fragment, Layout::Fragment(atoms::project(&accumulator, &[kept])))
    }));
    layouts
}

fn lower_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
) -> Result<(), Failure<'c, 'a>> {
    let resolved = resolve(kernel)?;
    let Some((plan, config)) = crate::layout::tensor_cores_or_plain(resolved, context, module, kernel, index, &GENERIC)? else {
        return Ok(());
    };
    let cannot = |message: String| (kernel, format!("cannot be lowered for {CHIP}: {message}"));
    let symbols = install::Symbols::of(kernel, index);
    let manifest = manifest::manifest(&plan, &config, &symbols.kernel).map_err(|message| {
        cannot(launch::launch_needs(&message))
    })?;
    let helpers = install::outline_helpers(context, &plan, &symbols.stem).map_err(cannot)?;
    let names = install::KernelNames::new(&symbols, &helpers);
    let loop_shape = emit::LoopShape {
        lower: plan.main_loop.lower,
        step: plan.main_loop.step,
        upper: plan.main_loop.upper,
    };
    let text = emit::render_module(
        &config,
        &names,
        &loop_shape,
        plan.block_indices.len(),
        plan.params.len(),
        plan.threads,
        &helpers.text,
    );
    // The host makes the three tensor maps (box and swizzle as the kernel reads them) and passes
    // them as pointers to the CUtensorMap.
    let maps = emit::tensor_map_types(&config);
    let boxes = [(config.a.box_rows, config.a.box_inner), (config.b.box_rows, config.b.box_inner), (config.bm, config.c.box_cols)];
    let tensor = |line: &mut dyn FnMut(String), index: usize, ty: &str, element: &str| {
        // After A, B and the result: the other tensors the epilogue reads, passed as memrefs.
        if index >= maps.len() {
            return host::memref_argument(line, index, ty, element);
        }
        let (map, (rows, inner)) = (&maps[index], boxes[index]);
        // An N-D tensor's map has a box of 1 in each leading dimension.
        let leading = config.leading[index];
        if leading > 0 {
            line(format!("%one{index} = arith.constant 1 : index"));
        }
        line(format!("%rows{index} = arith.constant {rows} : index"));
        line(format!("%inner{index} = arith.constant {inner} : index"));
        line(format!("%u{index} = memref.cast %t{index} : {ty} to memref<*x{element}>"));
        let sizes: Vec<String> = std::iter::repeat_n(format!("%one{index}"), leading)
            .chain([format!("%rows{index}"), format!("%inner{index}")])
            .collect();
        line(format!("%map{index} = nvgpu.tma.create.descriptor %u{index} box[{}] : memref<*x{element}> -> {map}", sizes.join(", ")));
        line(format!("%p{index} = builtin.unrealized_conversion_cast %map{index} : {map} to !llvm.ptr"));
        format!("%p{index} : !llvm.ptr")
    };
    let arguments = host::Arguments {
        tensor: &tensor,
        size_type: "i64",
        shared_bytes: Some(config.shared_bytes()),
        threads: plan.threads,
        persistent_blocks: config.persistent.map(|_| config::MULTIPROCESSORS),
        tensor_maps: &[],
    };
    let mut launched = host::Launched::of(&plan);
    launched.tensors.extend(plan.epilogue_tensors());
    if config.persistent.is_some_and(|persistent| persistent.tiles.is_none()) {
        // A dynamic grid reaches a persistent kernel as its last two parameters.
        launched.params.extend(plan.grid.iter().copied());
    }
    let launch = host::launch(launched, &symbols, &arguments);
    install::install_kernel(context, module, kernel, &text, &helpers, &manifest, Some(launch)).map_err(cannot)
}
