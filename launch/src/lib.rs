//! Launches a compiled tile kernel on an NVIDIA GPU from its code (PTX) and launch manifest, with
//! no MLIR: the CUDA driver is loaded at run time (`cudarc`, dynamic loading), so this crate builds
//! and its checks run on machines without CUDA.
//!
//! ```text
//! Manifest + [Arg]  ──plan::plan_launch──▶  LaunchPlan { grid, block, shared, [Param] }     (no GPU)
//!                      checks every argument against the manifest (dtype, rank, sizes, strides)
//!                      and computes each tensor map's encoding parameters
//! LaunchPlan ──cuda::Kernel::launch──▶ cuTensorMapEncodeTiled, maps copied to the device
//!                                      (stream-ordered), cuLaunchKernel on the caller's stream
//! ```
//!
//! Invariants: a manifest of another schema, compiler version or chip is refused before any code
//! is loaded; no launch happens unless every argument the manifest names matches it, and errors
//! name the argument. `unsafe` lives only in the FFI modules [`cuda`] (the driver) and [`capi`]
//! (the C ABI the Python package uses).

#![deny(missing_docs)]

pub mod args;
pub mod capi;
pub mod cuda;
pub mod plan;
pub mod tensor_map;

pub use args::{Arg, Tensor};
pub use cuda::{Kernel, PreparedLaunch};
pub use plan::{LaunchPlan, Param, plan_launch};
pub use tensor_map::TensorMapParams;

use std::fmt;

/// Everything that can stop a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The manifest does not read, or was written for another schema, compiler or chip.
    Manifest(tile_manifest::Error),
    /// The manifest describes a launch this launcher does not do (another target's calling
    /// convention, a parameter kind it does not know).
    Unsupported(String),
    /// An argument does not match what the manifest expects; the message names it.
    Argument(String),
    /// The CUDA driver is missing or failed.
    Cuda(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Manifest(error) => write!(f, "{error}"),
            Error::Unsupported(message) | Error::Argument(message) => f.write_str(message),
            Error::Cuda(message) => write!(f, "CUDA: {message}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<tile_manifest::Error> for Error {
    fn from(error: tile_manifest::Error) -> Self {
        Error::Manifest(error)
    }
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
