//! Lowerings of tile IR to the upstream GPU dialects.
//!
//! Each target is one value ([`target`]: `sm_90a`, `gfx942`, `spirv`, `spirv-coopmat`), parsed once
//! from its name; the passes below ask it what differs between targets.
//!
//! | flag | module | target |
//! |------|--------|--------|
//! | `tile-pack-narrow-types` | [`narrow`] | 4-bit elements (i4, f4E2M1FN) as the bytes that hold two, loads that widen half a byte |
//! | `tile-emulate-small-floats` | [`small_floats`] | lowered code's bf16 and 8-bit floats as the integers of their bits where the target lacks them (SPIR-V, the CPU reference) |
//! | `tile-infer-layouts` | [`layout`] | every tile's layout for the module's `tile.target`, conflicts |
//! | `tile-plan-pipelines` | [`pipeline::plan`] | each pipelined loop's schedule for the module's `tile.target`, the copies issued ahead |
//! | `tile-expand-pipelines` | [`pipeline::expand`] | planned loops as rings, barriers and asynchronous copies in tile IR |
//! | `convert-tile-to-nvgpu` | [`lowering`], [`target::sm_90a`] | sm_90a, op by op: wgmma, TMA rings, 16-byte epilogue stores |
//! | `convert-tile-to-amdgpu` | [`lowering`], [`target::gfx942`] | gfx942, op by op: mfma, 16-byte copies into LDS, register prefetch |
//! | `convert-tile-to-cpu` | [`cpu`] | plain loops: the reference semantics |
//! | (in every GPU lowering) | [`registers`] | fragments in registers, one rule per op, from the layouts |
//! | (in every GPU lowering) | [`host`] | the host function that launches a lowered kernel |
//! | `convert-tile-to-spirv` | [`lowering`], [`target::spirv`] | Vulkan compute: loops shared by the workgroup's threads |
//! | `convert-tile-to-spirv-coopmat` | [`lowering`], [`target::spirv_coopmat`] | Vulkan compute, op by op: f16 gemms on KHR cooperative matrices |
//! | `tile-spirv-vulkan-memory-model` | [`spirv::memory_model`] | `spirv.module`s to the Vulkan memory model |
//! | `tile-spirv-guard-empty-loops` | [`spirv::empty_loops`] | loops with results under a branch on their trip count (upstream's SPIR-V loops leave them undefined when they do not run) |
//! | `tile-spirv-expand-divisions` | [`spirv::divisions`] | `ceildivui`, `ceildivsi`, `floordivsi` as divisions, comparisons and selects (upstream's SPIR-V conversion has no pattern for them) |
//! | `tile-fold-launch-bounds` | [`launch_bounds`] | lowered kernels' comparisons that their static launch sizes (and the guards around them) decide |
//! | `tile-promote-private` | [`private_values`] | lowered kernels' private arrays indexed by constants as the values they hold (sm_90a, SPIR-V) |
//! | `tile-promote-private-vectors` | [`private_values`] | the same for the arrays read or written as vectors (mfma accumulators; gfx942) |
//!
//! | pipeline | module | from tile IR to |
//! |----------|--------|-----------------|
//! | `tile-to-nvvm{chip=sm_90a}` | [`pipelines`] | `gpu.binary` with PTX |
//! | `tile-to-rocdl{chip=gfx942}` | [`pipelines`] | `gpu.binary` with AMDGCN assembly |
//! | `tile-to-spirv{chip=spirv\|spirv-coopmat}` | [`pipelines`] | `spirv.module`s, ready to serialize |
//!
//! [`register_all`] registers these passes (and the tile passes) in MLIR's global registry.

#![deny(missing_docs)]

pub mod alignment;
pub mod amdgpu;
pub mod attributes;
pub mod bounds;
pub mod cpu;
pub mod embed;
pub mod generic;
pub mod host;
pub mod kernels;
pub mod launch_bounds;
pub mod layout;
pub mod lowering;
pub mod matmul;
pub mod narrow;
pub mod nvgpu;
pub mod pipeline;
pub mod pipelines;
pub mod private_values;
pub mod registers;
pub mod small_floats;
pub mod spirv;
pub mod support;
pub mod target;

/// Registers the tile dialect hooks, the tile passes and the conversions (idempotent).
pub fn register_all() {
    // Once for every thread: a thread that finds a pass already claimed by another must not go on
    // to parse a pipeline before that thread has registered it with MLIR.
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(register_everything);
}

fn register_everything() {
    tile_passes::register_all();
    for target in target::TARGETS {
        tile_dialect::register_pass(target.lowering.argument, target.lowering.create);
    }
    tile_dialect::register_pass(cpu::ARGUMENT, cpu::create_convert_tile_to_cpu_pass);
    tile_dialect::register_pass(matmul::ARGUMENT, matmul::create_expand_matmuls_pass);
    tile_dialect::register_pass(narrow::ARGUMENT, narrow::create_pack_narrow_types_pass);
    tile_dialect::register_pass(small_floats::ARGUMENT, small_floats::create_emulate_small_floats_pass);
    tile_dialect::register_pass(
        small_floats::THROUGH_F32_ARGUMENT,
        small_floats::create_conversions_through_f32_pass,
    );
    tile_dialect::register_pass(
        small_floats::LAUNCHES_ARGUMENT,
        small_floats::create_emulate_small_floats_launches_pass,
    );
    tile_dialect::register_pass(layout::ARGUMENT, layout::create_infer_layouts_pass);
    tile_dialect::register_pass(alignment::ARGUMENT, alignment::create_specialize_alignment_pass);
    tile_dialect::register_pass(pipeline::plan::ARGUMENT, pipeline::plan::create_plan_pipelines_pass);
    tile_dialect::register_pass(pipeline::EXPAND_ARGUMENT, pipeline::create_expand_pipelines_pass);
    tile_dialect::register_pass(pipeline::split_k::ARGUMENT, pipeline::split_k::create_split_k_pass);
    tile_dialect::register_pass(
        pipeline::persistent::ARGUMENT,
        pipeline::persistent::create_persistent_kernels_pass,
    );
    tile_dialect::register_pass(
        spirv::memory_model::ARGUMENT,
        spirv::memory_model::create_vulkan_memory_model_pass,
    );
    tile_dialect::register_pass(
        spirv::empty_loops::ARGUMENT,
        spirv::empty_loops::create_guard_empty_loops_pass,
    );
    tile_dialect::register_pass(
        spirv::divisions::ARGUMENT,
        spirv::divisions::create_expand_divisions_pass,
    );
    tile_dialect::register_pass(launch_bounds::ARGUMENT, launch_bounds::create_fold_launch_bounds_pass);
    tile_dialect::register_pass(private_values::ARGUMENT, private_values::create_promote_private_pass);
    tile_dialect::register_pass(
        private_values::VECTORS_ARGUMENT,
        private_values::create_promote_private_vectors_pass,
    );
    tile_dialect::register_pipeline(
        c"tile-to-rocdl",
        c"Compile tile IR to a gpu.binary of AMDGCN assembly for an AMD chip (gfx942: mfma, LDS)",
        pipelines::build_tile_to_rocdl,
    );
    tile_dialect::register_pipeline(
        c"tile-to-nvvm",
        c"Compile tile IR to a gpu.binary of PTX for an NVIDIA chip (sm_90a: TMA, mbarrier, wgmma)",
        pipelines::build_tile_to_nvvm,
    );
    tile_dialect::register_pipeline(
        c"tile-to-spirv",
        c"Compile tile IR to spirv.modules for Vulkan (chip=spirv: plain loops; chip=spirv-coopmat: KHR cooperative matrices)",
        pipelines::build_tile_to_spirv,
    );
}

/// Creates a context for compiling tile IR end to end: every upstream dialect and tile, the LLVM
/// translations, and every upstream and tile pass registered.
pub fn context() -> melior::Context {
    use melior::utility::{register_all_dialects, register_all_llvm_translations, register_all_passes};
    let registry = melior::dialect::DialectRegistry::new();
    register_all_dialects(&registry);
    tile_dialect::register(&registry);
    let context = melior::Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    register_all_llvm_translations(&context);
    register_all_passes();
    register_all();
    context
}
