//! `convert-tile-to-amdgpu`: tile kernels to CDNA3 (gfx942) kernels in `gpu`/`amdgpu`.
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]): the layouts `tile-infer-layouts` records decide each fragment's
//! placement, and a `tile.gemm` whose accumulator has the mfma layout runs on `amdgpu.mfma`
//! (the rule in `registers/patterns/mfma.rs`). There is no whole-kernel template: a GEMM is the
//! same ops as any other kernel. [`config`] holds the chip's facts the rules and the layout
//! inference share (the instruction shapes, how waves split a tile, LDS padding).
//! [`crate::private_values`] (`tile-promote-private-vectors`, in the backend after the cleanup)
//! replaces the accumulators' private arrays by the values they hold.

pub mod config;
pub mod lds;

use melior::{Context, ir::operation::OperationRef};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-amdgpu";
/// The chip this lowering targets.
pub const CHIP: &str = "gfx942";

/// How gfx942 kernels are built: tiles in LDS (workgroup attributions), tensors as memref
/// descriptors, fragments in registers where the per-op rules take them.
pub const GENERIC: crate::generic::Flavor = crate::generic::Flavor {
    target: CHIP,
    targets: None,
    workgroup_space: "#gpu.address_space<workgroup>",
    attributions: true,
    static_tensors: false,
    max_shared_bytes: config::MAX_LDS_BYTES,
    shared_limit_note: "the LDS of one workgroup",
    private_space: "#gpu.address_space<private>",
    dynamic_shared: false,
};

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-amdgpu` pass (on `builtin.module`).
    pub fn create_convert_tile_to_amdgpu_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToAmdgpu",
        description: "Lower tile kernels to gfx942 kernels op by op: fragments in registers, gemms on mfma (gpu/amdgpu)",
        anchor: "builtin.module",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::amdgpu_dialect()); dialects },
        run: |module| lower_module(module),
    }
}

/// Lowers every `tile.kernel` of `module`.
fn lower_module(module: OperationRef) -> Result<(), String> {
    crate::support::check_supported(module, CHIP)?;
    crate::kernels::lower_each_kernel(module, &lower_kernel)
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
