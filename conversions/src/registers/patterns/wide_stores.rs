//! 16-byte stores of an accumulator into a global tensor (epilogues), where its layout gives each
//! lane of a quad neighbouring columns of a row (the wgmma accumulator's).
//!
//! In the accumulator's layout the 4 lanes of a quad hold one row's block of 8 columns, two
//! neighbouring columns each; 16 bytes are 8 16-bit or 4 f32 elements, so G = 4 (16-bit results)
//! or 2 (f32) neighbouring lanes trade. Stored as they lie, one warp store instruction writes 8
//! rows of 4 or 8 bytes a lane, and an epilogue issues one instruction per pair: the per-op GEMM's
//! epilogue spent most of its stalls waiting on the store queue (ncu, RESULTS run 65). Here the G
//! lanes first trade pairs (G - 1 shuffles a word) so that lane t holds its G lanes' part of block
//! t of G neighbouring blocks of the row (f16: all of it; f32: the half its higher lane bit picks),
//! 16 contiguous bytes that it writes with one store: a quarter of the store instructions for
//! 16-bit results (half for f32), each filling whole sectors.
//!
//! The exchange is a transpose within the group: lane t's pair j goes to lane j's position t. In
//! round r (1 <= r < G) lane t sends its pair t ^ r to lane t ^ r and receives that lane's pair t;
//! which register is sent depends on the lane, so it is chosen with selects.

use super::*;

/// Groups of `lanes` pair slots (see `column_pairs`) of `placed` that one lane group turns into
/// 16-byte runs, with the columns between two pairs of a lane: the pairs hold the same row, one in
/// each of `lanes` neighbouring blocks, in block order. A block is what the lanes whose index bits
/// move along the columns by 2, 4, ... hold together (8 columns of a wgmma accumulator: 4 lanes);
/// the low log2(`lanes`) of those bits trade. Empty where the layout does not spread its columns
/// so.
pub(crate) fn runs(placed: &Placed, lanes: i64) -> (Vec<Vec<usize>>, i64) {
    let distribution = &placed.distribution;
    let low_bits = lanes.trailing_zeros();
    if placed.layout.shape.len() != 2 || distribution.guarded || !matches!(lanes, 2 | 4) {
        return (Vec::new(), 0);
    }
    let (rows, columns) = (&distribution.terms[0], &distribution.terms[1]);
    // Lane bits 0, 1, ... that move along the columns by 2, 4, ...: a block is 2 << (their count).
    let spread = (0..).take_while(|bit| columns.contains(&(*bit, 2 << bit))).count() as u32;
    let block = 2i64 << spread;
    // The trading lanes share their rows, and every other column term keeps a run on 16 bytes.
    let rows_apart = rows.iter().all(|(bit, _)| *bit >= low_bits);
    let aligned = columns
        .iter()
        .all(|(bit, delta)| *bit < low_bits || delta % (2 * lanes) == 0);
    if spread < low_bits || !rows_apart || !aligned {
        return (Vec::new(), 0);
    }
    let mut pairs: Vec<(i64, i64, usize)> = column_pairs(placed)
        .into_iter()
        .filter_map(|slot| {
            let base = distribution.base[slot].as_ref()?;
            (base[1] % block == 0).then_some((base[0], base[1], slot))
        })
        .collect();
    pairs.sort();
    let mut groups = Vec::new();
    let mut current: Vec<(i64, i64, usize)> = Vec::new();
    for pair in pairs {
        let follows = current
            .last()
            .is_some_and(|last| last.0 == pair.0 && last.1 + block == pair.1);
        if !follows {
            current.clear();
        }
        current.push(pair);
        if current.len() as i64 == lanes {
            groups.push(current.drain(..).map(|(_, _, slot)| slot).collect());
        }
    }
    (groups, block)
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// Stores the [`runs`] of the fragment `from` (its array `array`) into the global tensor `dst`
    /// at `offsets` as 16-byte stores, where the run lies inside the tensor and is aligned;
    /// element by element otherwise. Returns the slots stored.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store_runs(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        from: &Placed,
        array: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        offsets_now: &[Value<'c, 'a>],
    ) -> BTreeSet<usize> {
        let ty = element_type(dst);
        let Some(bytes) = super::stored_bytes(ty) else {
            return BTreeSet::new();
        };
        let lanes = 16 / (2 * bytes);
        let wanted = level(dst) == Some(MemoryLevel::Global)
            && from.layout.origin.starts_with("wgmma.acc")
            && offsets.len() >= 2
            && self.shuffles.is_some();
        let (groups, block) = if wanted { runs(from, lanes) } else { (Vec::new(), 0) };
        if groups.is_empty() {
            return BTreeSet::new();
        }
        let run = 2 * lanes;
        let last = offsets.len() - 1;
        let i32_type: Type<'c> = IntegerType::new(self.context, 32).into();
        // Runs start on block boundaries of the tile.
        let aligned = super::runs_aligned(b, at, dst, offsets, run);
        // The lane's place in its group, and one flag per place.
        let lane = b.andi(at, self.tid, b.index(at, lanes - 1));
        let is_lane: Vec<Value> = (0..lanes)
            .map(|place| b.compare(at, "eq", lane, b.index(at, place)))
            .collect();
        // Of `values` (one per place), the one whose place satisfies `chosen`.
        let pick = |values: &[Vec<Value<'c, 'a>>], chosen: &dyn Fn(usize) -> Value<'c, 'a>| -> Vec<Value<'c, 'a>> {
            let mut picked = values[0].clone();
            for (place, words) in values.iter().enumerate().skip(1) {
                let condition = chosen(place);
                picked = picked
                    .iter()
                    .zip(words)
                    .map(|(other, word)| b.select(at, condition, *word, *other))
                    .collect();
            }
            picked
        };
        let run_type = crate::attributes::vector(run as i64, ty);
        let mut stored = BTreeSet::new();
        for group in groups {
            // Each pair as 32-bit words: a 16-bit pair packed in one, an f32 pair in two.
            let words: Vec<Vec<Value>> = group
                .iter()
                .map(|slot| {
                    let pair: Vec<Value> = [*slot, slot + 1]
                        .iter()
                        .map(|s| convert(b, at, self.slot_value(b, at, array, from, *s as i64), ty))
                        .collect();
                    self.words(b, at, &pair, bytes, i32_type)
                })
                .collect();
            // got[r]: lane (t ^ r)'s pair t; got[0] is the lane's own.
            let mut got = vec![pick(&words, &|place| is_lane[place])];
            for round in 1..lanes as usize {
                let sent = pick(&words, &|place| is_lane[place ^ round]);
                got.push(
                    sent.iter()
                        .map(|word| self.shuffle_xor(b, at, *word, round as i64, self.shuffles.unwrap_or(32)))
                        .collect(),
                );
            }
            // Position u of the run holds lane u's pair t, which came in round u ^ t.
            let ordered: Vec<Value> = (0..lanes as usize)
                .flat_map(|position| pick(&got, &|round| is_lane[position ^ round]))
                .collect();
            let word_vector =
                crate::attributes::vector(ordered.len() as i64, IntegerType::new(self.context, 32).into());
            let packed = b.value(
                at,
                tile_ir::vector::from_elements(self.context, word_vector, &ordered, b.location).into(),
            );
            let values = b.cast(at, tile_ir::vector::bitcast, packed, run_type);
            // Lane t's run starts where its own pair of block t would: its column in the group's
            // first block (block start + 2 t + the rest), moved t blocks on and back by 2 t.
            let coordinates = self.coordinates(b, at, from, offsets_now, group[0]);
            let stretch = b.muli(at, lane, b.index(at, block - 2));
            let start = [coordinates[0], b.addi(at, coordinates[1], stretch)];
            let (indices, fits) = self.placed_in(b, at, dst, offsets, &start);
            let end = b.addi(at, indices[last], b.index(at, run));
            let mut whole = b.andi(at, aligned, b.compare(at, "ule", end, b.dim(at, dst, last as i64)));
            if let Some(inside) = offsets.within_limits(b, at, &start, run) {
                whole = b.andi(at, whole, inside);
            }
            if let Some(fits) = fits {
                whole = b.andi(at, whole, fits);
            }
            let (fast, slow) = b.if_else(at, whole);
            b.insert(
                fast,
                tile_ir::vector::StoreOperation::builder(self.context, b.location)
                    .value_to_store(values)
                    .base(dst)
                    .indices(&indices)
                    .alignment(crate::attributes::alignment(self.context, 16))
                    .build()
                    .into(),
            );
            // Misaligned, or reaching past the tensor's end: each element where it is inside.
            for element in 0..run {
                let column = b.addi(slow, start[1], b.index(slow, element));
                let position = crate::attributes::i64_array(self.context, &[element as i64]);
                // Its result type (`ty`, the run's element) is inferred.
                self.store_clipped(b, slow, dst, offsets, &[start[0], column], |store_at| {
                    b.value(
                        store_at,
                        tile_ir::vector::extract(self.context, values, &[], position, b.location).into(),
                    )
                });
            }
            stored.extend(group.iter().flat_map(|slot| [*slot, slot + 1]));
        }
        stored
    }

    /// A pair of `bytes`-byte values as 32-bit words.
    pub(crate) fn words(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        pair: &[Value<'c, 'a>],
        bytes: i64,
        i32_type: Type<'c>,
    ) -> Vec<Value<'c, 'a>> {
        if bytes == 4 {
            return pair
                .iter()
                .map(|value| {
                    if value.r#type() == i32_type {
                        *value
                    } else {
                        b.cast(at, tile_ir::arith::bitcast, *value, i32_type)
                    }
                })
                .collect();
        }
        let pair_type = crate::attributes::vector(2, pair[0].r#type());
        let vector = b.value(
            at,
            tile_ir::vector::from_elements(self.context, pair_type, pair, b.location).into(),
        );
        let word = b.cast(
            at,
            tile_ir::vector::bitcast,
            vector,
            crate::attributes::vector(1, IntegerType::new(self.context, 32).into()),
        );
        // The word's type (`i32_type`) is inferred.
        let first = crate::attributes::i64_array(self.context, &[0]);
        vec![b.value(
            at,
            tile_ir::vector::extract(self.context, word, &[], first, b.location).into(),
        )]
    }
}
