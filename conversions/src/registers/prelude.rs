//! What the matrix families' rules, in their targets' folders, use of the shared register rules.

pub use super::matrix::{Kernel, MatrixPlan, MatrixRules, Off, Prepared};
pub use super::patterns::*;
pub use super::{Layouts, Placed, Unsupported, key};
pub use crate::cpu::{
    builder::{At, Builder},
    data::{convert, element_type},
};
pub use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Identifier, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike, OperationRef},
        r#type::{IntegerType, MemRefType},
    },
};
pub use std::collections::{BTreeSet, HashMap, HashSet};
pub use tile_dialect::{
    level::MemoryLevel,
    ops::{copy_async_parts, copy_parts, memref_shape, nested_ops},
};
