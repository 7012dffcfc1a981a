//! Passes over tile IR, written in Rust.
//!
//! | flag | module | what it does |
//! |------|--------|--------------|
//! | `tile-canonicalize` | [`canonicalize`] | applies the tile ops' canonicalization patterns and folds |
//! | `tile-math-to-nvptx` | [`math_to_nvptx`] | f32 `math` ops as NVPTX intrinsics (no libdevice) |
//!
//! [`register_all`] registers the dialect hooks and every pass in MLIR's global registry; `tile-opt`,
//! the `mlir-opt` plugin and the C API all call it.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod guard;
pub mod math_to_nvptx;

pub use canonicalize::create_canonicalize_pass;

/// Registers every tile pass in MLIR's global pass registry (idempotent).
pub fn register_all() {
    tile_dialect::install_hooks();
    tile_dialect::register_pass(canonicalize::ARGUMENT, create_canonicalize_pass);
    tile_dialect::register_pass(
        math_to_nvptx::ARGUMENT,
        math_to_nvptx::create_math_to_nvptx_pass,
    );
}
