//! What the SPIR-V lowerings ([`crate::target::spirv`], [`crate::target::spirv_coopmat`]) build
//! beyond the rules every target shares. `spirv` lowers with the plain strategy
//! ([`crate::generic`]): tile ops as loops shared by a workgroup's threads, tiles in workgroup
//! memory, kernels as `gpu.func`s of a `gpu.module` carrying the Vulkan target environment, ready
//! for upstream `convert-gpu-to-spirv`.
//!
//! [`coopmat`] holds what the cooperative-matrix target adds; [`memory_model`] is the
//! post-conversion fix-up it needs; [`empty_loops`] readies both targets' loops for upstream's
//! conversion, [`divisions`] their rounding integer divisions.

pub mod coopmat;
pub mod divisions;
pub mod empty_loops;
pub mod memory_model;

/// The name of `spirv.module`, the one op whose name is written here: melior's generator cannot read
/// `SPIRVStructureOps.td` (its module op's region is unnamed), so there is no generated
/// `ModuleOperation::name` for it.
pub const MODULE: &str = "spirv.module";
