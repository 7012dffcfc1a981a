//! Where a thread finds its elements: a fragment layout read backwards, as code can compute it.
//!
//! For a layout over `threads` threads, slot `s` of thread `t` holds the element whose coordinate
//! `d` is `base[s][d] + Σ_b bit_b(t) · delta[d][b]`: a constant per slot plus a sum over the bits
//! of the thread index that does not depend on the slot. Every layout the inference builds has this
//! form (instruction layouts split their coordinates over disjoint bits of the lane and warp
//! indices; blocked layouts place chunk `c` on thread `c mod threads`), and it is checked here on
//! every (thread, slot) pair by enumeration, so code built from it holds exactly what the layout
//! says. A slot some threads do not use gets the same formula; there it must land outside the
//! tile, so that a bounds guard skips it.

use tile_dialect::layout::{FragmentLayout, PerLayout};

/// A layout read backwards: the element each (thread, slot) holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    /// The layout's shape.
    pub shape: Vec<i64>,
    /// Per slot: the coordinates thread 0 finds there (`None`: no thread uses the slot).
    pub base: Vec<Option<Vec<i64>>>,
    /// Per coordinate: `(bit, delta)` terms of the thread index.
    pub terms: Vec<Vec<(u32, i64)>>,
    /// Some thread leaves a used slot empty: code must check the coordinates against the shape.
    pub guarded: bool,
    /// Threads of the block.
    pub threads: i64,
}

impl Distribution {
    /// Returns the coordinates thread `thread` finds in `slot` (by the formula).
    pub fn coordinates(&self, thread: i64, slot: usize) -> Option<Vec<i64>> {
        let mut coordinates = Vec::new();
        self.coordinates_into(thread, slot, &mut coordinates)
            .then_some(coordinates)
    }

    /// Writes the coordinates thread `thread` finds in `slot` into `coordinates`; returns `false`
    /// (leaving it empty) when no thread uses the slot. For the checks that ask every thread.
    pub fn coordinates_into(&self, thread: i64, slot: usize, coordinates: &mut Vec<i64>) -> bool {
        coordinates.clear();
        let Some(Some(base)) = self.base.get(slot) else {
            return false;
        };
        coordinates.extend(base.iter().zip(&self.terms).map(|(base, terms)| {
            base + terms
                .iter()
                .map(|(bit, delta)| ((thread >> bit) & 1) * delta)
                .sum::<i64>()
        }));
        true
    }

    /// Returns the slots some thread uses.
    pub fn used_slots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.base.len()).filter(|slot| self.base[*slot].is_some())
    }

    fn inside(&self, coordinates: &[i64]) -> bool {
        coordinates
            .iter()
            .zip(&self.shape)
            .all(|(c, size)| (0..*size).contains(c))
    }
}

/// Returns the bits of a thread index below `threads`.
fn thread_bits(threads: i64) -> u32 {
    64 - (threads.max(1) - 1).leading_zeros()
}

/// Layouts already read backwards: a kernel's fragments share a handful of layouts, which the
/// planning and the lowering each read, and so do the kernels of a program.
static READ: PerLayout<Result<Distribution, String>> = PerLayout::new(256);

/// Reads `layout` backwards, or says why its elements cannot be found by a per-slot constant plus
/// a per-thread offset.
pub fn distribute(layout: &FragmentLayout) -> Result<Distribution, String> {
    READ.get_or_make(layout, || read_backwards(layout))
}

/// The element each (thread, slot) holds, by number.
struct Held<'t> {
    numbers: &'t [usize],
    /// Every element's coordinates, one after the other (`rank` each).
    elements: &'t [i64],
    rank: usize,
    slots: usize,
    threads: i64,
}

impl<'t> Held<'t> {
    fn get(&self, thread: i64, slot: usize) -> Option<&'t [i64]> {
        if !(0..self.threads).contains(&thread) || slot >= self.slots {
            return None;
        }
        let number = self.numbers[thread as usize * self.slots + slot];
        (number != usize::MAX).then(|| &self.elements[number * self.rank..(number + 1) * self.rank])
    }
}

fn read_backwards(layout: &FragmentLayout) -> Result<Distribution, String> {
    let slots = layout.slots() as usize;
    let threads = layout.threads;
    // (thread, slot) -> element, as a dense table of element numbers (the layout's table gives each
    // element's slot and owners; a layout that fails `check` has already been refused, but threads
    // or slots outside the table's range are skipped rather than trusted).
    let rank = layout.shape.len();
    let mut elements = Vec::with_capacity(layout.shape.iter().product::<i64>().max(0) as usize * rank);
    layout.all_elements(|_, index| {
        elements.extend_from_slice(index);
        true
    });
    let table = layout.table();
    let mut numbers = vec![usize::MAX; threads.max(0) as usize * slots];
    for number in 0..table.len() {
        let slot = table.slot(number);
        for &thread in table.owners(number) {
            if (0..threads).contains(&thread) && (0..slots as i64).contains(&slot) {
                numbers[thread as usize * slots + slot as usize] = number;
            }
        }
    }
    let held = Held {
        numbers: &numbers,
        elements: &elements,
        rank,
        slots,
        threads,
    };
    let bits = thread_bits(threads);
    let mut base = vec![None; slots];
    let mut terms: Option<Vec<Vec<(u32, i64)>>> = None;
    for (slot, entry) in base.iter_mut().enumerate() {
        if !(0..threads).any(|thread| held.get(thread, slot).is_some()) {
            continue;
        }
        let Some(origin) = held.get(0, slot) else {
            return Err(format!("thread 0 does not use slot {slot}, which other threads use"));
        };
        *entry = Some(origin.to_vec());
        if terms.is_none() {
            let mut found = vec![Vec::new(); rank];
            for bit in 0..bits {
                let Some(other) = held.get(1 << bit, slot) else {
                    // A thread past the elements (32 of them on 128 threads): this bit moves a
                    // thread past the tile's first dimension, where the bounds guard skips it
                    // (checked below for every thread).
                    if rank > 0 && (1i64 << bit) < threads {
                        found[0].push((bit, layout.shape[0]));
                        continue;
                    }
                    return Err(format!("thread {} does not use slot {slot}", 1 << bit));
                };
                for d in 0..rank {
                    let delta = other[d] - origin[d];
                    if delta != 0 {
                        found[d].push((bit, delta));
                    }
                }
            }
            terms = Some(found);
        }
    }
    let distribution = Distribution {
        shape: layout.shape.clone(),
        base,
        terms: terms.unwrap_or_else(|| vec![Vec::new(); rank]),
        guarded: false,
        threads,
    };
    let mut guarded = false;
    let mut formula = Vec::with_capacity(rank);
    for slot in distribution.used_slots() {
        for thread in 0..threads {
            distribution.coordinates_into(thread, slot, &mut formula);
            match held.get(thread, slot) {
                Some(element) if *element == formula[..] => {}
                Some(element) => {
                    return Err(format!(
                        "thread {thread} holds {element:?} in slot {slot}, not the {formula:?} a per-thread offset gives"
                    ));
                }
                None if distribution.inside(&formula) => {
                    return Err(format!(
                        "thread {thread} leaves slot {slot} empty, but the offset lands inside the tile"
                    ));
                }
                None => guarded = true,
            }
        }
    }
    Ok(Distribution {
        guarded,
        ..distribution
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    #[test]
    fn the_wgmma_accumulator_is_lane_and_warp_bits() {
        let distribution = distribute(&atoms::wgmma_accumulator(64, 16, 1)).expect("distributes");
        assert!(!distribution.guarded);
        // Rows: lane / 4 (bits 2..4) and 16 per warp (bits 5, 6); columns: 2 (lane % 4).
        assert_eq!(distribution.terms[0], vec![(2, 1), (3, 2), (4, 4), (5, 16), (6, 32)]);
        assert_eq!(distribution.terms[1], vec![(0, 2), (1, 4)]);
        assert_eq!(distribution.base[3], Some(vec![8, 1]));
        assert_eq!(distribution.coordinates(37, 4), Some(vec![17, 2 + 8]));
    }

    #[test]
    fn a_ragged_blocked_layout_is_guarded() {
        let distribution = distribute(&atoms::blocked(&[100], 32)).expect("distributes");
        assert!(distribution.guarded);
        let distribution = distribute(&atoms::blocked(&[64, 128], 128)).expect("distributes");
        assert!(!distribution.guarded);
        assert_eq!(distribution.used_slots().count(), 64);
        // Fewer elements than threads: threads 32 to 127 hold nothing, and their offsets land past
        // the tile's end.
        let distribution = distribute(&atoms::blocked(&[32], 128)).expect("distributes");
        assert!(distribution.guarded);
        assert_eq!(distribution.coordinates(5, 0), Some(vec![5]));
        assert_eq!(distribution.coordinates(37, 0), Some(vec![37]));
        assert_eq!(distribution.coordinates(96, 0), Some(vec![64]));
    }

    #[test]
    fn instruction_and_slice_layouts_distribute() {
        for layout in [
            atoms::mfma_accumulator(128, 128, (2, 2), 32),
            atoms::mfma_accumulator(64, 64, (2, 2), 16),
            atoms::wgmma_accumulator(128, 256, 2),
            atoms::project(&atoms::wgmma_accumulator(64, 64, 1), &[0]),
            atoms::project(&atoms::blocked(&[64, 128], 128), &[0]),
        ] {
            distribute(&layout).unwrap_or_else(|error| panic!("{}: {error}", layout.origin));
        }
    }
}
