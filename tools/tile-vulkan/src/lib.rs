//! Runs SPIR-V kernels from `tile-compile --target spirv|spirv-coopmat` on a Vulkan device, without
//! MLIR: [`kernel`] reads a kernel's launch manifest, [`device`] runs and times it. `tile-run`
//! launches through it; the `tile-vulkan-run` binary runs a compiled kernel on machines that have a
//! Vulkan driver but no LLVM (the GPU machine).

#![deny(missing_docs)]

pub mod device;
pub mod kernel;

pub use device::{Vulkan, Workgroups};
pub use kernel::{Binding, SpirvKernel, spirv_words};
