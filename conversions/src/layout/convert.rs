//! Layout conversions: a `tile.parallel` that reads a fragment laid out where the loop does not run
//! (a row statistic of a gemm's accumulator, read by a loop over a tile laid out for copies) reads a
//! copy of it instead, converted through a shared tile of its shape: the threads that hold the
//! fragment store it, a barrier, the loop's threads load their elements. Only existing ops are
//! written (`tile.alloc_shared`, `tile.alloc_fragment`, two `tile.copy`s), so every target, the CPU
//! reference and the interpreter run the conversion as they run any copy; inference then lays the
//! copy out as the loop reads it.

use melior::{
    Context,
    ir::{
        BlockLike, ShapedTypeLike, Value, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use tile_dialect::ops::{alloc_fragment, alloc_shared, copy, fragment_type, nested_ops, set_operand, shared_type};
use tile_dialect::positions::OperationAt;

/// Gives `parallel` (in `kernel`) a copy of the fragment `fragment` (its allocation) to read:
/// allocated at the top of the kernel with its scratch tile, written just before the loop.
pub fn insert<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    parallel: OperationRef<'c, 'a>,
    fragment: OperationRef<'c, 'a>,
) -> Result<(), String> {
    let value: Value = fragment.result_at(0).ok_or("expects a fragment")?.into();
    let memref = MemRefType::try_from(value.r#type()).map_err(|_| "expects a memref fragment")?;
    let shape: Vec<i64> = tile_dialect::ops::memref_shape(value);
    let element = memref.element();
    let location = parallel.location();
    let top = kernel.body().ok_or("expects a kernel body")?;
    let first = top.first_operation().ok_or("expects a kernel body")?;
    let alloc = |op| top.insert_operation_before(first, op);
    let scratch: Value =
        alloc(alloc_shared(shared_type(context, &shape, element), location).map_err(|e| e.to_string())?)
            .result_at(0)
            .ok_or("an allocation")?
            .into();
    let converted: Value =
        alloc(alloc_fragment(fragment_type(context, &shape, element), location).map_err(|e| e.to_string())?)
            .result_at(0)
            .ok_or("an allocation")?
            .into();
    let block = parallel.block().ok_or("expects the loop in a block")?;
    for (from, to) in [(value, scratch), (scratch, converted)] {
        block.insert_operation_before(
            parallel,
            copy(context, from, &[], to, &[], location).map_err(|e| e.to_string())?,
        );
    }
    for op in nested_ops(parallel) {
        for index in 0..op.operand_count() {
            if op.operand_at(index).is_some_and(|operand| operand == value) {
                set_operand(op, index, converted);
            }
        }
    }
    Ok(())
}
