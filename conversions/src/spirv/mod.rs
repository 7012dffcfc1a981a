//! `convert-tile-to-spirv`: tile kernels to Vulkan compute shaders with the plain strategy
//! ([`crate::generic`]): tile ops as loops shared by a workgroup's threads, tiles in workgroup
//! memory, kernels as `gpu.func`s of a `gpu.module` carrying the Vulkan target environment, ready
//! for upstream `convert-gpu-to-spirv`.
//!
//! [`coopmat`] is the second strategy, for devices with KHR cooperative matrices; [`memory_model`]
//! is the post-conversion fix-up that strategy needs; [`empty_loops`] readies both strategies'
//! loops for upstream's conversion.

pub mod coopmat;
pub mod empty_loops;
pub mod memory_model;

use crate::generic::{Flavor, lower_module};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-spirv";
/// Shared memory one workgroup may use: Vulkan guarantees 16 KiB, lavapipe gives 32 KiB, NVIDIA's
/// driver 48 KiB.
pub const MAX_SHARED_BYTES: i64 = 32_768;
/// The upstream passes after this lowering, up to `spirv.module`s ready to serialize. The private
/// arrays indexed by constants become values first (`tile-promote-private`: a fifth fewer ops for
/// every later pass in a GEMM kernel, whose element-by-element array accesses each became an
/// access chain and three constants), and the loops that then carry them are guarded against
/// running no iteration ([`empty_loops`]).
pub const BACKEND: &str = "canonicalize, cse, gpu.module(tile-promote-private, tile-spirv-guard-empty-loops, tile-math-to-spirv, convert-math-to-spirv), convert-gpu-to-spirv, spirv.module(spirv-lower-abi-attrs, spirv-update-vce)";

/// The SPIR-V flavor of the plain strategy: Vulkan 1.3-class compute with 8/16-bit storage.
pub const FLAVOR: Flavor = Flavor {
    target: "spirv",
    targets: Some(
        "[#spirv.target_env<#spirv.vce<v1.3, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage]>, #spirv.resource_limits<max_compute_shared_memory_size = 32768, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64]>>]",
    ),
    workgroup_space: "#spirv.storage_class<Workgroup>",
    attributions: false,
    static_tensors: true,
    max_shared_bytes: MAX_SHARED_BYTES,
    shared_limit_note: "lavapipe's limit",
    private_space: "#spirv.storage_class<Function>",
    dynamic_shared: false,
};

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-spirv` pass (on `builtin.module`).
    pub fn create_convert_tile_to_spirv_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToSpirv",
        description: "Lower tile kernels to gpu.funcs for SPIR-V: tile ops as loops shared by the workgroup's threads, tiles in workgroup memory",
        anchor: "builtin.module",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::math_dialect()); dialects.push(tile_dialect::registration::spirv_dialect()); dialects },
        run: |module| lower_module(module, &FLAVOR),
    }
}
