//! `tile-fold-launch-bounds`: folds the integer comparisons of each lowered kernel that its static
//! launch sizes decide, and records the sizes on the kernel's `gpu.func` (`known_grid_size`,
//! `known_block_size`) for the back ends.
//!
//! The lowerings guard every access of a ragged tile: each copy's rows and columns against the
//! tensor's sizes, each element the epilogue stores. Where the grid and the shapes are static, most
//! guards are always true (a 4096³ GEMM in 128x128 tiles has none that can fail outside its K
//! loop), yet each one costs every back end a branch and, for a vector copy, a whole element-wise
//! fallback path. This pass decides them from the values' ranges, and the `canonicalize` after it
//! removes the branches that cannot run: every back end gets a smaller kernel.
//!
//! The ranges are computed backwards from each `arith.cmpi`, through constants, the block and
//! thread ids (bounded by the launch), static sizes of memrefs, `scf.for` induction variables and
//! the integer arithmetic the lowerings write (`addi`, `subi`, `muli`, `divui`, `ceildivui`, `remui`, `minui`, `maxui` and
//! their signed forms, `andi`, shifts, index casts). Anything else is unknown. Where an op sits in
//! the then-region of `scf.if`s, each operand's range is narrowed by the comparisons of it in their
//! conditions (a prefetch guarded by `k + 1 < ub` reads step `k + 1` only below `ub`: its copy's
//! bounds checks are decided there, where the unguarded range of `k + 1` reaches `ub`). It is the
//! part of upstream's `int-range-optimizations` these kernels need, at a fraction of its cost (its
//! dataflow solver took longer than the SPIR-V kernels' whole cleanup).
//!
//! Invariants:
//! - the sizes come from the kernel's manifest, which is what every launcher launches with (the
//!   host code the lowerings write launches the same constants; Vulkan launchers read the
//!   manifest, and a launch of part of the grid still numbers its blocks within the grid); a size
//!   computed on the host (a dynamic shape, a persistent kernel's multiprocessor count) is unknown;
//! - every range is within `[0, 2^31)`, where signed and unsigned comparisons agree and where no
//!   arithmetic wraps at 32 bits (SPIR-V's index width) or 64: a value that could leave it is
//!   unknown, so a comparison is only folded when its result holds at every index width;
//! - a `known_block_size` a lowering set is kept.

use melior::{
    Context, IrRewriter,
    ir::{
        BlockLike, Location, RegionLike, TypeLike, Value, ValueLike,
        attribute::IntegerAttribute,
        block::BlockArgument,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use std::collections::HashMap;
use tile_dialect::ops::{
    constant_integer, find_ops, integer_attribute, set_attribute, static_sizes, string_attribute, with_context,
};
use tile_dialect::positions::OperationAt;
use tile_ir::{arith, func, gpu, is, match_op, memref, scf};
use tile_manifest::{Expr, Manifest};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-fold-launch-bounds";

/// The attribute a lowering leaves each kernel's manifest in, on the kernel's `gpu.module`.
const MANIFEST: &str = tile_dialect::decisions::MANIFEST.name;

/// The largest value a range may hold: beyond it, arithmetic could wrap at 32 bits and signed
/// comparisons could disagree with unsigned ones.
const LIMIT: u64 = (1 << 31) - 1;

/// How deep a value's definition is followed before it counts as unknown.
const DEPTH: usize = 64;

/// Returns `sizes` as three positive 32-bit sizes (missing trailing ones are 1), if all are numbers.
fn launch_sizes<I: IntoIterator<Item = Option<i64>>>(sizes: I) -> Option<[i32; 3]> {
    let mut out = [1i32; 3];
    for (index, size) in sizes.into_iter().enumerate() {
        let size = i32::try_from(size?).ok().filter(|size| *size > 0)?;
        *out.get_mut(index)? = size;
    }
    Some(out)
}

/// Returns the grid `manifest` fixes, if every size is a number.
fn static_grid(manifest: &Manifest) -> Option<[i32; 3]> {
    launch_sizes(manifest.grid.iter().map(|size| match size {
        Expr::Const(value) => Some(*value),
        _ => None,
    }))
}

/// Returns the threads per block `manifest` fixes.
fn static_block(manifest: &Manifest) -> Option<[i32; 3]> {
    let block = manifest.block.or(manifest.workgroup_size)?;
    launch_sizes(block.map(|size| Some(i64::from(size))))
}

/// The values an integer may take: `lo..=hi`, within `[0, LIMIT]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: u64,
    hi: u64,
}

impl Range {
    /// Returns `lo..=hi` if it lies within `[0, LIMIT]`.
    fn new(lo: u64, hi: u64) -> Option<Range> {
        (lo <= hi && hi <= LIMIT).then_some(Range { lo, hi })
    }

    fn exactly(value: i64) -> Option<Range> {
        let value = u64::try_from(value).ok()?;
        Range::new(value, value)
    }
}

/// Returns the largest value a range of `value`'s type may hold: [`LIMIT`] for `index` and
/// integers of 32 bits or more, the largest non-negative number of a narrower integer, and 0
/// (nothing but zero) for any other type.
fn type_limit(value: Value) -> u64 {
    let r#type = value.r#type();
    if r#type.is_index() {
        return LIMIT;
    }
    // A failed conversion prints the type: ask first.
    if !r#type.is_integer() {
        return 0;
    }
    IntegerType::try_from(r#type).map_or(0, |integer| {
        let width = integer.width();
        if width >= 32 {
            LIMIT
        } else {
            (1u64 << width.saturating_sub(1)).saturating_sub(1)
        }
    })
}

/// Returns the range of `op`'s result, given `a` and `b`, the ranges of its operands.
fn binary<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, a: Range, b: Range) -> Option<Range> {
    match_op!(op, {
        arith::AddIOperation => Range::new(a.lo + b.lo, a.hi + b.hi),
        arith::SubIOperation => Range::new(a.lo.checked_sub(b.hi)?, a.hi - b.lo),
        arith::MulIOperation => Range::new(a.lo * b.lo, a.hi.checked_mul(b.hi)?),
        arith::DivUIOperation | arith::DivSIOperation | arith::FloorDivSIOperation if b.lo > 0 => {
            Range::new(a.lo / b.hi, a.hi / b.lo)
        },
        arith::CeilDivUIOperation | arith::CeilDivSIOperation if b.lo > 0 => {
            Range::new(a.lo.div_ceil(b.hi), a.hi.div_ceil(b.lo))
        },
        arith::RemUIOperation | arith::RemSIOperation if b.lo > 0 => {
            if a.hi < b.lo {
                Some(a)
            } else {
                Range::new(0, a.hi.min(b.hi - 1))
            }
        },
        arith::MinUIOperation | arith::MinSIOperation => Range::new(a.lo.min(b.lo), a.hi.min(b.hi)),
        arith::MaxUIOperation | arith::MaxSIOperation => Range::new(a.lo.max(b.lo), a.hi.max(b.hi)),
        arith::AndIOperation => Range::new(0, a.hi.min(b.hi)),
        arith::ShRUIOperation | arith::ShRSIOperation if b.hi < 64 => Range::new(a.lo >> b.hi, a.hi >> b.lo),
        arith::ShLIOperation if b.hi < 32 => Range::new(a.lo << b.lo, a.hi << b.hi),
        _ => None,
    })
}

/// Returns the value of comparison `predicate` (`arith::CmpIPredicate`'s numbering) of a value in
/// `a` with one in `b`, if the ranges decide it.
fn decide(predicate: i64, a: Range, b: Range) -> Option<bool> {
    // eq, ne, then (slt, sle, sgt, sge) and (ult, ule, ugt, uge): the same within [0, LIMIT].
    let less = |a: Range, b: Range, strict: bool| -> Option<bool> {
        if (strict && a.hi < b.lo) || (!strict && a.hi <= b.lo) {
            Some(true)
        } else if (strict && a.lo >= b.hi) || (!strict && a.lo > b.hi) {
            Some(false)
        } else {
            None
        }
    };
    let equal = || {
        if a.lo == a.hi && a == b {
            Some(true)
        } else if a.hi < b.lo || b.hi < a.lo {
            Some(false)
        } else {
            None
        }
    };
    match predicate {
        0 => equal(),
        1 => equal().map(|equal| !equal),
        2 | 6 => less(a, b, true),
        3 | 7 => less(a, b, false),
        4 | 8 => less(b, a, true),
        5 | 9 => less(b, a, false),
        _ => None,
    }
}

/// How many conjunctions deep a guard's comparisons are looked for.
const GUARD_TERMS: usize = 4;

/// Comparison `predicate` with its operands swapped (`a < b` is `b > a`).
fn swapped(predicate: i64) -> i64 {
    match predicate {
        2 => 4,
        3 => 5,
        4 => 2,
        5 => 3,
        6 => 8,
        7 => 9,
        8 => 6,
        9 => 7,
        other => other,
    }
}

/// The part of `a` for which comparison `predicate` of a value in `a` with some value in `b` can
/// hold, if it is a range (none where it cannot hold at all: code that never runs keeps `a`).
fn narrowed(predicate: i64, a: Range, b: Range) -> Option<Range> {
    // Within [0, LIMIT] the signed and unsigned comparisons agree.
    match predicate {
        0 => Range::new(a.lo.max(b.lo), a.hi.min(b.hi)),
        2 | 6 => Range::new(a.lo, a.hi.min(b.hi.checked_sub(1)?)),
        3 | 7 => Range::new(a.lo, a.hi.min(b.hi)),
        4 | 8 => Range::new(a.lo.max(b.lo + 1), a.hi),
        5 | 9 => Range::new(a.lo.max(b.lo), a.hi),
        _ => Some(a),
    }
}

/// The ranges of one kernel's integer values.
struct Ranges {
    grid: Option<[i32; 3]>,
    block: Option<[i32; 3]>,
    known: HashMap<usize, Option<Range>>,
}

impl Ranges {
    fn of(&mut self, value: Value, depth: usize) -> Option<Range> {
        let key = value.to_raw().ptr as usize;
        if let Some(known) = self.known.get(&key) {
            return *known;
        }
        let range = if depth == 0 {
            None
        } else {
            self.compute(value, depth - 1)
        };
        // Narrower integers wrap sooner (and their signed comparisons sooner still).
        let range = range.filter(|range| range.hi <= type_limit(value));
        self.known.insert(key, range);
        range
    }

    fn compute(&mut self, value: Value, depth: usize) -> Option<Range> {
        if let Some(argument) = tile_dialect::ops::as_argument(value) {
            return self.induction_variable(argument, depth);
        }
        let op = tile_dialect::ops::as_result(value)?.owner();
        let dimension = || -> Option<usize> {
            let text = op.attribute("dimension").ok()?.to_string();
            ["x>", "y>", "z>"].iter().position(|suffix| text.ends_with(suffix))
        };
        let size = |sizes: Option<[i32; 3]>| u64::try_from(sizes?[dimension()?]).ok();
        match_op!(op, {
            arith::ConstantOperation => Range::exactly(integer_attribute(&op, "value")?),
            gpu::BlockIdOperation => Range::new(0, size(self.grid)? - 1),
            gpu::ThreadIdOperation => Range::new(0, size(self.block)? - 1),
            gpu::GridDimOperation => Range::new(size(self.grid)?, size(self.grid)?),
            gpu::BlockDimOperation => Range::new(size(self.block)?, size(self.block)?),
            memref::DimOperation => {
                let memref = op.operand_at(0)?.r#type();
                let memref = tile_dialect::ops::as_memref(memref)?;
                let index = usize::try_from(constant_integer(op.operand_at(1)?)?).ok()?;
                Range::exactly((*static_sizes(memref).get(index)?)?)
            },
            arith::IndexCastOperation
            | arith::IndexCastUIOperation
            | arith::ExtUIOperation
            | arith::ExtSIOperation => self.at(op, op.operand_at(0)?, depth),
            _ => {
                if op.operand_count() == 2 && op.result_count() == 1 {
                    let a = self.at(op, op.operand_at(0)?, depth)?;
                    let b = self.at(op, op.operand_at(1)?, depth)?;
                    binary(&op, a, b)
                } else {
                    None
                }
            },
        })
    }

    /// The range of `value` where `user` runs: its own range, narrowed by the conditions of the
    /// `scf.if`s whose then-regions hold `user` (a prefetch guarded by `i + 1 < ub` reads step
    /// `i + 1` only below `ub`). A result of `user` may take the narrowed ranges of its operands:
    /// it is only defined, and used, where they hold.
    fn at(&mut self, user: OperationRef, value: Value, depth: usize) -> Option<Range> {
        let mut range = self.of(value, depth)?;
        let mut inner = user;
        while let Some(parent) = inner.parent_operation() {
            if is(&parent, gpu::GPUFuncOperation::name) || is(&parent, func::FuncOperation::name) {
                break;
            }
            let in_then = inner.block().and_then(|block| block.parent_region()) == parent.region_at(0);
            if is(&parent, scf::IfOperation::name) && in_then {
                if let Some(condition) = parent.operand_at(0) {
                    range = self.narrow(range, value, condition, depth, GUARD_TERMS);
                }
            }
            inner = parent;
        }
        Some(range)
    }

    /// Narrows `range`, that of `value`, by what `condition` being true says of it: comparisons
    /// of `value` with a value of known range, and conjunctions of them (`terms` deep).
    fn narrow(&mut self, range: Range, value: Value, condition: Value, depth: usize, terms: usize) -> Range {
        let Some(result) = tile_dialect::ops::as_result(condition) else {
            return range;
        };
        let op = result.owner();
        if op.operand_count() != 2 {
            return range;
        }
        let (Some(a), Some(b)) = (op.operand_at(0), op.operand_at(1)) else {
            return range;
        };
        match_op!(op, {
            arith::AndIOperation if terms > 0 => {
                let range = self.narrow(range, value, a, depth, terms - 1);
                self.narrow(range, value, b, depth, terms - 1)
            },
            arith::CmpIOperation => {
                let Some(predicate) = integer_attribute(&op, "predicate") else {
                    return range;
                };
                // As `value` (predicate) `bound`: the operands swapped where `value` is the second.
                let (predicate, bound) = if a == value {
                    (predicate, b)
                } else if b == value {
                    (swapped(predicate), a)
                } else {
                    return range;
                };
                match self.of(bound, depth) {
                    Some(bound) => narrowed(predicate, range, bound).unwrap_or(range),
                    None => range,
                }
            },
            _ => range,
        })
    }

    /// The range of an `scf.for`'s induction variable: from its lower bound to below its upper one.
    fn induction_variable(&mut self, argument: BlockArgument, depth: usize) -> Option<Range> {
        if argument.argument_number() != 0 {
            return None;
        }
        let owner = argument.owner();
        let parent = owner.parent_operation()?;
        if !is(&parent, scf::ForOperation::name) {
            return None;
        }
        let lower = self.at(parent, parent.operand_at(0)?, depth)?;
        let upper = self.at(parent, parent.operand_at(1)?, depth)?;
        // A loop whose upper bound is at most its lower one never runs its body: any range holds.
        Range::new(lower.lo, upper.hi.saturating_sub(1).max(lower.lo))
    }
}

/// Folds the comparisons of `function` that `grid` and `block` decide; returns how many.
fn fold<'c>(
    context: &'c Context,
    function: OperationRef<'c, '_>,
    grid: Option<[i32; 3]>,
    block: Option<[i32; 3]>,
) -> usize {
    let mut ranges = Ranges {
        grid,
        block,
        known: HashMap::new(),
    };
    let rewriter = IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let mut folded = 0;
    for compare in find_ops(function, arith::CmpIOperation::name()) {
        let (Some(a), Some(b), Some(result)) = (compare.operand_at(0), compare.operand_at(1), compare.result_at(0))
        else {
            continue;
        };
        // Comparisons of vectors give vectors of flags.
        if !result.r#type().is_integer() {
            continue;
        }
        let Some(predicate) = integer_attribute(&compare, "predicate") else {
            continue;
        };
        let (Some(ra), Some(rb)) = (ranges.at(compare, a, DEPTH), ranges.at(compare, b, DEPTH)) else {
            continue;
        };
        let Some(value) = decide(predicate, ra, rb) else {
            continue;
        };
        let Some(block) = compare.block() else { continue };
        let flag = IntegerAttribute::new(IntegerType::new(context, 1).into(), i64::from(value));
        let location: Location = compare.location();
        let constant = block.insert_operation_before(
            compare,
            melior::dialect::arith::constant(context, flag.into(), location),
        );
        let Some(constant) = constant.result_at(0) else {
            continue;
        };
        // The comparison stays (the canonicalization after this pass drops it): erased, its memory
        // could come back as a new value the memoized ranges would mistake for an old one.
        rewriter.replace_all_uses_with(result.into(), constant.into());
        folded += 1;
    }
    folded
}

/// Returns the ops of the kind `name` names in the body of `op` (its first region's first block),
/// without walking what they hold.
fn children<'c, 'a>(op: OperationRef<'c, 'a>, name: fn() -> &'static str) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    let Some(block) = op.regions().next().and_then(|region| region.first_block()) else {
        return found;
    };
    let mut next = block.first_operation();
    while let Some(child) = next {
        if is(&child, name) {
            found.push(child);
        }
        next = child.next_in_block();
    }
    found
}

/// Records the launch sizes of every kernel of `module` that has a manifest, and folds its
/// comparisons.
fn run(module: OperationRef) -> Result<(), String> {
    with_context(module, |context| {
        for gpu_module in children(module, gpu::GPUModuleOperation::name) {
            let Some(json) = string_attribute(&gpu_module, MANIFEST) else {
                continue;
            };
            let Ok(manifest) = Manifest::from_json(&json) else {
                continue;
            };
            let Some(function) = children(gpu_module, gpu::GPUFuncOperation::name)
                .into_iter()
                .find(|function| string_attribute(function, "sym_name").as_deref() == Some(manifest.entry.as_str()))
            else {
                continue;
            };
            let (grid, block) = (static_grid(&manifest), static_block(&manifest));
            for (name, sizes) in [("known_grid_size", grid), ("known_block_size", block)] {
                let Some(sizes) = sizes else { continue };
                if function.attribute(name).is_ok() {
                    continue;
                }
                set_attribute(function, name, crate::attributes::i32_array(context, &sizes));
            }
            if grid.is_some() || block.is_some() {
                fold(context, function, grid, block);
            }
        }
        Ok(())
    })
}

tile_passes::rust_pass! {
    /// Creates `tile-fold-launch-bounds` (on `builtin.module`; the target pipelines run it after
    /// the lowering, before its canonicalization).
    pub fn create_fold_launch_bounds_pass() {
        argument: ARGUMENT,
        name: "TileFoldLaunchBounds",
        description: "Fold the integer comparisons of each lowered kernel that the static launch sizes of its manifest decide, and record them as known_grid_size and known_block_size",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| run(module),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tile_dialect::positions::BlockAt;

    fn range(lo: u64, hi: u64) -> Range {
        Range::new(lo, hi).unwrap()
    }

    #[test]
    fn sizes_are_three_positive_numbers() {
        assert_eq!(launch_sizes([Some(32), Some(8)]), Some([32, 8, 1]));
        assert_eq!(launch_sizes([Some(32), None, Some(1)]), None);
        assert_eq!(launch_sizes([Some(0)]), None);
        assert_eq!(launch_sizes([Some(1 << 40)]), None);
        assert_eq!(launch_sizes([Some(1), Some(1), Some(1), Some(1)]), None);
    }

    #[test]
    fn arithmetic_keeps_ranges_within_the_limit() {
        let context = crate::context();
        let location = Location::unknown(&context);
        let index = melior::ir::Type::index(&context);
        let operands = melior::ir::Block::new(&[(index, location), (index, location)]);
        let (x, y) = (
            operands.argument_at(0).unwrap().into(),
            operands.argument_at(1).unwrap().into(),
        );
        // The range of `arith::$op` of two operands whose ranges are `a` and `b`.
        macro_rules! range_of {
            ($op:ident, $a:expr, $b:expr) => {
                binary(arith::$op(&context, x, y, location).as_operation(), $a, $b)
            };
        }
        assert_eq!(range_of!(addi, range(0, 31), range(0, 3968)), Some(range(0, 3999)));
        assert_eq!(range_of!(muli, range(0, 31), range(128, 128)), Some(range(0, 3968)));
        assert_eq!(range_of!(divui, range(0, 127), range(4, 4)), Some(range(0, 31)));
        assert_eq!(range_of!(remui, range(0, 127), range(4, 4)), Some(range(0, 3)));
        assert_eq!(range_of!(remui, range(1, 3), range(4, 8)), Some(range(1, 3)));
        assert_eq!(range_of!(ceildivui, range(1, 100), range(32, 32)), Some(range(1, 4)));
        assert_eq!(range_of!(subi, range(0, 5), range(1, 1)), None);
        assert_eq!(range_of!(muli, range(0, 1 << 20), range(0, 1 << 20)), None);
        assert_eq!(range_of!(divui, range(0, 5), range(0, 1)), None);
        assert_eq!(range_of!(shrui, range(0, 127), range(5, 5)), Some(range(0, 3)));
        assert_eq!(range_of!(shli, range(1, 5), range(0, 1)), Some(range(1, 10)));
        assert_eq!(range_of!(shli, range(0, 5), range(0, 40)), None);
        assert_eq!(range_of!(xori, range(0, 5), range(0, 1)), None);
    }

    #[test]
    fn comparisons_are_decided_only_when_every_value_agrees() {
        // ult (6), ule (7), ugt (8), uge (9); slt (2) the same within the limit.
        assert_eq!(decide(6, range(0, 3999), range(4096, 4096)), Some(true));
        assert_eq!(decide(2, range(0, 3999), range(4096, 4096)), Some(true));
        assert_eq!(decide(7, range(8, 4096), range(4096, 4096)), Some(true));
        assert_eq!(decide(7, range(8, 4097), range(4096, 4096)), None);
        assert_eq!(decide(7, range(8, 32), range(4096, 4096)), Some(true));
        assert_eq!(decide(8, range(0, 10), range(10, 20)), Some(false));
        assert_eq!(decide(9, range(10, 10), range(0, 10)), Some(true));
        assert_eq!(decide(0, range(3, 3), range(3, 3)), Some(true));
        assert_eq!(decide(1, range(0, 2), range(3, 4)), Some(true));
        assert_eq!(decide(0, range(0, 3), range(3, 4)), None);
    }

    #[test]
    fn guards_narrow_the_side_they_bound() {
        // k + 1 in [1, 128] under k + 1 < 128 (slt, ult): at most 127.
        assert_eq!(narrowed(2, range(1, 128), range(128, 128)), Some(range(1, 127)));
        assert_eq!(narrowed(6, range(1, 128), range(128, 128)), Some(range(1, 127)));
        // Under x <= b (sle, ule): at most b's largest; under x > b, x >= b: from b's smallest.
        assert_eq!(narrowed(7, range(0, 100), range(10, 20)), Some(range(0, 20)));
        assert_eq!(narrowed(8, range(0, 100), range(10, 20)), Some(range(11, 100)));
        assert_eq!(narrowed(9, range(0, 100), range(10, 20)), Some(range(10, 100)));
        assert_eq!(narrowed(0, range(0, 100), range(10, 20)), Some(range(10, 20)));
        // ne says nothing of a range; a guard that cannot hold leaves the range to its caller.
        assert_eq!(narrowed(1, range(0, 100), range(10, 10)), Some(range(0, 100)));
        assert_eq!(narrowed(6, range(5, 9), range(0, 0)), None);
        assert_eq!(narrowed(8, range(5, 9), range(9, 9)), None);
        // b < x is x > b.
        assert_eq!(narrowed(swapped(6), range(0, 100), range(10, 20)), Some(range(11, 100)));
        assert_eq!(swapped(swapped(3)), 3);
        assert_eq!(swapped(0), 0);
    }
}
