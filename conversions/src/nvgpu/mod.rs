//! `convert-tile-to-nvgpu`: tile kernels to Hopper (sm_90a) kernels in `gpu`/`nvgpu`/`nvvm`.
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]): gemms on wgmma (shared operands through swizzled descriptors, a fragment
//! A operand from registers), copies into TMA rings where `tile-expand-pipelines` made them, the
//! rest by the rules every target shares. There is no whole-kernel template. [`chip`] holds the
//! facts the rules, the layout inference and the persistent-kernel pass share.

pub(crate) mod chip;

use melior::{Context, ir::operation::OperationRef};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-nvgpu";
/// The chip this lowering targets.
pub const CHIP: &str = "sm_90a";

/// Tiles in dynamic shared memory (the whole 227 KiB a block may have), tensors as memref
/// descriptors.
pub const GENERIC: crate::generic::Flavor = crate::generic::Flavor {
    target: CHIP,
    targets: None,
    workgroup_space: "#gpu.address_space<workgroup>",
    attributions: true,
    static_tensors: false,
    max_shared_bytes: chip::MAX_SHARED_BYTES,
    shared_limit_note: "shared memory of one block",
    private_space: "#gpu.address_space<private>",
    dynamic_shared: true,
};

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-nvgpu` pass (on `builtin.module`).
    pub fn create_convert_tile_to_nvgpu_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToNvgpu",
        description: "Lower tile kernels op by op to sm_90a kernels: fragments in registers, gemms on wgmma, TMA rings (gpu/nvgpu/nvvm)",
        anchor: "builtin.module",
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            crate::support::check_supported(module, CHIP)?;
            crate::kernels::lower_each_kernel(module, &lower_kernel)
        },
    }
}

fn lower_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
) -> Result<(), crate::kernels::Failure<'c, 'a>> {
    // A tile two gemms want in two roles has no layout: say so before anything is rewritten.
    crate::layout::check_conflicts(kernel, CHIP)?;
    crate::generic::lower_per_op(context, module, kernel, index, &GENERIC)
}
