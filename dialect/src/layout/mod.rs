//! Layouts as typed IR: `#tile.frag` (which thread holds each element of a fragment, or runs each
//! iteration of a `tile.parallel`, and in which register slot) and `#tile.smem` (how a shared tile
//! lies in shared memory), with their Rust models.
//!
//! Invariants of a valid [`FragmentLayout`] (checked by [`FragmentLayout::check`]): every element's
//! threads lie in `0..threads`, its slot is non-negative, and no thread holds two elements in one
//! slot. The attribute itself only checks the maps' arity (its C++ verifier); the Rust verifiers of
//! the ops that carry one run the full check, since they know the shape it must have.

mod expr;
mod per_layout;
mod program;
mod table;

pub use expr::{Expr, constant, dim, symbol};
pub use per_layout::PerLayout;
pub use table::Table;

use crate::ffi;
use melior::{
    Context,
    ir::{AffineMap, Attribute, AttributeLike},
};
use mlir_sys::MlirStringRef;
use std::collections::HashMap;

/// The attribute that records a tile's layout on its allocation.
pub const LAYOUT_ATTRIBUTE: &str = "tile.layout";
/// The attribute that records which thread runs each iteration of a `tile.parallel`.
pub const LOOP_LAYOUT_ATTRIBUTE: &str = "tile.loop_layout";

/// The most register slots a fragment layout may give one thread (2^24): checked by
/// [`FragmentLayout::check`], so that `slot + 1` and the (thread, slot) table stay in range.
pub const MAX_SLOTS: i64 = 1 << 24;
/// The most (element, replica) pairs a fragment layout may have (2^24, a 128x128 fragment
/// replicated 1024 times): the layout's table evaluates the thread map for each. One number with
/// the attribute's C++ verifier, which bounds the replica count by it (`TILE_MAX_LAYOUT_OWNERS`).
pub const MAX_OWNERS: i64 = crate::ffi::TILE_MAX_LAYOUT_OWNERS as i64;

/// A fragment layout: element (or iteration) `e` is held by threads `thread(e)[r]`, `r` in
/// `0..replicate`, each in register slot `slot(e)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FragmentLayout {
    /// The fragment's shape (or the loop's extents).
    pub shape: Vec<i64>,
    /// Threads of the block.
    pub threads: i64,
    /// How many replicas each element has (the range of the thread map's symbol).
    pub replicate: i64,
    /// Element to thread (symbol `s0`: the replica).
    pub thread: Expr,
    /// Element to register slot.
    pub slot: Expr,
    /// Where the layout comes from (`wgmma.acc.m64n128`, `blocked`, `slice`, ...).
    pub origin: String,
}

impl FragmentLayout {
    /// Returns every index of the shape, in row-major order.
    pub fn elements(&self) -> impl Iterator<Item = Vec<i64>> + '_ {
        let total: i64 = self.shape.iter().product();
        (0..total).map(move |mut linear| {
            let mut index = vec![0; self.shape.len()];
            for (position, size) in self.shape.iter().enumerate().rev() {
                index[position] = linear % size;
                linear /= size;
            }
            index
        })
    }

    /// Calls `visit` with the row-major number and the index of every element, in row-major
    /// order, until it returns `false`; returns whether it never did. One buffer holds each index
    /// in turn (the tables and the loop checks walk tiles of up to 2^15 elements many times).
    pub fn all_elements(&self, mut visit: impl FnMut(usize, &[i64]) -> bool) -> bool {
        let total = self.shape.iter().product::<i64>().max(0) as usize;
        let mut index = vec![0i64; self.shape.len()];
        for linear in 0..total {
            if !visit(linear, &index) {
                return false;
            }
            for (coordinate, size) in index.iter_mut().zip(&self.shape).rev() {
                *coordinate += 1;
                if *coordinate < *size {
                    break;
                }
                *coordinate = 0;
            }
        }
        true
    }

    /// Returns the threads that hold `index` (with repeats when replicas share a thread).
    pub fn owners(&self, index: &[i64]) -> impl Iterator<Item = i64> + '_ {
        let index = index.to_vec();
        (0..self.replicate).map(move |replica| self.thread.eval(&index, &[replica]))
    }

    /// Returns the distinct threads that hold `index`, sorted.
    pub fn owner_set(&self, index: &[i64]) -> Vec<i64> {
        let mut owners: Vec<i64> = self.owners(index).collect();
        owners.sort_unstable();
        owners.dedup();
        owners
    }

    /// Returns the register slot that holds `index`.
    pub fn slot_of(&self, index: &[i64]) -> i64 {
        self.slot.eval(index, &[])
    }

    /// Returns the register slots one thread needs (the largest slot used, plus one).
    pub fn slots(&self) -> i64 {
        let table = self.table();
        (0..table.len())
            .map(|element| table.slot(element))
            .max()
            .map_or(0, |slot| slot + 1)
    }

    /// Returns whether each element is held by exactly the threads `other` holds it in (slots may
    /// differ: converting between the two is a per-thread register move).
    pub fn same_owners(&self, other: &FragmentLayout) -> bool {
        if self.shape != other.shape || self.threads != other.threads {
            return false;
        }
        if self == other {
            return true;
        }
        let (mine, theirs) = (self.table(), other.table());
        (0..mine.len()).all(|element| mine.owners(element) == theirs.owners(element))
    }

    /// Returns whether every element is in the same slot of the same threads as in `other`: the
    /// same layout, whatever form its maps are written in (a recorded layout's maps are simplified).
    pub fn same_placement(&self, other: &FragmentLayout) -> bool {
        if self == other {
            return true;
        }
        if !self.same_owners(other) {
            return false;
        }
        let (mine, theirs) = (self.table(), other.table());
        (0..mine.len()).all(|element| mine.slot(element) == theirs.slot(element))
    }

    /// Checks the layout's invariants for a fragment of `shape` on `threads` threads.
    pub fn check(&self, shape: &[i64], threads: i64) -> Result<(), String> {
        if self.shape != shape {
            return Err(format!(
                "expects a layout of shape {:?}, but got {:?}",
                shape, self.shape
            ));
        }
        if self.threads != threads {
            return Err(format!(
                "expects a layout over the block's {threads} threads, but got {}",
                self.threads
            ));
        }
        // The table below evaluates the thread map for every element and replica: bounded first, so
        // that a layout written by hand cannot ask for more owners than memory holds.
        let elements = self
            .shape
            .iter()
            .try_fold(1i64, |product, &size| product.checked_mul(size));
        if self.replicate < 1
            || elements
                .and_then(|elements| elements.checked_mul(self.replicate))
                .is_none_or(|owners| owners > MAX_OWNERS)
        {
            return Err(format!(
                "expects elements times replicas at most {MAX_OWNERS}, but got {} elements replicated {} times",
                elements.map_or("too many".to_string(), |elements| elements.to_string()),
                self.replicate
            ));
        }
        // Each element's slot and owners from the layout's table, then a (thread, slot) table of
        // element numbers: the check runs on every layout inference proposes, so it avoids hashing
        // every element (elements are named by number until a message needs their indices).
        let table = self.table();
        let index = |linear: usize| self.elements().nth(linear).unwrap_or_default();
        let mut width = 0;
        for element in 0..table.len() {
            let slot = table.slot(element);
            if slot < 0 {
                return Err(format!(
                    "expects non-negative slots, but element {:?} is in slot {slot}",
                    index(element)
                ));
            }
            // A thread's slots are its registers; a slot past this would also overflow `slot + 1`.
            if slot >= MAX_SLOTS {
                return Err(format!(
                    "expects slots below {MAX_SLOTS}, but element {:?} is in slot {slot}",
                    index(element)
                ));
            }
            if let Some(thread) = table
                .owners(element)
                .iter()
                .find(|thread| !(0..threads).contains(*thread))
            {
                return Err(format!(
                    "expects threads in 0..{threads}, but element {:?} is held by thread {thread}",
                    index(element)
                ));
            }
            width = width.max(slot + 1);
        }
        let clash = |thread: i64, slot: i64, other: usize, element: usize| {
            format!(
                "expects each thread to hold each element in a slot of its own, but thread {thread} holds {:?} and {:?} in slot {slot}",
                index(other),
                index(element)
            )
        };
        if threads.saturating_mul(width) <= 1 << 24 {
            let mut held = vec![usize::MAX; (threads * width) as usize];
            for element in 0..table.len() {
                let slot = table.slot(element);
                for thread in table.owners(element) {
                    let cell = &mut held[(thread * width + slot) as usize];
                    if *cell != usize::MAX && *cell != element {
                        return Err(clash(*thread, slot, *cell, element));
                    }
                    *cell = element;
                }
            }
        } else {
            let mut held: HashMap<(i64, i64), usize> = HashMap::new();
            for element in 0..table.len() {
                let slot = table.slot(element);
                for thread in table.owners(element) {
                    if let Some(other) = held.insert((*thread, slot), element).filter(|other| *other != element) {
                        return Err(clash(*thread, slot, other, element));
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates the `#tile.frag` attribute.
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        let rank = self.shape.len();
        let symbols = usize::from(self.replicate > 1 || self.thread.has_symbol());
        // MLIR folds what it can on the way in; simplify with the bounds before and after.
        let simplified = |expr: &Expr, symbols: &[i64]| {
            let once = expr.simplify(&self.shape, symbols);
            Expr::from_mlir(once.to_mlir(context)).simplify(&self.shape, symbols)
        };
        let thread = simplified(&self.thread, &[self.replicate]);
        let slot = simplified(&self.slot, &[]);
        let thread = AffineMap::new(context, rank, symbols, &[thread.to_mlir(context)]);
        let slot = AffineMap::new(context, rank, 0, &[slot.to_mlir(context)]);
        // SAFETY: every handle is valid for `context`; the shim returns a null attribute (and emits
        // a diagnostic) when the fields do not verify, which `from_raw` turns into a null handle
        // the caller never sees: the fields are built valid here.
        unsafe {
            Attribute::from_raw(ffi::tileShimFragmentLayoutGet(
                context.to_raw(),
                rank as isize,
                self.shape.as_ptr(),
                self.threads,
                self.replicate,
                thread.to_raw(),
                slot.to_raw(),
                string_ref(&self.origin),
            ))
        }
    }

    /// Returns the model of a `#tile.frag` attribute, or `None` for any other attribute.
    pub fn from_attribute(attribute: Attribute) -> Option<FragmentLayout> {
        let raw = attribute.to_raw();
        // SAFETY: `raw` is a valid attribute; the accessors are called only on a `#tile.frag`.
        unsafe {
            if !ffi::tileShimIsFragmentLayout(raw) {
                return None;
            }
            let rank = ffi::tileShimFragmentLayoutRank(raw);
            let shape = (0..rank).map(|dim| ffi::tileShimFragmentLayoutSize(raw, dim)).collect();
            let thread = AffineMap::from_raw(ffi::tileShimFragmentLayoutThreadMap(raw));
            let slot = AffineMap::from_raw(ffi::tileShimFragmentLayoutSlotMap(raw));
            let origin = ffi::tileShimFragmentLayoutOrigin(raw);
            Some(FragmentLayout {
                shape,
                threads: ffi::tileShimFragmentLayoutThreads(raw),
                replicate: ffi::tileShimFragmentLayoutReplicate(raw),
                thread: Expr::from_mlir(thread.result(0).ok()?),
                slot: Expr::from_mlir(slot.result(0).ok()?),
                origin: if origin.length == 0 || origin.data.is_null() {
                    String::new()
                } else {
                    String::from_utf8_lossy(std::slice::from_raw_parts(origin.data as *const u8, origin.length))
                        .into_owned()
                },
            })
        }
    }
}

/// A shared-tile layout (see `#tile.smem` in the op reference).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedLayout {
    /// Bytes of the XOR swizzle span: 0, 32, 64 or 128.
    pub swizzle: i64,
    /// Elements of padding after each row.
    pub padding: i64,
    /// Stored with the last two dimensions swapped.
    pub transposed: bool,
    /// The TMA box (rows, columns), empty without TMA.
    pub r#box: Vec<i64>,
    /// Boxes side by side.
    pub boxes: i64,
    /// Copies in a pipelined loop's ring.
    pub buffers: i64,
}

impl SharedLayout {
    /// Returns a row-major layout without swizzle, padding or boxes.
    pub fn row_major() -> SharedLayout {
        SharedLayout {
            boxes: 1,
            buffers: 1,
            ..SharedLayout::default()
        }
    }

    /// Creates the `#tile.smem` attribute.
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        // SAFETY: as in `FragmentLayout::to_attribute`.
        unsafe {
            Attribute::from_raw(ffi::tileShimSharedLayoutGet(
                context.to_raw(),
                self.swizzle,
                self.padding,
                self.transposed,
                self.r#box.len() as isize,
                self.r#box.as_ptr(),
                self.boxes,
                self.buffers,
            ))
        }
    }

    /// Returns the model of a `#tile.smem` attribute, or `None` for any other attribute.
    pub fn from_attribute(attribute: Attribute) -> Option<SharedLayout> {
        let raw = attribute.to_raw();
        // SAFETY: `raw` is a valid attribute; fields are read only from a `#tile.smem`.
        unsafe {
            if !ffi::tileShimIsSharedLayout(raw) {
                return None;
            }
            let field = |n: isize| ffi::tileShimSharedLayoutField(raw, n);
            Some(SharedLayout {
                swizzle: field(0),
                padding: field(1),
                transposed: field(2) != 0,
                r#box: (0..field(5) as isize).map(|i| field(6 + i)).collect(),
                boxes: field(3),
                buffers: field(4),
            })
        }
    }
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr() as *const _,
        length: text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        let context = Context::new();
        let registry = melior::dialect::DialectRegistry::new();
        crate::register(&registry);
        context.append_dialect_registry(&registry);
        context.load_all_available_dialects();
        context
    }

    fn accumulator() -> FragmentLayout {
        FragmentLayout {
            shape: vec![64, 16],
            threads: 128,
            replicate: 1,
            thread: dim(0).floor_div(16) * 32 + dim(0).modulo(8) * 4 + dim(1).modulo(8).floor_div(2),
            slot: dim(1).floor_div(8) * 4 + dim(0).modulo(16).floor_div(8) * 2 + dim(1).modulo(2),
            origin: "wgmma.acc.m64n16".into(),
        }
    }

    #[test]
    fn all_elements_walks_the_elements_in_order_and_stops_when_asked() {
        let mut layout = accumulator();
        layout.shape = vec![3, 2, 4];
        let mut walked = Vec::new();
        assert!(layout.all_elements(|linear, index| {
            walked.push((linear, index.to_vec()));
            true
        }));
        let expected: Vec<(usize, Vec<i64>)> = layout.elements().enumerate().collect();
        assert_eq!(walked, expected);
        let mut visits = 0;
        assert!(!layout.all_elements(|linear, _| {
            visits += 1;
            linear < 5
        }));
        assert_eq!(visits, 6);
        layout.shape = vec![2, 0];
        assert!(layout.all_elements(|_, _| panic!("a tile without elements")));
    }

    #[test]
    fn fragment_layouts_round_trip_through_their_attribute() {
        let context = context();
        let layout = accumulator();
        let attribute = layout.to_attribute(&context);
        assert!(
            attribute
                .to_string()
                .starts_with("#tile.frag<shape = [64, 16], threads = 128")
        );
        let back = FragmentLayout::from_attribute(attribute).expect("a #tile.frag");
        for index in layout.elements() {
            assert_eq!(
                back.owners(&index).collect::<Vec<_>>(),
                layout.owners(&index).collect::<Vec<_>>()
            );
            assert_eq!(back.slot_of(&index), layout.slot_of(&index));
        }
        assert_eq!(back.origin, "wgmma.acc.m64n16");
    }

    #[test]
    fn the_wgmma_accumulator_is_a_valid_layout_of_8_slots() {
        let layout = accumulator();
        assert_eq!(layout.check(&[64, 16], 128), Ok(()));
        assert_eq!(layout.slots(), 8);
    }

    #[test]
    fn two_elements_in_one_slot_of_one_thread_are_refused() {
        let layout = FragmentLayout {
            slot: constant(0),
            ..accumulator()
        };
        assert!(
            layout
                .check(&[64, 16], 128)
                .unwrap_err()
                .contains("in a slot of its own")
        );
    }

    #[test]
    fn shared_layouts_round_trip_through_their_attribute() {
        let context = context();
        let layout = SharedLayout {
            swizzle: 128,
            r#box: vec![32, 64],
            boxes: 2,
            ..SharedLayout::row_major()
        };
        let attribute = layout.to_attribute(&context);
        assert_eq!(
            attribute.to_string(),
            "#tile.smem<swizzle = 128, box = [32, 64], boxes = 2>"
        );
        assert_eq!(SharedLayout::from_attribute(attribute), Some(layout));
    }
}
