//! gfx942: a fragment in an mfma accumulator layout copied to a global tensor goes through LDS.
//!
//! The copy rule of the other targets stores each slot on its own behind a bounds check: 128
//! guarded 2-byte stores a thread for a 128x128 accumulator on two waves, uncoalesced (a lane's
//! slots are rows of one column), and most of what LLVM's AMDGPU back end spends its time on. Here
//! each wave writes its slots, converted, into a region of LDS of its own (its wave tile's rows one
//! after another, unguarded), then reads the region back in 16-byte runs along the rows and stores
//! each run with one vector store where it lies inside the tensor (element by element, each one
//! checked, where it reaches past an end): a loop of coalesced 16-byte stores.
//!
//! The LDS is an existing tile's that nothing uses after the copy (the main loop's operand tiles,
//! once the loop is over): no LDS is added. A tensor element wider than the tile's goes as its
//! bytes (an f32 through a 16-bit tile as two of its elements, `vector.bitcast`). Where the tile holds
//! fewer than the wave tiles, the rows go in rounds: round `w` takes the slots whose rows
//! (relative to the wave tile: the same on every wave) lie in [w d, (w + 1) d), `d` the largest
//! divisor of the wave tile's rows whose regions fit and that no slot straddles. Barriers: before
//! the first round (the tile's last readers), between a round's writes and its reads, and after
//! each round's reads (the next round's writes, and whatever follows, may reuse the LDS).

use super::*;
use melior::ir::ShapedTypeLike;
use tile_dialect::element::Element;
use tile_dialect::positions::OperationAt;
use tile_ir::{
    memref::ReinterpretCastOperation,
    tile::{AllocSharedOperation, KernelOperation},
};

/// How one copy is staged.
struct Staging<'c, 'a> {
    /// The LDS allocation it reuses.
    tile: Value<'c, 'a>,
    /// The mfma instruction and wave split of the fragment's layout.
    gemm: MfmaGemm,
    /// Rows of a wave tile a round takes.
    rows: i64,
    /// Each round's slots.
    rounds: Vec<Vec<usize>>,
    /// Elements of a run (16 bytes).
    run: i64,
    /// The LDS tile's elements a tensor element takes (its bytes are moved as they are: an f32
    /// through a 16-bit tile is two of its elements).
    ratio: i64,
}

/// The rows (relative to its wave tile) slot `slot` holds over all threads, or `None` where a
/// thread's element lies outside its wave tile (a layout the staging does not know).
fn slot_rows(from: &Placed, gemm: &MfmaGemm, slot: usize) -> Option<(i64, i64)> {
    let (rows, columns) = gemm.wave_tile();
    let mut range: Option<(i64, i64)> = None;
    for thread in 0..from.distribution.threads {
        let Some(element) = from.distribution.coordinates(thread, slot) else {
            continue;
        };
        let wave = thread / 64;
        let (row, column) = (
            element[0] - wave / gemm.waves.1 * rows,
            element[1] - wave % gemm.waves.1 * columns,
        );
        if !(0..rows).contains(&row) || !(0..columns).contains(&column) {
            return None;
        }
        range = Some(range.map_or((row, row), |(low, high)| (low.min(row), high.max(row))));
    }
    range
}

/// The rows of a wave tile a round takes and each round's slots, for a fragment laid out as `from`
/// (the mfma layout of `gemm`) staged in `capacity` elements of LDS: the largest divisor `d` of the
/// wave tile's rows whose regions (one a wave, `d` rows) fit, such that no slot's rows straddle
/// two rounds.
fn rounds(from: &Placed, gemm: &MfmaGemm, capacity: i64) -> Option<(i64, Vec<Vec<usize>>)> {
    let (wave_rows, wave_columns) = gemm.wave_tile();
    let waves = gemm.waves.0 * gemm.waves.1;
    let ranges: Vec<(usize, (i64, i64))> = from
        .distribution
        .used_slots()
        .map(|slot| slot_rows(from, gemm, slot).map(|range| (slot, range)))
        .collect::<Option<_>>()?;
    let rows = (1..=wave_rows)
        .rev()
        .filter(|rows| wave_rows % rows == 0 && waves * rows * wave_columns <= capacity)
        .find(|rows| ranges.iter().all(|(_, (low, high))| low / rows == high / rows))?;
    let mut rounds = vec![Vec::new(); (wave_rows / rows) as usize];
    for (slot, (low, _)) in ranges {
        rounds[(low / rows) as usize].push(slot);
    }
    Some((rows, rounds))
}

/// The part of slot `slot`'s place in its wave's region (rows from `first_row`, `columns` wide)
/// that does not depend on the thread: its coordinates are the thread's offsets plus the slot's
/// base, so the place is `(offset_row - row0) * columns + (offset_column - column0) + region` (the
/// thread's, made once) plus `(base_row - first_row) * columns + base_column`.
fn slot_constant(from: &Placed, slot: usize, first_row: i64, columns: i64) -> i64 {
    let base = from.distribution.base[slot].as_ref().expect("a used slot");
    (base[0] - first_row) * columns + base[1]
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// How the copy `op` of fragment `src` into global `dst` is staged, or `None` (the copy rule's
    /// slot-by-slot stores): the copy must store (an atomic one updates element by element), the
    /// fragment be in an mfma accumulator layout, the copy at the kernel's top level, and some LDS
    /// tile unused after it whose elements divide the tensor's.
    fn staging(
        &self,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &[Value<'c, 'a>],
    ) -> Option<Staging<'c, 'a>> {
        if tile_dialect::ops::copy_atomic(&op).is_some() {
            return None;
        }
        let from = placed(self.layouts, src).ok()?;
        let gemm = MfmaGemm::of_layout(&from.layout).ok()?;
        let ty = element_type(dst);
        let run = 16 / Element::of(ty)?.bytes() as i64;
        let wave_columns = gemm.wave_tile().1;
        if level(dst) != Some(MemoryLevel::Global)
            || offsets.len() < 2
            || from.layout.replicate != 1
            || wave_columns % run != 0
        {
            return None;
        }
        let block = op.block()?;
        if block
            .parent_operation()
            .is_none_or(|parent| !tile_ir::is(&parent, KernelOperation::name))
        {
            return None;
        }
        // The largest LDS tile of the tensor's element type that no op after the copy uses (the
        // tile or a view of it).
        let later: Vec<OperationRef> = std::iter::successors(op.next_in_block(), |next| next.next_in_block()).collect();
        let all: Vec<OperationRef> =
            std::iter::successors(block.first_operation(), |next| next.next_in_block()).collect();
        let mut best: Option<(Value, i64, i64)> = None;
        for &candidate in &all {
            if !tile_ir::is(&candidate, AllocSharedOperation::name) {
                continue;
            }
            let Some(result) = candidate.result_at(0) else { continue };
            let tile: Value = result.into();
            let Some(memref) = tile_dialect::ops::as_memref(tile.r#type()) else {
                continue;
            };
            let Some(bytes) = Element::of(memref.element()).map(|element| element.bytes() as i64) else {
                continue;
            };
            if (16 / run) % bytes != 0 {
                continue;
            }
            let mut values = vec![tile];
            // Its views (`crate::layout::stored`) sit beside it.
            values.extend(
                all.iter()
                    .filter(|user| {
                        tile_ir::is(*user, ReinterpretCastOperation::name) && user.operand_at(0) == Some(tile)
                    })
                    .filter_map(|view| view.result_at(0).map(Value::from)),
            );
            if later.iter().any(|user| uses(*user, &values)) {
                continue;
            }
            // Its capacity in the tensor's elements.
            let ratio = 16 / run / bytes;
            let elements = memref_shape(tile).iter().product::<i64>() / ratio;
            if best.is_none_or(|(_, most, _)| elements > most) {
                best = Some((tile, elements, ratio));
            }
        }
        let (tile, capacity, ratio) = best?;
        let (rows, rounds) = rounds(from, &gemm, capacity)?;
        Some(Staging {
            tile,
            gemm,
            rows,
            rounds,
            run,
            ratio,
        })
    }

    /// Copies fragment `src` into the global tensor `dst` (at `offsets`) through LDS (the module
    /// doc); returns false, emitting nothing, where the copy is not staged.
    pub(super) fn copy_out_staged(
        &self,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
    ) -> bool {
        let Some(staging) = self.staging(op, src, dst, offsets) else {
            return false;
        };
        let b = self.builder(&op);
        let at = At::before(op);
        let from = placed(self.layouts, src).expect("checked");
        let array = self.private(src);
        let ty = element_type(dst);
        let (wave_rows, wave_columns) = staging.gemm.wave_tile();
        let region = staging.rows * wave_columns;
        // The tile's LDS as a flat array in LDS's numbered memory space (vector loads).
        let capacity: i64 = memref_shape(staging.tile).iter().product();
        let tile_type = MemRefType::try_from(staging.tile.r#type()).expect("a tile");
        let stored = tile_type.element();
        let flat_type = MemRefType::new(stored, &[capacity], None, tile_type.memory_space());
        let array_attribute = |values: &[i64]| crate::attributes::i64_array(self.context, values);
        let flat = tile_ir::memref::reinterpret_cast(
            self.context,
            flat_type.into(),
            staging.tile,
            &[],
            &[],
            &[],
            array_attribute(&[0]),
            array_attribute(&[capacity]),
            array_attribute(&[1]),
            b.location,
        );
        // The source; no dynamic offsets, sizes or strides.
        let flat = b.value(at, tile_ir::with_segments(self.context, flat, &[1, 0, 0, 0]));
        let lds_type = crate::layout::stored::stored_type(self.context, stored, &[capacity], None);
        let lds = b.cast(at, tile_ir::memref::memory_space_cast, flat, lds_type);
        // This wave's tile and region, and the lane.
        let c = |value| b.index(at, value);
        let wave = b.divui(at, self.tid, c(64));
        let lane = b.remui(at, self.tid, c(64));
        let row0 = b.muli(at, b.divui(at, wave, c(staging.gemm.waves.1)), c(wave_rows));
        let column0 = b.muli(at, b.remui(at, wave, c(staging.gemm.waves.1)), c(wave_columns));
        let base = b.muli(at, wave, c(region));
        let offsets_now = self.offsets(&b, at, from);
        // A slot's place in this wave's region, (row - row0 - first_row) * columns + (column -
        // column0) + base, is the same for every slot but for a constant (a slot's coordinates are
        // the thread's offsets plus the slot's own constant base): the thread's part once here,
        // one addition a slot. Spelled out a slot, it was five index ops of each of the 128 slots
        // of gemm_relu's accumulator, a fifth of the kernel for every pass after it, LLVM's
        // included, to fold back into this form.
        let region_index = {
            let row = b.subi(at, offsets_now[0], row0);
            let column = b.subi(at, offsets_now[1], column0);
            let index = b.addi(at, b.muli(at, row, c(wave_columns)), column);
            b.addi(at, index, base)
        };
        // The tensor's indices of the tile's (row, column) and whether the row is inside it.
        let last = offsets.len() - 1;
        let vector = crate::attributes::vector(staging.run, ty);
        // A tensor element's bytes as the tile's elements.
        let ratio = staging.ratio;
        let as_stored = |values: i64| crate::attributes::vector(values * ratio, stored);
        let bitcast =
            |at: At<'c, 'a>, value: Value<'c, 'a>, to: Type<'c>| b.cast(at, tile_ir::vector::bitcast, value, to);
        let runs_per_row = wave_columns / staging.run;
        let runs = staging.rows * runs_per_row;
        let trips = (runs + 63) / 64;
        // The tile's last readers are done with it.
        b.barrier(at);
        for (round, slots) in staging.rounds.iter().enumerate() {
            let first_row = round as i64 * staging.rows;
            for &slot in slots {
                let inner = if from.distribution.guarded {
                    let coordinates = self.coordinates(&b, at, from, &offsets_now, slot);
                    self.guarded(&b, at, from, &coordinates)
                } else {
                    at
                };
                let constant = slot_constant(from, slot, first_row, wave_columns);
                let index = b.addi(inner, region_index, b.index(inner, constant));
                let value = self.slot_value(&b, inner, array, from, slot as i64);
                let value = convert(&b, inner, value, ty);
                if ratio == 1 {
                    b.store(inner, value, lds, &[index]);
                } else {
                    let one = crate::attributes::vector(1, ty);
                    let value = b.value(
                        inner,
                        tile_ir::vector::from_elements(self.context, one, &[value], b.location).into(),
                    );
                    let value = bitcast(inner, value, as_stored(1));
                    let index = b.muli(inner, index, b.index(inner, ratio));
                    let bytes = IntegerAttribute::new(IntegerType::new(self.context, 64).into(), 16 / staging.run);
                    b.insert(
                        inner,
                        tile_ir::vector::StoreOperation::builder(self.context, b.location)
                            .value_to_store(value)
                            .base(lds)
                            .indices(&[index])
                            .alignment(bytes)
                            .build()
                            .into(),
                    );
                }
            }
            b.barrier(at);
            // Run q = trip * 64 + lane of the region: row q / runs_per_row, its columns from
            // (q % runs_per_row) * run.
            let (zero, end, one) = (c(0), c(trips), c(1));
            let (body, trip) = b.for_loop(at, zero, end, one);
            let q = b.addi(body, b.muli(body, trip, b.index(body, 64)), lane);
            let body = if runs % 64 == 0 {
                body
            } else {
                b.if_then(body, b.compare(body, "ult", q, b.index(body, runs)))
            };
            let row = b.divui(body, q, b.index(body, runs_per_row));
            let column = b.muli(
                body,
                b.remui(body, q, b.index(body, runs_per_row)),
                b.index(body, staging.run),
            );
            let at_lds = b.addi(body, b.muli(body, row, b.index(body, wave_columns)), column);
            let at_lds = b.addi(body, at_lds, base);
            let at_lds = if ratio == 1 {
                at_lds
            } else {
                b.muli(body, at_lds, b.index(body, ratio))
            };
            let values = b.value(
                body,
                tile_ir::vector::LoadOperation::builder(self.context, b.location)
                    .result(as_stored(staging.run))
                    .base(lds)
                    .indices(&[at_lds])
                    .alignment(crate::attributes::alignment(self.context, 16))
                    .build()
                    .into(),
            );
            let values = if ratio == 1 {
                values
            } else {
                bitcast(body, values, vector)
            };
            // The tensor's indices: the offsets of the dimensions the tile does not span as they
            // are, row and column added to the others.
            let tile_row = b.addi(body, b.addi(body, row0, b.index(body, first_row)), row);
            let tile_column = b.addi(body, column0, column);
            let (indices, fits) = self.placed_in(&b, body, dst, offsets, &[tile_row, tile_column]);
            let fits = fits.expect("a global tensor's indices are checked");
            // Whole inside: its first element is (every index inside) and its last column is.
            let end = b.addi(body, indices[last], b.index(body, staging.run));
            let end_in = b.compare(body, "ule", end, b.dim(body, dst, last as i64));
            let mut whole = b.andi(body, fits, end_in);
            if let Some(inside) = offsets.within_limits(&b, body, &[tile_row, tile_column], staging.run) {
                whole = b.andi(body, whole, inside);
            }
            let fast = b.if_then(body, whole);
            b.insert(
                fast,
                tile_ir::vector::store(self.context, values, dst, &indices, b.location).into(),
            );
            // At the tensor's end: each element where it is inside.
            let yes = b.value(
                body,
                melior::dialect::arith::constant(
                    self.context,
                    IntegerAttribute::new(IntegerType::new(self.context, 1).into(), 1).into(),
                    b.location,
                ),
            );
            let slow = b.if_then(body, b.xori(body, whole, yes));
            for e in 0..staging.run {
                let (checked, inside) = self.placed_in(
                    &b,
                    slow,
                    dst,
                    offsets,
                    &[tile_row, b.addi(slow, tile_column, b.index(slow, e))],
                );
                let store = b.if_then(slow, inside.expect("checked"));
                // Its result type (the tensor's element) is inferred.
                let position = crate::attributes::i64_array(self.context, &[e]);
                let element = b.value(
                    store,
                    tile_ir::vector::extract(self.context, values, &[], position, b.location).into(),
                );
                b.store(store, element, dst, &checked);
            }
            b.barrier(at);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    /// Runs the staging's arithmetic on integers for every thread: the slots' writes into each
    /// wave's region, then the lanes' runs read back, and checks that every element of the tile
    /// lands at its own place exactly once and that the regions fit in `capacity`.
    fn stage(m: i64, n: i64, threads: i64, size: i64, capacity: i64, run: i64) -> i64 {
        let waves = crate::amdgpu::config::wave_split(threads, m, n).expect("a split").0;
        let layout = atoms::mfma_accumulator(m, n, waves, size);
        let gemm = MfmaGemm::of_layout(&layout).expect("an mfma layout");
        let from = crate::registers::Placed::of(layout).expect("placed");
        let (rows, rounds) = rounds(&from, &gemm, capacity).expect("staged");
        let (wave_rows, wave_columns) = gemm.wave_tile();
        let region = rows * wave_columns;
        let mut written = vec![0; (m * n) as usize];
        for (round, slots) in rounds.iter().enumerate() {
            let first_row = round as i64 * rows;
            let mut lds: Vec<Option<(i64, i64)>> = vec![None; capacity as usize];
            for thread in 0..threads {
                let wave = thread / 64;
                let (row0, column0) = (wave / gemm.waves.1 * wave_rows, wave % gemm.waves.1 * wave_columns);
                for &slot in slots {
                    let Some(element) = from.distribution.coordinates(thread, slot) else {
                        continue;
                    };
                    let index = wave * region + (element[0] - row0 - first_row) * wave_columns + (element[1] - column0);
                    assert!(
                        (0..capacity).contains(&index),
                        "index {index} outside the tile's {capacity}"
                    );
                    lds[index as usize] = Some((element[0], element[1]));
                }
            }
            let runs = rows * wave_columns / run;
            for thread in 0..threads {
                let (wave, lane) = (thread / 64, thread % 64);
                let (row0, column0) = (wave / gemm.waves.1 * wave_rows, wave % gemm.waves.1 * wave_columns);
                for trip in 0..(runs + 63) / 64 {
                    let q = trip * 64 + lane;
                    if q >= runs {
                        continue;
                    }
                    let (row, column) = (q / (wave_columns / run), q % (wave_columns / run) * run);
                    for e in 0..run {
                        let at = wave * region + row * wave_columns + column + e;
                        let (i, j) = (row0 + first_row + row, column0 + column + e);
                        assert_eq!(
                            lds[at as usize],
                            Some((i, j)),
                            "round {round}, thread {thread}: LDS {at} should hold ({i}, {j})"
                        );
                        written[(i * n + j) as usize] += 1;
                    }
                }
            }
        }
        assert!(written.iter().all(|count| *count == 1));
        rounds.len() as i64
    }

    #[test]
    fn staged_accumulators_reach_their_places_once() {
        // gemm_relu: 128x128 on two waves along N, the A tile's 128 x 36 f16 of LDS: 4 rounds of
        // 32 rows.
        assert_eq!(stage(128, 128, 128, 32, 128 * 36, 8), 4);
        // 128x256 on 2x2 waves in B's 256 x 68: 2 rounds; a wave's rows are its own.
        assert_eq!(stage(128, 256, 256, 32, 256 * 68, 8), 2);
        // Enough LDS for everything: one round; 16x16 tiles; f32 runs of 4.
        assert_eq!(stage(64, 64, 256, 16, 64 * 64, 8), 1);
        assert_eq!(stage(64, 64, 128, 32, 64 * 36, 4), 2);
    }

    /// The lowering's split of a slot's place into the thread's part and the slot's constant
    /// gives, for every thread and slot, the place the staging computes from the coordinates.
    #[test]
    fn slot_places_are_the_threads_part_plus_the_slots_constant() {
        for (m, n, threads, size, capacity) in [
            (128, 128, 128, 32, 128 * 36),
            (128, 256, 256, 32, 256 * 68),
            (64, 64, 256, 16, 64 * 64),
        ] {
            let waves = crate::amdgpu::config::wave_split(threads, m, n).expect("a split").0;
            let from = crate::registers::Placed::of(atoms::mfma_accumulator(m, n, waves, size)).expect("placed");
            let gemm = MfmaGemm::of_layout(&from.layout).expect("an mfma layout");
            let (rows, rounds) = rounds(&from, &gemm, capacity).expect("staged");
            let (wave_rows, wave_columns) = gemm.wave_tile();
            for thread in 0..threads {
                let wave = thread / 64;
                let (row0, column0) = (wave / gemm.waves.1 * wave_rows, wave % gemm.waves.1 * wave_columns);
                let region = wave * rows * wave_columns;
                let first_slot = *rounds.iter().flatten().next().expect("a slot");
                // The thread's offsets: its coordinates less a slot's base.
                let offsets: Vec<i64> = from
                    .distribution
                    .coordinates(thread, first_slot)
                    .expect("used")
                    .iter()
                    .zip(from.distribution.base[first_slot].as_ref().expect("used"))
                    .map(|(c, b)| c - b)
                    .collect();
                let threads_part = (offsets[0] - row0) * wave_columns + (offsets[1] - column0) + region;
                for (round, slots) in rounds.iter().enumerate() {
                    let first_row = round as i64 * rows;
                    for &slot in slots {
                        let element = from.distribution.coordinates(thread, slot).expect("used");
                        let place = (element[0] - row0 - first_row) * wave_columns + (element[1] - column0) + region;
                        assert_eq!(
                            threads_part + slot_constant(&from, slot, first_row, wave_columns),
                            place,
                            "thread {thread}, slot {slot}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn too_little_lds_is_not_staged() {
        let layout = atoms::mfma_accumulator(128, 128, (1, 2), 32);
        let gemm = MfmaGemm::of_layout(&layout).expect("an mfma layout");
        let from = crate::registers::Placed::of(layout).expect("placed");
        // Fewer than 4 rows (one 32x32 tile's rows of a lane group) of each wave fit.
        assert!(rounds(&from, &gemm, 2 * 2 * 64).is_none());
    }
}
