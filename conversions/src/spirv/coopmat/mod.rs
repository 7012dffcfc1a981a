//! What the `spirv-coopmat` lowering ([`crate::target::spirv_coopmat`]) adds: devices with KHR
//! cooperative matrices (16x16x16, f16 x f16 -> f32, 32-wide subgroups: NVIDIA's driver).
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]) in this target environment: a `tile.gemm` on f16 tiles runs on
//! `gpu.subgroup_mma_*` (the rules in [`rules`]), which upstream
//! `convert-gpu-to-spirv` lowers to `spirv.KHR.CooperativeMatrix*`. There is no whole-kernel
//! template. [`config`] holds the facts the rule and the layout inference share, [`held`] which
//! accumulators stay in cooperative matrices across their gemms.

pub mod anchors;
pub mod config;
pub mod held;
pub mod rules;
