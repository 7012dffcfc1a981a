//! The C boundary with the C++ shim. Its declarations are not written here: `build.rs` generates them
//! with bindgen from `shim/TileShim.h`, the one place the boundary is declared, using mlir-sys's
//! types for MLIR's C API handles (`MlirContext`, `MlirOperation`, `MlirStringRef`, ...). The build
//! fails when the header declares a function the shim does not define with C linkage, or the shim
//! defines a `tileShim*` function the header does not declare.
//!
//! The callbacks C++ calls (`Tile*Hook`, `Tile*Sink`, `TilePassFactory`, `TilePipelineBuilder`:
//! `Option`s of `unsafe extern "C" fn`, as bindgen writes C function pointers) are Rust functions in
//! `registration` and `driver`; none may let a panic unwind into C++ (`diagnostics::catch_panic`
//! where the work can panic).

#[allow(
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    dead_code,
    unsafe_op_in_unsafe_fn,
    clippy::all
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/tile_shim.rs"));
}

pub use generated::*;

/// Returns the text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
