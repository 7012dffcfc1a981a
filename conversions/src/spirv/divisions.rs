//! `tile-spirv-expand-divisions`: the rounding integer divisions that upstream's arith-to-SPIR-V
//! conversion has no pattern for, in the plain divisions and comparisons it has, so that a kernel
//! that computes `arith.ceildivui` (a trip count, a diagonal block) reaches SPIR-V. Upstream's
//! `arith-expand` would do it too, but it also rewrites `maximumf`/`minimumf`, which the SPIR-V
//! conversion already takes.
//!
//! | op | becomes |
//! |---|---|
//! | `ceildivui a, b` | `a == 0 ? 0 : (a - 1) / b + 1` (unsigned) |
//! | `ceildivsi a, b` | `q = a / b` (truncating); `q + 1` where `a` is not a multiple of `b` and `a`, `b` have the same sign, else `q` |
//! | `floordivsi a, b` | `q = a / b`; `q - 1` where `a` is not a multiple of `b` and their signs differ, else `q` |

use crate::cpu::builder::{At, Builder};
use melior::{
    dialect::arith,
    ir::{
        Value, ValueLike,
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{nested_ops, with_context};
use tile_dialect::positions::OperationAt;
use tile_ir::arith as ops;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-spirv-expand-divisions";

/// The expansion of one division `op` (see the module's table), before it.
fn expand<'c, 'a>(b: &Builder<'c>, op: OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    let at = At::before(op);
    let (a, d) = (op.operand_at(0)?, op.operand_at(1)?);
    let zero = b.integer(at, a.r#type(), 0);
    let one = b.integer(at, a.r#type(), 1);
    let select = |condition, yes, no| b.value(at, arith::select(condition, yes, no, b.location));
    if tile_ir::is(&op, ops::CeilDivUIOperation::name) {
        let below = b.subi(at, a, one);
        let quotient = b.value(at, arith::divui(below, d, b.location));
        let up = b.addi(at, quotient, one);
        let empty = b.compare(at, "eq", a, zero);
        return Some(select(empty, zero, up));
    }
    let quotient = b.value(at, arith::divsi(a, d, b.location));
    let product = b.value(at, arith::muli(quotient, d, b.location));
    let inexact = b.compare(at, "ne", product, a);
    let a_negative = b.compare(at, "slt", a, zero);
    let d_negative = b.compare(at, "slt", d, zero);
    let signs_differ = b.value(at, arith::xori(a_negative, d_negative, b.location));
    if tile_ir::is(&op, ops::CeilDivSIOperation::name) {
        let same = b.compare(at, "eq", a_negative, d_negative);
        let round = b.value(at, arith::andi(inexact, same, b.location));
        let up = b.addi(at, quotient, one);
        Some(select(round, up, quotient))
    } else {
        let round = b.value(at, arith::andi(inexact, signs_differ, b.location));
        let down = b.subi(at, quotient, one);
        Some(select(round, down, quotient))
    }
}

fn run(root: OperationRef) -> Result<(), String> {
    with_context(root, |context| {
        let rewriter = melior::IrRewriter::new(context);
        for op in nested_ops(root) {
            let division = [
                ops::CeilDivUIOperation::name(),
                ops::CeilDivSIOperation::name(),
                ops::FloorDivSIOperation::name(),
            ]
            .contains(&tile_dialect::ops::op_name(&op));
            if !division {
                continue;
            }
            let b = Builder {
                context,
                location: op.location(),
                threads: None,
            };
            let value = expand(&b, op).ok_or("a division without its operands")?;
            let rewriter = rewriter.as_rewriter_base();
            rewriter.replace_all_uses_with(
                op.result_at(0)
                    .ok_or_else(|| tile_dialect::positions::missing("result", 0))?
                    .into(),
                value,
            );
            rewriter.erase_op(op);
        }
        Ok(())
    })
}

tile_passes::rust_pass! {
    /// Creates the `tile-spirv-expand-divisions` pass (on any op; the SPIR-V backends run it on each
    /// kernel module before `convert-gpu-to-spirv`).
    pub fn create_expand_divisions_pass() {
        argument: ARGUMENT,
        name: "TileSpirvExpandDivisions",
        description: "Rewrite arith.ceildivui, ceildivsi and floordivsi into divisions, comparisons and selects that upstream's arith-to-SPIR-V conversion takes",
        anchor: "",
        dialects: [],
        run: |op| run(op),
    }
}
