//! Thread-owned fragments: under the plain strategy every tile op deals the flattened elements of its
//! iteration space out to the threads (`e = tid; e < total; e += threads`). A fragment whose every
//! access iterates over exactly its own elements that way is touched by each thread only at the
//! elements `e` with `e % threads == tid`, so the thread can keep them in private memory (registers or
//! local memory) at slot `e / threads` instead of sharing the whole fragment in workgroup memory.
//!
//! Accesses that keep ownership: `tile.fill` of the fragment, `tile.gemm` accumulating into it,
//! `tile.copy` with the fragment as the tile side, `tile.reduce` into it, and `memref.load`/`store` in
//! a (non-nested) `tile.parallel` over the fragment's shape at exactly the loop's indices. Anything
//! else (reading it along a reduced dimension, as a gemm operand, at other indices) keeps the
//! fragment in workgroup memory.

use crate::cpu::builder::{At, Builder};
use melior::{
    RewriterBase,
    ir::{
        Value,
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{copy_parts, memref_shape, nested_ops, op_name};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{arith, memref, tile};

/// The most elements one thread keeps privately; larger fragments stay in workgroup memory.
pub const MAX_PRIVATE_ELEMENTS: i64 = 256;

/// The nearest enclosing `tile.parallel` of `op` below `kernel`, if any.
pub(super) fn enclosing_parallel<'c, 'a>(
    op: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut parent = op.parent_operation();
    while let Some(candidate) = parent {
        if candidate == kernel {
            return None;
        }
        if tile_ir::is(&candidate, tile::ParallelOperation::name) {
            return Some(candidate);
        }
        parent = candidate.parent_operation();
    }
    None
}

/// Whether `op`'s use of `fragment` (of `shape`) touches only the elements of the iteration it
/// belongs to.
fn keeps_ownership<'c, 'a>(
    op: OperationRef<'c, 'a>,
    fragment: Value<'c, 'a>,
    shape: &[i64],
    kernel: OperationRef<'c, 'a>,
) -> bool {
    let at = |index: usize| op.operand_at(index).is_some_and(|value| value == fragment);
    let uses = op.operands().filter(|value| *value == fragment).count();
    let in_parallel = enclosing_parallel(op, kernel);
    tile_ir::match_op!(op, {
        tile::FillOperation => in_parallel.is_none() && at(0),
        tile::GemmOperation => in_parallel.is_none() && uses == 1 && at(2),
        tile::ReduceOperation => in_parallel.is_none() && uses == 1 && at(1),
        tile::CopyOperation => {
            let Some(parts) = copy_parts(&op) else { return false };
            let tile_side = if parts.src_offsets.is_empty() {
                parts.src
            } else {
                parts.dst
            };
            in_parallel.is_none()
                && uses == 1
                && ((parts.src == fragment && parts.src_offsets.is_empty())
                    || (parts.dst == fragment && parts.dst_offsets.is_empty()))
                && memref_shape(tile_side) == shape
        },
        memref::LoadOperation | memref::StoreOperation => {
            let memref_position = if tile_ir::is(&op, memref::LoadOperation::name) { 0 } else { 1 };
            let Some(parallel) = in_parallel else { return false };
            if uses != 1
                || !at(memref_position)
                || enclosing_parallel(parallel, kernel).is_some()
                || tile_dialect::ops::parallel_extents(&parallel).unwrap_or_default() != shape
            {
                return false;
            }
            let Some(body) = parallel.body() else {
                return false;
            };
            let indices: Vec<Value> = op.operands().skip(memref_position + 1).collect();
            indices.len() == shape.len()
                && indices
                    .iter()
                    .enumerate()
                    .all(|(d, index)| body.argument_at(d).is_some_and(|argument| *index == Value::from(argument)))
        },
        _ => false,
    })
}

/// The `tile.alloc_fragment`s of `kernel` that each thread can keep privately with `threads` threads.
pub fn thread_owned_fragments<'c, 'a>(kernel: OperationRef<'c, 'a>, threads: i64) -> Vec<OperationRef<'c, 'a>> {
    let ops = nested_ops(kernel);
    ops.iter()
        .filter(|op| tile_ir::is(*op, tile::AllocFragmentOperation::name) && op.parent_operation() == Some(kernel))
        .filter(|alloc| {
            let fragment: Value = alloc.result_at(0).expect("allocation").into();
            let shape = memref_shape(fragment);
            let total: i64 = shape.iter().product();
            threads > 0
                && shape.iter().all(|size| *size > 0)
                && (total + threads - 1) / threads <= MAX_PRIVATE_ELEMENTS
                && ops
                    .iter()
                    .filter(|op| op.operands().any(|value| value == fragment))
                    .all(|op| keeps_ownership(*op, fragment, &shape, kernel))
        })
        .copied()
        .collect()
}

/// Elements each thread keeps of a fragment of `shape`.
pub fn private_elements(shape: &[i64], threads: i64) -> i64 {
    (shape.iter().product::<i64>() + threads - 1) / threads
}

/// The operation defining `value`, if it is the op `name` names (a generated name function).
fn defined_by<'c, 'a>(value: Value<'c, 'a>, name: fn() -> &'static str) -> Option<OperationRef<'c, 'a>> {
    let owner = tile_dialect::ops::as_result(value)?.owner();
    tile_ir::is(&owner, name).then_some(owner)
}

/// When `indices` unflatten an element index `e = trip * threads + tid` made by `parallel_nest`,
/// returns `trip`: the slot `e / threads` without a division, so that once the backend unrolls the
/// loop every slot is a constant and the private array can live in registers.
fn trip_of<'c, 'a>(indices: &[Value<'c, 'a>], threads: i64) -> Option<Value<'c, 'a>> {
    let innermost = *indices.last()?;
    let flat = if indices.len() == 1 {
        innermost
    } else {
        defined_by(innermost, arith::RemUIOperation::name)?.operand_at(0)?
    };
    let start = defined_by(flat, arith::AddIOperation::name)?.operand_at(0)?;
    let scale = defined_by(start, arith::MulIOperation::name)?;
    if tile_dialect::ops::constant_integer(scale.operand_at(1)?) != Some(threads) {
        return None;
    }
    let trip = scale.operand_at(0)?;
    // The operand accessor ties the value to the borrowed op; it lives as long as the IR ('a).
    Some(unsafe { Value::from_raw(melior::ir::ValueLike::to_raw(&trip)) })
}

/// After the loop lowering: redirects every `memref.load`/`store` of `fragment` (n-D, at the
/// unflattened element index) within `root` to `private` (1-D, at the element's slot
/// `linear index / threads`).
pub fn privatize<'c>(
    b: &Builder<'c>,
    rewriter: &RewriterBase<'c, '_>,
    root: OperationRef<'c, '_>,
    fragment: Value<'c, '_>,
    private: Value<'c, '_>,
    threads: i64,
) -> Result<(), String> {
    let shape = memref_shape(fragment);
    for op in nested_ops(root) {
        if !op.operands().any(|value| value == fragment) {
            continue;
        }
        let store = tile_ir::match_op!(op, {
            memref::LoadOperation => false,
            memref::StoreOperation => true,
            _ => return Err(format!("internal error: a thread-owned fragment is used by {}", op_name(&op))),
        });
        let at = At::before(op);
        let indices: Vec<Value> = op.operands().skip(if store { 2 } else { 1 }).collect();
        let slot = match trip_of(&indices, threads) {
            Some(trip) => trip,
            None => {
                // Row-major, as parallel_nest flattens; a rank-0 fragment is element 0.
                let mut linear = match indices.first() {
                    Some(first) => *first,
                    None => b.index(at, 0),
                };
                for (index, size) in indices.iter().zip(&shape).skip(1) {
                    let size = b.index(at, *size);
                    let scaled = b.muli(at, linear, size);
                    linear = b.addi(at, scaled, *index);
                }
                let threads = b.index(at, threads);
                b.divui(at, linear, threads)
            }
        };
        if store {
            b.store(at, op.operand_at(0).expect("stored value"), private, &[slot]);
            rewriter.erase_op(op);
        } else {
            let value = b.load(at, private, &[slot]);
            rewriter.replace_all_uses_with(op.result_at(0).expect("loaded value").into(), value);
            rewriter.erase_op(op);
        }
    }
    Ok(())
}
