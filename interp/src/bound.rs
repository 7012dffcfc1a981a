//! Error bounds carried beside float values: how far a correct implementation's value may be from
//! the exact result of the program, to first order (running error analysis).
//!
//! Targets round differently from the interpreter (another summation order, `exp2` within a few
//! ULPs, an f16 rounding that falls the other way), and how much that moves an output depends on
//! the magnitudes of the terms that produce it, not on the output's own magnitude: a sum of
//! thousands cancelling to 1 moves by thousands of ULPs of 1 when one term moves by one ULP. So a
//! comparison of targets judged by a tolerance relative to the result cannot tell an
//! ill-conditioned program from a miscompile; one judged by these bounds can.
//!
//! Each [`crate::scalar::Val::F`] and each float buffer element carries `e`, and the rules are the
//! first-order propagation of the operands' bounds through the operation plus the rounding of its
//! result (unit roundoff `u` of the result type times `|r|`):
//! - `a ± b`: `e_a + e_b + u|r|`; `a b`: `|b| e_a + |a| e_b + u|r|`; `a / b`: `(e_a + |r| e_b) / |b|
//!   + u|r|`; min, max and copysign: the larger operand bound;
//! - a library function `f(x)` is allowed [`LIBRARY_ULPS`] ULPs of its argument and of its result
//!   (Vulkan's `exp2`, for one, is held to `3 + 2|x|` ULPs): `|f'(x)| (e_x + c u |x|) + c u |r|`;
//! - a sum of `n` terms in an order the target picks (a gemm's K, a reduction): the operands'
//!   bounds plus `n u` times the sum of the terms' magnitudes, the classical bound for any order;
//!   a `tile.matmul`'s K products, which the interpreter sums in f64, are held to this bound at f32
//!   (the op's accumulation), and their sum's rounding to C's type is added when it is stored;
//! - host inputs and constants are exact (0).
//!
//! Discontinuities: each correct implementation's operand lies within `e` of the exact one, so
//! within `2e` of the interpreter's, and where a discontinuity lies within that reach two targets
//! may land on either side of it (seed 16161, case 4303: an attention mutant flooring its scores,
//! whose targets floored one argument to neighbouring integers). The result's bound then covers
//! every outcome:
//! - floor, ceil, round, roundeven, trunc and the conversions of a float to an integer (steps,
//!   non-decreasing): `f(x + 2e) - f(x - 2e)` ([`step`]; 0 when no step is in reach);
//! - a float comparison whose operands' difference is within `2 (e_a + e_b)` of 0 may flip
//!   ([`may_flip`]): its `i1` gets bound 1, and so does a comparison of integers with bounds;
//! - integers carry a bound too ([`crate::scalar::Val::I`]): sums and products propagate it, min
//!   and max keep the larger, an `i1` can only flip (bound 1), any other integer op on an
//!   uncertain operand is unbounded ([`integer`]); a conversion to a float keeps it;
//! - `select` on a condition that may flip holds either arm: the larger bound plus the distance
//!   between them ([`either`]), which also covers a maximum or minimum written as compare and
//!   select; an `scf.if` on such a condition, and a load or store at an index with a bound, give
//!   what they produce no bound.
//!
//! A bound that is NaN or infinite means "no bound" to its users, who then fall back to their
//! fixed tolerance. Loop bounds and tile offsets with bounds are not modelled.

use crate::ir::{FloatOp, IntOp, UnaryOp};
use crate::scalar::Float;

/// How many ULPs of its argument and of its result a library function may be off.
pub const LIBRARY_ULPS: f64 = 4.0;

/// Returns `magnitude` times `bound`, 0 when either is: an exact operand moves nothing however
/// large its partner (a masked score of -inf times an exact scale, `exp2` of -inf), where the
/// product alone would be NaN (no bound) for the whole computation downstream.
pub fn times(magnitude: f64, bound: f64) -> f64 {
    if magnitude == 0.0 || bound == 0.0 {
        0.0
    } else {
        magnitude * bound
    }
}

/// Returns the bound of a result `r` of type `float` rounded from an exact value.
pub fn rounding(float: Float, r: f64) -> f64 {
    float.unit_roundoff() * r.abs()
}

/// Returns the bound of `x` (bound `e`) stored as `r` in a `float`: a rounding that changed it, or
/// one another target may meet because its value is not exactly `x` (`e` > 0), adds `u|r|`; an
/// exact value that fits stays exact.
pub fn stored(float: Float, x: f64, e: f64, r: f64) -> f64 {
    if r == x && e == 0.0 {
        0.0
    } else {
        e + rounding(float, r)
    }
}

/// Returns the bound of `r = a op b`, computed in `float`.
pub fn binary(kind: FloatOp, float: Float, (a, ea): (f64, f64), (b, eb): (f64, f64), r: f64) -> f64 {
    let c = LIBRARY_ULPS * float.unit_roundoff();
    let propagated = match kind {
        FloatOp::Add | FloatOp::Sub => ea + eb,
        FloatOp::Mul => times(b.abs(), ea) + times(a.abs(), eb),
        FloatOp::Div => (ea + times(r.abs(), eb)) / b.abs(),
        FloatOp::Rem => ea + times((a / b).trunc().abs(), eb),
        FloatOp::Maximum | FloatOp::Minimum | FloatOp::MaxNum | FloatOp::MinNum => ea.max(eb),
        FloatOp::CopySign => return ea,
        // r = exp(b ln a): d r = r (b / a da + ln a db); the library's error as exp's of b ln a.
        FloatOp::Pow => {
            let exponent = (b * a.abs().ln()).abs();
            r.abs() * ((b / a).abs() * ea + a.abs().ln().abs() * eb + c * exponent) + c * r.abs()
        }
        FloatOp::Atan2 => {
            let radius = a * a + b * b;
            (b.abs() * (ea + c * a.abs()) + a.abs() * (eb + c * b.abs())) / radius + c * r.abs()
        }
    };
    propagated + rounding(float, r)
}

/// Returns the bound of `r = f(x)`, computed in `float`.
pub fn unary(kind: UnaryOp, float: Float, (x, ex): (f64, f64), r: f64) -> f64 {
    let derivative = match kind {
        UnaryOp::Neg | UnaryOp::Abs => return ex,
        // Exact but steps: flat unless a step is within reach of x's bound.
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::RoundEven | UnaryOp::Trunc => {
            return step(|x| crate::arith::unary(kind, x), x, ex);
        }
        UnaryOp::Exp | UnaryOp::Sinh | UnaryOp::Cosh => r.abs().max(x.exp().abs()),
        UnaryOp::Exp2 => r.abs() * std::f64::consts::LN_2,
        UnaryOp::Expm1 => (r + 1.0).abs(),
        UnaryOp::Log => 1.0 / x.abs(),
        UnaryOp::Log2 => 1.0 / (x.abs() * std::f64::consts::LN_2),
        UnaryOp::Log10 => 1.0 / (x.abs() * std::f64::consts::LN_10),
        UnaryOp::Log1p => 1.0 / (1.0 + x).abs(),
        UnaryOp::Sqrt => 0.5 / r.abs(),
        UnaryOp::Rsqrt => 0.5 * (r / x).abs(),
        UnaryOp::Tanh => 1.0 - r * r,
        UnaryOp::Sin | UnaryOp::Cos => 1.0,
        UnaryOp::Tan => 1.0 + r * r,
        UnaryOp::Atan => 1.0 / (1.0 + x * x),
        UnaryOp::Acos | UnaryOp::Asin => 1.0 / (1.0 - x * x).sqrt(),
        UnaryOp::Cbrt => (r / (3.0 * x)).abs(),
        UnaryOp::Erf | UnaryOp::Erfc => 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp(),
    };
    let c = LIBRARY_ULPS * float.unit_roundoff();
    times(derivative, ex + c * x.abs()) + c * r.abs() + rounding(float, r)
}

/// Returns the bound of `f(x)` for a non-decreasing step function `f` (floor, ceil, round,
/// roundeven, trunc, a conversion to an integer) of `x` with bound `e`: every correct
/// implementation's argument lies within `2e` of `x`, so its result between `f(x - 2e)` and
/// `f(x + 2e)`; 0 when no step lies between them.
pub fn step(f: impl Fn(f64) -> f64, x: f64, e: f64) -> f64 {
    if e == 0.0 {
        return 0.0;
    }
    let width = f(x + 2.0 * e) - f(x - 2.0 * e);
    if width.is_nan() { f64::INFINITY } else { width }
}

/// Whether a comparison of `a` and `b`, with bounds `ea` and `eb`, may come out the other way on a
/// correct implementation: their difference, which each implementation has within `ea + eb` of
/// the exact one, is within twice that of 0 (a NaN difference or bound may flip too).
pub fn may_flip(a: f64, b: f64, ea: f64, eb: f64) -> bool {
    let reach = ea + eb;
    reach != 0.0 && !((a - b).abs() > 2.0 * reach)
}

/// Returns the bound of a value that is `a` (bound `ea`) or `b` (bound `eb`) depending on a
/// condition that may flip: the larger bound plus the distance between them.
pub fn either(a: f64, b: f64, ea: f64, eb: f64) -> f64 {
    ea.max(eb) + (a - b).abs()
}

/// Returns the bound of the `width`-bit integer `a kind b` from its operands' bounds `da`, `db`:
/// sums and products propagate them, min and max keep the larger, any other op of an uncertain
/// operand is unbounded; an `i1` can only flip ([`flips`]).
pub fn integer(kind: IntOp, width: u32, (a, da): (i64, f64), (b, db): (i64, f64)) -> f64 {
    if da == 0.0 && db == 0.0 {
        return 0.0;
    }
    let bound = match kind {
        IntOp::Add | IntOp::Sub => da + db,
        IntOp::Mul => (b as f64).abs() * da + (a as f64).abs() * db + da * db,
        IntOp::MinS | IntOp::MaxS | IntOp::MinU | IntOp::MaxU => da.max(db),
        _ => f64::INFINITY,
    };
    flips(width, bound)
}

/// The bound of a `width`-bit integer whose value may be off by `bound`: an `i1` can only flip
/// (`true` is -1), so its bound is at most 1.
pub fn flips(width: u32, bound: f64) -> f64 {
    if width == 1 && bound != 0.0 { 1.0 } else { bound }
}

/// Returns the bound of a sum `start + Σ terms` of `count` terms in an order the target picks:
/// `bounds` is the sum of the operands' propagated bounds and `magnitude` the sum of the terms'
/// absolute values (`start` included).
pub fn sum(float: Float, count: usize, bounds: f64, magnitude: f64) -> f64 {
    bounds + (count as f64 + 1.0) * float.unit_roundoff() * magnitude
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attention that lavapipe computed 1% off (seed 14141, case 15812): an output near 1 from
    /// terms in the thousands, each an f16 rounding of an `exp2`. Its bound is in units of the
    /// terms, not of the output.
    #[test]
    fn cancelling_sums_are_bounded_by_their_terms() {
        let terms = [3000.0, -2999.0];
        let bounds: f64 = terms.iter().map(|t| rounding(Float::F16, *t)).sum();
        let magnitude: f64 = terms.iter().map(|t: &f64| t.abs()).sum();
        let bound = sum(Float::F32, terms.len(), bounds, magnitude);
        assert!(bound > 2.0, "{bound}");
        // A well-conditioned sum of the same size stays near its rounding.
        let bound = sum(Float::F32, 2, 0.0, 2.0);
        assert!(bound < 1e-6, "{bound}");
    }

    /// Seed 16161, case 4303: a score within rounding of an integer floors to either neighbour.
    #[test]
    fn steps_within_reach_cover_both_sides() {
        let e = 1e-6;
        assert_eq!(unary(UnaryOp::Floor, Float::F32, (3.0 - e / 2.0, e), 2.0), 1.0);
        assert_eq!(unary(UnaryOp::Floor, Float::F32, (2.5, e), 2.0), 0.0);
        assert_eq!(unary(UnaryOp::Round, Float::F32, (2.5, e), 3.0), 1.0);
        assert_eq!(unary(UnaryOp::Ceil, Float::F32, (2.0, 0.0), 2.0), 0.0);
        assert_eq!(step(f64::trunc, -0.5e-6, e), 0.0);
        assert_eq!(step(f64::floor, 0.0, 1.5), 6.0);
    }

    #[test]
    fn comparisons_flip_only_within_reach() {
        assert!(may_flip(1.0, 1.0 + 1e-7, 1e-7, 0.0));
        assert!(!may_flip(1.0, 1.1, 1e-7, 1e-7));
        assert!(!may_flip(1.0, 1.0, 0.0, 0.0));
        assert_eq!(either(1.0, 3.0, 0.5, 0.25), 2.5);
        assert_eq!(integer(IntOp::Add, 32, (1, 1.0), (2, 0.0)), 1.0);
        assert_eq!(integer(IntOp::Mul, 32, (3, 1.0), (4, 0.0)), 4.0);
        assert_eq!(integer(IntOp::And, 1, (-1, 1.0), (0, 0.0)), 1.0);
        assert_eq!(integer(IntOp::DivS, 32, (8, 1.0), (2, 0.0)), f64::INFINITY);
        assert_eq!(integer(IntOp::DivS, 32, (8, 0.0), (2, 0.0)), 0.0);
    }

    #[test]
    fn exp2_is_allowed_its_argument_dependent_ulps() {
        let x: f64 = 12.0;
        let r = x.exp2();
        let bound = unary(UnaryOp::Exp2, Float::F32, (x, 0.0), r);
        // Vulkan: 3 + 2|x| ULPs of the result.
        assert!(bound >= (3.0 + 2.0 * x) * Float::F32.unit_roundoff() * r);
    }
}
