//! `tile-gpu-module-to-isa`: upstream's `gpu-module-to-binary{format=isa}` (each `gpu.module` becomes
//! a `gpu.binary` holding its targets' assembly), with the LLVM stage in Rust: NVIDIA and AMD
//! modules (one `#nvvm.target` or `#rocdl.target`) go through [`crate::llvm_stage`] over inkwell,
//! on target machines kept per thread (upstream makes one per module: a fixed cost per kernel,
//! paid 200 times in a module of 200 kernels). Any other target goes through its own
//! `gpu-module-to-binary` interface unchanged (`dialect/shim/TileSerialize.cpp`).

use melior::ir::{
    BlockLike, RegionLike,
    attribute::ArrayAttribute,
    operation::{OperationLike, OperationRef},
};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-gpu-module-to-isa";

/// Serializes every `gpu.module` directly in `op`'s regions; the first that fails ends it, its
/// error emitted at it.
fn serialize_modules(op: OperationRef) -> Result<(), String> {
    let mut modules = Vec::new();
    for region in op.regions() {
        for block in std::iter::successors(region.first_block(), |block| block.next_in_region()) {
            modules.extend(
                std::iter::successors(block.first_operation(), |op| op.next_in_block())
                    .filter(|op| tile_ir::is(op, tile_ir::gpu::GPUModuleOperation::name)),
            );
        }
    }
    for module in modules {
        let targets = module
            .attribute("targets")
            .ok()
            .and_then(|targets| ArrayAttribute::try_from(targets).ok());
        let llvm = targets
            .filter(|targets| targets.len() == 1)
            .and_then(|targets| targets.element(0).ok())
            .and_then(|target| Some((target, tile_dialect::driver::llvm_target(target)?)));
        match llvm {
            Some((attribute, target)) => {
                crate::llvm_stage::serialize(module, attribute, &target).map_err(|message| {
                    tile_dialect::diagnostics::emit_error(module.location(), &message);
                    String::new()
                })?
            }
            None => {
                if !tile_dialect::driver::serialize_gpu_module_to_assembly(module) {
                    return Err(String::new());
                }
            }
        }
    }
    Ok(())
}

crate::rust_pass! {
    /// Creates `tile-gpu-module-to-isa` (on any op whose regions hold `gpu.module`s directly).
    pub fn create_gpu_module_to_isa_pass() {
        argument: ARGUMENT,
        name: "TileGpuModuleToIsa",
        description: "Serialize each gpu.module into a gpu.binary of its targets' assembly (gpu-module-to-binary{format=isa}): PTX and AMDGCN through the LLVM stage in Rust (inkwell), on target machines kept per thread",
        anchor: "",
        dialects: [],
        run: |op| serialize_modules(op),
    }
}
