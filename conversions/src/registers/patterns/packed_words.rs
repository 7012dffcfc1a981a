//! Packed 4-bit elements read from 16-byte lines of a shared tile's row.
//!
//! `tile-pack-narrow-types` loads the byte that holds a 4-bit element, one load an element pair.
//! Where a `tile.parallel`'s layout gives the 4 lanes of a quad neighbouring pairs of a row's
//! columns (wgmma's and mma's A operands: lane bits 0 and 1 move the column by 2 and 4), lane t
//! of the quad needs byte t of each word of the row, and a thread's bytes for 16 columns of
//! packed elements lie in one 16-byte line. Each byte load then becomes that line's load (the
//! loads of one line, equal once LLVM folds their addresses, merge into one) and a shift of the
//! word that holds the byte: on the H100 the W4A16 decode GEMM ran 1.33x faster with these lines
//! than with a shared load a byte, whose 4-way bank conflicts and load count its stalls waited on
//! (RESULTS, run 245).

use super::*;
use tile_dialect::positions::OperationAt;

/// A byte permute (`nvvm.prmt`, NVIDIA's `prmt`): the bytes of `low` (0-3) and `high` (4-7) that
/// the four nibbles of `selector` name, lowest first.
pub(crate) fn byte_permute<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    low: Value<'c, 'a>,
    high: Value<'c, 'a>,
    selector: Value<'c, 'a>,
) -> Value<'c, 'a> {
    let permuted = melior::ir::operation::OperationBuilder::new("nvvm.prmt", b.location)
        .add_operands(&[low, high, selector])
        .add_results(&[low.r#type()])
        .add_attributes(&[(
            melior::ir::Identifier::new(b.context, "mode"),
            melior::ir::Attribute::parse(b.context, "#nvvm.permute_mode<default>").expect("a permute mode"),
        )])
        .build()
        .expect("nvvm.prmt");
    b.value(at, permuted)
}

/// The loop index number whose byte the marked load `original` of a `tile.parallel` laid out by
/// `by` reads, where the layout lets the load read lines: the quad of lanes spreads over one word
/// of bytes and every other thread term of that coordinate moves by whole 16-byte lines (32
/// elements), the tile is a row-major shared tile of bytes whose rows are whole lines, and no
/// thread skips a slot.
pub(crate) fn packed_dim(original: &OperationRef, by: &Placed) -> Option<usize> {
    let dim = usize::try_from(integer_attribute(original, tile_dialect::decisions::PACKED_BYTE)?).ok()?;
    let tile = original.operand_at(0)?;
    let terms = by.distribution.terms.get(dim)?;
    let quad = terms.contains(&(0, 2)) && terms.contains(&(1, 4));
    let lines = terms.iter().all(|&(bit, delta)| bit < 2 || delta % 32 == 0);
    let rows_of_lines = memref_shape(tile).last().is_some_and(|bytes| bytes % 16 == 0);
    let plain = level(tile) == Some(MemoryLevel::Shared) && crate::layout::stored::stored(tile).is_none();
    (quad && lines && rows_of_lines && plain && !by.distribution.guarded).then_some(dim)
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// Replaces `load`, slot `slot`'s copy of a byte load that [`packed_dim`] accepted for loop
    /// coordinate `dim`, by its 16-byte line and a shift of the word holding the byte; returns
    /// whether it did (a slot whose coordinate is not on a word of the line keeps its load).
    pub(crate) fn packed_byte_from_line(
        &self,
        load: OperationRef<'c, 'a>,
        by: &Placed,
        slot: usize,
        dim: usize,
    ) -> bool {
        let Some(base) = by.distribution.base[slot].as_ref() else {
            return false;
        };
        // Thread 0's byte starts a word: the byte column is then lane t's byte of that word plus
        // whole lines, and the word is the same for every thread.
        let byte = base[dim] / 2;
        if byte % 4 != 0 {
            return false;
        }
        let word = byte % 16 / 4;
        let b = self.builder(&load);
        let at = At::before(load);
        let operands: Vec<Value> = load.operands().collect();
        let (tile, indices) = (operands[0], &operands[1..]);
        let column = *indices.last().expect("a packed buffer has a last dimension");
        let mut line_start: Vec<Value> = indices.to_vec();
        *line_start.last_mut().expect("a column") = b.andi(at, column, b.index(at, -16));
        let i8_type: Type = IntegerType::new(self.context, 8).into();
        let i32_type: Type = IntegerType::new(self.context, 32).into();
        let line = tile_ir::vector::LoadOperation::builder(self.context, b.location)
            .result(crate::attributes::vector(16, i8_type))
            .base(crate::generic::vector_copy::lds_view(&b, at, tile))
            .indices(&line_start)
            .alignment(crate::attributes::alignment(self.context, 16))
            .build();
        let line = b.value(at, line.into());
        let words = b.cast(
            at,
            tile_ir::vector::bitcast,
            line,
            crate::attributes::vector(4, i32_type),
        );
        let position = crate::attributes::i64_array(self.context, &[word]);
        // Its result type (i32) is inferred.
        let held = b.value(
            at,
            tile_ir::vector::extract(self.context, words, &[], position, b.location).into(),
        );
        let byte_in_word = b.cast(
            at,
            tile_ir::arith::index_cast,
            b.andi(at, column, b.index(at, 3)),
            i32_type,
        );
        let loaded: Value = load.result_at(0).expect("a byte").into();
        let rewriter = melior::IrRewriter::new(self.context);
        let splats = if self.byte_permute {
            crate::narrow::byte_splats(loaded)
        } else {
            Vec::new()
        };
        if !splats.is_empty() {
            // Byte t of the word into bytes 0 and 2, zeros into bytes 1 and 3 (selector nibbles
            // t, 4, t, 4: 4 picks the zero word's first byte); one permute serves every splat.
            let selector = b.addi(
                at,
                b.muli(at, byte_in_word, b.integer(at, i32_type, 0x0101)),
                b.integer(at, i32_type, 0x4040),
            );
            let zero = b.integer(at, i32_type, 0);
            let permuted = byte_permute(&b, at, held, zero, selector);
            for splat in splats {
                rewriter
                    .as_rewriter_base()
                    .replace_all_uses_with(splat.result_at(0).expect("a word").into(), permuted);
            }
            if self.three_input_logic {
                self.mask_and_flip_at_once(permuted);
            }
        }
        let shift = b.muli(at, byte_in_word, b.integer(at, i32_type, 8));
        let byte = b.cast(at, tile_ir::arith::trunci, b.shrui(at, held, shift), i8_type);
        rewriter.as_rewriter_base().replace_all_uses_with(loaded, byte);
        rewriter.as_rewriter_base().erase_op(load);
        true
    }
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// Replaces each mask of `word` by a constant whose one user flips (`arith.xori`) or sets
    /// (`arith.ori`) constant bits of the masked word by one `lop3` of the two constants: `(a & b)
    /// ^ c` is function 0x6A of the operands' truth tables 0xF0, 0xCC and 0xAA, `(a & b) | c`
    /// 0xEA. On the H100 the W4A16 decode GEMM ran 1.08x faster with it (RESULTS, run 249).
    fn mask_and_flip_at_once(&self, word: Value<'c, 'a>) {
        let rewriter = melior::IrRewriter::new(self.context);
        for mask in tile_dialect::ops::users(word) {
            if !tile_ir::is(&mask, tile_ir::arith::AndIOperation::name) {
                continue;
            }
            let constant = |op: &OperationRef<'c, 'a>, other: Value<'c, 'a>| {
                let operands: Vec<Value> = op.operands().collect();
                match operands.as_slice() {
                    [x, y] if *x == other => tile_dialect::ops::constant_integer(*y),
                    [x, y] if *y == other => tile_dialect::ops::constant_integer(*x),
                    _ => None,
                }
            };
            let Some(bits) = constant(&mask, word) else {
                continue;
            };
            let masked: Value = mask.result_at(0).expect("a word").into();
            let [flip] = tile_dialect::ops::users(masked)[..] else {
                continue;
            };
            let function = if tile_ir::is(&flip, tile_ir::arith::XOrIOperation::name) {
                0x6a
            } else if tile_ir::is(&flip, tile_ir::arith::OrIOperation::name) {
                0xea
            } else {
                continue;
            };
            let Some(under) = constant(&flip, masked) else {
                continue;
            };
            let b = self.builder(&flip);
            let text = |text: &str| melior::ir::attribute::StringAttribute::new(self.context, text);
            let instruction = format!(
                "lop3.b32 $0, $1, {:#x}, {:#x}, {function:#x};",
                bits as u32, under as u32
            );
            let fused = tile_ir::llvm::InlineAsmOperation::builder(self.context, b.location)
                .res(masked.r#type())
                .operands(&[word])
                .asm_string(text(&instruction))
                .constraints(text("=r,r"))
                .asm_dialect(crate::attributes::integer(self.context, 64, 0))
                .build();
            let fused = b.value(At::before(flip), fused.into());
            rewriter
                .as_rewriter_base()
                .replace_all_uses_with(flip.result_at(0).expect("a word").into(), fused);
            rewriter.as_rewriter_base().erase_op(flip);
            rewriter.as_rewriter_base().erase_op(mask);
        }
    }
}
