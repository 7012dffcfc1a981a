//! What the NVIDIA lowerings ([`crate::target::sm_90a`], [`crate::target::sm_80`]) build beyond the
//! rules every target shares: [`rules`], the tensor-core family (wgmma where the chip has it,
//! mma.sync, TMA copies and stores); [`anchors`], the layouts those instructions impose;
//! [`chip`], the facts of the sm_90a parts the rules, the layout inference and the
//! persistent-kernel pass share (shared memory, multiprocessors, registers, the operand layouts
//! wgmma reads); [`clusters`], the sum of a fragment over a cluster's blocks; [`backend`], the
//! passes from the lowered kernels to PTX.
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]): gemms on the tensor cores, copies into TMA rings where
//! `tile-expand-pipelines` made them, the rest by the rules every target shares. There is no
//! whole-kernel template.

pub mod anchors;
pub(crate) mod chip;
pub(crate) mod clusters;
pub mod rules;

/// The passes after an NVIDIA chip's lowering, for `chip`: the kernels' private arrays as values
/// (`tile-promote-private`, so that no conversion carries their slot-by-slot loads and stores),
/// their math ops to PTX
/// instructions, then upstream's `gpu-lower-to-nvvm-pipeline{cubin-chip=CHIP
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
pub fn backend(target: &crate::target::Target) -> String {
    let chip = target.name;
    let cleanup = [
        "canonicalize{region-simplify=disabled}",
        "cse",
        "reconcile-unrealized-casts",
    ];
    let attach = format!("nvvm-attach-target{{O=2 chip={chip} features=+ptx80 triple=nvptx64-nvidia-cuda}}");
    let kernel_modules = [
        "convert-vector-to-llvm",
        "convert-gpu-to-nvvm{index-bitwidth=64 has-redux=false}",
        cleanup[0],
        cleanup[1],
        cleanup[2],
        "tile-check-external-calls",
    ];
    let mut passes = vec![
        crate::small_floats::LAUNCHES_ARGUMENT.into(),
        crate::target::nested(
            tile_ir::gpu::GPUModuleOperation::name(),
            &[
                &crate::small_floats::arithmetic_in_f32(target.emulated_floats),
                crate::small_floats::ARGUMENT,
                "tile-promote-private",
                "tile-math-to-nvptx",
            ],
        ),
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
        crate::target::nested(tile_ir::gpu::GPUModuleOperation::name(), &kernel_modules),
        "gpu-to-llvm".into(),
        tile_passes::gpu_module_to_isa::ARGUMENT.into(),
        "convert-math-to-llvm{approximate-log1p=true}".into(),
    ];
    passes.extend(cleanup.map(String::from));
    passes.join(", ")
}
