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
//! - host inputs and constants are exact (0); integers carry no bound (an integer result that
//!   depends on a float's rounding, and a comparison that flips, are not modelled).
//!
//! Discontinuities (floor, comparisons, selects) are not modelled either: a bound that is NaN or
//! infinite means "no bound" to its users, who then fall back to their fixed tolerance.

use crate::ir::{FloatOp, UnaryOp};
use crate::scalar::Float;

/// How many ULPs of its argument and of its result a library function may be off.
pub const LIBRARY_ULPS: f64 = 4.0;

/// Returns the bound of a result `r` of type `float` rounded from an exact value.
pub fn rounding(float: Float, r: f64) -> f64 {
    float.unit_roundoff() * r.abs()
}

/// Returns the bound of `x` (bound `e`) stored as `r` in a `float`: a rounding that changed it, or
/// one another target may meet because its value is not exactly `x` (`e` > 0), adds `u|r|`; an
/// exact value that fits stays exact.
pub fn stored(float: Float, x: f64, e: f64, r: f64) -> f64 {
    if r == x && e == 0.0 { 0.0 } else { e + rounding(float, r) }
}

/// Returns the bound of `r = a op b`, computed in `float`.
pub fn binary(kind: FloatOp, float: Float, (a, ea): (f64, f64), (b, eb): (f64, f64), r: f64) -> f64 {
    let c = LIBRARY_ULPS * float.unit_roundoff();
    let propagated = match kind {
        FloatOp::Add | FloatOp::Sub => ea + eb,
        FloatOp::Mul => b.abs() * ea + a.abs() * eb,
        FloatOp::Div => (ea + r.abs() * eb) / b.abs(),
        FloatOp::Rem => ea + eb * (a / b).trunc().abs(),
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
        // Exact but discontinuous: a bound of x that reaches the next integer is not modelled.
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::RoundEven | UnaryOp::Trunc => {
            return 0.0;
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
    derivative * (ex + c * x.abs()) + c * r.abs() + rounding(float, r)
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

    #[test]
    fn exp2_is_allowed_its_argument_dependent_ulps() {
        let x: f64 = 12.0;
        let r = x.exp2();
        let bound = unary(UnaryOp::Exp2, Float::F32, (x, 0.0), r);
        // Vulkan: 3 + 2|x| ULPs of the result.
        assert!(bound >= (3.0 + 2.0 * x) * Float::F32.unit_roundoff() * r);
    }
}
