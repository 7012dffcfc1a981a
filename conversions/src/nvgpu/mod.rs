//! What the sm_90a lowering ([`crate::target::sm_90a`]) builds beyond the rules every target
//! shares: [`chip`] holds the facts the rules, the layout inference and the persistent-kernel pass
//! share (shared memory, multiprocessors, registers, the operand layouts wgmma reads).
//!
//! Every kernel is lowered op by op ([`crate::generic`] with fragments in registers,
//! [`crate::registers`]): gemms on wgmma (shared operands through swizzled descriptors, a fragment
//! A operand from registers), copies into TMA rings where `tile-expand-pipelines` made them, the
//! rest by the rules every target shares. There is no whole-kernel template.

pub mod anchors;
pub(crate) mod chip;
pub mod rules;
