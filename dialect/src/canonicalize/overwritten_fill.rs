//! A `tile.fill` whose tile is overwritten whole before anything reads it is dead.
//!
//! ```mlir
//! tile.fill %f, %zero : memref<128x128xf32, #tile.fragment>   // erased
//! tile.fill %f, %one : memref<128x128xf32, #tile.fragment>
//! ```
//!
//! Only `arith` ops may stand between the two: they neither read nor write memory. Anything else
//! (a `tile.gemm` accumulating into the tile, a call, a region op) may read it, so nothing happens.

use crate::ops::copy_parts;
use crate::positions::OperationAt;
use melior::{
    RewriterBase,
    ir::Value,
    ir::operation::{OperationLike, OperationRef},
};

pub fn erase_overwritten_fill(fill: OperationRef, rewriter: &RewriterBase) -> bool {
    let Some(tile) = fill.operand_at(0) else {
        return false;
    };
    let mut next = fill.next_in_block();
    while let Some(op) = next {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if name.starts_with("arith.") {
            next = op.next_in_block();
            continue;
        }
        if overwrites_whole_tile(op, name, tile) {
            rewriter.erase_op(fill);
            return true;
        }
        return false;
    }
    false
}

/// Returns true when `op` writes every element of `tile` without reading it.
fn overwrites_whole_tile(op: OperationRef, name: &str, tile: Value) -> bool {
    match name {
        "tile.fill" => op.operand_at(0).is_some_and(|dst| dst == tile),
        "tile.copy" => {
            copy_parts(&op).is_some_and(|copy| copy.dst == tile && copy.dst_offsets.is_empty() && copy.src != tile)
        }
        _ => false,
    }
}
