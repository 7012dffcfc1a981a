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
    let Some((_, backend)) = NVVM_CHIPS.iter().find(|(name, _)| *name == chip) else {
        manager.add_pass(unsupported_chip_pass(format!(
            "tile-to-nvvm: chip {chip} is not supported yet; supported: {}",
            NVVM_CHIPS
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        )));
        return;
    };
    let passes = format!(
        "{},inline,canonicalize,cse,{backend}",
        crate::nvgpu::ARGUMENT
    );
    if let Err(message) = add_pipeline(manager, &passes) {
        manager.add_pass(unsupported_chip_pass(format!("tile-to-nvvm: {message}")));
    }
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
    let Some(backend) = rocdl_backend(chip) else {
        manager.add_pass(unsupported_chip_pass(format!(
            "tile-to-rocdl: chip {chip} is not supported yet; supported: {}",
            ROCDL_CHIPS
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        )));
        return;
    };
    let passes = format!(
        "{},inline,canonicalize,cse,{backend}",
        crate::amdgpu::ARGUMENT
    );
    if let Err(message) = add_pipeline(manager, &passes) {
        manager.add_pass(unsupported_chip_pass(format!("tile-to-rocdl: {message}")));
    }
}

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

/// A pass that fails with `message`: how a pipeline built for a chip it cannot serve says so.
#[derive(Clone)]
struct Unsupported {
    message: String,
}

impl<'c> RunExternalPass<'c> for Unsupported {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let message = self.message.clone();
        tile_passes::guard::run_guarded("tile-to-nvvm", op, pass, |_| Err(message));
    }
}

fn unsupported_chip_pass(message: String) -> Pass {
    create_external(
        Unsupported { message },
        TypeId::create(&PASS_ID),
        "TileUnsupportedChip",
        "tile-unsupported-chip",
        "",
        "",
        &[],
    )
}
