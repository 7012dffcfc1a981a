//! Host values a kernel reads, recomputed inside it. A kernel on tensors of dynamic shape reads
//! sizes the host computed from them (`memref.dim`, then `arith` on the sizes: tile counts, loop
//! bounds); the plain strategy passes a kernel only tensors and constants, but on targets whose
//! tensors arrive as memref descriptors the sizes are in the descriptors, so the same pure ops,
//! cloned at the start of the kernel, give the same values with no parameter of their own.

use melior::{
    dialect::DialectHandle,
    ir::{
        BlockLike, Value, ValueLike,
        operation::{OperationLike, OperationRef, OperationResult},
    },
};
use tile_dialect::ops::{clone_detached, is_defined_inside, nested_ops, set_operand};
use tile_dialect::positions::OperationAt;
use tile_ir::{arith, memref};

/// Whether `value` crosses into the kernel as it is: a tensor (a kernel argument) or a constant
/// (cloned into the kernel by the plain strategy).
fn crosses(value: Value) -> bool {
    tile_dialect::ops::as_memref(value.r#type()).is_some()
        || tile_dialect::ops::as_result(value)
            .is_some_and(|result| tile_ir::is(&result.owner(), arith::ConstantOperation::name))
}

/// Whether `value` is computed on the host from tensors' sizes and constants by pure ops only
/// (`memref.dim` and `arith`), so that the kernel can compute it again. `depth` bounds the walk.
fn recomputable(value: Value, depth: usize) -> bool {
    if crosses(value) {
        return true;
    }
    let Some(result) = tile_dialect::ops::as_result(value) else {
        return false;
    };
    let owner = result.owner();
    let pure = tile_ir::is(&owner, memref::DimOperation::name)
        || (tile_ir::in_dialect(&owner, DialectHandle::arith()) && owner.region_count() == 0);
    pure && depth < 64 && owner.operands().all(|operand| recomputable(operand, depth + 1))
}

/// Clones the ops computing `value` before `before` in `block`, operands first; returns the clone.
fn clone_into<'c, 'a>(
    value: Value<'c, 'a>,
    block: melior::ir::BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) -> Value<'c, 'a> {
    if crosses(value) {
        return value;
    }
    if let Some((_, known)) = done.iter().find(|(original, _)| *original == value) {
        return *known;
    }
    let result = OperationResult::try_from(value).expect("a recomputable value is an op's result");
    let original = result.owner();
    let operands: Vec<Value> = original
        .operands()
        .map(|operand| clone_into(operand, block, before, done))
        .collect();
    let clone = block.insert_operation_before(before, clone_detached(original));
    for (position, mapped) in operands.into_iter().enumerate() {
        set_operand(clone, position, mapped);
    }
    let cloned: Value = clone.result_at(result.result_number()).expect("same results").into();
    done.push((value, cloned));
    cloned
}

/// Makes every op of `kernel` that reads a recomputable host value read a copy computed at the
/// start of the kernel. Values that cannot be recomputed are left for the capture check to report.
pub fn recompute_host_values(kernel: OperationRef) {
    let Some(block) = kernel.body() else {
        return;
    };
    let Some(first) = block.first_operation() else { return };
    let mut done = Vec::new();
    for op in nested_ops(kernel) {
        let operands: Vec<Value> = op.operands().collect();
        for (position, operand) in operands.into_iter().enumerate() {
            if is_defined_inside(operand, kernel) || crosses(operand) || !recomputable(operand, 0) {
                continue;
            }
            let inside = clone_into(operand, block, first, &mut done);
            set_operand(op, position, inside);
        }
    }
}
