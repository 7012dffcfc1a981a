//! An op's operands, results and regions and a block's arguments by position, `None` past the end.
//!
//! melior's own accessors (`operand(i)`, `result(i)`, `region(i)`, `argument(i)`) answer a
//! position past the end with an error that holds the op printed, and printing an op numbers the
//! values of its whole top-level module first. Rules probe positions of ops of any kind (is operand 2
//! this tile?), so that error would be made often, cost a print of the program each time, and,
//! while the parts of a split program compile on several threads, read parts other threads are
//! rewriting (a crash or a hang). Passes and conversions use these accessors instead.

use melior::ir::{
    BlockLike, BlockRef, RegionLike, RegionRef, Value,
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

    /// The first block of the op's first region (a kernel's, a loop's or a function's body), if
    /// it has one.
    fn body(&self) -> Option<BlockRef<'c, 'a>> {
        self.region_at(0)?.first_block()
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

#[cfg(test)]
mod tests {
    use super::*;
    use melior::{
        Context,
        ir::{BlockLike, Module, operation::OperationLike},
    };

    #[test]
    fn positions_past_the_end_are_none() {
        let context = Context::new();
        context.set_allow_unregistered_dialects(true);
        let source = r#"
            "test.outer"() ({
            ^entry(%x: i32):
              %0 = "test.one"() : () -> i32
              "test.two"(%0, %x) : (i32, i32) -> ()
            }) : () -> ()
        "#;
        let module = Module::parse(&context, source).expect("parses");
        let outer = module.body().first_operation().expect("test.outer");
        assert!(outer.region_at(0).is_some() && outer.region_at(1).is_none());
        let entry = outer.body().expect("a block");
        assert!(entry.argument_at(0).is_some() && entry.argument_at(1).is_none());
        let one = entry.first_operation().expect("test.one");
        assert!(one.result_at(0).is_some() && one.result_at(1).is_none() && one.operand_at(0).is_none());
        let two = one.next_in_block().expect("test.two");
        assert_eq!(two.operand_at(0), one.result_at(0).map(Value::from));
        assert!(
            two.operand_at(2).is_none()
                && two.result_at(0).is_none()
                && two.region_at(0).is_none()
                && two.body().is_none()
        );
        assert_eq!(missing("operand", 2), "expects operand #2, which it does not have");
    }
}
