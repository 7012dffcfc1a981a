//! `tile-spirv-guard-empty-loops`: loop results that hold when the loop does not run.
//!
//! Upstream's `scf.for` to `spirv.mlir.loop` conversion returns a loop's results through
//! `Function` variables that only the loop's body stores to (at its `scf.yield`): a loop that runs
//! no iteration leaves them undefined instead of its initial values. lavapipe read NaN there for a
//! causal attention kernel whose first query block runs no key block of its main loop. This pass,
//! run on kernel modules before `convert-gpu-to-spirv`, puts each `scf.for` with results whose
//! bounds do not show that it runs at least once under an `scf.if` on its trip count, whose other
//! branch yields the initial values:
//!
//! ```text
//! %r = scf.for %i = %lb to %ub step %s      %run = arith.cmpi slt, %lb, %ub   (ult: unsignedCmp)
//!     iter_args(%a = %init) -> f32 {   ─▶    %r = scf.if %run -> f32 {
//!   ...                                        %l = scf.for ... iter_args(%a = %init) { ... }
//! }                                            scf.yield %l
//!                                            } else { scf.yield %init }
//! ```

use crate::cpu::builder::{At, Builder};
use melior::{
    dialect::{
        arith::{self, CmpiPredicate},
        scf,
    },
    ir::{
        Block, BlockLike, Region, RegionLike, Type, Value, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRef, OperationRefMut},
    },
};
use tile_dialect::ops::{constant_integer, nested_ops, with_context};
use tile_dialect::positions::OperationAt;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-spirv-guard-empty-loops";

/// Whether the loop's constant bounds show that it runs at least once.
fn runs(for_op: &OperationRef, unsigned: bool) -> bool {
    let bound = |index: usize| for_op.operand_at(index).and_then(constant_integer);
    match (bound(0), bound(1)) {
        (Some(lower), Some(upper)) if unsigned => (lower as u64) < (upper as u64),
        (Some(lower), Some(upper)) => lower < upper,
        _ => false,
    }
}

/// Puts `for_op` (an `scf.for` with results, `unsigned` if it compares its bounds unsigned) under
/// an `scf.if` on its trip count.
fn guard<'c, 'a>(context: &'c melior::Context, for_op: OperationRef<'c, 'a>, unsigned: bool) -> Result<(), String> {
    let location = for_op.location();
    let operand = |index: usize| {
        for_op
            .operand_at(index)
            .ok_or_else(|| tile_dialect::positions::missing("operand", index))
    };
    let (lower, upper) = (operand(0)?, operand(1)?);
    let initial: Vec<Value> = (3..for_op.operand_count()).map(operand).collect::<Result<_, _>>()?;
    let results: Vec<Type> = for_op.results().map(|result| result.r#type()).collect();
    let b = Builder {
        context,
        location,
        threads: None,
    };
    let predicate = if unsigned {
        CmpiPredicate::Ult
    } else {
        CmpiPredicate::Slt
    };
    let run = b.value(
        At::before(for_op),
        arith::cmpi(context, predicate, lower, upper, location),
    );
    let (then_region, else_region) = (Region::new(), Region::new());
    then_region.append_block(Block::new(&[]));
    let otherwise = Block::new(&[]);
    otherwise.append_operation(scf::r#yield(&initial, location));
    else_region.append_block(otherwise);
    let branch = b.insert(
        At::before(for_op),
        scf::r#if(run, &results, then_region, else_region, location),
    );
    // The loop's uses move to the branch's results before the loop moves into the branch, so
    // that the branch's own yield of the loop's results keeps them.
    let rewriter = melior::IrRewriter::new(context);
    for index in 0..results.len() {
        let old = for_op
            .result_at(index)
            .ok_or_else(|| tile_dialect::positions::missing("result", index))?;
        let new = branch
            .result_at(index)
            .ok_or_else(|| tile_dialect::positions::missing("result", index))?;
        rewriter
            .as_rewriter_base()
            .replace_all_uses_with(old.into(), new.into());
    }
    let then_block = branch.body().ok_or("an scf.if without its block")?;
    let yielded: Vec<Value> = for_op.results().map(Into::into).collect();
    let terminator = then_block.append_operation(scf::r#yield(&yielded, location));
    // An op of the function being rewritten: the pass owns it.
    unsafe { OperationRefMut::from_raw(for_op.to_raw()) }.move_before(terminator);
    Ok(())
}

fn run(op: OperationRef) -> Result<(), String> {
    with_context(op, |context| {
        for for_op in nested_ops(op) {
            if tile_ir::is(&for_op, tile_ir::scf::ForOperation::name) && for_op.result_count() > 0 {
                let unsigned = for_op.attribute("unsignedCmp").is_ok();
                if !runs(&for_op, unsigned) {
                    guard(context, for_op, unsigned)?;
                }
            }
        }
        Ok(())
    })
}

tile_passes::rust_pass! {
    /// Creates the `tile-spirv-guard-empty-loops` pass (on any op; the SPIR-V backends run it on
    /// each kernel module before `convert-gpu-to-spirv`).
    pub fn create_guard_empty_loops_pass() {
        argument: ARGUMENT,
        name: "TileSpirvGuardEmptyLoops",
        description: "Put each scf.for with results that may run no iteration under an scf.if that yields its initial values when it does not: upstream's scf-to-spirv stores loop results only in the loop's body",
        anchor: "",
        dialects: [],
        run: |op| run(op),
    }
}
