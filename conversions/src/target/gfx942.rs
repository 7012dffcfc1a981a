//! `gfx942`: AMD CDNA3 (MI300). Kernels lowered op by op: gemms on mfma over 64-lane waves, tiles
//! in LDS (padded, transposed where the mfma reads want), copies into LDS in 16-byte runs with the
//! main loops prefetched through registers; AMDGCN assembly and HSA code objects. The chip's
//! numbers (LDS, mfma shapes, how waves split a tile) are in [`crate::amdgpu::config`].

use super::{Code, Lowering, Memory, Pipeline, Strategy, Target};

/// The target.
pub static TARGET: Target = Target {
    name: "gfx942",
    summary: "LDS, mfma",
    pipeline: Pipeline::Rocdl,
    lowering: Lowering {
        argument: "convert-tile-to-amdgpu",
        name: "ConvertTileToAmdgpu",
        description: "Lower tile kernels to gfx942 kernels op by op: fragments in registers, gemms on mfma (gpu/amdgpu)",
        dialects: || {
            let mut dialects = tile_dialect::registration::gpu_lowering_dialects();
            dialects.push(tile_dialect::registration::amdgpu_dialect());
            dialects
        },
        create: || crate::lowering::create_pass(&TARGET),
    },
    backend,
    code: Code::Amdgcn,
    strategy: Strategy::PerOp,
    matrix: Some(&crate::amdgpu::rules::MATRIX_CORES),
    gemm_anchors: crate::amdgpu::anchors::gemm_anchors,
    // `gpu.shuffle` is `ds_bpermute` across the wave.
    shuffle_lanes: Some(64),
    byte_permute: false,
    three_input_logic: false,
    environment: None,
    // Tiles in LDS (workgroup attributions), tensors as memref descriptors.
    memory: Memory {
        workgroup_space: "#gpu.address_space<workgroup>",
        private_space: "#gpu.address_space<private>",
        attributions: true,
        dynamic_shared: false,
        vector_runs: true,
        static_tensors: false,
        max_shared_bytes: crate::amdgpu::config::MAX_LDS_BYTES,
        device_shared_bytes: None,
        shared_limit_note: "the LDS of one workgroup",
        rearranged_tiles: true,
        indices_32_bit: false,
    },
    tma: false,
    cp_async_rings: false,
    multiprocessors: None,
    // 16-byte runs (`global_load_dwordx4`, `ds_write_b128`).
    clusters: None,
    wide_copies: Some(crate::generic::vector_copy::WideCopies {
        run_bytes: 16,
        lanes: 16,
        views: false,
        sched_barrier: true,
        aligned_loads: false,
        prefetch: true,
        whole_tile_test: false,
    }),
    subgroup_size: None,
    atomics: super::Atomics::Llvm,
    // MI300's 8-bit floats are the FNUZ variants: OCP's f8E4M3FN and f8E5M2 as bytes.
    emulated_floats: &[
        tile_dialect::element::Element::F8E4M3FN,
        tile_dialect::element::Element::F8E5M2,
    ],
    f8_rounding: false,
    no_print: Some(
        "its printf runs through the ROCm device library's hostcalls (__ockl_printf_*), which tile-compile does not link",
    ),
    // 128x128 on four waves, K steps of 32 and two buffers: 32 KiB of the 64 KiB LDS.
    matmul: crate::matmul::Rule {
        wide: crate::matmul::Tiling::new(128, 128, 32, 256, 2),
        few_tiles: None,
        narrow: Some(crate::matmul::Tiling::new(64, 128, 32, 256, 2)),
        narrow_one_wave: None,
        split: None,
        balanced: None,
        large: [None, None],
    },
    f64_arithmetic: true,
};

/// The passes after the lowering: the kernel modules to AMDGCN (their accumulators' private arrays
/// as values first, so that no conversion carries their slot-by-slot loads and stores
/// (`tile-promote-private-vectors`), their math ops to AMDGCN instructions, and calls nothing could
/// resolve refused last), then the host code (the launches) to LLVM. LDS is addressed with the
/// integer memory space 3 in the emitted kernel, which every conversion below maps the same way.
fn backend() -> String {
    let chip = TARGET.name;
    let kernel_modules = [
        crate::small_floats::arithmetic_in_f32(TARGET.emulated_floats),
        crate::small_floats::ARGUMENT.into(),
        "tile-promote-private-vectors".into(),
        "tile-math-to-rocdl".into(),
        "tile-vector-to-scf".into(),
        "convert-scf-to-cf".into(),
        "expand-strided-metadata".into(),
        "lower-affine".into(),
        format!("convert-amdgpu-to-rocdl{{chipset={chip}}}"),
        "convert-vector-to-llvm".into(),
        format!("convert-gpu-to-rocdl{{chipset={chip}}}"),
        "reconcile-unrealized-casts".into(),
        "tile-check-external-calls".into(),
    ];
    let kernel_modules: Vec<&str> = kernel_modules.iter().map(String::as_str).collect();
    [
        format!("rocdl-attach-target{{chip={chip} O=3}}"),
        super::nested(tile_ir::gpu::GPUModuleOperation::name(), &kernel_modules),
        tile_passes::gpu_module_to_isa::ARGUMENT.into(),
        "convert-scf-to-cf".into(),
        "expand-strided-metadata".into(),
        "finalize-memref-to-llvm".into(),
        "convert-arith-to-llvm".into(),
        "convert-index-to-llvm".into(),
        "convert-cf-to-llvm".into(),
        "convert-func-to-llvm".into(),
        "gpu-to-llvm".into(),
        "reconcile-unrealized-casts".into(),
    ]
    .join(", ")
}
