//! Facts of the sm_90a parts this lowering is tuned for (H100 SXM, H200), and the shared layouts
//! in which TMA or the threads write and wgmma reads a gemm's operand tiles (the anchors
//! `tile-infer-layouts` records for them, which the lowering reads).

use tile_dialect::layout::SharedLayout;

/// Shared memory one block may use on sm_90a (227 KiB).
pub const MAX_SHARED_BYTES: i64 = 232_448;

/// Shared memory of one multiprocessor (228 KiB).
pub const SM_SHARED_BYTES: i64 = 233_472;
/// Shared memory the runtime reserves for each block beside its own.
pub const BLOCK_RESERVED_BYTES: i64 = 1024;

/// Multiprocessors of the sm_90a parts this lowering is tuned for: the block count of a persistent
/// launch. On a part with fewer, the extra blocks wait for a free multiprocessor (correct, slower).
pub const MULTIPROCESSORS: i64 = 132;

/// Thread block clusters the H200 runs at once, by size, with one block a multiprocessor
/// (`cuOccupancyMaxActiveClusters`, RESULTS run 204): a cluster's blocks share one GPC, and the
/// GPCs' multiprocessors do not all divide into fours and eights. Past these a split launch runs
/// in two waves (32 clusters of 4 took twice as long as 30 would).
pub const CLUSTERS_AT_ONCE: &[(i64, i64)] = &[(2, 66), (4, 30), (8, 15)];

/// Registers one of a multiprocessor's four schedulers holds: a block's warps are dealt out to them
/// in turn, so ptxas gives each thread of a block of W warpgroups at most 16,384 / (32 W).
pub const SCHEDULER_REGISTERS: i64 = 16_384;

/// The registers a thread of a producer warpgroup (`tile.producer`) keeps: enough for its loop.
pub const PRODUCER_REGISTERS: i64 = 40;

/// The registers each of `threads` threads (whole warpgroups) may take beside a producer
/// warpgroup that keeps [`PRODUCER_REGISTERS`] (`setmaxnreg`: counts in steps of 8, at most 255
/// usable): 232 for two warpgroups, 152 for three.
pub fn registers_beside_producer(threads: i64) -> i64 {
    ((SCHEDULER_REGISTERS - 32 * PRODUCER_REGISTERS) / (32 * warps_per_scheduler(threads)) / 8 * 8).min(256)
}

/// The registers each thread of a block of `threads` threads (whole warpgroups) holds from its
/// start: an even share of each scheduler's, at most the 255 a thread can address.
pub fn registers_at_start(threads: i64) -> i64 {
    (SCHEDULER_REGISTERS / (32 * warps_per_scheduler(threads))).min(255)
}

/// The warps of `threads` threads (whole warpgroups) on each scheduler: a warpgroup puts one warp
/// on each.
fn warps_per_scheduler(threads: i64) -> i64 {
    (threads / tile_dialect::PRODUCER_THREADS).max(1)
}

/// A shared tile written in boxes of `rows` x `inner` elements, `boxes` of them side by side along
/// the inner dimension, each row swizzled over `swizzle` bytes.
fn boxed(swizzle: i64, rows: i64, inner: i64, boxes: i64) -> SharedLayout {
    SharedLayout {
        swizzle,
        r#box: vec![rows, inner],
        boxes,
        ..SharedLayout::row_major()
    }
}

/// The layout in which a `rows` x `columns` wgmma operand tile of `bytes`-byte elements (2: f16
/// and bf16; 1: i8) is written and read: with `tma`, the copy engine's boxes of 128-byte rows (64
/// 16-bit or 128 i8 columns) with the 128-byte swizzle, or where the rows are no whole such boxes
/// (a K-major tile: 192 bytes of 8-bit keys) boxes of 64 or 32 bytes with that swizzle
/// ([`crate::layout::tma::box_columns`]); without, column slabs of 16 bytes (8 16-bit or 16 i8
/// elements) in which 8 rows make one core matrix (no swizzle: what the threads' own copies
/// write). `None` where neither serves the shape (columns not whole slabs; for TMA, not whole
/// boxes).
pub fn operand_layout(rows: i64, columns: i64, tma: bool, bytes: i64) -> Option<SharedLayout> {
    if tma {
        return crate::layout::tma::box_columns(columns, bytes)
            .filter(|_| columns > 0)
            .map(|width| boxed(width * bytes, rows, width, columns / width));
    }
    let slab = 16 / bytes;
    (columns > 0 && columns % slab == 0).then(|| boxed(0, rows, slab, columns / slab))
}

/// Whether wgmma can read the 8-bit (i8, f8E4M3FN or f8E5M2) operands of a gemm: only K-major (A as MxK,
/// B as NxK), B from shared memory, A from shared memory (`a_shared`) or, for 8-bit floats
/// (`float`), from registers (the k32 A fragment; i8 A stays in shared tiles here).
pub fn wgmma_reads_eight_bit(a_shared: bool, float: bool, transpose_a: bool, transpose_b: bool) -> bool {
    (a_shared || float) && !transpose_a && transpose_b
}

/// The split of a block's warps over an `m`x`n` accumulator of `mma.sync.m16n8k16` tiles (16x8):
/// `(wm, wn)` warps along M and N, each warp tile whole instruction tiles. In a kernel of several
/// gemms (`chained`) the warps split M alone where M allows, so that every gemm's rows lie on the
/// same warps, and where M has too few 16-row tiles for the warps (MLA decode's 64 heads on 8
/// warps) as many as it has, the rest splitting N; else the split whose warp tile is squarest (the
/// fewest operand reads a product), more warps along M on a tie. `None` when the block is no whole
/// number of warps or no split fits.
pub fn mma_warp_split(threads: i64, m: i64, n: i64, chained: bool) -> Option<(i64, i64)> {
    if threads % 32 != 0 || !(32..=1024).contains(&threads) {
        return None;
    }
    let warps = threads / 32;
    let fits = |(wm, wn): (i64, i64)| m % (16 * wm) == 0 && n % (8 * wn) == 0;
    if chained {
        // As many warps along M as its 16-row tiles take, the rest along N: every gemm of the same
        // M then splits its rows alike.
        return (1..=warps)
            .rev()
            .filter(|wm| warps % wm == 0 && m % (16 * wm) == 0)
            .map(|wm| (wm, warps / wm))
            .find(|split| fits(*split));
    }
    (1..=warps)
        .rev()
        .filter(|wm| warps % wm == 0)
        .map(|wm| (wm, warps / wm))
        .filter(|split| fits(*split))
        .min_by_key(|(wm, wn)| {
            let (rows, columns) = (m / wm, n / wn);
            (rows.max(columns) * 1000) / rows.min(columns)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mma_warps_split_the_accumulator_into_whole_instruction_tiles() {
        assert_eq!(mma_warp_split(64, 32, 32, true), Some((2, 1)));
        // Several gemms: M first, as far as its 16-row tiles go, then N; alike for MLA decode's
        // scores (64x64) and output (64x512) on 8 warps.
        assert_eq!(mma_warp_split(64, 16, 32, true), Some((1, 2)));
        assert_eq!(mma_warp_split(256, 64, 64, true), Some((4, 2)));
        assert_eq!(mma_warp_split(256, 64, 512, true), Some((4, 2)));
        assert_eq!(mma_warp_split(256, 128, 64, true), Some((8, 1)));
        assert_eq!(mma_warp_split(64, 16, 8, true), None);
        assert_eq!(mma_warp_split(64, 16, 32, false), Some((1, 2)));
        assert_eq!(mma_warp_split(128, 64, 64, false), Some((2, 2)));
        assert_eq!(mma_warp_split(32, 16, 8, false), Some((1, 1)));
        assert_eq!(mma_warp_split(48, 32, 32, false), None);
        assert_eq!(mma_warp_split(128, 16, 24, false), None);
    }

    #[test]
    fn tma_boxes_are_128_bytes_wide_or_whole_boxes_of_64_or_32_bytes() {
        let layout = |rows, columns| operand_layout(rows, columns, true, 2).map(|l| (l.swizzle, l.r#box, l.boxes));
        assert_eq!(layout(64, 256), Some((128, vec![64, 64], 4)));
        assert_eq!(
            layout(64, 128),
            Some((128, vec![64, 64], 2)),
            "a K tile of 128: two boxes along K"
        );
        assert_eq!(layout(128, 32), Some((64, vec![128, 32], 1)));
        assert_eq!(layout(256, 16), Some((32, vec![256, 16], 1)));
        assert_eq!(
            layout(64, 96),
            Some((64, vec![64, 32], 3)),
            "96 columns: three 64-byte boxes"
        );
        assert_eq!(layout(64, 40), None, "80-byte rows are no whole boxes");
        let i8_layout = |rows, columns| operand_layout(rows, columns, true, 1).map(|l| (l.swizzle, l.r#box, l.boxes));
        assert_eq!(
            i8_layout(128, 256),
            Some((128, vec![128, 128], 2)),
            "i8: 128 columns a 128-byte row"
        );
        assert_eq!(i8_layout(128, 64), Some((64, vec![128, 64], 1)));
        assert_eq!(i8_layout(128, 32), Some((32, vec![128, 32], 1)));
        assert_eq!(i8_layout(128, 16), None, "16-byte rows have no swizzle wgmma reads");
        assert_eq!(
            i8_layout(128, 192),
            Some((64, vec![128, 64], 3)),
            "192 8-bit keys: three 64-byte boxes"
        );
    }

    #[test]
    fn threads_write_column_slabs_of_16_bytes() {
        let slabs = operand_layout(64, 96, false, 2).expect("12 slabs");
        assert_eq!((slabs.swizzle, slabs.r#box, slabs.boxes), (0, vec![64, 8], 12));
        assert!(operand_layout(64, 12, false, 2).is_none());
        let i8_slabs = operand_layout(64, 96, false, 1).expect("6 slabs of 16 i8");
        assert_eq!((i8_slabs.swizzle, i8_slabs.r#box, i8_slabs.boxes), (0, vec![64, 16], 6));
        assert!(operand_layout(64, 24, false, 1).is_none());
    }
}
