//! Ops inserted before an op of the program, for the CPU reference's guards (`accesses`,
//! `divisions`): each at the op's location, returning its one result.

use melior::{
    Context,
    dialect::arith,
    ir::{
        BlockLike, Location, Operation, Type, Value,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
    },
};

/// Inserts ops before `anchor`.
pub(crate) struct Before<'c, 'a> {
    pub context: &'c Context,
    pub anchor: OperationRef<'c, 'a>,
    pub location: Location<'c>,
}

impl<'c, 'a> Before<'c, 'a> {
    pub fn new(context: &'c Context, anchor: OperationRef<'c, 'a>) -> Self {
        Self {
            context,
            anchor,
            location: anchor.location(),
        }
    }

    /// Inserts `op` and returns its result.
    pub fn value(&self, op: Operation<'c>) -> Value<'c, 'a> {
        self.anchor
            .block()
            .expect("an op in a block")
            .insert_operation_before(self.anchor, op)
            .result(0)
            .expect("one result")
            .into()
    }

    /// An integer constant of type `ty`.
    pub fn constant(&self, ty: Type<'c>, value: i64) -> Value<'c, 'a> {
        self.value(arith::constant(
            self.context,
            IntegerAttribute::new(ty, value).into(),
            self.location,
        ))
    }
}
