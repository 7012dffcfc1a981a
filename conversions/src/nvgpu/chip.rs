//! Facts of the sm_90a parts this lowering is tuned for (H100 SXM, H200), and the shared layouts
//! in which TMA writes and wgmma reads a gemm's operand tiles (the anchors `tile-infer-layouts`
//! records for them).

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

/// Registers one of a multiprocessor's four schedulers holds: a block's warps are dealt out to them
/// in turn, so ptxas gives each thread of a block of W warpgroups at most 16,384 / (32 W).
pub const SCHEDULER_REGISTERS: i64 = 16_384;

/// The registers a thread of a producer warpgroup (`tile.producer`) keeps: enough for its loop.
pub const PRODUCER_REGISTERS: i64 = 40;

/// The registers each of `threads` threads (whole warpgroups) may take beside a producer
/// warpgroup that keeps [`PRODUCER_REGISTERS`] (`setmaxnreg`: counts in steps of 8, at most 255
/// usable): 232 for two warpgroups, 152 for three.
pub fn registers_beside_producer(threads: i64) -> i64 {
    // A warpgroup puts one warp on each scheduler.
    let warps_per_scheduler = (threads / tile_dialect::PRODUCER_THREADS).max(1);
    ((SCHEDULER_REGISTERS - 32 * PRODUCER_REGISTERS) / (32 * warps_per_scheduler) / 8 * 8).min(256)
}

/// The largest swizzle span that one row of `row_bytes` fills exactly.
fn swizzle_for_row(row_bytes: i64) -> Option<i64> {
    [128, 64, 32].into_iter().find(|span| row_bytes % span == 0)
}

/// A shared tile written in boxes of `rows` x `inner` elements, `boxes` of them side by side along
/// the inner dimension, each row swizzled over `swizzle` bytes.
fn boxed(swizzle: i64, rows: i64, inner: i64, boxes: i64) -> SharedLayout {
    SharedLayout { swizzle, r#box: vec![rows, inner], boxes, ..SharedLayout::row_major() }
}

/// Returns the shared layouts of the A and B tiles of an `bm`x`bn`x`bk` wgmma gemm (16-bit inputs):
/// K-major rows take the largest swizzle a row fills; MN-major tiles are read in 64-column boxes
/// with the 128-byte swizzle. `Err` says which shape no swizzled layout serves.
pub fn operand_layouts(bm: i64, bn: i64, bk: i64, transpose_a: bool, transpose_b: bool) -> Result<(SharedLayout, SharedLayout), String> {
    let k_row = bk * 2;
    let k_major_swizzle = swizzle_for_row(k_row).filter(|_| k_row <= 128).ok_or_else(|| {
        format!("expects a K tile of 16, 32 or 64 elements on sm_90a (one swizzled row of at most 128 bytes), but got {bk}")
    })?;
    if bm > 256 {
        return Err(format!("expects M <= 256 (one TMA box), but got {bm}"));
    }
    // A as KxM is M-major: 64-column boxes with the 128-byte swizzle, one per m64 tile.
    let a = if transpose_a { boxed(128, bk, 64, bm / 64) } else { boxed(k_major_swizzle, bm, bk, 1) };
    let b = if transpose_b {
        boxed(k_major_swizzle, bn, bk, 1)
    } else {
        if bn % 64 != 0 {
            return Err(format!(
                "expects N to be a multiple of 64 when B is KxN (N-major, read in 128-byte swizzled columns), but got {bn}; use transpose_b with an NxK B"
            ));
        }
        boxed(128, bk, 64, bn / 64)
    };
    Ok((a, b))
}

/// The split of a block's warps over an `m`x`n` accumulator of `mma.sync.m16n8k16` tiles (16x8):
/// `(wm, wn)` warps along M and N, each warp tile whole instruction tiles. In a kernel of several
/// gemms (`chained`) the warps split M alone, so that every gemm's rows lie on the same warps; else
/// the split whose warp tile is squarest (the fewest operand reads a product), more warps along M
/// on a tie. `None` when the block is no whole number of warps or no split fits.
pub fn mma_warp_split(threads: i64, m: i64, n: i64, chained: bool) -> Option<(i64, i64)> {
    if threads % 32 != 0 || !(32..=1024).contains(&threads) {
        return None;
    }
    let warps = threads / 32;
    let fits = |(wm, wn): (i64, i64)| m % (16 * wm) == 0 && n % (8 * wn) == 0;
    if chained {
        return Some((warps, 1)).filter(|split| fits(*split));
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
        assert_eq!(mma_warp_split(64, 16, 32, true), None);
        assert_eq!(mma_warp_split(64, 16, 32, false), Some((1, 2)));
        assert_eq!(mma_warp_split(128, 64, 64, false), Some((2, 2)));
        assert_eq!(mma_warp_split(32, 16, 8, false), Some((1, 1)));
        assert_eq!(mma_warp_split(48, 32, 32, false), None);
        assert_eq!(mma_warp_split(128, 16, 24, false), None);
    }

    #[test]
    fn k_major_operands_take_the_swizzle_their_rows_fill() {
        let (a, b) = operand_layouts(128, 256, 32, false, true).expect("a wgmma shape");
        assert_eq!((a.swizzle, a.r#box.clone(), a.boxes), (64, vec![128, 32], 1));
        assert_eq!((b.swizzle, b.r#box.clone(), b.boxes), (64, vec![256, 32], 1));
    }

    #[test]
    fn n_major_b_is_read_in_64_column_boxes() {
        let (_, b) = operand_layouts(128, 256, 64, false, false).expect("a wgmma shape");
        assert_eq!((b.swizzle, b.r#box.clone(), b.boxes), (128, vec![64, 64], 4));
        let error = operand_layouts(128, 96, 64, false, false).expect_err("N = 96 is no whole box");
        assert!(error.contains("use transpose_b"), "{error}");
        assert!(operand_layouts(128, 128, 128, false, false).is_err());
    }
}
