//! Host buffers in the layout the lowered code reads: dense, row-major, of one tile element type;
//! 4-bit elements two to a byte, element 2i in the low half of byte i (what
//! `tile-pack-narrow-types` makes the lowered code read).

use half::{bf16, f16};
use tile_dialect::element::Element;

/// A dense row-major buffer of `shape` elements of type `element`.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Element type.
    pub element: Element,
    /// Size of each dimension.
    pub shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl Buffer {
    /// Creates a buffer with every element set to `value` (rounded to the element type).
    pub fn filled(element: Element, shape: &[usize], value: f64) -> Self {
        let len: usize = shape.iter().product();
        let mut buffer = Self {
            element,
            shape: shape.to_vec(),
            bytes: vec![0; (len * element.bits()).div_ceil(8)],
        };
        for index in 0..len {
            buffer.set(index, value);
        }
        buffer
    }

    /// Returns the number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Returns true when the buffer has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Returns element `index` (row-major) as f64.
    pub fn get(&self, index: usize) -> f64 {
        if self.element.is_packed() {
            let code = (self.bytes[index / 2] >> (4 * (index % 2))) & 0xF;
            return match self.element {
                Element::F4E2M1FN => f4e2m1fn_to_f64(code),
                _ => ((code << 4) as i8 >> 4) as f64,
            };
        }
        let width = self.element.bytes();
        let raw = &self.bytes[index * width..(index + 1) * width];
        match self.element {
            Element::F16 => f16::from_le_bytes([raw[0], raw[1]]).to_f64(),
            Element::BF16 => bf16::from_le_bytes([raw[0], raw[1]]).to_f64(),
            Element::F32 => f32::from_le_bytes(raw.try_into().expect("4 bytes")) as f64,
            Element::I8 => raw[0] as i8 as f64,
            Element::I32 => i32::from_le_bytes(raw.try_into().expect("4 bytes")) as f64,
            Element::F8E4M3FN => f8e4m3fn_to_f64(raw[0]),
            Element::F8E5M2 => f8e5m2_to_f64(raw[0]),
            Element::I4 | Element::F4E2M1FN => unreachable!("packed above"),
        }
    }

    /// Sets element `index` (row-major) to `value`, rounded to the element type (integers wrap).
    pub fn set(&mut self, index: usize, value: f64) {
        if self.element.is_packed() {
            let code = match self.element {
                // No NaN in the format: NaN (which no widening produces) is stored as 0.
                Element::F4E2M1FN if value.is_nan() => 0,
                Element::F4E2M1FN => nearest_code(value, 16, f4e2m1fn_to_f64),
                _ => (value as i64 & 0xF) as u8,
            };
            let shift = 4 * (index % 2);
            let byte = &mut self.bytes[index / 2];
            *byte = (*byte & !(0xF << shift)) | (code << shift);
            return;
        }
        let width = self.element.bytes();
        let raw: Vec<u8> = match self.element {
            Element::F16 => f16::from_f64(value).to_le_bytes().to_vec(),
            Element::BF16 => bf16::from_f64(value).to_le_bytes().to_vec(),
            Element::F32 => (value as f32).to_le_bytes().to_vec(),
            Element::I8 => vec![value as i8 as u8],
            Element::I32 => (value as i32).to_le_bytes().to_vec(),
            Element::F8E4M3FN if value.is_nan() => vec![0x7F],
            Element::F8E4M3FN => vec![nearest_code(value, 256, f8e4m3fn_to_f64)],
            Element::F8E5M2 if value.is_nan() => vec![0x7E],
            Element::F8E5M2 if value.is_infinite() => vec![if value > 0.0 { 0x7C } else { 0xFC }],
            Element::F8E5M2 => vec![nearest_code(value, 256, f8e5m2_to_f64)],
            Element::I4 | Element::F4E2M1FN => unreachable!("packed above"),
        };
        self.bytes[index * width..(index + 1) * width].copy_from_slice(&raw);
    }

    /// Returns the shape the lowered code sees: 4-bit elements as the bytes that hold them (the
    /// last dimension halved).
    pub fn stored_shape(&self) -> Vec<usize> {
        let mut shape = self.shape.clone();
        if self.element.is_packed()
            && let Some(last) = shape.last_mut()
        {
            *last = last.div_ceil(2);
        }
        shape
    }

    /// Returns the raw bytes (little-endian elements, row-major), as a device receives them.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// Returns the data pointer handed to the lowered code.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }
}

fn f8e4m3fn_to_f64(bits: u8) -> f64 {
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let exponent = ((bits >> 3) & 0xF) as i32;
    let mantissa = (bits & 0x7) as f64;
    if exponent == 0xF && bits & 0x7 == 0x7 {
        return f64::NAN;
    }
    if exponent == 0 {
        sign * mantissa / 8.0 * 2f64.powi(-6)
    } else {
        sign * (1.0 + mantissa / 8.0) * 2f64.powi(exponent - 7)
    }
}

/// The value of an f8E5M2 code: the top byte of an f16.
fn f8e5m2_to_f64(bits: u8) -> f64 {
    f16::from_bits(u16::from(bits) << 8).to_f64()
}

/// The value of an f4E2M1FN code: sign, two exponent bits (bias 1), one mantissa bit.
fn f4e2m1fn_to_f64(code: u8) -> f64 {
    let sign = if code & 0x8 != 0 { -1.0 } else { 1.0 };
    let exponent = ((code >> 1) & 0x3) as i32;
    let mantissa = (code & 0x1) as f64;
    if exponent == 0 {
        sign * mantissa / 2.0
    } else {
        sign * (1.0 + mantissa / 2.0) * 2f64.powi(exponent - 1)
    }
}

/// The code of `codes` whose value (by `decode`) is nearest to `value`, NaN codes left out: slow,
/// simple, exact.
fn nearest_code(value: f64, codes: u16, decode: fn(u8) -> f64) -> u8 {
    (0..codes)
        .map(|code| code as u8)
        .filter(|code| !decode(*code).is_nan())
        .min_by(|a, b| {
            let da = (decode(*a) - value).abs();
            let db = (decode(*b) - value).abs();
            da.total_cmp(&db)
        })
        .unwrap_or(0)
}

/// A seeded generator of inputs (xorshift64*): the same seed gives the same inputs everywhere.
pub struct Random(u64);

impl Random {
    /// Creates a generator; seed 0 is replaced by a fixed non-zero state.
    pub fn new(seed: u64) -> Self {
        Self(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// Returns a value uniform in [-1, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        bits as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}
