//! `sm_80`: NVIDIA Ampere (A100), and through PTX every later NVIDIA chip (A10, L4, RTX 30 and 40,
//! Hopper). Kernels lowered op by op: gemms on mma.sync over warps (m16n8k16 for f16 and bf16,
//! m16n8k32 for i8) reading their operands with ldmatrix from rows padded by 16 bytes, pipelined
//! loops' copies as 16-byte cp.async into rings awaited by commit groups; no TMA, no wgmma, no producer
//! warpgroups, no f8E4M3FN; PTX through the NVVM path sm_90a takes ([`crate::nvgpu::backend`]).

use super::{Code, Lowering, Memory, Pipeline, Strategy, Target};

/// The target.
pub static TARGET: Target = Target {
    name: "sm_80",
    summary: "mma.sync, no TMA",
    pipeline: Pipeline::Nvvm,
    lowering: Lowering {
        argument: "convert-tile-to-nvgpu-sm80",
        name: "ConvertTileToNvgpuSm80",
        description: "Lower tile kernels op by op to sm_80 kernels: fragments in registers, gemms on mma.sync (gpu/nvgpu/nvvm)",
        dialects: tile_dialect::registration::gpu_lowering_dialects,
        create: || crate::lowering::create_pass(&TARGET),
    },
    backend,
    code: Code::Ptx,
    strategy: Strategy::PerOp,
    matrix: Some(&crate::nvgpu::rules::MMA_SYNC),
    gemm_anchors: crate::nvgpu::anchors::mma_sync_anchors,
    shuffle_lanes: Some(32),
    byte_permute: true,
    three_input_logic: true,
    environment: None,
    // sm_90a's memory spaces and dynamic shared memory, with the A100's 163 KiB a block.
    memory: Memory {
        max_shared_bytes: MAX_SHARED_BYTES,
        shared_limit_note: "shared memory of one block (163 KiB on the A100; 99 KiB on sm_86 and sm_89 parts)",
        // mma.sync's operand tiles with padded rows ([`crate::nvgpu::anchors::mma_sync_anchors`]).
        rearranged_tiles: true,
        ..super::sm_90a::MEMORY
    },
    tma: false,
    cp_async_rings: true,
    multiprocessors: None,
    // 16-byte runs (`ld.global.v4`, `st.shared.v4`) where a tile lies inside its tensor and starts
    // aligned. No register prefetch: with a 128x128 accumulator a thread it was slower (98 against
    // 115 TFLOP/s at 4096^3, bench/RESULTS.md run 122) and spilled more.
    clusters: None,
    wide_copies: Some(crate::generic::vector_copy::WideCopies {
        run_bytes: 16,
        lanes: 8,
        views: false,
        sched_barrier: false,
        aligned_loads: true,
        prefetch: false,
        whole_tile_test: true,
    }),
    subgroup_size: None,
    atomics: super::Atomics::Llvm,
    emulated_floats: &[
        tile_dialect::element::Element::F8E4M3FN,
        tile_dialect::element::Element::F8E5M2,
    ],
    f8_rounding: false,
    no_print: None,
    // FlashAttention-2-era tilings on mma.sync: warps of 64x64 or 32x64, rings of 3 (RESULTS run 195).
    matmul: crate::matmul::Rule {
        wide: crate::matmul::Tiling::new(128, 128, 32, 128, 3),
        few_tiles: None,
        narrow: Some(crate::matmul::Tiling::new(64, 128, 32, 128, 3)),
        narrow_one_wave: None,
        split: None,
        balanced: None,
        large: [None, None],
    },
    f64_arithmetic: true,
};

/// Shared memory one block may use on the A100 (163 KiB, with the opt-in the launchers make).
pub const MAX_SHARED_BYTES: i64 = 166_912;

/// The passes after the lowering ([`crate::nvgpu::backend`] for this chip).
fn backend() -> String {
    crate::nvgpu::backend(&TARGET)
}
