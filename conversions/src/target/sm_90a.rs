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
    matrix: Some(&crate::nvgpu::rules::TENSOR_CORES),
    gemm_anchors: crate::nvgpu::anchors::gemm_anchors,
    shuffle_lanes: Some(32),
    environment: None,
    // Tiles in dynamic shared memory (the whole 227 KiB a block may have), tensors as memref
    // descriptors.
    memory: Memory {
        workgroup_space: "#gpu.address_space<workgroup>",
        private_space: "#gpu.address_space<private>",
        attributions: true,
        dynamic_shared: true,
        static_tensors: false,
        max_shared_bytes: chip::MAX_SHARED_BYTES,
        shared_limit_note: "shared memory of one block",
        rearranged_tiles: false,
        indices_32_bit: false,
    },
    tma: true,
    multiprocessors: Some(Multiprocessors {
        count: chip::MULTIPROCESSORS,
        shared_bytes: chip::SM_SHARED_BYTES,
        block_reserved_bytes: chip::BLOCK_RESERVED_BYTES,
        producer_registers: chip::PRODUCER_REGISTERS,
        registers_beside_producer: chip::registers_beside_producer,
    }),
    wide_copies: None,
    subgroup_size: None,
};

/// The passes after the lowering: the kernels' private arrays as values (`tile-promote-private`,
/// so that no conversion carries their slot-by-slot loads and stores), their math ops to PTX
/// instructions, then upstream's `gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90a
/// cubin-features=+ptx80 opt-level=2 cubin-format=isa}` written out pass by pass (as
/// `--dump-pass-pipeline` prints it), so that `tile-check-external-calls` runs on the kernel
/// modules in LLVM form before they become PTX. LLVM's O2 (upstream's default there), not O3:
/// 7% less compile time for a GEMM kernel, the persistent GEMMs' PTX the same, the attention
/// kernels as fast on the H200 (RESULTS run 101). Its `canonicalize`s without region
/// simplification: the same PTX for all 108 benchmark, example and test programs, 1.5% less time.
/// `tile-vector-to-scf` stands for upstream's `convert-vector-to-scf`: its patterns only where a
/// kernel (another frontend's) holds vector transfers, not a greedy folding walk of every tile
/// kernel (the same PTX, 4% less time). No `canonicalize` and `cse` of the whole unit between
/// the LLVM conversions and `convert-gpu-to-nvvm`: the kernel modules get theirs right after that
/// conversion, the host code after the serialization (4% less time; 20 kernels' PTX differs,
/// all pass on the H200 with no spills, run 102). `convert-vector-to-llvm` before
/// `convert-gpu-to-nvvm` in the kernel modules: another frontend's vector transfers, lowered to
/// loops over a private vector, left a `vector.type_cast` (and a transposing one a
/// `vector.transpose`) that `convert-gpu-to-nvvm` does not convert (the same PTX for the tile
/// kernels, 1.6% more time).
fn backend() -> String {
    let cleanup = [
        "canonicalize{region-simplify=disabled}",
        "cse",
        "reconcile-unrealized-casts",
    ];
    let attach = format!(
        "nvvm-attach-target{{O=2 chip={} features=+ptx80 triple=nvptx64-nvidia-cuda}}",
        TARGET.name
    );
    let kernel_modules = [
        "convert-vector-to-llvm",
        "convert-gpu-to-nvvm{index-bitwidth=64 has-redux=false}",
        cleanup[0],
        cleanup[1],
        cleanup[2],
        "tile-check-external-calls",
    ];
    let mut passes = vec![
        super::nested("gpu.module", &["tile-promote-private", "tile-math-to-nvptx"]),
        "convert-nvgpu-to-nvvm".into(),
        "gpu-kernel-outlining".into(),
        "tile-vector-to-scf".into(),
        "convert-scf-to-cf".into(),
        "convert-nvvm-to-llvm".into(),
        "convert-func-to-llvm".into(),
        "expand-strided-metadata".into(),
        attach,
        "lower-affine".into(),
        "convert-arith-to-llvm".into(),
        "convert-index-to-llvm{index-bitwidth=64}".into(),
        super::nested("gpu.module", &kernel_modules),
        "gpu-to-llvm".into(),
        "gpu-module-to-binary{format=isa}".into(),
        "convert-math-to-llvm{approximate-log1p=true}".into(),
    ];
    passes.extend(cleanup.map(String::from));
    passes.join(", ")
}
