//! The element types tile buffers may hold.

use melior::ir::Type;
use std::fmt;

/// An element type the contract allows in tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Element {
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single precision (accumulators and epilogues).
    F32,
    /// 8-bit float, 4 exponent bits, 3 mantissa bits, finite only.
    F8E4M3FN,
    /// 8-bit float, 5 exponent bits, 2 mantissa bits, with infinities and NaNs (IEEE-like: the
    /// top byte of an f16).
    F8E5M2,
    /// Signless 8-bit integer.
    I8,
    /// Signless 32-bit integer (accumulator of i8 products).
    I32,
    /// Signless 4-bit integer (quantized weights: read as signed with `arith.extsi`/`sitofp`, as
    /// unsigned with `arith.extui`/`uitofp`). Packed two to a byte, see [`Element::is_packed`].
    I4,
    /// 4-bit float, 2 exponent bits, 1 mantissa bit, finite only (no infinity, no NaN). Packed.
    F4E2M1FN,
}

/// The element types, as the contract lists them (for messages).
pub const ALLOWED: &str = "f16, bf16, f32, f8E4M3FN, f8E5M2, i8, i32, i4 or f4E2M1FN";

impl Element {
    /// Returns the element kind of `type`, or `None` when tiles cannot hold it.
    pub fn of(r#type: Type) -> Option<Self> {
        // Asked of the type rather than of its printed name: printing a type builds an AsmState,
        // which gathers every loaded dialect's interfaces (about 1% of a gfx942 compilation when
        // the lowerings asked it for each op).
        use melior::ir::TypeLike;
        if r#type.is_f16() {
            Some(Self::F16)
        } else if r#type.is_bf16() {
            Some(Self::BF16)
        } else if r#type.is_f32() {
            Some(Self::F32)
        } else if r#type.is_float8e4m3fn() {
            Some(Self::F8E4M3FN)
        } else if r#type.is_float8e5m2() {
            Some(Self::F8E5M2)
        } else if unsafe { mlir_sys::mlirTypeIsAFloat4E2M1FN(r#type.to_raw()) } {
            Some(Self::F4E2M1FN)
        } else if r#type.is_integer() {
            match melior::ir::r#type::IntegerType::try_from(r#type).ok()? {
                integer if integer.is_signless() && integer.width() == 8 => Some(Self::I8),
                integer if integer.is_signless() && integer.width() == 32 => Some(Self::I32),
                integer if integer.is_signless() && integer.width() == 4 => Some(Self::I4),
                _ => None,
            }
        } else {
            None
        }
    }

    /// Returns the bits of one element.
    pub fn bits(self) -> usize {
        match self {
            Self::F16 | Self::BF16 => 16,
            Self::F32 | Self::I32 => 32,
            Self::I8 | Self::F8E4M3FN | Self::F8E5M2 => 8,
            Self::I4 | Self::F4E2M1FN => 4,
        }
    }

    /// Returns the bytes of one element; a packed element takes a byte of its own wherever it is
    /// unpacked (its storage is half a byte: [`Element::is_packed`]).
    pub fn bytes(self) -> usize {
        self.bits().div_ceil(8)
    }

    /// Returns true for the 4-bit kinds, which memory holds two to a byte along a buffer's last
    /// dimension (element 2i in the low half of byte i, 2i + 1 in the high half), as quantized
    /// weights are stored. `tile-pack-narrow-types` rewrites them into bytes before anything is
    /// laid out or lowered.
    pub fn is_packed(self) -> bool {
        self.bits() < 8
    }

    /// Returns true for the 8-bit float kinds.
    pub fn is_f8(self) -> bool {
        matches!(self, Self::F8E4M3FN | Self::F8E5M2)
    }

    /// Returns true for the floating-point kinds.
    pub fn is_float(self) -> bool {
        !matches!(self, Self::I8 | Self::I32 | Self::I4)
    }

    /// Returns the MLIR spelling of the type.
    pub fn name(self) -> &'static str {
        match self {
            Self::F16 => "f16",
            Self::BF16 => "bf16",
            Self::F32 => "f32",
            Self::F8E4M3FN => "f8E4M3FN",
            Self::F8E5M2 => "f8E5M2",
            Self::I8 => "i8",
            Self::I32 => "i32",
            Self::I4 => "i4",
            Self::F4E2M1FN => "f4E2M1FN",
        }
    }
}

impl fmt::Display for Element {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::{Context, ir::Type};

    #[test]
    fn classifies_the_contract_types() {
        let context = Context::new();
        for name in [
            "f16", "bf16", "f32", "f8E4M3FN", "f8E5M2", "i8", "i32", "i4", "f4E2M1FN",
        ] {
            let element = Element::of(Type::parse(&context, name).unwrap()).expect(name);
            assert_eq!(element.name(), name);
        }
        for name in ["f64", "i16", "index", "f8E4M3FNUZ", "f8E5M2FNUZ"] {
            assert_eq!(Element::of(Type::parse(&context, name).unwrap()), None, "{name}");
        }
        assert!(Element::BF16.is_float() && !Element::I8.is_float());
        assert!(Element::I4.is_packed() && Element::F4E2M1FN.is_packed() && !Element::I8.is_packed());
    }
}
