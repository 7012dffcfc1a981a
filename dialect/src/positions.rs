//! An op's operands, results and regions and a block's arguments by position, `None` past the end.
//!
//! melior's own accessors (`operand(i)`, `result(i)`, `region(i)`, `argument(i)`) answer a
//! position past the end with an error that holds the op printed, and printing an op numbers the
//! values of its whole top-level module first. Rules probe positions of ops of any kind (is operand 2
//! this tile?), so that error would be made often, cost a print of the program each time, and,
//! while the parts of a split program compile on several threads, read parts other threads are
//! rewriting (a crash or a hang). Passes and conversions use these accessors instead.

use melior::ir::{
    BlockLike, RegionRef, Value,
    block::BlockArgument,
    operation::{OperationLike, OperationResult},
};

/// Positional access to an op's operands, results and regions.
pub trait OperationAt<'c: 'a, 'a>: OperationLike<'c, 'a> {
    /// The operand at `index`, if the op has that many.
    fn operand_at(&self, index: usize) -> Option<Value<'c, 'a>> {
        (index < self.operand_count())
            .then(|| self.operand(index).ok())
            .flatten()
    }

    /// The result at `index`, if the op has that many.
    fn result_at(&self, index: usize) -> Option<OperationResult<'c, 'a>> {
        (index < self.result_count()).then(|| self.result(index).ok()).flatten()
    }

    /// The region at `index`, if the op has that many.
    fn region_at(&self, index: usize) -> Option<RegionRef<'c, 'a>> {
        (index < self.region_count()).then(|| self.region(index).ok()).flatten()
    }
}

impl<'c: 'a, 'a, T: OperationLike<'c, 'a>> OperationAt<'c, 'a> for T {}

/// Positional access to a block's arguments.
pub trait BlockAt<'c: 'a, 'a>: BlockLike<'c, 'a> {
    /// The argument at `index`, if the block has that many.
    fn argument_at(&self, index: usize) -> Option<BlockArgument<'c, 'a>> {
        (index < self.argument_count())
            .then(|| self.argument(index).ok())
            .flatten()
    }
}

impl<'c: 'a, 'a, T: BlockLike<'c, 'a>> BlockAt<'c, 'a> for T {}

/// The message for a position an op or block does not have: `what` is "operand", "result",
/// "region" or "block argument".
pub fn missing(what: &str, index: usize) -> String {
    format!("expects {what} #{index}, which it does not have")
}
