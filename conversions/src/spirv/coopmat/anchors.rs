//! The layouts cooperative matrices impose on a gemm's operands on spirv-coopmat: the target's
//! anchor rule ([`crate::target::Target::gemm_anchors`]).

use crate::layout::{
    Layout,
    anchors::{Anchor, Operands, Site, is_shared, sixteen_bit_product},
    atoms,
};
use melior::ir::{Value, operation::OperationRef};
use tile_dialect::{element::Element, layout::SharedLayout, ops::memref_shape};

/// The rule: f16 products into f32 of a kernel with one gemm ([`coopmat`]); in a kernel of several
/// gemms cooperative matrices anchor nothing (their accumulators are staged through workgroup
/// memory at each gemm; holding a chain's accumulators in matrices is not written yet).
pub fn gemm_anchors<'c, 'a>(site: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    if !sixteen_bit_product(&site.ops) || site.chained {
        return Vec::new();
    }
    coopmat(site.gemm, &site.ops, site.threads, site.shared_bytes)
}

/// spirv-coopmat: an accumulator that only fills and gemms on shared f16 tiles touch before its
/// epilogue is held in 16x16 cooperative matrices split over the 32-wide subgroups
/// ([`super::held`]); any other keeps the blocked layout, and its gemms stage it
/// through workgroup memory each time. The held gemm's A and B tiles get rows padded by 16 bytes,
/// so that the rows one matrix load reads fall in different banks, where nothing but copies, the
/// gemm and loads or stores at indices touch them (such code follows the allocation's row length).
fn coopmat<'c, 'a>(
    gemm: OperationRef<'c, 'a>,
    ops: &Operands<'c, 'a>,
    threads: i64,
    limit: i64,
) -> Vec<Anchor<'c, 'a>> {
    let f16 = |value: Value| crate::support::element_of(value) == Some(Element::F16);
    if threads % 32 != 0 || !is_shared(ops.a) || !is_shared(ops.b) || !f16(ops.a) || !f16(ops.b) || ops.k % 16 != 0 {
        return Vec::new();
    }
    let Ok(subgroups) = super::config::subgroup_split(threads, ops.m, ops.n) else {
        return Vec::new();
    };
    let Some(kernel) = crate::kernels::kernel_of(gemm) else {
        return Vec::new();
    };
    if super::held::staging_point(kernel, ops.c).is_err() {
        return Vec::new();
    }
    // Held matrices are staged once, one matrix per subgroup at least, beside the exchanges of the
    // reductions that read it across subgroups: without room for that the accumulator stays
    // blocked (as it was before cooperative matrices were held).
    let staging = subgroups.0 * subgroups.1 * 16 * 16 * 4;
    let matrices = (ops.m / subgroups.0 / 16, ops.n / subgroups.1 / 16);
    let scratch = super::held::reduction_scratch_bytes(kernel, ops.c, threads, subgroups, matrices);
    let needed = super::held::shared_bytes(kernel) + staging + scratch;
    if needed > limit {
        return Vec::new();
    }
    let layout = atoms::coopmat_accumulator(ops.m, ops.n, subgroups);
    // Registers must be able to hold it once staged (a split that is no power of two cannot).
    if crate::registers::distribute(&layout).is_err() || layout.slots() > crate::registers::MAX_REGISTERS {
        return Vec::new();
    }
    let mut anchors = vec![Anchor::required(ops.c, Layout::Fragment(layout))];
    let padding = super::config::ROW_PADDING;
    let padded = SharedLayout {
        padding,
        ..SharedLayout::row_major()
    };
    let tiles: Vec<Value> = [ops.a, ops.b]
        .into_iter()
        .filter(|tile| super::held::indexed_only(kernel, *tile))
        .collect();
    // The padding must leave room to stage one matrix per subgroup.
    let rows = |tile: Value| memref_shape(tile).iter().rev().skip(1).product::<i64>();
    let extra: i64 = tiles.iter().map(|tile| rows(*tile) * padding * 2).sum();
    if needed + extra <= limit {
        anchors.extend(
            tiles
                .into_iter()
                .map(|tile| Anchor::required(tile, Layout::Shared(padded.clone()))),
        );
    }
    anchors
}
