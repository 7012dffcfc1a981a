//! `sm_90a`: NVIDIA Hopper (H100, H200). Kernels lowered op by op: gemms on wgmma (mma.sync where
//! wgmma cannot take one), pipelined loops' copies as TMA boxes into rings awaited on mbarriers,
//! producer warpgroups, persistent GEMM kernels, staged TMA stores; PTX through upstream's NVVM
//! path. The chip's numbers (shared memory, multiprocessors, registers) are in
//! [`crate::nvgpu::chip`].

use super::{Code, Lowering, Memory, Multiprocessors, Pipeline, Strategy, Target};
use crate::nvgpu::chip;

/// The target.
pub static TARGET: Target = Target {
    name: "sm_90a",
    summary: "TMA, mbarrier, wgmma",
    pipeline: Pipeline::Nvvm,
    lowering: Lowering {
        argument: "convert-tile-to-nvgpu",
        name: "ConvertTileToNvgpu",
        description: "Lower tile kernels op by op to sm_90a kernels: fragments in registers, gemms on wgmma, TMA rings (gpu/nvgpu/nvvm)",
        dialects: tile_dialect::registration::gpu_lowering_dialects,
        create: || crate::lowering::create_pass(&TARGET),
    },
    backend,
    code: Code::Ptx,
    strategy: Strategy::PerOp,
    matrix: Some(&crate::nvgpu::rules::WGMMA_AND_MMA_SYNC),
    gemm_anchors: crate::nvgpu::anchors::gemm_anchors,
    shuffle_lanes: Some(32),
    byte_permute: true,
    three_input_logic: true,
    environment: None,
    memory: MEMORY,
    tma: true,
    cp_async_rings: false,
    multiprocessors: Some(Multiprocessors {
        count: chip::MULTIPROCESSORS,
        shared_bytes: chip::SM_SHARED_BYTES,
        block_reserved_bytes: chip::BLOCK_RESERVED_BYTES,
        producer_registers: chip::PRODUCER_REGISTERS,
        registers_beside_producer: chip::registers_beside_producer,
        registers_at_start: chip::registers_at_start,
    }),
    clusters: Some(super::Clusters {
        blocks: tile_dialect::MAX_SPLITS,
        at_once: chip::CLUSTERS_AT_ONCE,
        split_sum: crate::nvgpu::clusters::split_sum,
    }),
    wide_copies: None,
    subgroup_size: None,
    atomics: super::Atomics::Llvm,
    emulated_floats: &[
        tile_dialect::element::Element::F8E4M3FN,
        tile_dialect::element::Element::F8E5M2,
    ],
    f8_rounding: true,
    no_print: None,
    // The persistent 128x256 kernel of the large static GEMMs (0.99-1.04x cuBLAS); 128x128 for
    // few tiles; 64x128 with a ring of 8 for decode rows, 64x64 where those fill one wave (RESULTS
    // runs 115, 205, 213, 312b); 128x192 where 128x256 tiles leave the last wave idle (ragged
    // sizes; not measured yet).
    matmul: crate::matmul::Rule {
        wide: crate::matmul::Tiling::new(128, 256, 64, 256, 4),
        few_tiles: Some(crate::matmul::Tiling::new(128, 128, 64, 256, 4)),
        narrow: Some(crate::matmul::Tiling::new(64, 128, 64, 128, 8)),
        // Twice the blocks where they fill one wave (RESULTS run 312b, an H100: 64x4096x4096 0.94x
        // cuBLAS where 64x128 split in two gave 0.89x; 16x4096x4096 0.99x, 128x4096x14336 1.00x).
        narrow_one_wave: Some(crate::matmul::Tiling::new(64, 64, 64, 128, 8)),
        split: Some(2),
        balanced: Some(crate::matmul::Tiling::new(128, 192, 64, 256, 4)),
        // Three warpgroups of 64 rows, and two of 128 (RESULTS run 233: 0.82-0.97x cuBLAS on the
        // sweep's misaligned shapes where 128x256 gives 0.66-0.73x); rings of 3 fill 172 KiB.
        large: [
            Some(crate::matmul::Tiling::new(192, 256, 64, 384, 3)),
            Some(crate::matmul::Tiling::new(256, 192, 64, 256, 3)),
        ],
    },
    f64_arithmetic: true,
};

/// Tiles in dynamic shared memory (the whole 227 KiB a block may have), tensors as memref
/// descriptors.
pub(super) const MEMORY: Memory = Memory {
    workgroup_space: "#gpu.address_space<workgroup>",
    private_space: "#gpu.address_space<private>",
    attributions: true,
    dynamic_shared: true,
    vector_runs: true,
    static_tensors: false,
    max_shared_bytes: chip::MAX_SHARED_BYTES,
    device_shared_bytes: None,
    shared_limit_note: "shared memory of one block",
    rearranged_tiles: false,
    indices_32_bit: false,
};

/// The passes after the lowering ([`crate::nvgpu::backend`] for this chip).
fn backend() -> String {
    crate::nvgpu::backend(&TARGET)
}
