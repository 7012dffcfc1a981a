//! The scalar operations of `arith`, `math` and `index`, on values held exactly in their types.
//!
//! Invariants: integer results wrap to their width; float results are exact f64 results (or
//! libm's, for transcendental functions) that the caller rounds to the result type; what MLIR leaves
//! undefined (division by zero, signed overflow of a division, shifts past the width, float to
//! integer conversions out of range) is an [`crate::Error::Undefined`] at the op.

use crate::error::Result;
use crate::exec::undefined;
use crate::ir::{BitCount, FloatOp, IntOp, Op, UnaryOp};
use crate::scalar::{Float, Scalar, Val, unsigned, wrap};

/// Returns `a kind b` at `width` bits, or why it is undefined.
pub fn integer(op: &Op, kind: IntOp, width: u32, a: i64, b: i64) -> Result<i64> {
    let (ua, ub) = (unsigned(a, width), unsigned(b, width));
    let min = wrap(1i64 << (width.min(64) - 1), width);
    let divisor = |signed: bool| {
        if b == 0 {
            Err(undefined(op, "divides by zero"))
        } else if signed && a == min && b == -1 {
            Err(undefined(op, format!("overflows: {a} / -1 at {width} bits")))
        } else {
            Ok(())
        }
    };
    let shift = || {
        if ub >= width as u64 {
            Err(undefined(
                op,
                format!("shifts by {ub}, not less than the width {width}"),
            ))
        } else {
            Ok(ub as u32)
        }
    };
    let value = match kind {
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::Mul => a.wrapping_mul(b),
        IntOp::DivS => {
            divisor(true)?;
            a / b
        }
        IntOp::DivU => {
            divisor(false)?;
            (ua / ub) as i64
        }
        IntOp::RemS => {
            divisor(false)?;
            a.wrapping_rem(b)
        }
        IntOp::RemU => {
            divisor(false)?;
            (ua % ub) as i64
        }
        IntOp::CeilDivS => {
            divisor(true)?;
            let q = a / b;
            if a % b != 0 && (a < 0) == (b < 0) { q + 1 } else { q }
        }
        IntOp::CeilDivU => {
            divisor(false)?;
            (ua / ub + (ua % ub != 0) as u64) as i64
        }
        IntOp::FloorDivS => {
            divisor(true)?;
            let q = a / b;
            if a % b != 0 && (a < 0) != (b < 0) { q - 1 } else { q }
        }
        IntOp::MinS => a.min(b),
        IntOp::MaxS => a.max(b),
        IntOp::MinU => {
            if ua <= ub {
                a
            } else {
                b
            }
        }
        IntOp::MaxU => {
            if ua >= ub {
                a
            } else {
                b
            }
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl => a.wrapping_shl(shift()?),
        IntOp::ShrS => a >> shift()?,
        IntOp::ShrU => (ua >> shift()?) as i64,
    };
    Ok(wrap(value, width))
}

/// Returns the IEEE maximum (`maximum`: NaN wins, +0 above -0) of two values.
pub fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { b } else { a }
    } else {
        a.max(b)
    }
}

/// Returns the IEEE minimum (`minimum`: NaN wins, -0 below +0) of two values.
pub fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else {
        a.min(b)
    }
}

pub fn binary(kind: FloatOp, a: f64, b: f64) -> f64 {
    match kind {
        FloatOp::Add => a + b,
        FloatOp::Sub => a - b,
        FloatOp::Mul => a * b,
        FloatOp::Div => a / b,
        FloatOp::Rem => a % b,
        FloatOp::Maximum => maximum(a, b),
        FloatOp::Minimum => minimum(a, b),
        FloatOp::MaxNum if a.is_nan() => b,
        FloatOp::MaxNum if b.is_nan() => a,
        FloatOp::MaxNum => maximum(a, b),
        FloatOp::MinNum if a.is_nan() => b,
        FloatOp::MinNum if b.is_nan() => a,
        FloatOp::MinNum => minimum(a, b),
        FloatOp::Pow => a.powf(b),
        FloatOp::Atan2 => a.atan2(b),
        FloatOp::CopySign => a.copysign(b),
    }
}

pub fn unary(kind: UnaryOp, x: f64) -> f64 {
    match kind {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Exp2 => x.exp2(),
        UnaryOp::Expm1 => x.exp_m1(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Log2 => x.log2(),
        UnaryOp::Log10 => x.log10(),
        UnaryOp::Log1p => x.ln_1p(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Tan => x.tan(),
        UnaryOp::Atan => x.atan(),
        UnaryOp::Floor => x.floor(),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Round => x.round(),
        UnaryOp::RoundEven => x.round_ties_even(),
        UnaryOp::Trunc => x.trunc(),
        UnaryOp::Acos => x.acos(),
        UnaryOp::Asin => x.asin(),
        UnaryOp::Cbrt => x.cbrt(),
        UnaryOp::Cosh => x.cosh(),
        UnaryOp::Sinh => x.sinh(),
        UnaryOp::Erf => erf(x),
        UnaryOp::Erfc => 1.0 - erf(x),
    }
}

/// The error function in f64 (std has none): its Maclaurin series below |x| = 4, where the terms'
/// cancellation costs at most e^16 ulps (1e-9); above, 1 - erfc(|x|) by the asymptotic series,
/// whose first omitted term is below 1e-12 there.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a < 4.0 {
        // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, mut n) = (a, a, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let inverse = 1.0 / (2.0 * a * a);
        let series = 1.0 - inverse + 3.0 * inverse * inverse - 15.0 * inverse.powi(3) + 105.0 * inverse.powi(4);
        1.0 - (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * series
    };
    value.copysign(x)
}

/// Counts bits of the `width`-bit value `x`.
pub fn bit_count(kind: BitCount, x: i64, width: u32) -> i64 {
    let bits = unsigned(x, width);
    let value = match kind {
        BitCount::LeadingZeros => (bits.leading_zeros() - (64 - width)).min(width),
        BitCount::TrailingZeros => bits.trailing_zeros().min(width),
        BitCount::Ones => bits.count_ones(),
    };
    value as i64
}

/// Converts `value` of type `from` to `to` as the `arith` casts do: floats round to nearest even,
/// integers wrap or extend (`signed` picks sign- or zero-extension), floats convert to integers
/// toward zero and must fit.
pub fn cast(op: &Op, value: Val, from: Scalar, to: Scalar, signed: bool) -> Result<Val> {
    Ok(match (value, to) {
        (Val::F(x, e), Scalar::Float(float)) => {
            let r = float.round(x);
            Val::F(r, e + crate::bound::rounding(float, r))
        }
        (Val::I(x, d), Scalar::Float(float)) => {
            let x = if signed {
                x as f64
            } else {
                unsigned(x, from.width().unwrap_or(64)) as f64
            };
            let r = float.round(x);
            Val::F(r, d + crate::bound::rounding(float, r))
        }
        (Val::I(x, d), _) => {
            let x = if signed {
                x
            } else {
                unsigned(x, from.width().unwrap_or(64)) as i64
            };
            let width = to.width().unwrap_or(64);
            Val::I(wrap(x, width), crate::bound::flips(width, d))
        }
        (Val::F(x, e), _) => {
            let width = to.width().unwrap_or(64) as i32;
            let t = x.trunc();
            let (low, high) = if signed {
                (-(2f64.powi(width - 1)), 2f64.powi(width - 1))
            } else {
                (0.0, 2f64.powi(width))
            };
            if !(t >= low && t < high) {
                return Err(undefined(
                    op,
                    format!("converts {x} ({from}) to {to}, which cannot hold it"),
                ));
            }
            // Toward zero: a step at every integer, which the bound may reach.
            let d = crate::bound::flips(width as u32, crate::bound::step(f64::trunc, x, e));
            Val::I(
                wrap(
                    if t >= 2f64.powi(63) { t as u64 as i64 } else { t as i64 },
                    width as u32,
                ),
                d,
            )
        }
        (other, _) => return Err(undefined(op, format!("converts {other}, not a number"))),
    })
}

#[cfg(test)]
mod math_tests {
    use super::*;

    #[test]
    fn erf_matches_tabulated_values() {
        // Abramowitz & Stegun, table 7.1, and erf(5) = 1 - 1.5375e-12.
        for (x, expected) in [
            (0.5, 0.520_499_877_813_046_5),
            (2.0, 0.995_322_265_018_952_7),
            (-1.0, -0.842_700_792_949_714_9),
            (5.0, 0.999_999_999_998_462_5),
        ] {
            assert!((erf(x) - expected).abs() < 1e-12, "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn bit_counts_stay_within_the_width() {
        assert_eq!(bit_count(BitCount::LeadingZeros, 1, 8), 7);
        assert_eq!(bit_count(BitCount::LeadingZeros, 0, 16), 16);
        assert_eq!(bit_count(BitCount::TrailingZeros, 0, 32), 32);
        assert_eq!(bit_count(BitCount::Ones, -1, 8), 8);
    }
}

/// `arith.bitcast` of `value` from `from` to `to`, scalars of one width: a float's bits are those
/// of its exact value in its format (a NaN's are its canonical code: the machine keeps no
/// payload); a value with an error bound gives bits without one.
pub fn bitcast(value: Val, from: Scalar, to: Scalar) -> Val {
    let (bits, exact) = match (value, from) {
        (Val::F(x, e), Scalar::Float(float)) => (float_bits(float, x), e == 0.0),
        (Val::I(x, d), _) => (unsigned(x, from.bits().unwrap_or(64)), d == 0.0),
        (other, _) => return other,
    };
    let bound = if exact { 0.0 } else { f64::INFINITY };
    match to {
        Scalar::Float(float) => Val::F(bits_float(float, bits), bound),
        _ => Val::I(wrap(bits as i64, to.bits().unwrap_or(64)), bound),
    }
}

/// A binary format's fields: exponent bits, mantissa bits, and whether its largest exponent
/// code holds infinities and NaNs (IEEE) rather than finite values (f8E4M3FN: only its all-ones
/// code is NaN).
fn fields(float: Float) -> (u32, u32, bool) {
    match float {
        Float::F16 => (5, 10, true),
        Float::BF16 => (8, 7, true),
        Float::F8E4M3FN => (4, 3, false),
        Float::F8E5M2 => (5, 2, true),
        Float::F32 => (8, 23, true),
        Float::F64 => (11, 52, true),
        Float::F4E2M1FN => (2, 1, false),
    }
}

/// The bits of `x`, a value of `float`.
fn float_bits(float: Float, x: f64) -> u64 {
    let (exponent_bits, mantissa_bits, ieee) = fields(float);
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let top = (1u64 << exponent_bits) - 1;
    let sign = u64::from(x.is_sign_negative()) << (exponent_bits + mantissa_bits);
    let a = x.abs();
    let code = if a.is_nan() {
        match ieee {
            true => (top << mantissa_bits) | (1 << (mantissa_bits - 1)),
            false => (top << mantissa_bits) | ((1 << mantissa_bits) - 1),
        }
    } else if a.is_infinite() {
        top << mantissa_bits
    } else if a < 2f64.powi(1 - bias) {
        // Subnormal (or zero): a multiple of the format's smallest quantum.
        (a / 2f64.powi(1 - bias - mantissa_bits as i32)) as u64
    } else {
        // Every value here is a normal f64: its exponent from its bits.
        let exponent = ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023;
        let mantissa = (a / 2f64.powi(exponent) - 1.0) * 2f64.powi(mantissa_bits as i32);
        (((exponent + bias) as u64) << mantissa_bits) | mantissa as u64
    };
    code | sign
}

/// The value of `float` whose bits are `bits`.
fn bits_float(float: Float, bits: u64) -> f64 {
    let (exponent_bits, mantissa_bits, ieee) = fields(float);
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let top = (1u64 << exponent_bits) - 1;
    let sign = if (bits >> (exponent_bits + mantissa_bits)) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exponent = (bits >> mantissa_bits) & top;
    let mantissa = bits & ((1 << mantissa_bits) - 1);
    let quantum = |exponent: i32| 2f64.powi(exponent - mantissa_bits as i32);
    sign * match exponent {
        e if e == top && ieee => match mantissa {
            0 => f64::INFINITY,
            _ => f64::NAN,
        },
        e if e == top && mantissa == (1 << mantissa_bits) - 1 => f64::NAN,
        0 => mantissa as f64 * quantum(1 - bias),
        e => ((1 << mantissa_bits) + mantissa) as f64 * quantum(e as i32 - bias),
    }
}
