//! CDNA3 (gfx942) facts the mfma rule and the layout inference share: the LDS a workgroup has,
//! the row padding of mfma operand tiles (so that the operand reads of one wave spread over the
//! banks), the mfma instruction shapes, and how wavefronts (64 lanes) split a tile.

/// LDS one workgroup may use on gfx942.
pub const MAX_LDS_BYTES: i64 = 65_536;
/// Elements of padding after each LDS row: 8 bytes shift consecutive rows by two banks.
pub const ROW_PADDING: i64 = 4;

/// The mfma instruction shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mfma {
    /// Rows and columns of the output tile (32 or 16).
    pub size: i64,
    /// K depth of one instruction (8 or 16).
    pub k: i64,
    /// f32 accumulators per lane.
    pub accumulators: i64,
}

/// The 32x32x8 instruction (v_mfma_f32_32x32x8_f16 / _bf16_1k).
pub const MFMA_32: Mfma = Mfma {
    size: 32,
    k: 8,
    accumulators: 16,
};
/// The 16x16x16 instruction (v_mfma_f32_16x16x16_f16 / _bf16_1k).
pub const MFMA_16: Mfma = Mfma {
    size: 16,
    k: 16,
    accumulators: 4,
};

/// Splits the `threads / 64` waves of a workgroup over an `bm`x`bn` accumulator as evenly as the
/// tile allows, on the largest mfma tile that divides the wave tiles: ((waves along M, along N),
/// instruction).
pub fn wave_split(threads: i64, bm: i64, bn: i64) -> Result<((i64, i64), Mfma), String> {
    let waves = threads / 64;
    let mut splits: Vec<(i64, i64)> = (1..=waves)
        .filter(|wm| waves % wm == 0)
        .map(|wm| (wm, waves / wm))
        .collect();
    splits.sort_by_key(|(wm, wn)| (wm - wn).abs());
    for candidate in [MFMA_32, MFMA_16] {
        for (wm, wn) in &splits {
            if bm % (wm * candidate.size) == 0 && bn % (wn * candidate.size) == 0 {
                return Ok(((*wm, *wn), candidate));
            }
        }
    }
    Err(format!(
        "expects a {bm}x{bn} tile that {waves} waves can split into 32x32 or 16x16 mfma tiles on gfx942; use multiples of {} rows and columns",
        16 * waves
    ))
}
