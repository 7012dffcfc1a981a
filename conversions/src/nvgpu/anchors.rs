//! The layouts wgmma and mma.sync impose on a gemm's operands on NVIDIA chips: the targets' anchor
//! rules ([`crate::target::Target::gemm_anchors`]), [`gemm_anchors`] where the chip has wgmma (sm_90a)
//! and [`mma_sync_anchors`] where mma.sync is its only matrix instruction (sm_80).

use crate::layout::{
    Layout,
    anchors::{Anchor, Operands, Site, is_shared, sixteen_bit_product},
    atoms,
};
use melior::ir::Value;
use tile_dialect::{layout::SharedLayout, ops::memref_shape};

/// The rule: 8-bit products on wgmma (m64nNk32) where it reads the operands, else i8 on mma.sync's
/// m16n8k32 (f8E4M3FN gets nothing: no rule converts 8-bit floats, and the lowering refuses it off
/// wgmma); 16-bit products on wgmma, else on mma.sync's m16n8k16.
pub fn gemm_anchors<'c, 'a>(site: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    let (ops, threads, chained) = (&site.ops, site.threads, site.chained);
    if crate::support::eight_bit_product(ops.a, ops.b, ops.c) {
        let i8 = crate::support::i8_product(ops.a, ops.b, ops.c);
        let wgmma = super::chip::wgmma_reads_eight_bit(
            is_shared(ops.a),
            crate::support::f8_product(ops.a, ops.b, ops.c),
            ops.transpose_a,
            ops.transpose_b,
        );
        let anchors = if wgmma {
            wgmma_anchors(ops, threads, site.tma)
        } else {
            Vec::new()
        };
        return if anchors.is_empty() && i8 {
            mma_sync(ops, threads, chained, 32)
        } else {
            anchors
        };
    }
    if !sixteen_bit_product(ops) {
        return Vec::new();
    }
    let anchors = wgmma_anchors(ops, threads, site.tma);
    if anchors.is_empty() {
        mma_sync(ops, threads, chained, 16)
    } else {
        anchors
    }
}

/// The rule of a chip whose only matrix instruction is mma.sync: i8 products on m16n8k32, 16-bit
/// products on m16n8k16 (f8E4M3FN gets nothing: no rule converts 8-bit floats).
pub fn mma_sync_anchors<'c, 'a>(site: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    let (ops, threads, chained) = (&site.ops, site.threads, site.chained);
    let mut anchors = if crate::support::i8_product(ops.a, ops.b, ops.c) {
        mma_sync(ops, threads, chained, 32)
    } else if sixteen_bit_product(ops) {
        mma_sync(ops, threads, chained, 16)
    } else {
        Vec::new()
    };
    // The operand tiles' rows padded by 16 bytes: the eight 16-byte rows one ldmatrix matrix
    // reads then start in eight different groups of four banks whatever the row length.
    if !anchors.is_empty() {
        let padded = SharedLayout {
            padding: 16 / operand_bytes(ops),
            ..SharedLayout::row_major()
        };
        for tile in [ops.a, ops.b].into_iter().filter(|tile| is_shared(*tile)) {
            anchors.push(Anchor::preferred(tile, Layout::Shared(padded.clone())));
        }
    }
    anchors
}

/// wgmma on warpgroups splitting M, or N ([`wgmma_shape`]); A and B in shared tiles as core
/// matrices (TMA's swizzled boxes where `tma` says TMA fills them, else the threads' column slabs),
/// or (16-bit inputs) A in registers in the accumulator's arrangement. An instruction takes 32
/// bytes of K.
fn wgmma_anchors<'c, 'a>(
    ops: &Operands<'c, 'a>,
    threads: i64,
    tma: &dyn Fn(Value<'c, 'a>, usize) -> bool,
) -> Vec<Anchor<'c, 'a>> {
    let Ok(split) = wgmma_shape(ops, threads) else {
        return Vec::new();
    };
    let warpgroups = threads / 128;
    let bytes = operand_bytes(ops);
    let mut anchors = vec![Anchor::required(
        ops.c,
        Layout::Fragment(atoms::wgmma_accumulator_split(ops.m, ops.n, split)),
    )];
    // A register A operand: each warpgroup its own rows, which warpgroups splitting N would share.
    if !is_shared(ops.a) && !ops.transpose_a && split.1 == 1 {
        let operand = match bytes {
            2 => atoms::wgmma_a_operand(ops.m, ops.k, warpgroups),
            _ => atoms::wgmma_a8_operand(ops.m, ops.k, warpgroups),
        };
        anchors.push(Anchor::required(ops.a, Layout::Fragment(operand)));
    }
    let [a_k, b_k] = crate::support::k_dimensions(ops.transpose_a, ops.transpose_b);
    for (tile, k_dimension) in [(ops.a, a_k), (ops.b, b_k)] {
        let [rows, columns] = memref_shape(tile)[..] else {
            continue;
        };
        if let Some(layout) = is_shared(tile)
            .then(|| super::chip::operand_layout(rows, columns, tma(tile, k_dimension), bytes))
            .flatten()
        {
            anchors.push(Anchor::required(tile, Layout::Shared(layout)));
        }
    }
    anchors
}

/// A gemm wgmma cannot take (fewer than 64 rows a warpgroup, a block of warps that are no whole
/// warpgroups, i8 inputs), or any gemm on a chip without wgmma: `mma.sync` on the warps
/// ([`super::chip::mma_warp_split`]; K of `depth` an instruction: 16 for 16-bit inputs, 32 for i8, whose 16x8 accumulator is laid
/// out alike), A and B read from shared tiles as they are stored, or (16-bit) A from registers in
/// the accumulator's arrangement where the warps split M alone.
fn mma_sync<'c, 'a>(ops: &Operands<'c, 'a>, threads: i64, chained: bool, depth: i64) -> Vec<Anchor<'c, 'a>> {
    let Ok(warps) = mma_sync_warps(ops, threads, chained, depth) else {
        return Vec::new();
    };
    let mut anchors = vec![Anchor::required(
        ops.c,
        Layout::Fragment(atoms::mma_accumulator(ops.m, ops.n, warps)),
    )];
    if !is_shared(ops.a) && !ops.transpose_a && warps.1 == 1 && depth == 16 {
        anchors.push(Anchor::required(
            ops.a,
            Layout::Fragment(atoms::mma_a_operand(ops.m, ops.k, warps.0)),
        ));
    }
    anchors
}

/// Bytes of an element of A (2 where it has no element type the rules know).
fn operand_bytes(ops: &Operands) -> i64 {
    crate::support::element_of(ops.a).map_or(2, |element| element.bytes() as i64)
}

/// The warpgroups `(along M, along N)` of wgmma for a gemm of `ops` on `threads` threads: whole
/// warpgroups, K a multiple of 32 bytes, and each warpgroup a tile of whole 64-row tiles by N a
/// multiple of 8 up to 256; warpgroups split M where that fits, else N (the fewest along N). Else
/// the first condition that M alone misses (what the warning at a gemm off the tensor cores says).
pub(crate) fn wgmma_shape(ops: &Operands, threads: i64) -> Result<(i64, i64), String> {
    let warpgroups = (threads / 128).max(1);
    let rows = 64 * warpgroups;
    let depth = 32 / operand_bytes(ops);
    let fits = |(wm, wn): (i64, i64)| ops.m % (64 * wm) == 0 && ops.n % (8 * wn) == 0 && ops.n / wn <= 256;
    if threads % 128 != 0 {
        return Err(format!(
            "its block of {threads} threads is no whole number of warpgroups (128 threads)"
        ));
    }
    let split = (1..=warpgroups)
        .filter(|wn| warpgroups % wn == 0)
        .map(|wn| (warpgroups / wn, wn))
        .find(|split| fits(*split));
    match split {
        None if ops.m % rows != 0 => Err(format!(
            "M = {} is not a multiple of {rows} (64 rows a warpgroup)",
            ops.m
        )),
        None => Err(format!("N = {} is not a multiple of 8 up to 256", ops.n)),
        Some(_) if ops.k % depth != 0 => Err(format!("K = {} is not a multiple of {depth}", ops.k)),
        Some(split) => Ok(split),
    }
}

/// The warps `(along M, along N)` of mma.sync for a gemm of `ops` on `threads` threads, K `depth`
/// deep an instruction (`chained`: the kernel has several gemms, whose warps split M alone); else
/// the first condition it misses.
pub(crate) fn mma_sync_warps(ops: &Operands, threads: i64, chained: bool, depth: i64) -> Result<(i64, i64), String> {
    if !is_shared(ops.b) {
        return Err("its B operand is not a shared tile".to_owned());
    }
    if crate::support::element_of(ops.a) != crate::support::element_of(ops.b) {
        return Err("its A and B hold different element types".to_owned());
    }
    if ops.k % depth != 0 {
        return Err(format!("K = {} is not a multiple of {depth}", ops.k));
    }
    super::chip::mma_warp_split(threads, ops.m, ops.n, chained).ok_or_else(|| {
        let split = if chained {
            " (a kernel of several gemms splits M first, as far as its 16-row tiles go, then N)"
        } else {
            ""
        };
        format!(
            "its {threads} threads' warps cannot split the {}x{} accumulator into 16x8 tiles{split}",
            ops.m, ops.n
        )
    })
}
