//! The CDNA3 (gfx942) shape of one GEMM kernel: wavefronts (64 lanes) and how they split the block
//! tile, the mfma instruction the per-wave tile allows, and the LDS plan (row padding so that the
//! mfma operand reads of one wave spread over the 32 banks). Every chip limit is checked here.

use crate::gemm::types::element_of;
use tile_dialect::ops::memref_shape;
use melior::ir::Value;
use tile_dialect::element::Element;

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

/// The resolved configuration of one gfx942 GEMM kernel.
#[derive(Debug)]
pub struct AmdConfig {
    /// Block tile rows.
    pub bm: i64,
    /// Block tile columns.
    pub bn: i64,
    /// K depth of one main-loop step.
    pub bk: i64,
    /// Threads per workgroup.
    pub threads: i64,
    /// Waves along M and along N.
    pub waves: (i64, i64),
    /// The per-wave tile (rows, columns).
    pub wave_tile: (i64, i64),
    /// The instruction.
    pub mfma: Mfma,
    /// Input element type.
    pub input: Element,
    /// Output element type.
    pub output: Element,
    /// B is given as NxK.
    pub transpose_b: bool,
    /// LDS row length in elements (K plus padding).
    pub lds_row: i64,
    /// LDS buffers of the A and B tiles: 2 (one filled while the other feeds the MMAs, one barrier
    /// a step) where they fit, else 1.
    pub buffers: i64,
    /// LDS bytes the workgroup uses.
    pub lds_bytes: i64,
    /// Row reductions exchange partial rows between the waves along N through LDS.
    pub row_exchange: bool,
}

impl AmdConfig {
    /// The LDS rows the waves along N exchange partial row reductions through.
    pub fn lds_rows_type(&self) -> String {
        format!("memref<{}x{}xf32, 3>", self.waves.1, self.bm)
    }

    /// Uses `buffers` (1 or 2) LDS copies of the tiles, as a schedule asks, if they fit (before any
    /// row exchange is added).
    pub fn with_buffers(mut self, buffers: i64) -> Result<Self, String> {
        if !(1..=2).contains(&buffers) {
            return Err(format!("asks for {buffers} LDS buffers in its tile.schedule; gfx942 lowers 1 or 2"));
        }
        // One copy of the A and B tiles: padded rows of both.
        let tile_bytes = (self.bm + self.bn) * self.lds_row * 2;
        if buffers * tile_bytes > MAX_LDS_BYTES {
            return Err(format!(
                "asks for {buffers} LDS buffers in its tile.schedule, which need {} bytes, but gfx942 gives a workgroup at most {MAX_LDS_BYTES}; ask for 1",
                buffers * tile_bytes
            ));
        }
        self.buffers = buffers;
        self.lds_bytes = buffers * tile_bytes;
        Ok(self)
    }

    /// Adds the row exchange a kernel with row reductions needs (when several waves share a row),
    /// checking the LDS limit again.
    pub fn with_row_reductions(mut self) -> Result<Self, String> {
        if self.waves.1 > 1 {
            self.row_exchange = true;
            self.lds_bytes += self.waves.1 * self.bm * 4;
            if self.lds_bytes > MAX_LDS_BYTES {
                return Err(format!(
                    "needs {} bytes of LDS with the row exchange of its reductions, but gfx942 gives a workgroup at most {MAX_LDS_BYTES}; use a smaller K tile",
                    self.lds_bytes
                ));
            }
        }
        Ok(self)
    }

    /// Returns the number of mfma tiles per wave (along M, along N).
    pub fn tiles(&self) -> (i64, i64) {
        (
            self.wave_tile.0 / self.mfma.size,
            self.wave_tile.1 / self.mfma.size,
        )
    }

    /// Returns the 8-element vectors one thread loads per step for the A and the B tile.
    pub fn vectors_per_thread(&self) -> (i64, i64) {
        (
            self.bm * self.bk / 8 / self.threads,
            self.bn * self.bk / 8 / self.threads,
        )
    }
}

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

/// Resolves the configuration; `Err` says which limit breaks and what would fit.
pub fn configure(
    threads: i64,
    a_tile: Value,
    accumulator: Value,
    output: Value,
    transpose_b: bool,
) -> Result<AmdConfig, String> {
    if threads % 64 != 0 || !(64..=1024).contains(&threads) {
        return Err(format!(
            "expects a multiple of 64 threads (64-wide wavefronts) up to 1024 on gfx942, but got {threads}"
        ));
    }
    let input = element_of(a_tile).ok_or("expects a matrix input type")?;
    if !matches!(input, Element::F16 | Element::BF16) {
        return Err(format!(
            "expects f16 or bf16 inputs for mfma on gfx942, but got {input} (i8 and f8E4M3FN are not lowered yet)"
        ));
    }
    if element_of(accumulator) != Some(Element::F32) {
        return Err("expects an f32 accumulator for mfma on gfx942".into());
    }
    let output = element_of(output).ok_or("expects a result element type")?;
    let [bm, bk] = memref_shape(a_tile)[..] else {
        return Err("expects a 2-D A tile".into());
    };
    let [_, bn] = memref_shape(accumulator)[..] else {
        return Err("expects a 2-D accumulator".into());
    };
    let ((wm, wn), mfma) = wave_split(threads, bm, bn)?;
    if bk % mfma.k != 0 || bk % 8 != 0 {
        return Err(format!(
            "expects the tile's K ({bk}) to be a multiple of {} for mfma {}x{}x{} on gfx942",
            mfma.k.max(8),
            mfma.size,
            mfma.size,
            mfma.k
        ));
    }
    if (bm * bk / 8) % threads != 0 || (bn * bk / 8) % threads != 0 {
        return Err(format!(
            "expects the A ({bm}x{bk}) and B ({bk}x{bn}) tiles to be whole 8-element vectors per thread ({threads} threads) on gfx942; use a larger K tile or fewer threads"
        ));
    }
    let lds_row = bk + ROW_PADDING;
    let tile_bytes = (bm + bn) * lds_row * 2;
    let buffers = if 2 * tile_bytes <= MAX_LDS_BYTES { 2 } else { 1 };
    let lds_bytes = buffers * tile_bytes;
    if lds_bytes > MAX_LDS_BYTES {
        return Err(format!(
            "needs {lds_bytes} bytes of LDS for the {bm}x{bk} A and {bk}x{bn} B tiles, but gfx942 gives a workgroup at most {MAX_LDS_BYTES}; use a smaller K tile or a smaller tile"
        ));
    }
    Ok(AmdConfig {
        bm,
        bn,
        bk,
        threads,
        waves: (wm, wn),
        wave_tile: (bm / wm, bn / wn),
        mfma,
        input,
        output,
        transpose_b,
        lds_row,
        buffers,
        lds_bytes,
        row_exchange: false,
    })
}
