//! `spirv-coopmat`: Vulkan 1.3 with KHR cooperative matrices (16x16x16, f16 x f16 -> f32) on
//! 32-wide subgroups and the Vulkan memory model they require (NVIDIA's driver). Kernels lowered
//! op by op: f16 gemms on `gpu.subgroup_mma_*`, copies into workgroup memory in 8-byte runs through
//! vector views. The device's numbers are in [`crate::spirv::coopmat::config`].

use super::{Code, Lowering, Memory, Pipeline, Strategy, Target};
use crate::spirv::coopmat::config;

/// The target.
pub static TARGET: Target = Target {
    name: "spirv-coopmat",
    summary: "KHR cooperative matrices",
    pipeline: Pipeline::Spirv,
    lowering: Lowering {
        argument: "convert-tile-to-spirv-coopmat",
        name: "ConvertTileToSpirvCoopmat",
        description: "Lower tile kernels op by op to gpu.funcs for devices with KHR cooperative matrices: fragments in registers, f16 gemms on gpu.subgroup_mma_*",
        dialects: super::spirv::dialects,
        create: || crate::lowering::create_pass(&TARGET),
    },
    backend: || super::spirv::backend(true, TARGET.emulated_floats),
    code: Code::Spirv,
    strategy: Strategy::PerOp,
    matrix: Some(&crate::spirv::coopmat::rules::COOPERATIVE_MATRICES),
    gemm_anchors: crate::spirv::coopmat::anchors::gemm_anchors,
    // The environment fixes the subgroup width (GroupNonUniformShuffle).
    shuffle_lanes: Some(config::SUBGROUP),
    byte_permute: false,
    three_input_logic: false,
    environment: Some(environment),
    memory: Memory {
        max_shared_bytes: config::MAX_SHARED_BYTES,
        shared_limit_note: "NVIDIA's Vulkan limit",
        ..super::spirv::MEMORY
    },
    tma: false,
    cp_async_rings: false,
    multiprocessors: None,
    // 8-byte runs through vector views (see `generic::vector_copy`).
    clusters: None,
    wide_copies: Some(crate::generic::vector_copy::WideCopies {
        run_bytes: 8,
        lanes: 4,
        views: true,
        sched_barrier: false,
        aligned_loads: false,
        prefetch: true,
        whole_tile_test: true,
    }),
    subgroup_size: Some(config::SUBGROUP as u32),
    atomics: super::Atomics::Integer32,
    // bf16 as on plain SPIR-V (its gemms without cooperative matrices, which take f16 here). The
    // 8-bit floats would compile through the same emulation, but nothing here has run their
    // values on this target yet (tile-vulkan-run seeds f16, bf16 and f32), so they are refused.
    emulated_floats: &[tile_dialect::element::Element::BF16],
    f8_rounding: false,
    no_print: Some(
        "Vulkan prints through the NonSemantic.DebugPrintf instruction set, which MLIR's SPIR-V dialect cannot express",
    ),
    // 16x16x16 cooperative matrices on 8 subgroups; two buffers of 128x32 and 32x128 f16 in 32 KiB.
    matmul: crate::matmul::Rule {
        wide: crate::matmul::Tiling::new(128, 128, 32, 256, 2),
        few_tiles: None,
        narrow: None,
        narrow_one_wave: None,
        split: None,
        balanced: None,
        large: [None, None],
    },
    f64_arithmetic: false,
};

/// The target environment of a device whose workgroups may use `shared` bytes.
fn environment(shared: i64) -> String {
    format!(
        "[#spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess, CooperativeMatrixKHR, VulkanMemoryModel, GroupNonUniform, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage, SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<max_compute_shared_memory_size = {shared}, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64], subgroup_size = 32, cooperative_matrix_properties_khr = [#spirv.coop_matrix_props_khr<m_size = 16, n_size = 16, k_size = 16, a_type = f16, b_type = f16, c_type = f32, result_type = f32, acc_sat = false, scope = <Subgroup>>]>>]"
    )
}
