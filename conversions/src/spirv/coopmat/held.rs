//! Which accumulators spirv-coopmat holds in cooperative matrices, and where they leave them.
//!
//! A cooperative matrix is opaque (no invocation knows which of its elements it holds), so an
//! accumulator can stay in matrices only while nothing but gemms and fills touches it. It is held
//! when its uses fall in two phases, in program order of the kernel's top-level ops:
//!
//! ```text
//! matrices:  tile.fill, tile.gemm (as the accumulator)   each directly in the kernel, a
//!                                                          tile.pipelined or an scf.for
//! staging point: the first top-level op with any other use (the epilogue), or none
//! registers: every other use, and no more fills or gemms
//! ```
//!
//! Loops around the first phase carry the matrices as loop values (the register rules write them
//! to placeholders that `crate::registers::promote` turns into `scf.for` iteration arguments); at
//! the staging point each subgroup stores its matrices to workgroup memory once and every lane reads
//! its elements into registers, in the layout `crate::layout::atoms::coopmat_accumulator` records.
//! `tile-infer-layouts` asks [`staging_point`] before it anchors that layout, and the register rules
//! ask it again for the place.

use melior::ir::{
    Value,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::ops::{nested_ops, op_name};
use tile_dialect::positions::OperationAt;
use tile_ir::{
    memref, scf,
    tile::{
        AllocSharedOperation, CopyOperation, FillOperation, GemmOperation, KernelOperation, PipelinedOperation,
        ReduceOperation,
    },
};

/// Whether `op` uses `fragment` as a held accumulator does: a fill of it, or a gemm accumulating
/// into it (and reading it as no operand).
fn matrix_use(op: &OperationRef, fragment: Value) -> bool {
    tile_ir::match_op!(op, {
        FillOperation => op.operand_at(0).is_some_and(|tile| tile == fragment),
        GemmOperation => {
            op.operand_at(2).is_some_and(|tile| tile == fragment)
                && [0, 1]
                    .iter()
                    .all(|operand| op.operand_at(*operand).is_some_and(|tile| tile != fragment))
        },
        _ => false,
    })
}

/// Whether the loops around `op`, up to the kernel, are ones whose steps can carry matrices.
fn in_carrying_loops(op: &OperationRef) -> bool {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        tile_ir::match_op!(current, {
            KernelOperation => return true,
            PipelinedOperation | scf::ForOperation => parent = current.parent_operation(),
            _ => return false,
        })
    }
    false
}

/// The top-level op of the kernel holding `op` (itself when it is one).
fn top_level<'c, 'a>(op: OperationRef<'c, 'a>) -> OperationRef<'c, 'a> {
    let mut current = op;
    while let Some(parent) = current.parent_operation() {
        if tile_ir::is(&parent, KernelOperation::name) {
            break;
        }
        current = parent;
    }
    current
}

/// Where the accumulator `fragment` of `kernel` leaves its cooperative matrices: `Ok(Some(op))`,
/// the top-level op before which it is staged into registers; `Ok(None)` when only gemms and fills
/// use it; `Err` says why it cannot be held (see the module).
pub fn staging_point<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    fragment: Value<'c, 'a>,
) -> Result<Option<OperationRef<'c, 'a>>, String> {
    let uses: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| op.operands().any(|operand| operand == fragment))
        .collect();
    let mut point: Option<OperationRef> = None;
    for op in &uses {
        let matrix = matrix_use(op, fragment);
        match point {
            None if matrix => {
                if !in_carrying_loops(op) {
                    return Err(format!(
                        "is filled or accumulated in '{}' inside an op other than a loop",
                        op_name(op)
                    ));
                }
            }
            None => point = Some(top_level(*op)),
            Some(staged) if matrix => {
                return Err(format!(
                    "is accumulated or filled again at {} after '{}' at {} reads it",
                    op.location(),
                    op_name(&staged),
                    staged.location()
                ));
            }
            Some(_) => {}
        }
    }
    // A gemm or fill inside the op that reads it first (one loop around both) would run again after
    // the read.
    if let Some(staged) = point
        && uses
            .iter()
            .any(|op| matrix_use(op, fragment) && top_level(*op) == staged)
    {
        return Err(format!(
            "is read by '{}' at {} in the loop that accumulates it",
            op_name(&staged),
            staged.location()
        ));
    }
    Ok(point)
}

/// Whether every op of `kernel` that uses the shared tile `tile` reaches its elements at indices
/// (copies, gemms, loads and stores), so that it may be allocated with longer rows.
pub fn indexed_only(kernel: OperationRef, tile: Value) -> bool {
    nested_ops(kernel)
        .iter()
        .filter(|op| op.operands().any(|operand| operand == tile))
        .all(|op| {
            tile_ir::match_op!(op, {
                CopyOperation | GemmOperation | memref::LoadOperation | memref::StoreOperation => true,
                _ => false,
            })
        })
}

/// Bytes of the shared tiles `kernel` allocates, unpadded.
pub fn shared_bytes(kernel: OperationRef) -> i64 {
    nested_ops(kernel)
        .iter()
        .filter(|op| tile_ir::is(*op, AllocSharedOperation::name))
        .filter_map(|op| op.result_at(0))
        .map(|tile| {
            let tile: Value = tile.into();
            let bytes = crate::support::element_of(tile).map_or(4, |element| element.bytes() as i64);
            tile_dialect::ops::memref_shape(tile).iter().product::<i64>() * bytes
        })
        .sum()
}

/// Bytes of workgroup memory the reductions of the accumulator `fragment` (or of a fragment it is
/// copied into) will exchange partials through once it is held by `subgroups` subgroups of
/// `matrices` 16x16 matrices each, on `threads` threads: a reduction across subgroups (of rows
/// where N is split, of columns where M is) writes each thread's partial of every destination it
/// holds (8 rows of each matrix row, one column of each matrix column); within a subgroup the
/// lanes shuffle. The reductions share one scratch, so the largest counts.
pub fn reduction_scratch_bytes(
    kernel: OperationRef,
    fragment: Value,
    threads: i64,
    subgroups: (i64, i64),
    matrices: (i64, i64),
) -> i64 {
    let ops = nested_ops(kernel);
    let mut sources = vec![fragment];
    sources.extend(
        ops.iter()
            .filter(|op| tile_ir::is(*op, CopyOperation::name) && op.operand_at(0).is_some_and(|src| src == fragment))
            .filter_map(|op| op.operand_at(1)),
    );
    ops.iter()
        .filter(|op| {
            tile_ir::is(*op, ReduceOperation::name) && op.operand_at(0).is_some_and(|src| sources.contains(&src))
        })
        .map(|op| {
            let dim = tile_dialect::ops::integer_attribute(op, "dim").unwrap_or(0);
            let (across, destinations) = if dim == 1 {
                (subgroups.1 > 1, matrices.0 * 8)
            } else {
                (subgroups.0 > 1, matrices.1)
            };
            if across { threads * destinations * 4 } else { 0 }
        })
        .max()
        .unwrap_or(0)
}
