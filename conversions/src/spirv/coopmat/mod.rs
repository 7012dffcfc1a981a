//! `convert-tile-to-spirv-coopmat`: tile kernels to Vulkan compute shaders for devices with KHR
//! cooperative matrices (16x16x16, f16 x f16 -> f32, 32-wide subgroups: NVIDIA's driver).
//!
//! GEMM kernels ([`crate::gemm::plan`]) get the cooperative-matrix strategy: [`config`] splits the
//! block tile over the subgroups, [`emit`] renders the kernel in `gpu.subgroup_mma_*` ops, which
//! upstream `convert-gpu-to-spirv` lowers to `spirv.KHR.CooperativeMatrix*`. Every other kernel gets
//! the plain strategy ([`crate::generic`]) in the same target environment.

pub mod config;
mod emit;

use crate::{
    gemm::{
        install,
        launch::{self, HostTensor, host_grid, host_tensor},
        plan,
    },
    generic::Flavor,
    kernels::Failure,
    layout::{Layout, Strategy, atoms},
};
use melior::{
    Context,
    ir::{ValueLike, operation::OperationRef},
};
use tile_dialect::{layout::SharedLayout, ops::{integer_attribute, memref_shape}};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-spirv-coopmat";
/// The target, as `tile-compile` and the manifests name it.
pub const TARGET: &str = "spirv-coopmat";

/// Vulkan 1.3 with KHR cooperative matrices and the Vulkan memory model they require.
pub const FLAVOR: Flavor = Flavor {
    target: TARGET,
    module_attributes: "[#spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess, CooperativeMatrixKHR, VulkanMemoryModel, GroupNonUniform, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage, SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<max_compute_shared_memory_size = 49152, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64], subgroup_size = 32, cooperative_matrix_properties_khr = [#spirv.coop_matrix_props_khr<m_size = 16, n_size = 16, k_size = 16, a_type = f16, b_type = f16, c_type = f32, result_type = f32, acc_sat = false, scope = <Subgroup>>]>>]",
    workgroup_space: "#spirv.storage_class<Workgroup>",
    attributions: false,
    static_tensors: true,
    max_shared_bytes: config::MAX_SHARED_BYTES,
    shared_limit_note: "NVIDIA's Vulkan limit",
    private_space: "#spirv.storage_class<Function>",
    dynamic_shared: false,
};

/// The upstream passes after this lowering, up to `spirv.module`s ready to serialize: the plain
/// backend, with the Vulkan memory model (cooperative matrices require it) set before the
/// capabilities are recomputed.
pub const BACKEND: &str = "canonicalize, cse, gpu.module(tile-math-to-spirv, convert-math-to-spirv), convert-gpu-to-spirv, tile-spirv-vulkan-memory-model, spirv.module(spirv-lower-abi-attrs, spirv-update-vce)";

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-spirv-coopmat` pass (on `builtin.module`).
    pub fn create_convert_tile_to_spirv_coopmat_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToSpirvCoopmat",
        description: "Lower tile GEMM kernels to gpu.funcs on KHR cooperative matrices (gpu.subgroup_mma_*), other kernels with the plain strategy",
        anchor: "builtin.module",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::math_dialect()); dialects.push(tile_dialect::registration::spirv_dialect()); dialects },
        run: |module| {
            crate::support::check_supported(module, "spirv-coopmat")?;
            crate::kernels::lower_each_kernel(module, &lower_kernel)
        },
    }
}

/// Returns the manifest (JSON) of the kernel `entry` launched by `host_function`, lowered from
/// `plan` with `config`, or says which launch value the host could not compute.
fn manifest(
    plan: &plan::GemmPlan,
    config: &config::CoopConfig,
    entry: &str,
    host_function: &str,
) -> Result<String, String> {
    use tile_manifest::{Binding, Manifest, Strategy, TileConfig};
    let grid = host_grid(plan.grid.iter().copied())?;
    let bindings = [plan.a.global, plan.b.global, plan.output.global]
        .into_iter()
        .enumerate()
        .map(|(binding, tensor)| {
            let HostTensor { argument, shape, element } = host_tensor(tensor);
            Binding { set: 0, binding: binding as u32, host_argument: argument, shape, element, written: binding == 2 }
        })
        .collect();
    let mut manifest = Manifest::new(entry, TARGET, grid);
    manifest.host_function = Some(host_function.into());
    manifest.strategy = Some(Strategy::CooperativeMatrix);
    manifest.workgroup_size = Some([config.threads as u32, 1, 1]);
    manifest.subgroup_size = Some(config::SUBGROUP as u32);
    manifest.shared_bytes = Some(config.shared_bytes as u64);
    manifest.bindings = Some(bindings);
    manifest.tile = Some(TileConfig {
        m: config.bm as u32,
        n: config.bn as u32,
        k: config.bk as u32,
        stages: None,
        warpgroups: None,
        waves: None,
        mfma: None,
        subgroups: Some([config.subgroups.0 as u32, config.subgroups.1 as u32]),
        matrix: Some("16x16x16".into()),
        transpose_a: None,
        transpose_b: Some(config.transpose_b),
        persistent: Default::default(),
    });
    Ok(manifest.to_json())
}

/// Decides how `kernel` lowers on spirv-coopmat: on cooperative matrices with its configuration and
/// tile layouts, or with the plain strategy and why. Errors are programs neither can take.
pub(crate) fn resolve<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<Strategy<'c, 'a, config::CoopConfig>, Failure<'c, 'a>> {
    crate::layout::check_conflicts(kernel, TARGET)?;
    let plan = match plan::plan_gemm(kernel) {
        Ok(plan) => plan,
        Err(error) => {
            let reason = error.message.replace("{chip}", TARGET);
            return Ok(Strategy::Plain { op: error.op, reason });
        }
    };
    if let Some((op, reason)) = plan.lowered_on_sm90a_only(TARGET).or_else(|| plan.matrices_only(TARGET)) {
        return Ok(Strategy::Plain { op, reason });
    }
    let cannot = |message: String| (kernel, format!("cannot be lowered for {TARGET}: {message}"));
    if !plan.params.is_empty() {
        return Err(cannot(
            "dynamic shapes are not supported on SPIR-V yet (storage buffers are bound as sized arrays); give the tensors static shapes".into(),
        ));
    }
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let config = config::configure(
        threads,
        (plan.a.global, plan.a.shared),
        plan.b.global,
        plan.accumulator,
        plan.output.global,
        plan.transpose_b,
    )
    .and_then(|config| if plan.reduced.is_empty() { Ok(config) } else { config.with_row_reductions() })
    .map_err(|message| (plan.main_loop.op, format!("cannot be lowered for {TARGET}: {message}")))?;
    let plan::Scalar::Const(_) = plan.main_loop.upper else {
        return Err(cannot("expects a constant main-loop bound on SPIR-V".into()));
    };
    let layouts = layouts(&plan, &config);
    // The main loop's schedule: how many stages are in flight, how they are filled and awaited.
    let schedule = "{buffers = 1 : i64, fill = \"registers\", prefetch = 1 : i64, wait = \"barrier\"}".to_owned();
    Ok(Strategy::TensorCores(plan, config, layouts, schedule))
}

/// The layouts a cooperative-matrix kernel builds its tiles in.
fn layouts<'c, 'a>(plan: &plan::GemmPlan<'c, 'a>, config: &config::CoopConfig) -> Vec<(melior::ir::Value<'c, 'a>, Layout)> {
    let rows = |transposed| Layout::Shared(SharedLayout { padding: config::ROW_PADDING, transposed, ..SharedLayout::row_major() });
    let accumulator = atoms::coopmat_accumulator(config.bm, config.bn, config.subgroups);
    let mut layouts = vec![
        (plan.a.shared, rows(false)),
        (plan.b.shared, rows(config.transpose_b)),
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
    let Some((plan, config)) = crate::layout::tensor_cores_or_plain(resolved, context, module, kernel, index, &FLAVOR)? else {
        return Ok(());
    };
    let cannot = |message: String| (kernel, format!("cannot be lowered for {TARGET}: {message}"));
    let plan::Scalar::Const(upper) = plan.main_loop.upper else {
        return Err(cannot("expects a constant main-loop bound on SPIR-V".into()));
    };
    let symbols = install::Symbols::of(kernel, index);
    let manifest = manifest(&plan, &config, &symbols.kernel, &symbols.function)
        .map_err(|message| cannot(launch::launch_needs(&message)))?;
    let helpers = install::outline_helpers(context, &plan, &symbols.stem).map_err(cannot)?;
    let names = install::KernelNames::new(&symbols, &helpers);
    let shape = |value: melior::ir::Value| match memref_shape(value)[..] {
        [rows, columns] => (rows, columns),
        _ => (0, 0),
    };
    let interface = emit::Interface {
        globals: [plan.a.global, plan.b.global, plan.output.global].map(|value| value.r#type().to_string()),
        shapes: [plan.a.global, plan.b.global, plan.output.global].map(shape),
        block_dims: plan.block_indices.len(),
        main_loop: (plan.main_loop.lower, plan.main_loop.step, upper),
        module_attributes: FLAVOR.module_attributes,
    };
    let text = emit::render_module(&config, &names, &interface, &helpers.text);
    install::install_kernel(context, module, kernel, &text, &helpers, &manifest, None).map_err(cannot)
}
