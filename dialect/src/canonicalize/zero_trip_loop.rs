//! A `tile.pipelined` loop whose constant bounds give no iteration does nothing.
//!
//! ```mlir
//! tile.pipelined %k = %c4 to %c4 stages(3) { ... }   // erased
//! ```

use crate::ops::constant_integer;
use crate::positions::OperationAt;
use melior::{RewriterBase, ir::operation::OperationRef};

pub fn erase_zero_trip_loop(pipelined: OperationRef, rewriter: &RewriterBase) -> bool {
    let bound = |index| pipelined.operand_at(index).and_then(constant_integer);
    match (bound(0), bound(1)) {
        (Some(lower), Some(upper)) if upper <= lower => {
            rewriter.erase_op(pipelined);
            true
        }
        _ => false,
    }
}
