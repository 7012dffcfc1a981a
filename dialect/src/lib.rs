//! The `tile` dialect: tiled GPU kernels in MLIR.
//!
//! Ops are declared once, in ODS (`td/TileOps.td`); the C++ classes generated from it call back into
//! this crate for everything with behaviour:
//!
//! ```text
//!   td/*.td --mlir-tblgen--> op classes (C++ shim) --verify()--------------> verify::verify_op
//!                                                   --canonicalization-----> canonicalize::populate
//! ```
//!
//! Embedders register the dialect with [`register`] (or load it with [`load`]), build ops with the
//! typed builders of [`ops`], and reach the memory level of a buffer with [`level::memory_level`].

#![deny(missing_docs)]

pub mod atomic;
pub mod canonicalize;
pub mod decisions;
pub mod diagnostics;
pub mod driver;
pub mod element;
mod error;
mod ffi;
pub mod layout;
pub mod level;
pub mod math;
pub mod ops;
pub mod parser_guard;
pub mod partition;
pub mod positions;
pub mod registration;
mod verify;

pub use error::{Error, Result};
pub use registration::{
    PipelineOptions, dialect_handle, install_hooks, load, register, register_pass, register_pipeline,
};
/// The most barriers one `tile.alloc_barriers` may hold.
pub use verify::{MAX_BARRIERS, MAX_SPLITS, PRODUCER_THREADS};

/// The op reference generated from the ODS by `mlir-tblgen -gen-dialect-doc` at build time.
pub const GENERATED_OP_REFERENCE: &str = include_str!(concat!(env!("OUT_DIR"), "/TileDialect.md"));
