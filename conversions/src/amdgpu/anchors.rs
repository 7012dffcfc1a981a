//! The layouts mfma imposes on a gemm's operands on gfx942: the target's anchor rule
//! ([`crate::target::Target::gemm_anchors`]).

use crate::layout::{
    Layout,
    anchors::{Anchor, Operands, Site, is_16_bit, is_shared, operands, sixteen_bit_product},
    atoms,
};
use melior::ir::operation::OperationRef;
use tile_dialect::layout::SharedLayout;

/// The rule: f16/bf16 products into f32 on mfma ([`mfma_anchors`]).
pub fn gemm_anchors<'c, 'a>(site: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    if !sixteen_bit_product(&site.ops) {
        return Vec::new();
    }
    mfma_anchors(&site.ops, site.threads, site.chained)
}

/// Why `gemm` gets no mfma layout on gfx942 in a block of `threads` threads (`None` when it does,
/// or when it is no gemm the anchors read): the conditions of [`mfma_anchors`], said with what would work.
pub fn mfma_unavailable(gemm: OperationRef, threads: i64, chained: bool) -> Option<String> {
    let ops = operands(gemm)?;
    let [a, b, c] = [ops.a, ops.b, ops.c].map(crate::support::element_of);
    if c != Some(tile_dialect::element::Element::F32) || !is_16_bit(ops.a) || !is_16_bit(ops.b) || a != b {
        let [a, b, c] = [a, b, c].map(|element| element.map_or("?".to_owned(), |element| element.to_string()));
        return Some(format!(
            "multiplies {a} by {b} into {c}; mfma on gfx942 takes f16 or bf16 inputs (both alike) with an f32 accumulator"
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
    let lds = |transposed| SharedLayout {
        padding: super::config::ROW_PADDING,
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
