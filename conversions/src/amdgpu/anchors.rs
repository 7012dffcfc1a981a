//! The layouts mfma imposes on a gemm's operands on gfx942: the target's anchor rule
//! ([`crate::target::Target::gemm_anchors`]).

use crate::layout::{
    Layout,
    anchors::{Anchor, Operands, Site, is_shared, operands, sixteen_bit_product},
    atoms,
};
use tile_dialect::element::Element;

/// The types mfma takes on gfx942, for messages.
pub const MFMA_INPUTS: &str = "f16, bf16, f8E4M3FN or f8E5M2 inputs (both alike; 8-bit floats widened to f16 in registers) with an f32 accumulator";
use melior::ir::operation::OperationRef;
use tile_dialect::layout::SharedLayout;

/// The rule: f16/bf16 products into f32 on mfma, and 8-bit float ones widened to f16 in registers
/// ([`mfma_anchors`]).
pub fn gemm_anchors<'c, 'a>(site: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    if !mfma_product(&site.ops) {
        return Vec::new();
    }
    mfma_anchors(&site.ops, site.threads, site.chained)
}

/// Whether mfma takes the gemm's types: f16, bf16, f8E4M3FN or f8E5M2 inputs, both alike, into
/// f32. gfx942's own 8-bit float instructions take the FNUZ formats (another exponent bias, NaN
/// and no negative zero), so 8-bit float operands are widened to f16, exactly, as they are read
/// into the f16 instruction's registers.
pub fn mfma_product(ops: &Operands) -> bool {
    let input = crate::support::element_of(ops.a);
    sixteen_bit_product(ops) && input == crate::support::element_of(ops.b)
        || (input.is_some_and(Element::is_f8)
            && crate::support::element_of(ops.b) == input
            && crate::support::element_of(ops.c) == Some(Element::F32))
}

/// Why `gemm` gets no mfma layout on gfx942 in a block of `threads` threads (`None` when it does,
/// or when it is no gemm the anchors read): the conditions of [`mfma_anchors`], said with what would work.
pub fn mfma_unavailable(gemm: OperationRef, threads: i64, chained: bool) -> Option<String> {
    let ops = operands(gemm)?;
    if !mfma_product(&ops) {
        let [a, b, c] = [ops.a, ops.b, ops.c]
            .map(|value| crate::support::element_of(value).map_or("?".to_owned(), |element| element.to_string()));
        return Some(format!(
            "multiplies {a} by {b} into {c}; mfma on gfx942 takes {MFMA_INPUTS}"
        ));
    }
    if threads % 64 != 0 || !(64..=1024).contains(&threads) {
        return Some(format!(
            "runs in a block of {threads} threads; mfma on gfx942 needs whole 64-lane waves: use a multiple of 64 threads up to 1024"
        ));
    }
    if mfma_anchors(&ops, threads, chained).is_empty() {
        let waves = threads / 64;
        return Some(format!(
            "has a {}x{} accumulator that {waves} waves cannot split into 32x32 or 16x16 mfma tiles; use multiples of {} rows and columns",
            ops.m,
            ops.n,
            16 * waves
        ));
    }
    None
}

/// gfx942: mfma over waves; A and B in LDS rows padded against bank conflicts, B stored K-major
/// (transposed unless the program gives it as NxK).
fn mfma_anchors<'c, 'a>(ops: &Operands<'c, 'a>, threads: i64, chained: bool) -> Vec<Anchor<'c, 'a>> {
    if threads % 64 != 0 || !(64..=1024).contains(&threads) {
        return Vec::new();
    }
    let split = if chained {
        let waves = threads / 64;
        [super::config::MFMA_32, super::config::MFMA_16]
            .into_iter()
            .find(|mfma| ops.m % (waves * mfma.size) == 0 && ops.n % mfma.size == 0)
            .map(|mfma| ((waves, 1), mfma))
            .ok_or(())
    } else {
        super::config::wave_split(threads, ops.m, ops.n).map_err(|_| ())
    };
    let Ok((waves, mfma)) = split else { return Vec::new() };
    // Rows padded against bank conflicts; 8-bit float tiles unpadded: a program sizes its 8-bit
    // tiles to the LDS (the block-scaled example's four 128x128 tiles are its 64 KiB exactly).
    let padding = match crate::support::element_of(ops.a) {
        Some(element) if element.is_f8() => 0,
        _ => super::config::ROW_PADDING,
    };
    let lds = |transposed| SharedLayout {
        padding,
        transposed,
        ..SharedLayout::row_major()
    };
    // The accumulator is the instruction's whatever A and B are (a register A operand is staged).
    // A shared B is laid out so even where A is a fragment (attention's P V).
    let mut anchors = vec![Anchor::required(
        ops.c,
        Layout::Fragment(atoms::mfma_accumulator(ops.m, ops.n, waves, mfma.size)),
    )];
    if is_shared(ops.a) && is_shared(ops.b) {
        anchors.push(Anchor::preferred(ops.a, Layout::Shared(lds(ops.transpose_a))));
    }
    if is_shared(ops.b) {
        anchors.push(Anchor::preferred(ops.b, Layout::Shared(lds(!ops.transpose_b))));
    }
    anchors
}
