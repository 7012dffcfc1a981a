//! `convert-tile-to-amdgpu`: tile GEMM kernels to CDNA3 (gfx942) kernels in `gpu`/`amdgpu`/`vector`.
//!
//! Shares the reading of the program ([`crate::gemm::plan`]) and the recomputation of its index and
//! epilogue arithmetic ([`crate::gemm::outline`]) with the Hopper lowering; [`config`] picks the
//! wave split, the mfma shape and the LDS plan, [`emit`] renders the kernel. The kernel replaces the
//! `tile.kernel` as a `gpu.module` whose `tile.manifest` attribute is the launch manifest.

pub mod config;
mod emit;

use crate::gemm::{
    host,
    install,
    launch::{self, host_expression, host_grid, host_tensor},
    plan,
};
use melior::{
    Context,
    ir::{
        ValueLike,
        operation::OperationRef,
    },
};
use tile_dialect::ops::integer_attribute;

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-amdgpu";
/// The chip this lowering targets.
pub const CHIP: &str = "gfx942";

/// The plain strategy on AMD GPUs, for kernels outside the GEMM family: tiles in LDS, tensors as
/// memref descriptors.
pub const GENERIC: crate::generic::Flavor = crate::generic::Flavor {
    target: CHIP,
    module_attributes: "",
    workgroup_space: "#gpu.address_space<workgroup>",
    attributions: true,
    static_tensors: false,
    max_shared_bytes: 65_536,
    shared_limit_note: "the LDS of one workgroup",
    private_space: "#gpu.address_space<private>",
    dynamic_shared: false,
};

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-amdgpu` pass (on `builtin.module`).
    pub fn create_convert_tile_to_amdgpu_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToAmdgpu",
        description: "Lower tile GEMM kernels to gfx942 kernels: LDS staging with register prefetch feeding mfma (gpu/amdgpu)",
        anchor: "builtin.module",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::amdgpu_dialect()); dialects },
        run: |module| lower_module(module),
    }
}

/// Lowers every `tile.kernel` of `module`.
fn lower_module(module: OperationRef) -> Result<(), String> {
    crate::support::check_supported(module, "gfx942")?;
    crate::kernels::lower_each_kernel(module, &lower_kernel)
}

use crate::{
    kernels::Failure,
    layout::{Layout, Strategy, atoms},
};
use tile_dialect::layout::SharedLayout;


/// Returns the manifest (JSON) of the kernel `entry` lowered from `plan` with `config`, or says
/// which launch value the host could not compute.
fn manifest(
    plan: &plan::GemmPlan,
    config: &config::AmdConfig,
    entry: &str,
) -> Result<String, String> {
    use tile_manifest::{Manifest, Param, ParamKind, TileConfig};
    let grid = host_grid(plan.grid.iter().copied())?;
    let mut params = Vec::new();
    for (role, value) in [
        ("A", plan.a.global),
        ("B", plan.b.global),
        ("C", plan.output.global),
    ] {
        let host_argument = host_tensor(value).argument;
        params.push(Param { role: role.into(), kind: ParamKind::Memref { host_argument, shape: None, element: None, ty: Some(value.r#type().to_string()) } });
    }
    for param in &plan.params {
        params.push(Param {
            role: "size".into(),
            kind: ParamKind::Scalar { ty: "index".into(), value: host_expression(*param)? },
        });
    }
    let mut manifest = Manifest::new(entry, CHIP, grid);
    manifest.chip = Some(CHIP.into());
    manifest.block = Some([config.threads as u32, 1, 1]);
    manifest.lds_bytes = Some(config.lds_bytes as u64);
    manifest.params = Some(params);
    manifest.calling_convention =
        Some("mlir memref descriptors (allocated, aligned, offset, sizes, strides) per memref".into());
    manifest.tile = Some(TileConfig {
        m: config.bm as u32,
        n: config.bn as u32,
        k: config.bk as u32,
        stages: None,
        warpgroups: None,
        waves: Some([config.waves.0 as u32, config.waves.1 as u32]),
        mfma: Some(format!("{}x{}x{}", config.mfma.size, config.mfma.size, config.mfma.k)),
        subgroups: None,
        matrix: None,
        transpose_a: None,
        transpose_b: None,
        persistent: Default::default(),
    });
    Ok(manifest.to_json())
}

/// Decides how `kernel` lowers on gfx942: on mfma with its configuration and tile layouts, or with
/// the plain strategy and why. Errors are programs neither can take.
pub(crate) fn resolve<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<Strategy<'c, 'a, config::AmdConfig>, Failure<'c, 'a>> {
    crate::layout::check_conflicts(kernel, CHIP)?;
    // Kernels outside the GEMM family run with the plain strategy: correct, not fast.
    let plan = match plan::plan_gemm(kernel) {
        Ok(plan) => plan,
        Err(error) => {
            let reason = format!("{} (chip {CHIP})", error.message.replace("{chip}", CHIP));
            return Ok(Strategy::Plain { op: error.op, reason });
        }
    };
    if let Some((op, reason)) = plan.lowered_on_sm90a_only(CHIP) {
        return Ok(Strategy::Plain { op, reason });
    }
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let config = config::configure(
        threads,
        plan.a.shared,
        plan.accumulator,
        plan.output.global,
        plan.transpose_b,
    )
    .and_then(|config| match crate::pipeline::plan::requested_buffers(plan.main_loop.op) {
        Some(buffers) => config.with_buffers(buffers),
        None => Ok(config),
    })
    .and_then(|config| if plan.reduced.is_empty() { Ok(config) } else { config.with_row_reductions() })
    .map_err(|message| {
        (
            plan.main_loop.op,
            format!("cannot be lowered for {CHIP}: {message}"),
        )
    })?;
    let layouts = layouts(&plan, &config);
    // The main loop's schedule: how many stages are in flight, how they are filled and awaited.
    let schedule = format!(
        "{{buffers = {0} : i64, fill = \"registers\", prefetch = {0} : i64, wait = \"lds_barrier\"}}",
        config.buffers
    );
    Ok(Strategy::TensorCores(plan, config, layouts, schedule))
}

/// The layouts an mfma kernel builds its tiles in.
fn layouts<'c, 'a>(plan: &plan::GemmPlan<'c, 'a>, config: &config::AmdConfig) -> Vec<(melior::ir::Value<'c, 'a>, Layout)> {
    // B is held K-contiguous in LDS: transposed unless the program gives it as NxK.
    let lds = |transposed| {
        Layout::Shared(SharedLayout {
            padding: config.lds_row - config.bk,
            transposed,
            buffers: config.buffers,
            ..SharedLayout::row_major()
        })
    };
    let accumulator = atoms::mfma_accumulator(config.bm, config.bn, config.waves, config.mfma.size);
    let mut layouts = vec![
        (plan.a.shared, lds(false)),
        (plan.b.shared, lds(!config.transpose_b)),
        (plan.accumulator, Layout::Fragment(accumulator.clone())),
    ];
    layouts.extend(plan.reduced.iter().map(|row| (row.fragment, Layout::Fragment(atoms::project(&accumulator, &[0])))));
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
    let manifest = manifest(&plan, &config, &symbols.kernel).map_err(|message| {
        cannot(launch::launch_needs(&message))
    })?;
    let helpers = install::outline_helpers(context, &plan, &symbols.stem).map_err(cannot)?;
    let names = install::KernelNames::new(&symbols, &helpers);
    let interface = emit::Interface {
        globals: [plan.a.global, plan.b.global, plan.output.global]
            .map(|value| value.r#type().to_string()),
        ranks: [plan.a.rank(), plan.b.rank(), plan.output.rank()],
        block_dims: plan.block_indices.len(),
        params: plan.params.len(),
        main_loop: (
            plan.main_loop.lower,
            plan.main_loop.step,
            plan.main_loop.upper,
        ),
    };
    let text = emit::render_module(&config, &names, &interface, &helpers.text);
    // The kernel takes the host tensors as they are (memref descriptors) and its sizes as indices.
    let arguments = host::Arguments { tensor: &host::memref_argument, size_type: "index", shared_bytes: None, threads: plan.threads, persistent_blocks: None, tensor_maps: &[] };
    let launch = host::launch(host::Launched::of(&plan), &symbols, &arguments);
    install::install_kernel(context, module, kernel, &text, &helpers, &manifest, Some(launch)).map_err(cannot)
}
