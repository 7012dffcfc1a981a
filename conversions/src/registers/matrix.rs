//! The register rules of a target's matrix instructions: which gemms run on them and how they are
//! lowered, with the copies that feed them and the stores that drain them. Each family of
//! instructions lives in its target's folder and is named by the target value
//! ([`crate::target::Target::matrix`]); the shared rules ([`super::patterns`]) ask it through
//! these two traits, before any op is rewritten ([`MatrixRules`]) and while the kernel's fragment ops
//! are lowered ([`MatrixPlan`]).

use super::{Layouts, Unsupported, patterns::Lowering};
use crate::{
    cpu::builder::{At, Builder},
    kernels::Failure,
    target::Target,
};
use melior::ir::{Value, operation::OperationRef};
use std::collections::{HashMap, HashSet};
use tile_dialect::layout::SharedLayout;

/// A kernel as the matrix rules plan it.
pub struct Kernel<'c, 'a, 'k> {
    /// The `tile.kernel`.
    pub op: OperationRef<'c, 'a>,
    /// Its ops, nested ones included, in order.
    pub ops: &'k [OperationRef<'c, 'a>],
    /// Every shared tile, with the layout `tile-infer-layouts` recorded (or would record).
    pub shared: &'k [(OperationRef<'c, 'a>, SharedLayout)],
    /// Threads of the block.
    pub threads: i64,
    /// The target.
    pub target: &'static Target,
}

/// Gemms left to the scalar rule (one loop over K per accumulator element), with the reason.
pub type Off<'c, 'a> = Vec<(OperationRef<'c, 'a>, String)>;

/// A target's matrix instructions as the register rules plan them.
pub trait MatrixRules: Sync {
    /// What a gemm off the instructions runs without, as its warning says ("tensor cores").
    fn instructions(&self) -> &'static str;

    /// Plans which gemms of `kernel` run on the instructions, given the fragments' layouts in
    /// `layouts`: the plan the lowering reads back, and the gemms left to the scalar rule. An
    /// `Ok(Err(..))` keeps the kernel's fragments out of registers; an `Err` refuses the kernel.
    #[allow(clippy::type_complexity)]
    fn plan<'c, 'a>(
        &self,
        kernel: &Kernel<'c, 'a, '_>,
        layouts: &Layouts,
    ) -> Result<Result<(Box<dyn MatrixPlan>, Off<'c, 'a>), Unsupported<'c, 'a>>, Failure<'c, 'a>>;

    /// Whether TMA would fill the tiles `copies` (copies from global memory into shared tiles,
    /// about to be issued ahead into rings) write: what the pipeline planner asks before it gives
    /// a loop a producer warpgroup. Quiet: the lowering says why a gemm is off the instructions.
    fn tma_fillable(&self, _kernel: OperationRef, _copies: &[OperationRef]) -> bool {
        false
    }
}

/// What a kernel's fragment lowering keeps for the matrix rules: made at the kernel's start,
/// read by their ops.
#[derive(Default)]
pub struct Prepared<'c, 'a> {
    /// Values made for an op (by op key): a copy's staging area, a held accumulator's matrices.
    pub values: HashMap<usize, Vec<Value<'c, 'a>>>,
    /// Ops the rules marked while planning the lowering (gemms that end without a barrier,
    /// copies whose threads meet at their warpgroup's barrier).
    pub marked: HashSet<usize>,
    /// Copies that narrow a fragment to an 8-bit float whose values stay inside its range
    /// ([`crate::bounds`]): their roundings carry [`tile_dialect::decisions::IN_RANGE`].
    pub in_range: HashSet<usize>,
    /// Fragments whose registers the rules pin just before an op (the waits of asynchronous
    /// matrix instructions), so that LLVM moves no arithmetic on them across it.
    pub pins: Vec<(OperationRef<'c, 'a>, Vec<Value<'c, 'a>>)>,
}

/// One kernel's matrix plan: what the shared rules ask of it while they lower the kernel (the
/// family's own rules receive it as `self` in [`MatrixPlan::lower`] and the other hooks).
pub trait MatrixPlan {
    /// Whether `gemm` reads its fragment A operand from registers (otherwise the shared rules
    /// stage it in a workgroup scratch tile first).
    fn register_a(&self, _gemm: &OperationRef, _layouts: &Layouts) -> bool {
        false
    }

    /// Whether the family lowers `copy`, a whole-fragment copy between layouts whose threads
    /// differ (elements exchanged in registers), which the shared rules cannot.
    fn exchanges(&self, _copy: &OperationRef, _layouts: &Layouts) -> bool {
        false
    }

    /// f32 elements of the one workgroup staging area the planned gemms go through (0: none).
    fn staging_elements(&self) -> i64 {
        0
    }

    /// Whether TMA alone fills the shared tile of `allocation` (its key).
    fn filled_by_tma(&self, _allocation: usize) -> bool {
        false
    }

    /// Plans the accumulator stores once the kernel's workgroup scratch (`scratch` bytes) is
    /// known; returns the workgroup bytes they add.
    fn plan_stores(&mut self, _ops: &[OperationRef], _layouts: &Layouts, _scratch: i64) -> i64 {
        0
    }

    /// Writes what the rules need at the kernel's start (before the fragments' arrays; `start`)
    /// or around its ops, before any op is lowered.
    fn prepare<'c, 'a>(
        &self,
        _b: &Builder<'c>,
        _start: At<'c, 'a>,
        _kernel: OperationRef<'c, 'a>,
        _ops: &[OperationRef<'c, 'a>],
        _layouts: &Layouts,
    ) -> Prepared<'c, 'a> {
        Prepared::default()
    }

    /// Writes what the rules need once the fragments' arrays and the staging area exist.
    fn begin<'c, 'a>(
        &self,
        _lowering: &mut Lowering<'c, 'a, '_>,
        _b: &Builder<'c>,
        _start: At<'c, 'a>,
        _ops: &[OperationRef<'c, 'a>],
        _allocations: &[OperationRef<'c, 'a>],
    ) {
    }

    /// The rule (a number of the family's own) that lowers `op`, where the family lowers it:
    /// decided for every op before any is rewritten.
    fn rule(&self, _op: &OperationRef, _lowering: &Lowering) -> Option<u8> {
        None
    }

    /// Lowers `op` by the family's rule `rule`; `scratch` is its workgroup scratch, where the
    /// shared rules gave it one.
    fn lower<'c, 'a>(
        &self,
        _lowering: &Lowering<'c, 'a, '_>,
        _op: OperationRef<'c, 'a>,
        _rule: u8,
        _scratch: Option<Value<'c, 'a>>,
    ) {
        unreachable!("the family lowers only the ops it took")
    }

    /// Lowers the copy `op` of the fragment `src` into `dst` (at `offsets`) where the family has
    /// its own way (staged stores; for an atomic copy, a bulk reduction); returns whether it did.
    fn copy_out<'c, 'a>(
        &self,
        _lowering: &Lowering<'c, 'a, '_>,
        _op: OperationRef<'c, 'a>,
        _src: Value<'c, 'a>,
        _dst: Value<'c, 'a>,
        _offsets: &crate::registers::patterns::Origin<'c, 'a>,
    ) -> bool {
        false
    }

    /// Writes what the kernel's threads do before it ends (`end`: before its terminator).
    fn finish<'c, 'a>(&self, _lowering: &Lowering<'c, 'a, '_>, _b: &Builder<'c>, _end: At<'c, 'a>) {}
}
