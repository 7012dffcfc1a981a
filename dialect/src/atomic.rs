//! MLIR's `AtomicRMWKind` (the `kind` of `memref.atomic_rmw`, stored as its number): what an atomic
//! update computes from the element and its operand. The one place its numbering is written; the
//! targets' atomics, the lowerings of atomic copies and the interpreter all read it here.

use crate::ops::ReductionKind;

/// An atomic update's kind, numbered as MLIR numbers them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(missing_docs)]
pub enum AtomicKind {
    AddF = 0,
    AddI = 1,
    AndI = 2,
    Assign = 3,
    MaximumF = 4,
    MaxNumF = 5,
    MaxS = 6,
    MaxU = 7,
    MinimumF = 8,
    MinNumF = 9,
    MinS = 10,
    MinU = 11,
    MulF = 12,
    MulI = 13,
    OrI = 14,
    XorI = 15,
}

const KINDS: [AtomicKind; 16] = [
    AtomicKind::AddF,
    AtomicKind::AddI,
    AtomicKind::AndI,
    AtomicKind::Assign,
    AtomicKind::MaximumF,
    AtomicKind::MaxNumF,
    AtomicKind::MaxS,
    AtomicKind::MaxU,
    AtomicKind::MinimumF,
    AtomicKind::MinNumF,
    AtomicKind::MinS,
    AtomicKind::MinU,
    AtomicKind::MulF,
    AtomicKind::MulI,
    AtomicKind::OrI,
    AtomicKind::XorI,
];

const NAMES: [&str; 16] = [
    "addf", "addi", "andi", "assign", "maximumf", "maxnumf", "maxs", "maxu", "minimumf", "minnumf", "mins", "minu",
    "mulf", "muli", "ori", "xori",
];

impl AtomicKind {
    /// The kind numbered `number` (`None` for numbers MLIR does not use).
    pub fn of(number: i64) -> Option<AtomicKind> {
        usize::try_from(number).ok().and_then(|index| KINDS.get(index).copied())
    }

    /// Its number, as the attribute holds it.
    pub fn number(self) -> i64 {
        self as i64
    }

    /// Its name in MLIR's syntax (`addf`).
    pub fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    /// The kind of an atomic `tile.copy`'s per-element update by `kind` of a float (`float`) or
    /// integer element (`None` for the reduction kinds no atomic makes).
    pub fn of_copy(kind: ReductionKind, float: bool) -> Option<AtomicKind> {
        Some(match (kind, float) {
            (ReductionKind::Sum, true) => AtomicKind::AddF,
            (ReductionKind::Sum, false) => AtomicKind::AddI,
            (ReductionKind::Max, true) => AtomicKind::MaximumF,
            (ReductionKind::Max, false) => AtomicKind::MaxS,
            (ReductionKind::Min, true) => AtomicKind::MinimumF,
            (ReductionKind::Min, false) => AtomicKind::MinS,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_round_trip() {
        for (number, kind) in KINDS.iter().enumerate() {
            assert_eq!(AtomicKind::of(number as i64), Some(*kind));
            assert_eq!(kind.number(), number as i64);
        }
        assert_eq!(AtomicKind::of(16), None);
        assert_eq!(
            (AtomicKind::MaximumF.name(), AtomicKind::XorI.name()),
            ("maximumf", "xori")
        );
    }
}
