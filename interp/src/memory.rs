//! Buffers: dense row-major arrays of one element type, at one memory level.
//!
//! Invariants:
//! - every element is stored exactly as its type holds it (floats rounded to nearest even, integers
//!   wrapped), in an f64: buffers only hold types whose values f64 represents exactly (floats, and
//!   integers of at most 32 bits);
//! - an index is checked against the runtime shape before every access; a miss is reported by the
//!   caller with the op, never read or written;
//! - a fresh on-chip buffer holds NaN (floats) or 0 (integers): the contract leaves it undefined, so
//!   a float read before a write shows as NaN in the output;
//! - every buffer knows which of its elements were written (one bit each, see [`Written`]): a
//!   fresh allocation has none, a host buffer all of them; the machine reports a read of an element
//!   never written as undefined behaviour at the reading op ([`crate::Error::UndefinedRead`]).

use crate::error::Site;
use crate::ir::MemType;
use crate::scalar::{Scalar, Val, wrap};
use std::rc::Rc;

/// Which elements of a buffer were written: one bit per element, and how many are still unwritten
/// (zero for a fully written buffer, whose checks then cost one comparison).
#[derive(Clone, Debug, Default)]
pub struct Written {
    bits: Vec<u64>,
    unwritten: usize,
}

impl Written {
    /// None of `len` elements written (a fresh allocation).
    pub fn none(len: usize) -> Self {
        Self {
            bits: vec![0; len.div_ceil(64)],
            unwritten: len,
        }
    }

    /// Returns true when element `position` was written.
    pub fn get(&self, position: usize) -> bool {
        self.unwritten == 0 || self.bits[position / 64] >> (position % 64) & 1 == 1
    }

    /// Marks element `position` written.
    pub fn set(&mut self, position: usize) {
        if self.unwritten == 0 {
            return;
        }
        let (word, bit) = (position / 64, 1u64 << (position % 64));
        if self.bits[word] & bit == 0 {
            self.bits[word] |= bit;
            self.unwritten -= 1;
            if self.unwritten == 0 {
                self.bits = Vec::new();
            }
        }
    }

    /// Returns the first element of `0..len` never written, if any.
    pub fn first_unwritten(&self, len: usize) -> Option<usize> {
        if self.unwritten == 0 {
            return None;
        }
        (0..len).find(|position| !self.get(*position))
    }
}

/// Where a buffer lives; only global buffers clip the tiles copied across their end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Device memory: the host function's arguments (and host allocations).
    Global,
    /// The shared memory of one block (`tile.alloc_shared`).
    Shared,
    /// Registers of one block (`tile.alloc_fragment`).
    Fragment,
    /// A private allocation in a kernel (`memref.alloca`/`memref.alloc` in a body).
    Local,
}

/// One buffer.
#[derive(Clone, Debug)]
pub struct Buf {
    /// Element type.
    pub element: Scalar,
    /// Runtime sizes.
    pub shape: Vec<usize>,
    /// Row-major strides, in elements.
    pub strides: Vec<usize>,
    /// The elements.
    pub data: Vec<f64>,
    /// The error bound of each float element ([`crate::bound`]); 0 for integers.
    pub bound: Vec<f64>,
    /// Where it lives.
    pub level: Level,
    /// Its memref type, for messages.
    pub text: Rc<str>,
    /// Which elements were written since it was allocated.
    pub written: Written,
    /// The op that allocated it (`None` for a host buffer), for messages.
    pub origin: Option<Rc<Site>>,
}

impl Buf {
    /// Creates a buffer of `type` with runtime `shape` allocated by `origin`, every element NaN (or
    /// 0 for integers) and unwritten.
    pub fn new(r#type: &MemType, shape: Vec<usize>, level: Level, origin: Rc<Site>) -> Self {
        let poison = if matches!(r#type.element, Scalar::Float(_)) {
            f64::NAN
        } else {
            0.0
        };
        let mut buffer = Self::with_data(r#type, shape, level, poison);
        buffer.written = Written::none(buffer.data.len());
        buffer.origin = Some(origin);
        buffer
    }

    fn with_data(r#type: &MemType, shape: Vec<usize>, level: Level, fill: f64) -> Self {
        let mut strides = vec![1; shape.len()];
        for dim in (0..shape.len().saturating_sub(1)).rev() {
            strides[dim] = strides[dim + 1] * shape[dim + 1];
        }
        Self {
            element: r#type.element,
            data: vec![fill; shape.iter().product()],
            bound: vec![0.0; shape.iter().product()],
            shape,
            strides,
            level,
            text: r#type.text.clone(),
            written: Written::default(),
            origin: None,
        }
    }

    /// Creates a global buffer of `type` holding `data` (row-major, already in the element type).
    pub fn global(r#type: &MemType, shape: Vec<usize>, data: Vec<f64>) -> Self {
        let mut buffer = Self::with_data(r#type, shape, Level::Global, 0.0);
        buffer.data = data;
        for position in 0..buffer.data.len() {
            let value = buffer.load(position);
            buffer.store(position, value);
        }
        // Host inputs are exact: what they hold is what every target reads.
        buffer.bound.fill(0.0);
        buffer
    }

    /// Returns the row-major position of `index`, or `None` when it is outside the buffer.
    pub fn position(&self, index: &[i64]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut position = 0;
        for ((&i, &size), &stride) in index.iter().zip(&self.shape).zip(&self.strides) {
            if i < 0 || i as usize >= size {
                return None;
            }
            position += i as usize * stride;
        }
        Some(position)
    }

    /// Returns the element at `position`.
    pub fn load(&self, position: usize) -> Val {
        let x = self.data[position];
        match self.element {
            Scalar::Float(_) => Val::F(x, self.bound[position]),
            _ => Val::I(x as i64, self.bound[position]),
        }
    }

    /// Returns true when element `position` was written since the buffer was allocated (always for
    /// a host buffer).
    pub fn is_written(&self, position: usize) -> bool {
        self.written.get(position)
    }

    /// Returns the row-major index of `position`.
    pub fn index_of(&self, position: usize) -> Vec<i64> {
        self.strides
            .iter()
            .zip(&self.shape)
            .map(|(stride, size)| ((position / stride) % size.max(&1)) as i64)
            .collect()
    }

    /// Stores `value` at `position`, rounded to the element type, and marks it written.
    pub fn store(&mut self, position: usize, value: Val) {
        self.written.set(position);
        let (stored, bound) = match (self.element, value) {
            (Scalar::Float(float), Val::F(x, e)) => {
                let r = float.round(x);
                (r, crate::bound::stored(float, x, e, r))
            }
            (Scalar::Int(width), Val::I(x, d)) => (wrap(x, width) as f64, d),
            (Scalar::Float(float), Val::I(x, d)) => {
                let r = float.round(x as f64);
                (r, d + crate::bound::rounding(float, r))
            }
            (Scalar::Int(width), Val::F(x, e)) => (wrap(x as i64, width) as f64, e),
            _ => (f64::NAN, 0.0),
        };
        self.data[position] = stored;
        self.bound[position] = bound;
    }

    /// Returns the type, with the runtime shape when it has dynamic sizes.
    pub fn describe(&self) -> String {
        if self.text.contains('?') {
            let sizes: Vec<String> = self.shape.iter().map(usize::to_string).collect();
            format!("{} (sizes {})", self.text, sizes.join("x"))
        } else {
            self.text.to_string()
        }
    }
}

/// Calls `visit` with every index of `shape` in row-major order (once for rank 0).
pub fn for_each_index(shape: &[usize], mut visit: impl FnMut(&[usize]) -> crate::Result<()>) -> crate::Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        visit(&index)?;
        let mut dim = shape.len();
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < shape[dim] {
                break;
            }
            index[dim] = 0;
        }
    }
}
