//! The fragment layouts of the instructions and strategies, and the layouts derived from others.
//!
//! Each function returns the `#tile.frag` model of one instruction's register tile, repeated over
//! the block's warps (warpgroups, waves, subgroups) the way the lowerings issue it. The index maps
//! are the instruction's documented ones (PTX ISA wgmma and mma.sync fragments; the AMD
//! instruction set's mfma output lanes), so a lowering can read the element each slot holds from the layout alone.

use tile_dialect::layout::{Expr, FragmentLayout, constant, dim, symbol};

/// The wgmma accumulator of an `m`x`n` f32 tile on `warpgroups` warpgroups splitting M: in
/// each 64-row tile, warp `w` holds rows `16w .. 16w + 15`, lane `l` rows `l / 4` and `l / 4 + 8` and
/// columns `2 (l % 4)` and `2 (l % 4) + 1` of every 8-column block. Slot: (m-tile, 8-column block,
/// row half, column in the pair), the order of `nvvm.wgmma.mma_async`'s result struct.
pub fn wgmma_accumulator(m: i64, n: i64, warpgroups: i64) -> FragmentLayout {
    wgmma_accumulator_split(m, n, (warpgroups, 1))
}

/// The wgmma accumulator of an `m`x`n` f32 tile on `(wm, wn)` warpgroups: warpgroup `g` at
/// `(g / wn, g % wn)` holds the `m/wm`x`n/wn` tile there, laid out as [`wgmma_accumulator`] lays
/// out a one-warpgroup tile (its instruction is m64nN with N = `n/wn`, the origin's). Warpgroups
/// split N where M is one 64-row tile (MLA decode's 64 heads by a 512-wide latent on two
/// warpgroups).
pub fn wgmma_accumulator_split(m: i64, n: i64, (wm, wn): (i64, i64)) -> FragmentLayout {
    let (rows, columns) = (m / wm, n / wn);
    let (i, j) = (dim(0), dim(1));
    let mut warpgroup = i.clone().floor_div(rows);
    let mut column = j.clone();
    if wn > 1 {
        warpgroup = warpgroup * wn + j.clone().floor_div(columns);
        column = j.clone().modulo(columns);
    }
    FragmentLayout {
        shape: vec![m, n],
        threads: 128 * wm * wn,
        replicate: 1,
        thread: warpgroup * 128
            + i.clone().modulo(64).floor_div(16) * 32
            + i.clone().modulo(8) * 4
            + j.clone().modulo(8).floor_div(2),
        slot: i.clone().modulo(rows).floor_div(64) * (columns / 2)
            + column.floor_div(8) * 4
            + i.modulo(16).floor_div(8) * 2
            + j.modulo(2),
        origin: format!("wgmma.acc.m64n{columns}"),
    }
}

/// The warpgroups `(along M, along N)` of a layout that places its elements as a wgmma accumulator
/// does ([`wgmma_accumulator_split`]), however its maps are written. `None` for other layouts.
pub fn wgmma_warpgroups(layout: &FragmentLayout) -> Option<(i64, i64)> {
    let [m, n] = layout.shape[..] else { return None };
    if layout.threads % 128 != 0 {
        return None;
    }
    let warpgroups = layout.threads / 128;
    (1..=warpgroups)
        .filter(|wn| warpgroups % wn == 0 && n % wn == 0 && m % (64 * (warpgroups / wn)) == 0)
        .map(|wn| (warpgroups / wn, wn))
        .find(|split| layout.same_placement(&wgmma_accumulator_split(m, n, *split)))
}

/// The register A operand of a 16-bit wgmma (`m`x`k`): per 16-column k-step, lane `l` holds
/// rows `l / 4`, `l / 4 + 8` and columns `2 (l % 4) + {0, 1, 8, 9}`: the same thread and slot of
/// every element as the accumulator layout of an `m`x`k` tile, so an accumulator converts into an A
/// operand register by register.
pub fn wgmma_a_operand(m: i64, k: i64, warpgroups: i64) -> FragmentLayout {
    FragmentLayout {
        origin: format!("wgmma.a.m64k{k}"),
        ..wgmma_accumulator(m, k, warpgroups)
    }
}

/// The register A operand of an 8-bit wgmma (`m`x`k`, f8E4M3FN or f8E5M2): per 32-column k-step,
/// lane `l` holds rows `l / 4` and `l / 4 + 8`, columns `4 (l % 4) + {0..3}` and
/// `16 + 4 (l % 4) + {0..3}` (PTX ISA, the k32 A fragment of 8-bit types): four registers of four
/// bytes, (row, columns 0-15), (row + 8, 0-15), (row, 16-31), (row + 8, 16-31). Slot: (m-tile,
/// k-step, register, byte), so a register's bytes are four consecutive slots. The accumulator of
/// an `m`x`k` tile holds columns `2 (l % 4) + {0, 1}` of every 8: an accumulator becomes this
/// operand by exchanges within each quad of lanes ([`quad_exchange`]).
pub fn wgmma_a8_operand(m: i64, k: i64, warpgroups: i64) -> FragmentLayout {
    let rows = m / warpgroups;
    let (i, j) = (dim(0), dim(1));
    FragmentLayout {
        shape: vec![m, k],
        threads: 128 * warpgroups,
        replicate: 1,
        thread: i.clone().floor_div(rows) * 128
            + i.clone().modulo(64).floor_div(16) * 32
            + i.clone().modulo(8) * 4
            + j.clone().modulo(16).floor_div(4),
        slot: i.clone().modulo(rows).floor_div(64) * (k / 2)
            + j.clone().floor_div(32) * 16
            + (j.clone().modulo(32).floor_div(16) * 2 + i.modulo(16).floor_div(8)) * 4
            + j.modulo(4),
        origin: format!("wgmma.a8.m64k{k}"),
    }
}

/// Whether a whole-fragment copy from `source` to `target` turns a wgmma accumulator (warpgroups
/// splitting M) into the 8-bit A operand of the same tile ([`wgmma_a8_operand`]): the elements
/// move between the four lanes of a quad only, which the lowering does with shuffles and byte
/// permutes in place of a trip through shared memory.
pub fn quad_exchange(source: &FragmentLayout, target: &FragmentLayout) -> bool {
    let [m, k] = source.shape[..] else { return false };
    target.shape == source.shape
        && k % 32 == 0
        && wgmma_warpgroups(source)
            .is_some_and(|(wm, wn)| wn == 1 && target.same_placement(&wgmma_a8_operand(m, k, wm)))
}

/// The origin of [`mma_accumulator`] layouts.
pub const MMA_ACCUMULATOR: &str = "mma.m16n8k16";

/// The `mma.sync.m16n8k16` accumulator of an `m`x`n` f32 tile on warps `(wm, wn)` (warp `w`
/// at `(w / wn, w % wn)`, each owning an `m/wm`x`n/wn` warp tile of 16x8 instruction tiles): in an
/// instruction tile lane `l` holds rows `l / 4` and `l / 4 + 8`, columns `2 (l % 4)` and
/// `2 (l % 4) + 1` (PTX ISA, the m16n8k16 f32 accumulator fragment; a warp's part of the wgmma
/// accumulator is the same). Slot: (instruction tile along M, along N, row half, column in the
/// pair), the order of the instruction's four results.
pub fn mma_accumulator(m: i64, n: i64, warps: (i64, i64)) -> FragmentLayout {
    let (wm, wn) = warps;
    let (rows, columns) = (m / wm, n / wn);
    let (i, j) = (dim(0), dim(1));
    let warp = i.clone().floor_div(rows) * wn + j.clone().floor_div(columns);
    FragmentLayout {
        shape: vec![m, n],
        threads: 32 * wm * wn,
        replicate: 1,
        thread: warp * 32 + i.clone().modulo(8) * 4 + j.clone().modulo(8).floor_div(2),
        slot: (i.clone().modulo(rows).floor_div(16) * (columns / 8) + j.clone().modulo(columns).floor_div(8)) * 4
            + i.modulo(16).floor_div(8) * 2
            + j.modulo(2),
        origin: MMA_ACCUMULATOR.into(),
    }
}

/// The register A operand of `mma.sync.m16n8k16` (`m`x`k`, 16-bit) on `warps` warps splitting M:
/// per 16-column K step, lane `l` holds rows `l / 4`, `l / 4 + 8` and columns
/// `2 (l % 4) + {0, 1, 8, 9}`, which is where the accumulator layout of an `m`x`k` tile puts them, so
/// an accumulator converts into an A operand register by register (FlashAttention's P).
pub fn mma_a_operand(m: i64, k: i64, warps: i64) -> FragmentLayout {
    FragmentLayout {
        origin: format!("mma.a.m16k{k}"),
        ..mma_accumulator(m, k, (warps, 1))
    }
}

/// The mfma accumulator of an `m`x`n` f32 tile: waves `(wm, wn)` (wave `w` at `(w / wn,
/// w % wn)`) each own an `m/wm`x`n/wn` wave tile of `size`x`size` mfma tiles. In an mfma tile lane
/// `l` holds column `l % size`; for 32x32 accumulator `v` is row `8 (v / 4) + 4 (l / 32) + v % 4`,
/// for 16x16 row `4 (l / 16) + v`. Slot: (mfma tile along M, along N, accumulator).
pub fn mfma_accumulator(m: i64, n: i64, waves: (i64, i64), size: i64) -> FragmentLayout {
    let (wm, wn) = waves;
    let (wave_rows, wave_columns) = (m / wm, n / wn);
    let tiles_n = wave_columns / size;
    let (i, j) = (dim(0), dim(1));
    let within = i.clone().modulo(wave_rows).modulo(size);
    let (group, accumulator, accumulators) = if size == 32 {
        (
            within.clone().modulo(8).floor_div(4),
            within.clone().floor_div(8) * 4 + within.modulo(4),
            16,
        )
    } else {
        (within.clone().floor_div(4), within.modulo(4), 4)
    };
    let wave = i.clone().floor_div(wave_rows) * wn + j.clone().floor_div(wave_columns);
    FragmentLayout {
        shape: vec![m, n],
        threads: 64 * wm * wn,
        replicate: 1,
        thread: wave * 64 + group * size + j.clone().modulo(size),
        slot: (i.modulo(wave_rows).floor_div(size) * tiles_n + j.modulo(wave_columns).floor_div(size)) * accumulators
            + accumulator,
        origin: format!("mfma.{size}x{size}"),
    }
}

/// The A operand of the mfma (`m`x`k`, 16-bit) for an accumulator on waves `(wm, wn)` of
/// `size`x`size` instruction tiles: in each instruction tile of a wave's rows, lane `l` holds row
/// `l % size` and, of each K step of `256 / size`, the 4 elements from `4 (l / size)`; the `wn`
/// waves along N that share those rows each hold a copy (replicas). Slot: (instruction tile along
/// M, K step, element).
pub fn mfma_a_operand(m: i64, k: i64, waves: (i64, i64), size: i64) -> FragmentLayout {
    let (wm, wn) = waves;
    let rows = m / wm;
    let step = 256 / size;
    let (i, j) = (dim(0), dim(1));
    let lane = i.clone().modulo(rows).modulo(size) + j.clone().modulo(step).floor_div(4) * size;
    let replica = if wn > 1 { symbol(0) * 64 } else { constant(0) };
    FragmentLayout {
        shape: vec![m, k],
        threads: 64 * wm * wn,
        replicate: wn,
        thread: i.clone().floor_div(rows) * (64 * wn) + replica + lane,
        slot: (i.modulo(rows).floor_div(size) * (k / step) + j.clone().floor_div(step)) * 4 + j.modulo(4),
        origin: format!("mfma.a.{size}x{size}x{step}"),
    }
}

/// A cooperative-matrix accumulator held in 16x16 matrices by 32-wide subgroups `(sm, sn)`: subgroup
/// `s` (invocations `32 s .. 32 s + 31`) owns the `m/sm`x`n/sn` subgroup tile at `(s / sn, s % sn)`,
/// its matrix `t` (row-major in the subgroup tile) being cooperative-matrix value `t` of every lane.
/// Which lane holds which element of a matrix is the device's secret, so the slots say where each
/// element lies once the matrices are staged into registers (through workgroup memory, row-major):
/// element `e = 16 r + c` of matrix `t` goes to lane `e mod 32`, slot `8 t + e / 32`. A row of a
/// matrix thus lies on 16 lanes of its subgroup, as the staged epilogue of the deleted GEMM template
/// had it. The register rules keep such a fragment in matrices while only gemms and fills touch it
/// (the cooperative-matrix rules' held accumulators) and stage it once before any other op reads it.
pub fn coopmat_accumulator(m: i64, n: i64, subgroups: (i64, i64)) -> FragmentLayout {
    let (sm, sn) = subgroups;
    let (rows, columns) = (m / sm, n / sn);
    let (i, j) = (dim(0), dim(1));
    let subgroup = i.clone().floor_div(rows) * sn + j.clone().floor_div(columns);
    let matrix = i.clone().modulo(rows).floor_div(16) * (columns / 16) + j.clone().modulo(columns).floor_div(16);
    FragmentLayout {
        shape: vec![m, n],
        threads: 32 * sm * sn,
        replicate: 1,
        thread: subgroup * 32 + i.clone().modulo(2) * 16 + j.modulo(16),
        slot: matrix * 8 + i.modulo(16).floor_div(2),
        origin: COOPMAT_ACCUMULATOR.into(),
    }
}

/// The origin of [`coopmat_accumulator`] layouts: the fragments the register rules hold in
/// cooperative matrices.
pub const COOPMAT_ACCUMULATOR: &str = "coopmat.16x16x16";

/// The layout of loops and fragments nothing else lays out: the tile is cut into chunks of `v`
/// consecutive elements along its last dimension (4 where the tile gives every thread at least one
/// such chunk, for vector loads and stores), and chunk `c` (row-major) goes to thread `c mod
/// threads`, slots `(c floordiv threads) * v ..`. Rows of a 2-D tile thus lie in consecutive threads,
/// which keeps a row reduction within a warp when a row has at most 32 chunks.
pub fn blocked(shape: &[i64], threads: i64) -> FragmentLayout {
    let total: i64 = shape.iter().product();
    let last = shape.last().copied().unwrap_or(1);
    let v = [4, 2, 1]
        .into_iter()
        .find(|v| last % v == 0 && total >= threads * v)
        .unwrap_or(1);
    blocked_in_chunks(shape, threads, v)
}

/// The blocked layout with chunks of `v` elements along the last dimension (`v` divides it).
pub fn blocked_in_chunks(shape: &[i64], threads: i64, v: i64) -> FragmentLayout {
    let rank = shape.len();
    let mut chunk_shape = shape.to_vec();
    if let Some(last) = chunk_shape.last_mut() {
        *last /= v;
    }
    let chunk = linear_index(&chunk_shape).substitute(&|n| if n + 1 == rank { dim(n).floor_div(v) } else { dim(n) });
    FragmentLayout {
        shape: shape.to_vec(),
        threads,
        replicate: 1,
        thread: chunk.clone().modulo(threads),
        slot: chunk.floor_div(threads) * v + dim(rank - 1).modulo(v),
        origin: "blocked".into(),
    }
}

/// A 2-D tile of 16-bit elements dealt out in pieces of 8 along its rows, eight consecutive
/// threads taking the same piece of eight consecutive rows: a wgmma operand tile's core matrix (8
/// rows of 16 bytes, 128 contiguous bytes in shared memory) is written by eight neighbouring
/// threads, and a warp reads whole 32-byte sectors of eight global rows. Pieces dealt along the
/// rows instead ([`blocked_in_chunks`]) put a warp's shared-memory writes 128 bytes apart, all in
/// the same banks, and the H200 then fetches each thread's 16 bytes from L2 on its own (one
/// sector a request, half of it used: L2 bound FlashAttention, RESULTS run 44). Needs rows a
/// multiple of 8 and columns a multiple of `v`.
pub fn core_matrix_chunks(shape: &[i64], threads: i64, v: i64) -> FragmentLayout {
    let (row, column) = (dim(0), dim(1));
    let pieces = shape[1] / v;
    let chunk = ((row.clone().floor_div(8) * pieces + column.clone().floor_div(v)) * 8) + row.modulo(8);
    FragmentLayout {
        shape: shape.to_vec(),
        threads,
        replicate: 1,
        thread: chunk.clone().modulo(threads),
        slot: chunk.floor_div(threads) * v + column.modulo(v),
        origin: "blocked".into(),
    }
}

/// Every thread holds every element (what a fragment read at computed indices needs).
pub fn replicated(shape: &[i64], threads: i64) -> FragmentLayout {
    FragmentLayout {
        shape: shape.to_vec(),
        threads,
        replicate: threads,
        thread: symbol(0),
        slot: linear_index(shape),
        origin: "replicated".into(),
    }
}

/// The layout of `layout` with the dimensions not in `kept` reduced away: an element of the result
/// is held by every thread that holds an element of `layout` it summarizes (the reduced dimensions
/// become replicas), in the slot the first of them has.
pub fn project(layout: &FragmentLayout, kept: &[usize]) -> FragmentLayout {
    if kept.iter().copied().eq(0..layout.shape.len()) {
        return layout.clone();
    }
    let reduced: Vec<usize> = (0..layout.shape.len()).filter(|d| !kept.contains(d)).collect();
    let reduced_extent: i64 = reduced.iter().map(|&d| layout.shape[d]).product();
    // Replica r = (source replica) * reduced_extent + (row-major position among the reduced dims).
    let position_of = |d: usize| -> Expr {
        let mut stride = 1;
        let mut position = None;
        for &other in reduced.iter().rev() {
            if other == d {
                position = Some(stride);
            }
            stride *= layout.shape[other];
        }
        let stride = position.unwrap_or(1);
        symbol(0).floor_div(stride).modulo(layout.shape[d])
    };
    let renumber = |n: usize| -> Expr {
        match kept.iter().position(|&k| k == n) {
            Some(new) => dim(new),
            None => position_of(n),
        }
    };
    let thread = layout
        .thread
        .substitute_symbol(&symbol(0).floor_div(reduced_extent))
        .substitute(&renumber);
    let slot = layout.slot.substitute(&|n| match kept.iter().position(|&k| k == n) {
        Some(new) => dim(new),
        None => constant(0),
    });
    let projected = FragmentLayout {
        shape: kept.iter().map(|&d| layout.shape[d]).collect(),
        threads: layout.threads,
        replicate: layout.replicate * reduced_extent,
        thread,
        slot,
        origin: format!("slice({})", layout.origin),
    };
    // The first summarized element's slot is a thread's own only when the reduced dimension's
    // elements of different kept positions never meet on one thread in one slot. A blocked layout
    // whose rows do not divide the threads evenly (24 columns in chunks of 4 on 32 threads) puts
    // column 0 (row 0) and column 8 (row 5) on thread 0 in slot 0: then each element gets a slot
    // of its own, its row-major index, as in a replicated layout.
    if projected.check(&projected.shape, projected.threads).is_err() {
        let slot = linear_index(&projected.shape);
        return FragmentLayout { slot, ..projected };
    }
    projected
}

/// The row-major linear index of an element of `shape`.
fn linear_index(shape: &[i64]) -> Expr {
    let mut linear = constant(0);
    let mut stride = 1;
    for (d, size) in shape.iter().enumerate().rev() {
        linear = dim(d) * stride + linear;
        stride *= size;
    }
    linear
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warpgroups_splitting_n_each_hold_a_one_warpgroup_tile() {
        // MLA decode's 64x512 output on two warpgroups: each a 64x256 tile of 128 slots.
        let split = wgmma_accumulator_split(64, 512, (1, 2));
        assert_eq!(split.check(&[64, 512], 256), Ok(()), "{split:?}");
        assert_eq!((split.slots(), split.origin.as_str()), (128, "wgmma.acc.m64n256"));
        assert_eq!(wgmma_warpgroups(&split), Some((1, 2)));
        // Warpgroup 1's element (i, 256 + j) is where warpgroup 0 keeps (i, j), 128 threads on.
        let alone = wgmma_accumulator(64, 256, 1);
        for (i, j) in [(0, 0), (9, 17), (63, 255), (40, 130)] {
            assert_eq!(split.owner_set(&[i, j]), alone.owner_set(&[i, j]));
            let shifted: Vec<i64> = alone.owner_set(&[i, j]).iter().map(|thread| thread + 128).collect();
            assert_eq!(split.owner_set(&[i, 256 + j]), shifted);
            assert_eq!(split.slot.eval(&[i, 256 + j], &[]), alone.slot.eval(&[i, j], &[]));
        }
        // Splitting M alone is the layout it always was.
        assert_eq!(wgmma_accumulator_split(128, 64, (2, 1)), wgmma_accumulator(128, 64, 2));
        assert_eq!(wgmma_warpgroups(&wgmma_accumulator(128, 64, 2)), Some((2, 1)));
        // The placement decides, not the origin or how the maps are written.
        let renamed = FragmentLayout {
            origin: "by hand".into(),
            slot: split.slot.clone() + dim(0) * 0,
            ..split.clone()
        };
        assert_eq!(wgmma_warpgroups(&renamed), Some((1, 2)));
        assert_eq!(wgmma_warpgroups(&blocked(&[64, 512], 256)), None);
        assert_eq!(
            wgmma_warpgroups(&wgmma_accumulator_split(128, 128, (1, 2))),
            Some((1, 2))
        );
    }

    #[test]
    fn instruction_layouts_are_valid() {
        for (m, n, w) in [(64, 16, 1), (128, 256, 2), (128, 128, 1), (256, 64, 2)] {
            let layout = wgmma_accumulator(m, n, w);
            assert_eq!(layout.check(&[m, n], 128 * w), Ok(()), "{layout:?}");
            assert_eq!(layout.slots(), m * n / (128 * w));
        }
        for (m, n, waves, size) in [(128, 128, (2, 2), 32), (64, 64, (2, 2), 16), (64, 128, (1, 2), 32)] {
            let layout = mfma_accumulator(m, n, waves, size);
            assert_eq!(layout.check(&[m, n], 64 * waves.0 * waves.1), Ok(()), "{layout:?}");
            assert_eq!(layout.slots(), m * n / (64 * waves.0 * waves.1));
        }
        for (m, k, waves, size) in [(64, 64, (2, 1), 32), (64, 32, (1, 2), 32), (128, 64, (2, 2), 16)] {
            let layout = mfma_a_operand(m, k, waves, size);
            assert_eq!(layout.check(&[m, k], 64 * waves.0 * waves.1), Ok(()), "{layout:?}");
            assert_eq!(layout.slots() * 64 * waves.0, m * k);
        }
        for (m, n, subgroups) in [
            (64, 64, (2, 2)),
            (128, 128, (2, 2)),
            (128, 256, (2, 4)),
            (64, 128, (1, 2)),
        ] {
            let layout = coopmat_accumulator(m, n, subgroups);
            let threads = 32 * subgroups.0 * subgroups.1;
            assert_eq!(layout.check(&[m, n], threads), Ok(()), "{layout:?}");
            assert_eq!(layout.slots(), m * n / threads);
        }
        for (shape, threads) in [
            (vec![64, 128], 128),
            (vec![8, 64], 64),
            (vec![100], 128),
            (vec![6, 10], 32),
        ] {
            let layout = blocked(&shape, threads);
            assert_eq!(layout.check(&shape, threads), Ok(()), "{layout:?}");
        }
        assert_eq!(replicated(&[64], 128).check(&[64], 128), Ok(()));
    }

    #[test]
    fn the_coopmat_accumulator_puts_element_e_of_matrix_t_on_lane_e_mod_32_in_slot_8t_plus_e_div_32() {
        // 128x128 on 4 subgroups (2x2): subgroup 3 owns rows 64.. and columns 64..; its matrix 5
        // (row 1, column 1 of its 4x4) starts at (80, 80); element 37 is (2, 5) in it.
        let layout = coopmat_accumulator(128, 128, (2, 2));
        assert_eq!(layout.owners(&[82, 85]).collect::<Vec<_>>(), vec![3 * 32 + 37 % 32]);
        assert_eq!(layout.slot_of(&[82, 85]), 8 * 5 + 37 / 32);
        // A row of a matrix lies on 16 lanes of its subgroup.
        let mut lanes: Vec<i64> = (0..16)
            .flat_map(|j| layout.owners(&[3, j]).collect::<Vec<_>>())
            .collect();
        lanes.sort_unstable();
        assert_eq!(lanes, (16..32).collect::<Vec<_>>());
    }

    #[test]
    fn the_wgmma_accumulator_matches_the_ptx_fragment_of_lane_5_in_warp_1() {
        // Thread 37 (warp 1, lane 5): rows 16 + 1 and 16 + 9, columns 2 and 3 of each 8-column block.
        let layout = wgmma_accumulator(64, 16, 1);
        for (index, slot) in [([17, 2], 0), ([17, 3], 1), ([25, 2], 2), ([25, 3], 3), ([17, 10], 4)] {
            assert_eq!(layout.owners(&index).collect::<Vec<_>>(), vec![37]);
            assert_eq!(layout.slot_of(&index), slot);
        }
    }

    #[test]
    fn a_column_slice_of_a_blocked_layout_with_rows_not_dividing_the_threads_is_valid() {
        // Generator, seed 101 program 2: a 32x24 fragment on 32 threads reduced along dim 0.
        for (shape, threads) in [([32, 24], 32), ([8, 48], 64), ([64, 24], 128), ([2, 24], 32)] {
            let columns = project(&blocked(&shape, threads), &[1]);
            assert_eq!(
                columns.check(&[shape[1]], threads),
                Ok(()),
                "{shape:?} on {threads}: {columns:?}"
            );
            let rows = project(&blocked(&shape, threads), &[0]);
            assert_eq!(
                rows.check(&[shape[0]], threads),
                Ok(()),
                "{shape:?} on {threads}: {rows:?}"
            );
        }
        // Where the first element's slot is a thread's own, it stays (no register per element).
        let columns = project(&blocked(&[64, 128], 128), &[1]);
        assert!(columns.slots() < 128, "{columns:?}");
    }

    #[test]
    fn a_row_slice_of_the_wgmma_accumulator_lies_in_the_four_lanes_of_a_quad() {
        let rows = project(&wgmma_accumulator(64, 64, 1), &[0]);
        assert_eq!(rows.check(&[64], 128), Ok(()));
        let mut owners: Vec<i64> = rows.owners(&[17]).collect();
        owners.sort_unstable();
        owners.dedup();
        assert_eq!(owners, vec![36, 37, 38, 39]);
        let columns = project(&wgmma_accumulator(64, 64, 1), &[1]);
        assert_eq!(columns.check(&[64], 128), Ok(()));
        let mut owners: Vec<i64> = columns.owners(&[3]).collect();
        owners.sort_unstable();
        owners.dedup();
        // Column 3: lane quad 1 of every row group of every warp: 32 threads.
        assert_eq!(owners.len(), 32);
    }

    #[test]
    fn a_blocked_row_of_128_lies_in_one_warp_in_chunks_of_four() {
        let layout = blocked(&[64, 128], 128);
        assert_eq!(layout.owner_set(&[5, 0]), vec![32]);
        assert_eq!(layout.owner_set(&[5, 127]), vec![63]);
        assert_eq!(layout.slot_of(&[5, 3]), 7);
        assert_eq!(layout.slot_of(&[9, 3]), 11);
        assert_eq!(layout.slots(), 64);
    }

    #[test]
    fn the_a_operand_holds_each_element_where_the_accumulator_does() {
        assert!(wgmma_a_operand(64, 64, 1).same_owners(&wgmma_accumulator(64, 64, 1)));
    }

    #[test]
    fn the_eight_bit_a_operand_holds_a_quads_columns_in_runs_of_four() {
        let a8 = wgmma_a8_operand(128, 64, 2);
        assert_eq!(a8.check(&[128, 64], 256), Ok(()));
        assert_eq!(a8.slots(), 32);
        // Lane 1 of warp 0: row 0, columns 4-7 in register 0, 20-23 in register 2.
        assert_eq!(a8.owner_set(&[0, 5]), vec![1]);
        assert_eq!(a8.slot_of(&[0, 5]), 1);
        assert_eq!(a8.slot_of(&[8, 5]), 5);
        assert_eq!(a8.slot_of(&[0, 21]), 9);
        assert_eq!(a8.slot_of(&[0, 37]), 17);
        // Row 64 belongs to the second warpgroup.
        assert_eq!(a8.owner_set(&[64, 0]), vec![128]);
        let accumulator = wgmma_accumulator(128, 64, 2);
        assert!(!a8.same_owners(&accumulator));
        assert!(quad_exchange(&accumulator, &a8));
        assert!(!quad_exchange(&accumulator, &wgmma_a8_operand(128, 64, 1)));
        // Every element stays in its quad: lane 1's columns 4-7 come from lanes 2 and 3.
        assert_eq!(accumulator.owner_set(&[0, 5]), vec![2]);
        assert_eq!(accumulator.owner_set(&[0, 7]), vec![3]);
    }
}
