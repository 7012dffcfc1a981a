//! What the gfx942 lowering ([`crate::target::gfx942`]) builds beyond the rules every target
//! shares: [`config`] holds the chip's facts the rules and the layout inference share (the
//! instruction shapes, how waves split a tile, LDS padding), [`lds`] how LDS tiles are stored.
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]): the layouts `tile-infer-layouts` records decide each fragment's
//! placement, and a `tile.gemm` whose accumulator has the mfma layout runs on `amdgpu.mfma`
//! (the rule in `registers/patterns/mfma.rs`). There is no whole-kernel template: a GEMM is the
//! same ops as any other kernel. [`crate::private_values`] (`tile-promote-private-vectors`, in the
//! backend after the cleanup) replaces the accumulators' private arrays by the values they hold.

pub mod anchors;
pub mod config;
pub mod rules;
