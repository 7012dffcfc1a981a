//! Scalar types and values, and the exact rounding between them.
//!
//! Invariants:
//! - a [`Val::F`] always holds a value exactly representable in the float type it was produced
//!   for: every arithmetic result and every store is rounded with [`Scalar::round`] (round to
//!   nearest, ties to even, with subnormals; f16, bf16, f32 and f8E5M2 overflow to infinity, f8E4M3FN,
//!   which has no infinity, to NaN, as `arith.truncf` does);
//! - a [`Val::I`] always holds its integer sign-extended from the type's width (i1 `true` is -1),
//!   so wraparound is [`wrap`] after every operation and unsigned views are [`unsigned`].

use std::fmt;

/// A float format the interpreter computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float {
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// 8-bit float with 4 exponent and 3 mantissa bits, finite only (no infinity).
    F8E4M3FN,
    /// 8-bit float with 5 exponent and 2 mantissa bits, with infinities (an f16's top byte).
    F8E5M2,
    /// 4-bit float with 2 exponent bits and 1 mantissa bit, finite only (no infinity, no NaN).
    F4E2M1FN,
}

/// The type of an SSA scalar or of a buffer element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A float.
    Float(Float),
    /// A signless integer of this width (1 to 64 bits).
    Int(u32),
    /// `index`: a 64-bit integer.
    Index,
}

/// A runtime value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// An integer or index, sign-extended from its width, and its error bound: nonzero only for
    /// an integer that a discontinuity made of floats (a conversion, a comparison: a correct
    /// implementation may land on another integer, [`crate::bound`]).
    I(i64, f64),
    /// A float, exact in its type, and its error bound ([`crate::bound`]): how far a correct
    /// implementation's value may be from the program's exact result, to first order.
    F(f64, f64),
    /// A buffer: its number in the machine's arena.
    M(usize),
    /// Not computed yet (never read by a well-formed program).
    Unset,
}

impl Float {
    /// Returns (fraction bits, minimum normal exponent, largest finite value, has infinity).
    fn format(self) -> (i32, i32, f64, bool) {
        match self {
            Self::F16 => (10, -14, 65504.0, true),
            Self::BF16 => (7, -126, 3.389_531_389_251_535_5e38, true),
            Self::F32 => (23, -126, f32::MAX as f64, true),
            Self::F64 => (52, -1022, f64::MAX, true),
            Self::F8E4M3FN => (3, -6, 448.0, false),
            Self::F8E5M2 => (2, -14, 57344.0, true),
            Self::F4E2M1FN => (1, 0, 6.0, false),
        }
    }

    /// Returns the largest finite value of this format.
    pub fn largest_finite(self) -> f64 {
        self.format().2
    }

    /// Returns the unit roundoff: half the distance from 1 to the next value of this format.
    pub fn unit_roundoff(self) -> f64 {
        2f64.powi(-(self.format().0 + 1))
    }

    /// Returns `value` rounded to this format: to nearest, ties to even.
    pub fn round(self, value: f64) -> f64 {
        match self {
            Self::F64 => value,
            Self::F32 => value as f32 as f64,
            _ => round_to_format(value, self.format()),
        }
    }
}

/// Rounds `value` to a binary format with `fraction` stored mantissa bits and minimum normal exponent
/// `min_exponent`: scale to the quantum of the value's binade (or the subnormal quantum), round to an
/// integer with ties to even, scale back. Scaling by powers of two is exact in f64 for these formats.
fn round_to_format(value: f64, (fraction, min_exponent, max, infinity): (i32, i32, f64, bool)) -> f64 {
    if value.is_nan() {
        return f64::NAN;
    }
    if value.is_infinite() {
        return if infinity { value } else { f64::NAN };
    }
    if value == 0.0 {
        return value;
    }
    let exponent = exponent_of(value).max(min_exponent);
    let quantum = 2f64.powi(exponent - fraction);
    let rounded = (value / quantum).round_ties_even() * quantum;
    if rounded.abs() > max {
        if infinity {
            f64::INFINITY.copysign(value)
        } else {
            f64::NAN
        }
    } else {
        rounded
    }
}

/// Returns floor(log2(|value|)) of a finite non-zero f64, from its bits.
fn exponent_of(value: f64) -> i32 {
    let bits = value.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // An f64 subnormal: far below every format's subnormal quantum but f64's own.
        -1074 + (63 - bits.leading_zeros() as i32)
    } else {
        biased - 1023
    }
}

/// Returns `value` wrapped to a `width`-bit two's-complement integer, sign-extended.
pub fn wrap(value: i64, width: u32) -> i64 {
    if width >= 64 {
        value
    } else {
        let shift = 64 - width;
        (value << shift) >> shift
    }
}

/// Returns the unsigned view of a `width`-bit integer held sign-extended.
pub fn unsigned(value: i64, width: u32) -> u64 {
    if width >= 64 {
        value as u64
    } else {
        (value as u64) & ((1u64 << width) - 1)
    }
}

impl Scalar {
    /// Returns the scalar type named `text` (`f16`, `i32`, `index`, ...), if the interpreter has it.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "f16" => Self::Float(Float::F16),
            "bf16" => Self::Float(Float::BF16),
            "f32" => Self::Float(Float::F32),
            "f64" => Self::Float(Float::F64),
            "f8E4M3FN" => Self::Float(Float::F8E4M3FN),
            "f8E5M2" => Self::Float(Float::F8E5M2),
            "f4E2M1FN" => Self::Float(Float::F4E2M1FN),
            "index" => Self::Index,
            _ => {
                let width: u32 = text.strip_prefix('i')?.parse().ok()?;
                if !(1..=64).contains(&width) {
                    return None;
                }
                Self::Int(width)
            }
        })
    }

    /// Returns the bits a value of this type holds (`index`: none, its width is the target's).
    pub fn bits(self) -> Option<u32> {
        match self {
            Self::Int(width) => Some(width),
            Self::Index => None,
            Self::Float(Float::F16 | Float::BF16) => Some(16),
            Self::Float(Float::F32) => Some(32),
            Self::Float(Float::F64) => Some(64),
            Self::Float(Float::F8E4M3FN | Float::F8E5M2) => Some(8),
            Self::Float(Float::F4E2M1FN) => Some(4),
        }
    }

    /// Returns the width of an integer type (`index`: 64); `None` for floats.
    pub fn width(self) -> Option<u32> {
        match self {
            Self::Int(width) => Some(width),
            Self::Index => Some(64),
            Self::Float(_) => None,
        }
    }

    /// Returns true when buffers of this type hold every value exactly in f64 storage.
    pub fn fits_storage(self) -> bool {
        match self {
            Self::Float(_) => true,
            Self::Int(width) => width <= 32,
            Self::Index => false,
        }
    }

    /// Returns `value` as this type holds it (rounded float, wrapped integer).
    pub fn round(self, value: Val) -> Val {
        match (self, value) {
            (Self::Float(float), Val::F(x, e)) => {
                let r = float.round(x);
                Val::F(r, crate::bound::stored(float, x, e, r))
            }
            (Self::Int(width), Val::I(x, d)) => Val::I(wrap(x, width), d),
            _ => value,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Float(Float::F16) => formatter.write_str("f16"),
            Self::Float(Float::BF16) => formatter.write_str("bf16"),
            Self::Float(Float::F32) => formatter.write_str("f32"),
            Self::Float(Float::F64) => formatter.write_str("f64"),
            Self::Float(Float::F8E4M3FN) => formatter.write_str("f8E4M3FN"),
            Self::Float(Float::F8E5M2) => formatter.write_str("f8E5M2"),
            Self::Float(Float::F4E2M1FN) => formatter.write_str("f4E2M1FN"),
            Self::Int(width) => write!(formatter, "i{width}"),
            Self::Index => formatter.write_str("index"),
        }
    }
}

impl Val {
    /// An exact integer (bound 0).
    pub fn int(x: i64) -> Self {
        Self::I(x, 0.0)
    }
}

impl fmt::Display for Val {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::I(x, _) => write!(formatter, "{x}"),
            Self::F(x, _) => write!(formatter, "{x}"),
            Self::M(id) => write!(formatter, "buffer #{id}"),
            Self::Unset => formatter.write_str("<unset>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// Every f16 and bf16 code, their midpoints and points just beside them round as `half` does
    /// (an independent implementation of the same IEEE rounding).
    #[test]
    fn f16_and_bf16_round_to_nearest_even_like_half() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if h.is_finite() {
                let x = h.to_f64();
                let next = f16::from_bits(bits.wrapping_add(1)).to_f64();
                for probe in [x, (x + next) / 2.0, x + (next - x) * 0.499, x + (next - x) * 0.501] {
                    if probe.is_finite() {
                        let expected = f16::from_f64(probe).to_f64();
                        let got = Float::F16.round(probe);
                        assert!(
                            got == expected || (got.is_nan() && expected.is_nan()),
                            "f16 {probe}: {got} vs {expected}"
                        );
                    }
                }
            }
            let b = bf16::from_bits(bits);
            if b.is_finite() {
                let x = b.to_f64();
                let next = bf16::from_bits(bits.wrapping_add(1)).to_f64();
                for probe in [x, (x + next) / 2.0, x + (next - x) * 0.499] {
                    if probe.is_finite() {
                        let expected = bf16::from_f64(probe).to_f64();
                        assert_eq!(Float::BF16.round(probe), expected, "bf16 {probe}");
                    }
                }
            }
        }
    }

    #[test]
    fn f16_overflows_to_infinity_at_the_rounding_boundary() {
        assert_eq!(Float::F16.round(65504.0), 65504.0);
        assert_eq!(Float::F16.round(65519.99), 65504.0);
        assert_eq!(Float::F16.round(65520.0), f64::INFINITY); // the tie goes to the even 2^16
        assert_eq!(Float::F16.round(-1e9), f64::NEG_INFINITY);
        assert_eq!(Float::F16.round(2f64.powi(-25)), 0.0); // half the smallest subnormal: even is 0
        assert_eq!(Float::F16.round(2f64.powi(-25) * 1.5), 2f64.powi(-24));
    }

    /// f8E4M3FN, checked against its definition: every code decoded by hand, nearest code with
    /// ties to the even mantissa, NaN past the rounding range of 448 (no infinity).
    #[test]
    fn f8e4m3fn_rounds_to_the_nearest_code_and_overflows_to_nan() {
        let decode = |bits: u8| -> f64 {
            let exponent = ((bits >> 3) & 0xF) as i32;
            let mantissa = (bits & 7) as f64;
            let magnitude = if exponent == 0 {
                mantissa / 8.0 * 2f64.powi(-6)
            } else {
                (1.0 + mantissa / 8.0) * 2f64.powi(exponent - 7)
            };
            if bits & 0x80 != 0 { -magnitude } else { magnitude }
        };
        let codes: Vec<(u8, f64)> = (0..=0x7Eu8).map(|bits| (bits, decode(bits))).collect();
        for window in codes.windows(2) {
            let [(low_bits, low), (_, high)] = [window[0], window[1]];
            assert_eq!(Float::F8E4M3FN.round(low), low);
            let middle = (low + high) / 2.0;
            let even = if low_bits & 1 == 0 { low } else { high };
            assert_eq!(Float::F8E4M3FN.round(middle), even, "tie between {low} and {high}");
            assert_eq!(Float::F8E4M3FN.round(low + (high - low) * 0.3), low);
            assert_eq!(Float::F8E4M3FN.round(-(low + (high - low) * 0.7)), -high);
        }
        assert_eq!(Float::F8E4M3FN.round(460.0), 448.0);
        assert_eq!(Float::F8E4M3FN.round(464.0), 448.0); // tie: 448 has the even mantissa
        assert!(Float::F8E4M3FN.round(470.0).is_nan());
        assert!(Float::F8E4M3FN.round(f64::INFINITY).is_nan());
    }

    /// f8E5M2 is the top byte of an f16: every such f16 value is one of its values, values between
    /// two round to the one with the even mantissa, and past the rounding range of 57344 to
    /// infinity.
    #[test]
    fn f8e5m2_rounds_to_the_f16_values_of_its_codes_and_overflows_to_infinity() {
        let decode = |bits: u8| half::f16::from_bits(u16::from(bits) << 8).to_f64();
        let codes: Vec<(u8, f64)> = (0..=0x7Bu8).map(|bits| (bits, decode(bits))).collect();
        for window in codes.windows(2) {
            let [(low_bits, low), (_, high)] = [window[0], window[1]];
            assert_eq!(Float::F8E5M2.round(low), low);
            let middle = (low + high) / 2.0;
            let even = if low_bits & 1 == 0 { low } else { high };
            assert_eq!(Float::F8E5M2.round(middle), even, "tie between {low} and {high}");
            assert_eq!(Float::F8E5M2.round(-(low + (high - low) * 0.7)), -high);
        }
        assert_eq!(Float::F8E5M2.round(61439.0), 57344.0);
        assert_eq!(Float::F8E5M2.round(61440.0), f64::INFINITY); // tie: 57344's mantissa is odd
        assert_eq!(Float::F8E5M2.round(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert!(Float::F8E5M2.round(f64::NAN).is_nan());
    }

    /// f4E2M1FN holds exactly 0, 0.5, 1, 1.5, 2, 3, 4 and 6 and their negatives.
    #[test]
    fn f4e2m1fn_holds_its_eight_magnitudes() {
        let magnitudes = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        for magnitude in magnitudes {
            assert_eq!(Float::F4E2M1FN.round(magnitude), magnitude);
            assert_eq!(Float::F4E2M1FN.round(-magnitude), -magnitude);
        }
        assert_eq!(Float::F4E2M1FN.round(2.5), 2.0); // tie: 2 has the even mantissa
        assert_eq!(Float::F4E2M1FN.round(5.0), 4.0);
        assert_eq!(Float::F4E2M1FN.round(0.26), 0.5);
        assert_eq!(Scalar::parse("f4E2M1FN"), Some(Scalar::Float(Float::F4E2M1FN)));
    }

    #[test]
    fn integers_wrap_per_width() {
        assert_eq!(wrap(128, 8), -128);
        assert_eq!(wrap(255, 8), -1);
        assert_eq!(wrap(1, 1), -1);
        assert_eq!(unsigned(-1, 8), 255);
        assert_eq!(wrap(i64::MAX, 64), i64::MAX);
        assert_eq!(Scalar::parse("i32"), Some(Scalar::Int(32)));
        assert_eq!(Scalar::parse("f8E5M2"), Some(Scalar::Float(Float::F8E5M2)));
        assert_eq!(Scalar::parse("f8E4M3FNUZ"), None);
    }
}
