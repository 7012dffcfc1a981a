//! Bounds of the values a fragment holds where an op reads it, from the op that last wrote it
//! before, in the same block: a `tile.fill` of a constant, or a `tile.parallel` that stores every
//! element a value whose bounds its arithmetic gives (constants, `arith.minimumf` and
//! `arith.maximumf` clamps, `math.exp2` and `math.exp` of a bounded argument, sums and products of
//! bounded values). A narrowing copy whose source stays inside its narrow type's range leaves out
//! the handling of values past it (the f8 rounding's overflow check: [`crate::small_floats`]).
//!
//! NaN is outside every interval and passes through these ops: what reads a bound handles NaN as
//! it would without one.

use melior::ir::{
    BlockLike, Value,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::ops::{as_result, constant_float, memref_shape, nested_ops, op_name};
use tile_dialect::positions::{BlockAt, OperationAt};

/// A closed interval of reals (its ends may be infinite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The least value.
    pub low: f64,
    /// The greatest value.
    pub high: f64,
}

/// Relative widening of each rounded operation's interval (f32 rounds by at most 2^-24 of the
/// result; the approximate `exp2` and `exp` of the targets stay within 2^-21).
const ROUNDING: f64 = 1.0 / (1 << 20) as f64;

/// How deep [`value_bound`] follows a value's operands.
const DEPTH: usize = 24;

impl Interval {
    /// Every real.
    pub fn any() -> Self {
        Interval {
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        }
    }

    fn point(value: f64) -> Self {
        Interval {
            low: value,
            high: value,
        }
    }

    /// The largest magnitude in the interval.
    pub fn magnitude(&self) -> f64 {
        self.low.abs().max(self.high.abs())
    }

    fn union(self, other: Interval) -> Interval {
        Interval {
            low: self.low.min(other.low),
            high: self.high.max(other.high),
        }
    }

    /// The interval widened by one rounding on each side.
    fn rounded(self) -> Interval {
        let widen = |value: f64, toward: f64| value + toward * value.abs() * ROUNDING;
        let interval = Interval {
            low: widen(self.low, -1.0),
            high: widen(self.high, 1.0),
        };
        if interval.low.is_nan() || interval.high.is_nan() {
            Interval::any()
        } else {
            interval
        }
    }

    fn sum(self, other: Interval) -> Interval {
        Interval {
            low: self.low + other.low,
            high: self.high + other.high,
        }
        .rounded()
    }

    fn product(self, other: Interval) -> Interval {
        let corners = [
            self.low * other.low,
            self.low * other.high,
            self.high * other.low,
            self.high * other.high,
        ];
        if corners.iter().any(|corner| corner.is_nan()) {
            return Interval::any();
        }
        Interval {
            low: corners.iter().copied().fold(f64::INFINITY, f64::min),
            high: corners.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
        .rounded()
    }

    /// `base` raised to the interval (an exponential, increasing).
    fn exponential(self, base: f64) -> Interval {
        Interval {
            low: 0.0,
            high: base.powf(self.high),
        }
        .rounded()
    }
}

/// The interval of the scalar `value` (in a `tile.parallel`'s body, say) from the ops that make it.
pub fn value_bound(value: Value, depth: usize) -> Interval {
    if depth == 0 {
        return Interval::any();
    }
    if let Some(constant) = constant_float(value) {
        return Interval::point(constant);
    }
    let Some(op) = as_result(value).map(|result| result.owner()) else {
        return Interval::any();
    };
    let operand = |index: usize| {
        op.operand_at(index)
            .map_or(Interval::any(), |operand| value_bound(operand, depth - 1))
    };
    match op_name(&op) {
        "arith.minimumf" | "arith.minnumf" => {
            let (a, b) = (operand(0), operand(1));
            Interval {
                low: a.low.min(b.low),
                high: a.high.min(b.high),
            }
        }
        "arith.maximumf" | "arith.maxnumf" => {
            let (a, b) = (operand(0), operand(1));
            Interval {
                low: a.low.max(b.low),
                high: a.high.max(b.high),
            }
        }
        "arith.select" => operand(1).union(operand(2)),
        "arith.negf" => {
            let a = operand(0);
            Interval {
                low: -a.high,
                high: -a.low,
            }
        }
        "math.absf" => {
            let a = operand(0);
            let low = if a.low <= 0.0 && a.high >= 0.0 {
                0.0
            } else {
                a.low.abs().min(a.high.abs())
            };
            Interval {
                low,
                high: a.magnitude(),
            }
        }
        "arith.addf" => operand(0).sum(operand(1)),
        "arith.subf" => {
            let b = operand(1);
            operand(0).sum(Interval {
                low: -b.high,
                high: -b.low,
            })
        }
        "arith.mulf" => operand(0).product(operand(1)),
        "math.fma" => operand(0).product(operand(1)).sum(operand(2)),
        "math.exp2" => operand(0).exponential(2.0),
        "math.exp" => operand(0).exponential(std::f64::consts::E),
        "math.tanh" => Interval { low: -1.0, high: 1.0 },
        "arith.extf" => operand(0),
        "arith.truncf" => operand(0).rounded(),
        _ => Interval::any(),
    }
}

/// The interval of the values fragment `tile` holds when `reader` runs: from the last op before
/// `reader` in its block that writes it, where that is a `tile.fill` of a constant or a
/// `tile.parallel` that stores each element once, at its own loop indices, a bounded value; `None`
/// where another op writes it last, or no op in the block does.
pub fn fragment_bound(tile: Value, reader: OperationRef) -> Option<Interval> {
    let block = reader.block()?;
    let before: Vec<OperationRef> = std::iter::successors(block.first_operation(), |op| op.next_in_block())
        .take_while(|op| *op != reader)
        .collect();
    for op in before.iter().rev() {
        let uses =
            |candidate: &OperationRef| (0..candidate.operand_count()).any(|i| candidate.operand_at(i) == Some(tile));
        let users: Vec<OperationRef> = std::iter::once(*op).chain(nested_ops(*op)).filter(uses).collect();
        if users.is_empty() {
            continue;
        }
        if users.iter().all(|user| crate::pipeline::ahead::reads_only(user, tile)) {
            continue;
        }
        return match op_name(op) {
            "tile.fill" if op.operand_at(0) == Some(tile) => {
                op.operand_at(1).and_then(constant_float).map(Interval::point)
            }
            "tile.parallel" => stored_bound(*op, tile),
            _ => None,
        };
    }
    None
}

/// The bound of what `parallel` stores into `tile`, where its body stores every element once at
/// the loop's own indices (the loop's extents are the tile's shape) and nothing else writes it.
fn stored_bound(parallel: OperationRef, tile: Value) -> Option<Interval> {
    if tile_dialect::ops::parallel_extents(&parallel)? != memref_shape(tile) {
        return None;
    }
    let body = parallel.body()?;
    let indices: Vec<Value> = (0..body.argument_count())
        .filter_map(|i| body.argument_at(i).map(Into::into))
        .collect();
    let mut bound: Option<Interval> = None;
    for op in nested_ops(parallel) {
        let writes = (0..op.operand_count()).any(|i| op.operand_at(i) == Some(tile));
        if !writes || op_name(&op) == "memref.load" {
            continue;
        }
        // A store of the loop's element, in the body itself (not under a condition).
        let whole = op_name(&op) == "memref.store"
            && op.operand_at(1) == Some(tile)
            && op.block().is_some_and(|block| block == body)
            && (2..op.operand_count())
                .map(|i| op.operand_at(i))
                .eq(indices.iter().map(|index| Some(*index)));
        if !whole {
            return None;
        }
        let value = value_bound(op.operand_at(0)?, DEPTH);
        bound = Some(bound.map_or(value, |held| held.union(value)));
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_widen_past_rounding_and_give_up_on_undefined_products() {
        let unit = Interval { low: 0.0, high: 1.0 };
        assert!(unit.sum(unit).high > 2.0 && unit.sum(unit).high < 2.0001);
        assert_eq!(unit.product(Interval::any()), Interval::any());
        let exponential = Interval {
            low: f64::NEG_INFINITY,
            high: 0.0,
        }
        .exponential(2.0);
        assert_eq!(exponential.low, 0.0);
        assert!(exponential.high >= 1.0 && exponential.high < 1.0001);
        assert_eq!(Interval::any().exponential(2.0).high, f64::INFINITY);
    }
}
