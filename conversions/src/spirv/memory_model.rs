//! `tile-spirv-vulkan-memory-model`: switches every `spirv.module` to the Vulkan memory model.
//!
//! Upstream `convert-gpu-to-spirv` always picks GLSL450 for shaders, but SPIR-V requires the Vulkan
//! memory model of any shader with cooperative matrices. Run it before `spirv-update-vce`, which
//! then adds the `VulkanMemoryModel` capability the model needs.

use melior::ir::Attribute;
use tile_dialect::ops::{find_ops, set_attribute, with_context};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-spirv-vulkan-memory-model";

tile_passes::rust_pass! {
    /// Creates the `tile-spirv-vulkan-memory-model` pass (on any op; usually the module).
    pub fn create_vulkan_memory_model_pass() {
        argument: ARGUMENT,
        name: "TileSpirvVulkanMemoryModel",
        description: "Switch every spirv.module to the Vulkan memory model (cooperative matrices require it)",
        anchor: "",
        dialects: [tile_dialect::registration::spirv_dialect()],
        run: |op| {
            let vulkan = with_context(op, |context| Attribute::parse(context, "#spirv.memory_model<Vulkan>"))
                .ok_or("internal error: #spirv.memory_model<Vulkan> does not parse")?;
            for module in find_ops(op, super::MODULE) {
                set_attribute(module, "memory_model", vulkan);
            }
            Ok(())
        },
    }
}
