//! Rings awaited by cp.async commit groups, on the targets whose rings are filled so
//! ([`crate::target::Target::cp_async_rings`]: Ampere's multistage pipelines), for loops expanded
//! with `wait = "group"` ([`super::expand`]): each iteration's copies are issued D - 1 iterations
//! ahead into a ring of D slots and arrive unconditionally, so when iteration k waits for its slot
//! exactly D - 2 later groups may still be in flight.
//!
//! | op | lowering |
//! |----|----------|
//! | `tile.copy_async` | the `tile.copy` it describes, returned to the caller, whose wide copies issue it as 16-byte `cp.async` runs where the tile lies inside its tensor aligned (`crate::generic::vector_copy`), else as the synchronous copy |
//! | `tile.arrive` | `cp.async.commit_group`: the thread's copies since the last one are a group |
//! | `tile.wait` | `cp.async.wait_group D - 2` (the thread's copies of this slot have landed), then a barrier of the block (every thread's have, and every thread is done with the slot the next refill writes) |
//! | `tile.alloc_barriers` | removed with its last user |

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use tile_dialect::ops::{memref_shape, nested_ops};
use tile_dialect::positions::OperationAt;
use tile_ir::{nvvm, tile};

/// Lowers the ring ops of `kernel` (see the module's doc); returns the copies that the ring
/// awaits by group.
pub fn lower<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let mut copies = Vec::new();
    for op in nested_ops(kernel) {
        let b = Builder {
            context,
            location: op.location(),
            threads: None,
        };
        let at = At::before(op);
        tile_ir::match_op!(op, {
            tile::CopyAsyncOperation => copies.push(super::rings::as_copy(context, op)),
            tile::ArriveOperation => {
                b.insert(at, nvvm::cp_async_commit_group(context, b.location).into());
                rewriter.erase_op(op);
            },
            tile::WaitOperation => {
                let depth = op.operand_at(0).map_or(2, |barriers| memref_shape(barriers)[0]);
                let pending = IntegerAttribute::new(IntegerType::new(context, 32).into(), (depth - 2).max(0));
                b.insert(at, nvvm::cp_async_wait_group(context, pending, b.location).into());
                b.barrier(at);
                rewriter.erase_op(op);
            },
            _ => {},
        })
    }
    copies
}
