//! The quad exchange (sm_90a): an f32 wgmma accumulator copied into the 8-bit float fragment that
//! the next wgmma reads as its A operand from registers (FlashAttention-3's fp8 P), in place of a
//! trip through a shared tile, its async-proxy fence and its barrier.
//!
//! In each 32-column k-step a lane of quad position `d` holds, of rows `r` and `r + 8`, the
//! accumulator's columns `2d, 2d + 1` of each 8-column block, and needs the A operand's columns
//! `4d .. 4d + 3` of each 16 ([`crate::layout::atoms::wgmma_a8_operand`]): columns 0-7 of a block
//! lie on lanes 0-3 in pairs, so lane `d` takes one pair from lane `2 (d % 2)` and one from lane
//! `2 (d % 2) + 1`, both of block `d / 2`. Each lane rounds its pairs to 8 bits and packs a 16-column
//! half of a row into a word (block 0's pair low, block 1's high); two shuffles a half then carry
//! words of both rows: in the first a lane reads lane `σ(d)` (`d`'s two bits swapped), in the
//! second lane `σ(d) ^ 1`. Each of those is a permutation of the quad, so the sending lane knows
//! its reader and sends the half of its two row words that reader needs (a byte permute); the
//! reader puts the two pairs it got in column order (another).

use super::*;
use crate::registers::patterns::packed_words::byte_permute;
use crate::small_floats::lane_of as lane;

/// Whether `op` copies a whole f32 wgmma accumulator into the 8-bit float A operand of a wgmma
/// ([`crate::layout::atoms::quad_exchange`]): the copy this rule lowers.
pub(super) fn quad_exchange(op: &OperationRef, layouts: &Layouts) -> bool {
    let Some(parts) = copy_parts(op) else { return false };
    let whole = parts.src_offsets.is_empty() && parts.dst_offsets.is_empty();
    let fragments = level(parts.src) == Some(MemoryLevel::Fragment) && level(parts.dst) == Some(MemoryLevel::Fragment);
    let (Ok(from), Ok(to)) = (placed(layouts, parts.src), placed(layouts, parts.dst)) else {
        return false;
    };
    whole
        && fragments
        && element_type(parts.src).is_f32()
        && tile_dialect::element::Element::of(element_type(parts.dst)).is_some_and(|element| element.is_f8())
        && crate::layout::atoms::quad_exchange(&from.layout, &to.layout)
}

/// The 32-bit word whose bytes are the four 8-bit values `bytes`, the first lowest.
pub(super) fn word_of_bytes<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, bytes: &[Value<'c, 'a>]) -> Value<'c, 'a> {
    let i32_type: Type = IntegerType::new(b.context, 32).into();
    let built = crate::attributes::vector(bytes.len() as i64, bytes[0].r#type());
    let vector_of = b.value(at, vector::from_elements(b.context, built, bytes, b.location).into());
    let word = b.cast(
        at,
        tile_ir::vector::bitcast,
        vector_of,
        crate::attributes::vector(1, i32_type),
    );
    lane(b, at, word, 0)
}

/// The four 8-bit values of `element` in `word`, the lowest first.
fn bytes_of_word<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    word: Value<'c, 'a>,
    element: Type<'c>,
) -> Vec<Value<'c, 'a>> {
    let one = b.value(
        at,
        vector::from_elements(
            b.context,
            crate::attributes::vector(1, word.r#type()),
            &[word],
            b.location,
        )
        .into(),
    );
    let bytes = b.cast(at, tile_ir::vector::bitcast, one, crate::attributes::vector(4, element));
    (0..4).map(|byte| lane(b, at, bytes, byte)).collect()
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// Lowers a [`quad_exchange`] copy; `in_range`: its values stay below the 8-bit type's
    /// overflow bound, so the rounding needs no check past the largest finite value.
    pub(super) fn exchange_in_quads(&self, op: OperationRef<'c, 'a>, in_range: bool) {
        let parts = copy_parts(&op).expect("checked");
        let b = self.builder(&op);
        let at = At::before(op);
        let (from, to) = (
            placed(self.layouts, parts.src).expect("checked"),
            placed(self.layouts, parts.dst).expect("checked"),
        );
        let (src_array, dst_array) = (self.private(parts.src), self.private(parts.dst));
        let element = element_type(parts.dst);
        let i32_type: Type = IntegerType::new(self.context, 32).into();
        let [m, k] = from.layout.shape[..] else {
            unreachable!("checked")
        };
        let (warpgroups, _) = crate::layout::atoms::wgmma_warpgroups(&from.layout).expect("checked");
        // The lane's quad position d, its quad's first lane, and the lanes it reads in the two
        // shuffles: σ(d) (d's bits swapped) and σ(d) ^ 1.
        let tid = b.cast(at, tile_ir::arith::index_cast, self.tid, i32_type);
        let constant = |value: i64| b.integer(at, i32_type, value);
        let d = b.andi(at, tid, constant(3));
        let (low_bit, high_bit) = (b.andi(at, d, constant(1)), b.shrui(at, d, constant(1)));
        let quad = b.andi(at, tid, constant(28));
        let swapped = b.ori(at, b.shli(at, low_bit, constant(1)), high_bit);
        let first_source = b.addi(at, quad, swapped);
        let second_source = b.xori(at, first_source, constant(1));
        // Sent: halves d % 2 of the two row words in the first shuffle, the other halves in the
        // second (0x5410 takes both low halves, 0x7632 both high ones). Kept: rows r and r + 8 of
        // the two pairs, in column order (the first shuffle's pair first unless d / 2 = 1).
        let swing = b.muli(at, low_bit, constant(0x2222));
        let first_sent = b.addi(at, constant(0x5410), swing);
        let second_sent = b.subi(at, constant(0x7632), swing);
        let order = b.muli(at, high_bit, constant(0x43BC));
        let upper_row = b.subi(at, constant(0x5410), order);
        let lower_row = b.subi(at, constant(0x7632), order);
        let slot_of =
            |layout: &tile_dialect::layout::FragmentLayout, row: i64, column: i64| layout.slot_of(&[row, column]);
        for tile in 0..m / warpgroups / 64 {
            for step in 0..k / 32 {
                for half in 0..2 {
                    let column = step * 32 + half * 16;
                    // The row words: rows r and r + 8 (lane 0 of warp 0 holds the places asked).
                    let words: Vec<Value> = (0..2)
                        .map(|row_half| {
                            let row = tile * 64 + row_half * 8;
                            let pairs: Vec<Value> = (0..2)
                                .map(|block| {
                                    let values: Vec<Value> = (0..2)
                                        .map(|c| {
                                            let slot = slot_of(&from.layout, row, column + block * 8 + c);
                                            self.slot_value(&b, at, src_array, from, slot)
                                        })
                                        .collect();
                                    let pair = b.value(
                                        at,
                                        vector::from_elements(
                                            self.context,
                                            crate::attributes::vector(2, values[0].r#type()),
                                            &values,
                                            b.location,
                                        )
                                        .into(),
                                    );
                                    let rounded =
                                        b.cast(at, tile_ir::arith::truncf, pair, crate::attributes::vector(2, element));
                                    super::wgmma::mark_in_range(rounded, in_range);
                                    rounded
                                })
                                .collect();
                            let bytes: Vec<Value> = pairs
                                .iter()
                                .flat_map(|pair| (0..2).map(|index| lane(&b, at, *pair, index)))
                                .collect();
                            word_of_bytes(&b, at, &bytes)
                        })
                        .collect();
                    let sent =
                        [first_sent, second_sent].map(|selector| byte_permute(&b, at, words[0], words[1], selector));
                    let got = [(sent[0], first_source), (sent[1], second_source)]
                        .map(|(value, lane)| self.shuffle_by(&b, at, value, lane, 32, "idx"));
                    for (row_half, selector) in [(0, upper_row), (1, lower_row)] {
                        let word = byte_permute(&b, at, got[0], got[1], selector);
                        for (byte, value) in bytes_of_word(&b, at, word, element).into_iter().enumerate() {
                            let slot = slot_of(&to.layout, tile * 64 + row_half * 8, column + byte as i64);
                            self.set_slot(&b, at, value, dst_array, to, slot);
                        }
                    }
                }
            }
        }
        erase(self.context, op);
    }
}
