//! `spirv`: Vulkan 1.3-class compute with 8/16-bit storage, as lavapipe and every Vulkan driver
//! run it. Kernels with the plain strategy: tile ops as loops shared by a workgroup's threads,
//! tiles in workgroup memory, tensors bound as sized storage buffers.

use super::{Code, Lowering, Memory, Pipeline, Strategy, Target};

/// The target.
pub static TARGET: Target = Target {
    name: "spirv",
    summary: "loops shared by a workgroup's threads",
    pipeline: Pipeline::Spirv,
    lowering: Lowering {
        argument: "convert-tile-to-spirv",
        name: "ConvertTileToSpirv",
        description: "Lower tile kernels to gpu.funcs for SPIR-V: tile ops as loops shared by the workgroup's threads, tiles in workgroup memory",
        dialects: dialects,
        create: || crate::lowering::create_pass(&TARGET),
    },
    backend: || backend(false, TARGET.emulated_floats),
    code: Code::Spirv,
    strategy: Strategy::Plain,
    matrix: None,
    gemm_anchors: crate::layout::anchors::no_anchors,
    // The subgroup width is the device's: exchanges go through workgroup memory.
    shuffle_lanes: None,
    byte_permute: false,
    three_input_logic: false,
    environment: Some(environment),
    memory: MEMORY,
    tma: false,
    cp_async_rings: false,
    multiprocessors: None,
    clusters: None,
    wide_copies: None,
    subgroup_size: None,
    atomics: super::Atomics::Integer32,
    emulated_floats: &[
        tile_dialect::element::Element::BF16,
        tile_dialect::element::Element::F8E4M3FN,
        tile_dialect::element::Element::F8E5M2,
    ],
    f8_rounding: false,
    no_print: Some(
        "Vulkan prints through the NonSemantic.DebugPrintf instruction set, which MLIR's SPIR-V dialect cannot express",
    ),
    // No matrix instructions: 64x64 tiles, 16 accumulators a thread, 16 KiB of the 32 KiB.
    matmul: crate::matmul::Rule {
        wide: crate::matmul::Tiling::new(64, 64, 32, 256, 2),
        few_tiles: None,
        narrow: None,
        narrow_one_wave: None,
        split: None,
        balanced: None,
        large: [None, None],
    },
    f64_arithmetic: false,
};

/// Where Vulkan compute kernels keep tiles and tensors: workgroup memory as allocations, tensors as
/// sized storage buffers, 32-bit indices; lavapipe's shared-memory limit.
pub(super) const MEMORY: Memory = Memory {
    workgroup_space: "#spirv.storage_class<Workgroup>",
    private_space: "#spirv.storage_class<Function>",
    attributions: false,
    dynamic_shared: false,
    vector_runs: false,
    static_tensors: true,
    max_shared_bytes: MAX_SHARED_BYTES,
    device_shared_bytes: Some(DEVICE_SHARED_BYTES),
    shared_limit_note: "lavapipe's limit",
    rearranged_tiles: false,
    indices_32_bit: true,
};

/// Shared memory one workgroup may use by default: Vulkan guarantees 16 KiB, lavapipe gives 32 KiB,
/// NVIDIA's driver 48 KiB; a module compiled for another device says its limit
/// (`tile.shared_memory_bytes`).
pub const MAX_SHARED_BYTES: i64 = 32_768;

/// What a module may say of its device's workgroup memory: from Vulkan's guaranteed 16 KiB to the
/// 227 KiB of the largest GPU's block.
pub(super) const DEVICE_SHARED_BYTES: std::ops::RangeInclusive<i64> = 16_384..=232_448;

/// The target environment of a device whose workgroups may use `shared` bytes.
fn environment(shared: i64) -> String {
    format!(
        "[#spirv.target_env<#spirv.vce<v1.3, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage]>, #spirv.resource_limits<max_compute_shared_memory_size = {shared}, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64]>>]"
    )
}

/// The dialects the SPIR-V lowerings create ops of.
pub(super) fn dialects() -> Vec<melior::dialect::DialectHandle> {
    let mut dialects = tile_dialect::registration::gpu_lowering_dialects();
    dialects.push(tile_dialect::registration::math_dialect());
    dialects.push(tile_dialect::registration::spirv_dialect());
    dialects
}

/// The upstream passes after a SPIR-V lowering, up to `spirv.module`s ready to serialize. The
/// private arrays indexed by constants become values first (`tile-promote-private`: a fifth fewer
/// ops for every later pass in a GEMM kernel, whose element-by-element array accesses each became
/// an access chain and three constants), and the loops that then carry them are guarded against
/// running no iteration (`tile-spirv-guard-empty-loops`). With `memory_model`, the Vulkan memory
/// model (cooperative matrices require it) is set before the capabilities are recomputed.
pub(super) fn backend(memory_model: bool, emulated: &[tile_dialect::element::Element]) -> String {
    // `emulated` (bf16, the 8-bit floats): arithmetic in f32, values held as the integers of their
    // bits (`tile-emulate-small-floats`); math on them in f32 too (f16 math stays native).
    let arithmetic = crate::small_floats::arithmetic_in_f32(emulated);
    let emulation = [
        arithmetic.as_str(),
        "math-extend-to-supported-types{extra-types=f16}",
        crate::small_floats::ARGUMENT,
    ];
    let kernel_modules = [
        "tile-promote-private",
        crate::spirv::empty_loops::ARGUMENT,
        crate::spirv::divisions::ARGUMENT,
        "tile-math-to-spirv",
        "convert-math-to-spirv",
    ];
    let mut passes = vec![
        "canonicalize".to_owned(),
        "cse".into(),
        super::nested(
            tile_ir::gpu::GPUModuleOperation::name(),
            &if emulated.is_empty() {
                kernel_modules.to_vec()
            } else {
                emulation.iter().chain(&kernel_modules).copied().collect::<Vec<_>>()
            },
        ),
        "convert-gpu-to-spirv".into(),
    ];
    if memory_model {
        passes.push(crate::spirv::memory_model::ARGUMENT.into());
    }
    passes.push(super::nested(
        crate::spirv::MODULE,
        &["spirv-lower-abi-attrs", "spirv-update-vce"],
    ));
    passes.join(", ")
}
