//! A fragment layout evaluated once on every element: each element's slot and its distinct owners,
//! in row-major order of the elements.
//!
//! Inference, the layout checks and the register lowering ask the same questions of a handful of
//! layouts for every element of a tile (who holds it, in which slot), many times per kernel; each
//! answer by [`Expr::eval`](super::Expr::eval) walks the maps' expression trees and collects the
//! owners into a fresh vector. A [`Table`] answers them by indexing. Tables are shared by the
//! threads of the process ([`PerLayout`]: made per thread, 128 tables of an 18-kernel attention
//! benchmark were 79 layouts twice), at most [`KEPT`] of them, and are equal to what evaluating the
//! layout gives by construction.

use super::{FragmentLayout, PerLayout, program::Program};
use std::sync::Arc;

/// How many tables the process keeps before it starts over (a kernel uses a handful of layouts;
/// a host that compiles many kernels must not keep every one).
const KEPT: usize = 256;

/// A layout's slot and owners, per element.
#[derive(Debug, PartialEq, Eq)]
pub struct Table {
    /// The slot of each element (row-major order).
    slots: Vec<i64>,
    /// Where each element's owners start in `owners`; one more entry than elements.
    starts: Vec<u32>,
    /// Each element's distinct owners, sorted, one element after the other.
    owners: Vec<i64>,
}

impl Table {
    fn of(layout: &FragmentLayout) -> Table {
        let total = layout.shape.iter().product::<i64>().max(0) as usize;
        let mut slots = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(total + 1);
        let mut owners = Vec::with_capacity(total);
        let mut replicas = Vec::with_capacity(layout.replicate.max(1) as usize);
        let (slot, thread) = (Program::of(&layout.slot), Program::of(&layout.thread));
        let mut stack = Vec::new();
        starts.push(0);
        layout.all_elements(|_, index| {
            slots.push(slot.eval(index, &[], &mut stack));
            replicas.clear();
            replicas.extend((0..layout.replicate).map(|replica| thread.eval(index, &[replica], &mut stack)));
            replicas.sort_unstable();
            replicas.dedup();
            owners.extend_from_slice(&replicas);
            starts.push(owners.len() as u32);
            true
        });
        Table { slots, starts, owners }
    }

    /// Returns the number of elements.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Returns whether the layout has no elements.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Returns the slot of element `linear` (its row-major number).
    pub fn slot(&self, linear: usize) -> i64 {
        self.slots[linear]
    }

    /// Returns the distinct threads that hold element `linear`, sorted.
    pub fn owners(&self, linear: usize) -> &[i64] {
        &self.owners[self.starts[linear] as usize..self.starts[linear + 1] as usize]
    }
}

/// The tables made so far.
static TABLES: PerLayout<Arc<Table>> = PerLayout::new(KEPT);

impl FragmentLayout {
    /// Returns the layout's table (made once, then shared).
    pub fn table(&self) -> Arc<Table> {
        TABLES.get_or_make(self, || Arc::new(Table::of(self)))
    }

    /// Returns the row-major number of `index`, or `None` when it lies outside the shape.
    pub fn linear(&self, index: &[i64]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut linear = 0i64;
        for (coordinate, size) in index.iter().zip(&self.shape) {
            if !(0..*size).contains(coordinate) {
                return None;
            }
            linear = linear * size + coordinate;
        }
        Some(linear as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FragmentLayout, dim, symbol};

    #[test]
    fn a_table_answers_as_the_maps_do() {
        // 16x8 over 32 threads, each element on two threads (replicas 0 and 16 apart, and one
        // replica pair landing on the same thread for the last rows).
        let layout = FragmentLayout {
            shape: vec![16, 8],
            threads: 32,
            replicate: 2,
            thread: (dim(0) + symbol(0) * 16).modulo(32).floor_div(2),
            slot: dim(1) + dim(0).modulo(2) * 8,
            origin: "test".into(),
        };
        let table = layout.table();
        assert_eq!(table.len(), 128);
        for (linear, index) in layout.elements().enumerate() {
            assert_eq!(layout.linear(&index), Some(linear));
            assert_eq!(table.slot(linear), layout.slot_of(&index));
            assert_eq!(table.owners(linear), layout.owner_set(&index));
        }
        assert_eq!(layout.linear(&[16, 0]), None);
        assert_eq!(layout.linear(&[0, -1]), None);
        // Made once.
        assert!(std::sync::Arc::ptr_eq(&table, &layout.clone().table()));
    }
}
