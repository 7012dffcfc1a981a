//! The program's own `memref.load`s and `memref.store`s stay inside their buffers on the CPU.
//!
//! An access out of bounds is undefined behaviour of the program (the interpreter reports it), and
//! any result is a correct one; but the CPU reference runs it natively, and a load or store far
//! outside a buffer kills `tile-run` with SIGSEGV, which the tools never end in (issue 11: the
//! fuzzer's seed 2026, case 235, a residual load at row 200..255 of a 200-row tensor). So before
//! the CPU lowering each index that is not a constant inside its dimension is clamped to it
//! (`minui(i, size - 1)`: a negative index, huge unsigned, becomes the last row too); atomic updates
//! too. A buffer with an empty dimension (size 0) has no element to clamp to: an access to it is an
//! error at the access, before anything runs, as the interpreter reports it when it runs.

use melior::{
    Context,
    dialect::memref,
    ir::{
        Module, Value, ValueLike,
        operation::{OperationBuilder, OperationLike, OperationRef},
        r#type::Type,
    },
};
use tile_dialect::ops::{constant_integer, find_ops, memref_shape, set_operand};

/// Clamps the indices of every `memref.load`, `memref.store` and `memref.atomic_rmw` of `module` to
/// their dimensions; an access to a buffer with an empty dimension is an error at it.
pub fn guard(context: &Context, module: &Module) -> Result<(), String> {
    // (op, position of the memref operand): the indices follow it.
    for (name, first) in [("memref.load", 0), ("memref.store", 1), ("memref.atomic_rmw", 1)] {
        for access in find_ops(module.as_operation(), name) {
            let count = access.operand_count();
            let Ok(buffer) = (if count > first { access.operand(first) } else { continue }) else {
                continue;
            };
            let shape = memref_shape(buffer);
            if count != first + 1 + shape.len() {
                continue;
            }
            if shape.contains(&0) {
                tile_dialect::diagnostics::emit_error(
                    access.location(),
                    &format!(
                        "'{name}' op accesses {}, which holds no element: every index is out of bounds (the CPU reference does not run it)",
                        buffer.r#type()
                    ),
                );
                return Err("an access out of bounds of an empty buffer (see the error above)".into());
            }
            for (dim, size) in shape.iter().enumerate() {
                let position = first + 1 + dim;
                let Ok(index) = access.operand(position) else { continue };
                // A constant is known inside a static dimension only: a dynamic one may be
                // shorter than any constant (`?x?` of 128 rows read at row 65536).
                let inside = constant_integer(index).is_some_and(|i| i >= 0 && i < *size);
                if *size != 0 && !inside {
                    let clamped = clamp(context, access, buffer, dim, *size, index);
                    set_operand(access, position, clamped);
                }
            }
        }
    }
    Ok(())
}

/// Builds `minui(index, size - 1)` before `access` (the size from `memref.dim` when dynamic).
fn clamp<'c, 'a>(
    context: &'c Context,
    access: OperationRef<'c, 'a>,
    buffer: Value<'c, 'a>,
    dim: usize,
    size: i64,
    index: Value<'c, 'a>,
) -> Value<'c, 'a> {
    let before = crate::before::Before::new(context, access);
    let location = before.location;
    let insert = |op| before.value(op);
    let constant = |value: i64| before.constant(Type::index(context), value);
    let binary = |name: &str, a: Value<'c, 'a>, b: Value<'c, 'a>| {
        insert(
            OperationBuilder::new(name, location)
                .add_operands(&[a, b])
                .enable_result_type_inference()
                .build()
                .expect("an index op"),
        )
    };
    let last = if size > 0 {
        constant(size - 1)
    } else {
        let extent = insert(memref::dim(buffer, constant(dim as i64), location));
        binary("arith.subi", extent, constant(1))
    };
    binary("arith.minui", index, last)
}
