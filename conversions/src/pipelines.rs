//! The registered target pipelines: `tile-to-nvvm{chip=...}` takes tile IR to a `gpu.binary` holding
//! PTX, through our lowering and upstream's NVVM pipeline; `tile-to-rocdl` to AMDGCN; `tile-to-spirv`
//! to `spirv.module`s. Without `chip`, a pipeline compiles for the first chip of its table.

use melior::{
    ContextRef,
    ir::{operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, OperationPassManager, Pass, RunExternalPass, create_external},
};
use tile_dialect::registration::add_pipeline;

/// One chip a pipeline compiles for: its name, our lowering, and the upstream passes after it.
type Chip = (&'static str, &'static str, &'static str);

/// Chips `tile-to-nvvm` compiles for, with the passes after our lowering: the kernels' private
/// arrays as values (`tile-promote-private`, so that no conversion carries their slot-by-slot
/// loads and stores), their math ops to PTX instructions, then upstream's
/// `gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90a cubin-features=+ptx80 opt-level=2
/// cubin-format=isa}` written out pass by pass (as
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
const NVVM_CHIPS: &[Chip] = &[(
    "sm_90a",
    crate::nvgpu::ARGUMENT,
    "gpu.module(tile-promote-private, tile-math-to-nvptx), convert-nvgpu-to-nvvm, gpu-kernel-outlining, tile-vector-to-scf, convert-scf-to-cf, convert-nvvm-to-llvm, convert-func-to-llvm, expand-strided-metadata, nvvm-attach-target{O=2 chip=sm_90a features=+ptx80 triple=nvptx64-nvidia-cuda}, lower-affine, convert-arith-to-llvm, convert-index-to-llvm{index-bitwidth=64}, gpu.module(convert-vector-to-llvm, convert-gpu-to-nvvm{index-bitwidth=64 has-redux=false}, canonicalize{region-simplify=disabled}, cse, reconcile-unrealized-casts, tile-check-external-calls), gpu-to-llvm, gpu-module-to-binary{format=isa}, convert-math-to-llvm{approximate-log1p=true}, canonicalize{region-simplify=disabled}, cse, reconcile-unrealized-casts",
)];

/// Builds `tile-to-nvvm{chip}` into `manager`.
pub fn build_tile_to_nvvm(manager: &OperationPassManager, chip: &str) {
    build_target_pipeline(manager, "tile-to-nvvm", NVVM_CHIPS, chip);
}

/// Chips `tile-to-rocdl` compiles for, with the passes after our lowering: the kernel modules to
/// AMDGCN (their accumulators' private arrays as values first, so that no conversion carries their
/// slot-by-slot loads and stores (`tile-promote-private-vectors`), their math ops to AMDGCN
/// instructions, and calls nothing could resolve refused last), then the host code (the launches)
/// to LLVM. LDS is addressed with the integer memory space
/// 3 in the emitted kernel, which every conversion below maps the same way.
const ROCDL_CHIPS: &[Chip] = &[(
    "gfx942",
    crate::amdgpu::ARGUMENT,
    "rocdl-attach-target{chip=gfx942 O=3}, gpu.module(tile-promote-private-vectors, tile-math-to-rocdl, tile-vector-to-scf, convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-amdgpu-to-rocdl{chipset=gfx942}, convert-vector-to-llvm, convert-gpu-to-rocdl{chipset=gfx942}, reconcile-unrealized-casts, tile-check-external-calls), tile-gpu-module-to-isa, convert-scf-to-cf, expand-strided-metadata, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, gpu-to-llvm, reconcile-unrealized-casts",
)];

/// The passes that turn kernel modules into code (`gpu.binary`s): the target pipelines end with one.
pub const SERIALIZATIONS: [&str; 2] = ["gpu-module-to-binary", tile_passes::gpu_module_to_isa::ARGUMENT];

/// Builds `tile-to-rocdl{chip}` into `manager`.
pub fn build_tile_to_rocdl(manager: &OperationPassManager, chip: &str) {
    build_target_pipeline(manager, "tile-to-rocdl", ROCDL_CHIPS, chip);
}

/// Target environments `tile-to-spirv` compiles for: plain Vulkan 1.3 compute, and Vulkan with KHR
/// cooperative matrices.
const SPIRV_CHIPS: &[Chip] = &[
    ("spirv", crate::spirv::ARGUMENT, crate::spirv::BACKEND),
    (
        "spirv-coopmat",
        crate::spirv::coopmat::ARGUMENT,
        crate::spirv::coopmat::BACKEND,
    ),
];

/// Builds `tile-to-spirv{chip}` into `manager`.
pub fn build_tile_to_spirv(manager: &OperationPassManager, chip: &str) {
    build_target_pipeline(manager, "tile-to-spirv", SPIRV_CHIPS, chip);
}

/// Returns the passes that compile for `chip` (any pipeline's): our lowering, and the upstream
/// passes after it (`tile-compile` runs them apart, to read the launch manifests in between).
pub fn chip_passes(chip: &str) -> Option<(&'static str, &'static str)> {
    [NVVM_CHIPS, ROCDL_CHIPS, SPIRV_CHIPS]
        .into_iter()
        .flatten()
        .find(|(name, _, _)| *name == chip)
        .map(|(_, lowering, backend)| (*lowering, *backend))
}

/// The cleanup after a chip's lowering: the GEMM lowerings' helper calls inlined (the inliner's
/// own nested pipeline, a `canonicalize` of every function before and after inlining into it, left
/// empty: the `canonicalize` below does that work once), the bounds checks that the kernels'
/// static launch sizes decide folded (`tile-fold-launch-bounds`), so that `canonicalize` drops the
/// branches that cannot run (smaller kernels for every pass after it), then `cse`. The
/// canonicalization walks the kernels bottom-up: the result is the same after `cse`, and top-down
/// it revisited the cooperative-matrix kernels' folded guards for three times as long. Without
/// region simplification: the lowered code is structured (`scf` ops of one block each), where its
/// region-wide liveness analysis found nothing the patterns and folds leave behind in the 108
/// benchmark, example and test programs, and cost 1.2% of an attention kernel's compilation. The
/// same on every chip (sm_90a's folded kernels checked on the H200, RESULTS run 57).
pub const CLEANUP: &str =
    "inline{default-pipeline=}, tile-fold-launch-bounds, canonicalize{top-down=false region-simplify=disabled}, cse";

/// [`CLEANUP`] as it concerns the kernel modules alone, for a module holding one `gpu.module` and
/// nothing else (`tile-compile`'s units): no call is left to inline there, and canonicalize and
/// cse stop at the kernel module (it is isolated from above), so a kernel module gets from it what
/// [`CLEANUP`] gives it in the whole module.
pub const KERNEL_CLEANUP: &str = "tile-fold-launch-bounds, canonicalize{top-down=false region-simplify=disabled}, cse";

/// [`CLEANUP`] as it concerns the host code, for a module whose kernel modules were moved out
/// (`tile-compile`'s parts while their kernels compile): the launch helpers inlined, then
/// canonicalize and cse. The inliner, run with the kernel modules in place, walked every op of
/// every kernel for symbol uses and calls (a tenth of a spirv-coopmat compilation).
pub const HOST_CLEANUP: &str = "inline{default-pipeline=}, canonicalize{top-down=false region-simplify=disabled}, cse";

/// The passes that decide before a chip's lowering, on a module whose `tile.target` is set: the
/// layouts, persistent GEMM kernels (sm_90a), each loop's pipeline plan, and its expansion into
/// rings and asynchronous copies.
pub fn decisions() -> String {
    format!(
        "{},{},{},{}",
        crate::layout::ARGUMENT,
        crate::pipeline::persistent::ARGUMENT,
        crate::pipeline::plan::ARGUMENT,
        crate::pipeline::EXPAND_ARGUMENT
    )
}

/// Returns the passes `tile-compile` runs on the host code of `chip` once it has compiled the
/// kernel modules apart (each with the backend of [`chip_passes`], on MLIR's threads): the backend
/// again where it lowers the host code too (NVIDIA, AMD: the launches to LLVM; its kernel-module
/// passes find none, the kernels are `gpu.binary`s by then), none for SPIR-V, whose backend only
/// converts the kernel modules (the host code stays as the lowering left it: Vulkan launchers
/// read the manifests).
pub fn host_passes(chip: &str) -> Option<&'static str> {
    if SPIRV_CHIPS.iter().any(|(name, _, _)| *name == chip) {
        return None;
    }
    chip_passes(chip).map(|(_, backend)| backend)
}

/// The chips of every pipeline, for messages.
pub fn chips() -> Vec<&'static str> {
    [NVVM_CHIPS, ROCDL_CHIPS, SPIRV_CHIPS]
        .into_iter()
        .flatten()
        .map(|(name, _, _)| *name)
        .collect()
}

/// Builds pipeline `name` for `chip` (the first of `chips` when empty): `tile.target`, the layouts
/// and loop schedules, the chip's lowering, cleanups, then its upstream passes. A chip not in `chips` gets a pass that fails naming the chips
/// that work.
fn build_target_pipeline(manager: &OperationPassManager, name: &str, chips: &[Chip], chip: &str) {
    let chip = if chip.is_empty() { chips[0].0 } else { chip };
    let Some((_, lowering, backend)) = chips.iter().find(|(known, _, _)| *known == chip) else {
        let supported: Vec<&str> = chips.iter().map(|(known, _, _)| *known).collect();
        manager.add_pass(unsupported_chip_pass(
            name,
            format!("chip {chip} is not supported yet; supported: {}", supported.join(", ")),
        ));
        return;
    };
    // The target first (tile-infer-layouts reads it), then the layouts, then the lowering, which
    // lowers as they say.
    manager.add_pass(crate::layout::attach_target_pass(chip));
    if let Err(message) = add_pipeline(manager, &format!("{},{lowering},{CLEANUP}", decisions())) {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    // Another frontend's gpu.launch code goes through the backend with the tile kernels, and the
    // manifests survive it (see `embed`).
    manager.add_pass(crate::embed::create_stash_manifests_pass());
    let spirv = chips == SPIRV_CHIPS;
    if let Err(message) = add_pipeline(manager, "gpu-kernel-outlining") {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    if spirv {
        manager.add_pass(crate::embed::create_prepare_foreign_kernels_pass());
    }
    if let Err(message) = add_pipeline(manager, backend) {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    manager.add_pass(crate::embed::create_restore_manifests_pass());
    manager.add_pass(if spirv {
        crate::embed::create_check_spirv_pass()
    } else {
        crate::embed::create_check_binaries_pass()
    });
}

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

/// A pass that fails with `message`: how a pipeline built for a chip it cannot serve says so.
#[derive(Clone)]
struct Unsupported {
    pipeline: String,
    message: String,
}

impl<'c> RunExternalPass<'c> for Unsupported {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let message = self.message.clone();
        tile_passes::guard::run_guarded(&self.pipeline, op, pass, |_| Err(message));
    }
}

fn unsupported_chip_pass(pipeline: &str, message: String) -> Pass {
    create_external(
        Unsupported {
            pipeline: pipeline.into(),
            message,
        },
        TypeId::create(&PASS_ID),
        "TileUnsupportedChip",
        "tile-unsupported-chip",
        "",
        "",
        &[],
    )
}
