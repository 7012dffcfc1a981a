//! Lowerings of tile IR to the upstream GPU dialects.
//!
//! | flag | module | target |
//! |------|--------|--------|
//! | `convert-tile-to-nvgpu` | [`nvgpu`] | sm_90a: TMA, mbarrier rings, wgmma |
//!
//! [`register_all`] registers these passes (and the tile passes) in MLIR's global registry.

#![deny(missing_docs)]

pub mod nvgpu;

/// Registers the tile dialect hooks, the tile passes and the conversions (idempotent).
pub fn register_all() {
    tile_passes::register_all();
    tile_dialect::register_pass(nvgpu::ARGUMENT, nvgpu::create_convert_tile_to_nvgpu_pass);
}
