//! The registered target pipelines: `tile-to-nvvm{chip=...}` takes tile IR to a `gpu.binary` holding
//! PTX, through our lowering and upstream's NVVM pipeline; `tile-to-rocdl` to AMDGCN; `tile-to-spirv`
//! to `spirv.module`s. Each is built from the target value its `chip` names
//! ([`crate::target`]); without `chip`, a pipeline compiles for its first target.

use crate::target::{Pipeline, Target};
use melior::{
    ContextRef,
    ir::{operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, OperationPassManager, Pass, RunExternalPass, create_external},
};
use tile_dialect::{PipelineOptions, registration::add_pipeline};

/// The passes that turn kernel modules into code (`gpu.binary`s): the target pipelines end with one.
pub const SERIALIZATIONS: [&str; 2] = ["gpu-module-to-binary", tile_passes::gpu_module_to_isa::ARGUMENT];

/// Builds `tile-to-nvvm{chip serialize}` into `manager`.
pub fn build_tile_to_nvvm(manager: &OperationPassManager, options: &PipelineOptions) {
    build_target_pipeline(manager, Pipeline::Nvvm, options);
}

/// Builds `tile-to-rocdl{chip serialize}` into `manager`.
pub fn build_tile_to_rocdl(manager: &OperationPassManager, options: &PipelineOptions) {
    build_target_pipeline(manager, Pipeline::Rocdl, options);
}

/// Builds `tile-to-spirv{chip}` into `manager` (`serialize` changes nothing: the SPIR-V backends
/// leave `spirv.module`s, which their launchers serialize).
pub fn build_tile_to_spirv(manager: &OperationPassManager, options: &PipelineOptions) {
    build_target_pipeline(manager, Pipeline::Spirv, options);
}

/// The top-level passes of a comma-separated pass list (`a, gpu.module(b, c), d{x=1, y=2}`: three).
fn top_level_passes(passes: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (index, character) in passes.char_indices() {
        match character {
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(passes[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(passes[start..].trim());
    parts.retain(|part| !part.is_empty());
    parts
}

/// The index of the first top-level serialization (`gpu-module-to-binary` or
/// `tile-gpu-module-to-isa`) among `parts`.
fn serialization(parts: &[&str]) -> Option<usize> {
    parts
        .iter()
        .position(|part| SERIALIZATIONS.iter().any(|pass| part.starts_with(pass)))
}

/// Splits a comma-separated pass list at its first top-level serialization: the passes before it,
/// and it with the passes after it (none for SPIR-V backends, which serialize apart).
pub fn split_at_serialization(passes: &str) -> (String, Option<String>) {
    let parts = top_level_passes(passes);
    match serialization(&parts) {
        Some(at) => (parts[..at].join(", "), Some(parts[at..].join(", "))),
        None => (passes.to_owned(), None),
    }
}

/// `passes` without its first top-level serialization.
fn without_serialization(passes: &str) -> String {
    let mut parts = top_level_passes(passes);
    if let Some(at) = serialization(&parts) {
        parts.remove(at);
    }
    parts.join(", ")
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

/// The passes that decide before a chip's lowering, on a module whose `tile.target` is set: matmuls
/// written as kernels, 4-bit elements packed into bytes, the layouts, split and persistent GEMM
/// kernels (sm_90a), memory-bound kernels' twins for aligned tensors, each loop's pipeline plan,
/// and its expansion into rings and asynchronous copies.
pub fn decisions() -> String {
    format!(
        "{},{},{},{},{},{},{},{}",
        crate::matmul::ARGUMENT,
        crate::narrow::ARGUMENT,
        crate::layout::ARGUMENT,
        crate::pipeline::split_k::ARGUMENT,
        crate::pipeline::persistent::ARGUMENT,
        crate::alignment::ARGUMENT,
        crate::pipeline::plan::ARGUMENT,
        crate::pipeline::EXPAND_ARGUMENT
    )
}

/// Returns the passes `tile-compile` runs on the host code of `target` once it has compiled the
/// kernel modules apart (each with the target's backend, on MLIR's threads): the backend again
/// where it lowers the host code too (NVIDIA, AMD: the launches to LLVM; its kernel-module passes
/// find none, the kernels are `gpu.binary`s by then), none for SPIR-V, whose backend only converts
/// the kernel modules (the host code stays as the lowering left it: Vulkan launchers read the
/// manifests).
pub fn host_passes(target: &Target) -> Option<String> {
    target.compiles_host_code().then(|| (target.backend)())
}

/// Builds `pipeline` for `chip` (the pipeline's first target when empty): `tile.target`, the
/// layouts and loop schedules, the target's lowering, cleanups, then its upstream passes. A chip
/// the pipeline does not compile for gets a pass that fails naming the chips that work; so does a
/// pipeline nested in a pass manager of ops other than modules (`anchor`), where MLIR would abort
/// the process at the first module pass added.
fn build_target_pipeline(manager: &OperationPassManager, pipeline: Pipeline, options: &PipelineOptions) {
    let (chip, anchor) = (options.chip, options.anchor);
    let name = pipeline.name();
    if anchor != tile_ir::builtin::ModuleOperation::name() && anchor != "any" {
        manager.add_pass(unsupported_chip_pass(
            name,
            format!("runs on a builtin.module, but was nested in {anchor}: write builtin.module({name}{{chip=...}})"),
        ));
        return;
    }
    let found = if chip.is_empty() {
        pipeline.targets().next()
    } else {
        pipeline.targets().find(|target| target.name == chip)
    };
    let Some(target) = found else {
        let supported: Vec<&str> = pipeline.targets().map(|target| target.name).collect();
        manager.add_pass(unsupported_chip_pass(
            name,
            format!("chip {chip} is not supported yet; supported: {}", supported.join(", ")),
        ));
        return;
    };
    // The target first (tile-infer-layouts reads it), then the layouts, then the lowering, which
    // lowers as they say.
    manager.add_pass(crate::layout::attach_target_pass(target));
    let lowering = target.lowering.argument;
    if let Err(message) = add_pipeline(manager, &format!("{},{lowering},{CLEANUP}", decisions())) {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    // Another frontend's gpu.launch code goes through the backend with the tile kernels, and the
    // manifests survive it (see `embed`).
    manager.add_pass(crate::embed::create_stash_manifests_pass());
    if let Err(message) = add_pipeline(manager, "gpu-kernel-outlining") {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    if target.is_spirv() {
        manager.add_pass(crate::embed::create_prepare_foreign_kernels_pass());
    }
    if target.code == crate::target::Code::Ptx {
        manager.add_pass(crate::embed::create_check_ptx_symbols_pass());
    }
    let backend = if options.serialize {
        (target.backend)()
    } else {
        without_serialization(&(target.backend)())
    };
    if let Err(message) = add_pipeline(manager, &backend) {
        manager.add_pass(unsupported_chip_pass(name, message));
        return;
    }
    manager.add_pass(crate::embed::create_restore_manifests_pass());
    manager.add_pass(if target.is_spirv() {
        crate::embed::create_check_spirv_pass()
    } else if options.serialize {
        crate::embed::create_check_binaries_pass()
    } else {
        crate::embed::create_check_llvm_kernels_pass()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serialization_pass_is_found_at_the_top_level_of_a_pass_list() {
        assert_eq!(
            split_at_serialization("a, gpu.module(b, c), gpu-module-to-binary{format=isa}, d"),
            (
                "a, gpu.module(b, c)".to_owned(),
                Some("gpu-module-to-binary{format=isa}, d".to_owned())
            )
        );
        assert_eq!(
            split_at_serialization("gpu-module-to-binary, d"),
            (String::new(), Some("gpu-module-to-binary, d".to_owned()))
        );
        assert_eq!(
            split_at_serialization("a, tile-gpu-module-to-isa, d"),
            ("a".to_owned(), Some("tile-gpu-module-to-isa, d".to_owned()))
        );
        assert_eq!(
            split_at_serialization("a, spirv.module(b)"),
            ("a, spirv.module(b)".to_owned(), None)
        );
    }

    #[test]
    fn a_pipeline_without_serialization_keeps_what_comes_before_and_after_it() {
        assert_eq!(
            without_serialization("a, gpu.module(b, c), tile-gpu-module-to-isa, d{x=1, y=2}, e"),
            "a, gpu.module(b, c), d{x=1, y=2}, e"
        );
        assert_eq!(without_serialization("a, gpu-module-to-binary{format=isa}"), "a");
        assert_eq!(without_serialization("a, spirv.module(b)"), "a, spirv.module(b)");
    }
}
