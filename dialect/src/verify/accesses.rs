//! Rules on what a kernel's body reads and writes that the lowerings cannot honour: element accesses
//! whose indices are statically known to leave the buffer (a `tile.parallel` whose extents exceed
//! the tile it indexes, a constant index past a dimension), and global tensors that are not
//! arguments of the host function (a launcher can only pass those).
//!
//! Index ranges are known for constants, the indices of an enclosing `tile.parallel` (0 to extent -
//! 1) and sums, differences and products of known ranges; anything else is not checked.

use super::Verdict;
use crate::ops::{constant_integer, op_name};
use crate::positions::OperationAt;
use melior::ir::{
    BlockLike, TypeLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};

/// Returns the range (lowest, highest) `value` takes, when it is statically known.
fn range(value: Value, depth: usize) -> Option<(i128, i128)> {
    if depth > 8 {
        return None;
    }
    if let Some(constant) = constant_integer(value) {
        return Some((constant as i128, constant as i128));
    }
    if let Some(argument) = crate::ops::as_argument(value) {
        let owner = argument.owner().parent_operation()?;
        if op_name(&owner) != "tile.parallel" {
            return None;
        }
        let extent = *crate::ops::parallel_extents(&owner)?.get(argument.argument_number())?;
        return Some((0, extent as i128 - 1));
    }
    let owner = crate::ops::as_result(value)?.owner();
    let operands: Vec<Value> = owner.operands().collect();
    let pair = || {
        Some((
            range(*operands.first()?, depth + 1)?,
            range(*operands.get(1)?, depth + 1)?,
        ))
    };
    match op_name(&owner) {
        // Checked: ranges of nested products can leave even 128 bits (then nothing is known).
        "arith.addi" => pair().and_then(|((a, b), (c, d))| Some((a.checked_add(c)?, b.checked_add(d)?))),
        "arith.subi" => pair().and_then(|((a, b), (c, d))| Some((a.checked_sub(d)?, b.checked_sub(c)?))),
        "arith.muli" => pair().and_then(|((a, b), (c, d))| {
            let products = [
                a.checked_mul(c)?,
                a.checked_mul(d)?,
                b.checked_mul(c)?,
                b.checked_mul(d)?,
            ];
            Some((*products.iter().min()?, *products.iter().max()?))
        }),
        _ => None,
    }
}

/// Checks the indices of one `memref.load` or `memref.store`.
pub fn access(op: &OperationRef) -> Verdict {
    let (memref, first_index) = match op_name(op) {
        "memref.load" => (0, 1),
        "memref.store" => (1, 2),
        _ => return Ok(()),
    };
    // Checked first: a missing operand's error would print the (invalid) op.
    if op.operand_count() <= memref {
        return Ok(());
    }
    let Some(buffer) = op.operand_at(memref) else {
        return Ok(());
    };
    let Some(memref_type) = crate::ops::as_memref(buffer.r#type()) else {
        return Ok(());
    };
    if first_index == 2
        && crate::element::Element::of(melior::ir::ShapedTypeLike::element(&memref_type))
            .is_some_and(|element| element.is_packed())
    {
        return Err(format!(
            "expects no element stores into {}, whose elements are stored two to a byte (threads \
             writing the two halves of a byte would race); copy whole tiles of them with tile.copy",
            buffer.r#type()
        ));
    }
    let sizes = crate::ops::static_sizes(memref_type);
    let indices: Vec<Value> = op.operands().skip(first_index).collect();
    for (dim, (index, size)) in indices.iter().zip(&sizes).enumerate() {
        let (Some(size), Some((low, high))) = (size, range(*index, 0)) else {
            continue;
        };
        if low < 0 || high >= *size as i128 {
            return Err(format!(
                "expects every index to stay within the buffers it accesses, but index {dim} of a {} \
                 of {} takes values from {low} to {high}",
                op_name(op),
                buffer.r#type()
            ));
        }
    }
    Ok(())
}

/// Checks every element access nested in `op` whose closest enclosing `tile.parallel` or
/// `tile.kernel` is `op`.
pub fn accesses_of(op: OperationRef) -> Verdict {
    for nested in crate::ops::nested_ops(op) {
        let mut parent = nested.parent_operation();
        while let Some(current) = parent {
            let name = op_name(&current);
            if name == "tile.parallel" || name == "tile.kernel" {
                break;
            }
            parent = current.parent_operation();
        }
        if parent == Some(op) {
            access(&nested)?;
        }
    }
    Ok(())
}

/// Returns true when `op` is nested (at any depth) in an op named `name`.
pub fn nested_in(op: OperationRef, name: &str) -> bool {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if op_name(&current) == name {
            return true;
        }
        parent = current.parent_operation();
    }
    false
}

/// Checks that the kernel `op` calls no function: a kernel is outlined to the device, where host
/// functions (its own included) do not exist.
pub fn calls(op: OperationRef) -> Verdict {
    for nested in crate::ops::nested_ops(op) {
        let name = op_name(&nested);
        if name == "func.call" || name == "func.call_indirect" {
            let callee = crate::ops::flat_symbol(&nested, "callee")
                .map(|callee| format!(" @{callee}"))
                .unwrap_or_default();
            return Err(format!(
                "expects no function calls in its body (a kernel runs on the device, where host \
                 functions do not exist), but got {name}{callee}"
            ));
        }
    }
    Ok(())
}

/// Checks that every memref the kernel `op` takes from host code is an argument of the host
/// function: a launch passes host arguments, nothing the host computes from them.
pub fn host_tensors(op: OperationRef) -> Verdict {
    for nested in crate::ops::nested_ops(op) {
        for operand in nested.operands() {
            // `is_mem_ref`, not `MemRefType::try_from`, whose error prints every other type.
            if !operand.r#type().is_mem_ref() || crate::ops::is_defined_inside(operand, op) {
                continue;
            }
            let argument = crate::ops::as_argument(operand);
            let from_host_function = argument.is_some_and(|argument| {
                argument
                    .owner()
                    .parent_operation()
                    .is_some_and(|parent| op_name(&parent) == "func.func")
            });
            if !from_host_function {
                let origin = crate::ops::as_result(operand)
                    .map(|result| format!("the result of {}", op_name(&result.owner())))
                    .unwrap_or_else(|| "a block argument".into());
                return Err(format!(
                    "expects every tensor it uses from host code to be an argument of the host \
                     function (what a launch passes), but got {origin} ({})",
                    operand.r#type()
                ));
            }
        }
    }
    Ok(())
}
