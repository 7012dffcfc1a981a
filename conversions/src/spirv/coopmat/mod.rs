//! `convert-tile-to-spirv-coopmat`: tile kernels to Vulkan compute shaders for devices with KHR
//! cooperative matrices (16x16x16, f16 x f16 -> f32, 32-wide subgroups: NVIDIA's driver).
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]) in this target environment: a `tile.gemm` on f16 tiles runs on
//! `gpu.subgroup_mma_*` (the rule in `registers/patterns/coopmat.rs`), which upstream
//! `convert-gpu-to-spirv` lowers to `spirv.KHR.CooperativeMatrix*`. There is no whole-kernel
//! template. [`config`] holds the facts the rule and the layout inference share, [`held`] which
//! accumulators stay in cooperative matrices across their gemms.

pub mod config;
pub mod held;

use crate::generic::Flavor;
use melior::{Context, ir::operation::OperationRef};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-spirv-coopmat";
/// The target, as `tile-compile` and the manifests name it.
pub const TARGET: &str = "spirv-coopmat";

/// Vulkan 1.3 with KHR cooperative matrices and the Vulkan memory model they require.
pub const FLAVOR: Flavor = Flavor {
    target: TARGET,
    targets: Some(
        "[#spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess, CooperativeMatrixKHR, VulkanMemoryModel, GroupNonUniform, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage, SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<max_compute_shared_memory_size = 49152, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64], subgroup_size = 32, cooperative_matrix_properties_khr = [#spirv.coop_matrix_props_khr<m_size = 16, n_size = 16, k_size = 16, a_type = f16, b_type = f16, c_type = f32, result_type = f32, acc_sat = false, scope = <Subgroup>>]>>]",
    ),
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
pub const BACKEND: &str = "canonicalize, cse, gpu.module(tile-promote-private, tile-spirv-guard-empty-loops, tile-math-to-spirv, convert-math-to-spirv), convert-gpu-to-spirv, tile-spirv-vulkan-memory-model, spirv.module(spirv-lower-abi-attrs, spirv-update-vce)";

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-spirv-coopmat` pass (on `builtin.module`).
    pub fn create_convert_tile_to_spirv_coopmat_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToSpirvCoopmat",
        description: "Lower tile kernels op by op to gpu.funcs for devices with KHR cooperative matrices: fragments in registers, f16 gemms on gpu.subgroup_mma_*",
        anchor: "builtin.module",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::math_dialect()); dialects.push(tile_dialect::registration::spirv_dialect()); dialects },
        run: |module| {
            crate::support::check_supported(module, "spirv-coopmat")?;
            crate::kernels::lower_each_kernel(module, &lower_kernel)
        },
    }
}

fn lower_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
) -> Result<(), crate::kernels::Failure<'c, 'a>> {
    // A tile two gemms want in two roles has no layout: say so before anything is rewritten.
    crate::layout::check_conflicts(kernel, TARGET)?;
    crate::generic::lower_per_op(context, module, kernel, index, &FLAVOR)
}
