//! The registered target pipelines: `tile-to-nvvm{chip=...}` takes tile IR to a `gpu.binary` holding
//! PTX, through our lowering and upstream's NVVM pipeline.

use melior::{
    ContextRef,
    ir::{operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, OperationPassManager, Pass, RunExternalPass, create_external},
};
use tile_dialect::registration::add_pipeline;

/// Chips `tile-to-nvvm` compiles for, with the passes after our lowering.
const NVVM_CHIPS: &[(&str, &str)] = &[(
    "sm_90a",
    "tile-math-to-nvptx, gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa}",
)];

/// Builds `tile-to-nvvm{chip}` into `manager`.
pub fn build_tile_to_nvvm(manager: &OperationPassManager, chip: &str) {
    build_target_pipeline(manager, "tile-to-nvvm", crate::nvgpu::ARGUMENT, NVVM_CHIPS, chip);
}

/// Chips `tile-to-rocdl` compiles for, with the passes after our lowering. LDS is addressed with the
/// integer memory space 3 in the emitted kernel, which every conversion below maps the same way.
const ROCDL_CHIPS: &[(&str, &str)] = &[(
    "gfx942",
    "rocdl-attach-target{chip=gfx942 O=3}, gpu.module(convert-vector-to-scf, convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-amdgpu-to-rocdl{chipset=gfx942}, convert-vector-to-llvm, convert-gpu-to-rocdl{chipset=gfx942}, reconcile-unrealized-casts), gpu-module-to-binary{format=isa}",
)];

/// Returns the upstream passes that follow `convert-tile-to-amdgpu` for `chip`.
pub fn rocdl_backend(chip: &str) -> Option<&'static str> {
    ROCDL_CHIPS
        .iter()
        .find(|(name, _)| *name == chip)
        .map(|(_, passes)| *passes)
}

/// Builds `tile-to-rocdl{chip}` into `manager`.
pub fn build_tile_to_rocdl(manager: &OperationPassManager, chip: &str) {
    build_target_pipeline(manager, "tile-to-rocdl", crate::amdgpu::ARGUMENT, ROCDL_CHIPS, chip);
}

/// Builds pipeline `name` for `chip`: our lowering `lowering`, cleanups, then the chip's upstream
/// passes from `chips`. A chip not in `chips` gets a pass that fails naming the chips that work.
fn build_target_pipeline(
    manager: &OperationPassManager,
    name: &str,
    lowering: &str,
    chips: &[(&str, &str)],
    chip: &str,
) {
    let Some((_, backend)) = chips.iter().find(|(known, _)| *known == chip) else {
        let supported: Vec<&str> = chips.iter().map(|(known, _)| *known).collect();
        manager.add_pass(unsupported_chip_pass(
            name,
            format!("chip {chip} is not supported yet; supported: {}", supported.join(", ")),
        ));
        return;
    };
    if let Err(message) = add_pipeline(manager, &format!("{lowering},inline,canonicalize,cse,{backend}")) {
        manager.add_pass(unsupported_chip_pass(name, message));
    }
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
        Unsupported { pipeline: pipeline.into(), message },
        TypeId::create(&PASS_ID),
        "TileUnsupportedChip",
        "tile-unsupported-chip",
        "",
        "",
        &[],
    )
}
