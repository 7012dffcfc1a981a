//! `tile-spirv-vulkan-memory-model`: switches every `spirv.module` to the Vulkan memory model.
//!
//! Upstream `convert-gpu-to-spirv` always picks GLSL450 for shaders, but SPIR-V requires the Vulkan
//! memory model of any shader with cooperative matrices. Run it before `spirv-update-vce`, which
//! then adds the `VulkanMemoryModel` capability the model needs.

use melior::{
    ContextRef,
    ir::{Attribute, operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};
use tile_dialect::ops::{find_ops, set_attribute, with_context};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-spirv-vulkan-memory-model";

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct VulkanMemoryModel;

impl<'c> RunExternalPass<'c> for VulkanMemoryModel {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        tile_passes::guard::run_guarded(ARGUMENT, op, pass, |op| {
            let vulkan = with_context(op, |context| Attribute::parse(context, "#spirv.memory_model<Vulkan>"))
                .ok_or("internal error: #spirv.memory_model<Vulkan> does not parse")?;
            for module in find_ops(op, "spirv.module") {
                set_attribute(module, "memory_model", vulkan);
            }
            Ok(())
        });
    }
}

/// Creates the `tile-spirv-vulkan-memory-model` pass (on any op; usually the module).
pub fn create_vulkan_memory_model_pass() -> Pass {
    create_external(
        VulkanMemoryModel,
        TypeId::create(&PASS_ID),
        "TileSpirvVulkanMemoryModel",
        ARGUMENT,
        "Switch every spirv.module to the Vulkan memory model (cooperative matrices require it)",
        "",
        &[tile_dialect::registration::spirv_dialect()],
    )
}
