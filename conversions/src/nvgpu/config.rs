//! The Hopper (sm_90a) shape of one GEMM kernel: warpgroups, wgmma instruction shape, the swizzle of
//! every shared tile (chosen so that TMA writes and wgmma reads agree), the tensor-map boxes and the
//! shared-memory plan. Every limit of the chip is checked here, with a message that says what fits.

use crate::gemm::types::element_of;
use tile_dialect::ops::memref_shape;
use melior::ir::{ShapedTypeLike, Type, Value, ValueLike, r#type::MemRefType};
use tile_dialect::element::Element;

/// Shared memory one block may use on sm_90a (227 KiB).
pub const MAX_SHARED_BYTES: i64 = 232_448;
/// Slack added to dynamic shared memory so that the tiles can start on a 1024-byte boundary (the
/// period of the 128-byte swizzle).
pub const ALIGN_SLACK: i64 = 1024;

/// How one shared tile is laid out: the swizzle TMA writes with and wgmma reads with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedLayout {
    /// Swizzle span in bytes: 32, 64 or 128.
    pub swizzle: i64,
    /// Elements of the box's inner (contiguous) dimension.
    pub box_inner: i64,
    /// Rows of the box.
    pub box_rows: i64,
    /// Boxes side by side along the inner dimension.
    pub boxes: i64,
    /// The operand is contiguous along K (true) or along M/N (false).
    pub k_major: bool,
}

impl SharedLayout {
    /// Returns the `#tile.smem` model of this layout.
    pub fn typed(self) -> tile_dialect::layout::SharedLayout {
        tile_dialect::layout::SharedLayout {
            swizzle: self.swizzle,
            r#box: vec![self.box_rows, self.box_inner],
            boxes: self.boxes,
            ..tile_dialect::layout::SharedLayout::row_major()
        }
    }

    /// Returns the wgmma descriptor's swizzle code (bits 62-63).
    pub fn descriptor_swizzle(self) -> i64 {
        match self.swizzle {
            128 => 1,
            64 => 2,
            _ => 3,
        }
    }

    /// Returns the bytes of one box.
    pub fn box_bytes(self, element_bytes: i64) -> i64 {
        self.box_inner * self.box_rows * element_bytes
    }
}

/// How the result tile is staged in shared memory for its TMA store: boxes of `box_cols` columns
/// side by side, each swizzled over `swizzle` bytes a row, so that the accumulator's 8-row store
/// pattern (8 rows, 16 bytes each) lands on 8 different bank groups instead of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StagingLayout {
    /// Swizzle span in bytes: 128, 64 or 32; 0 for rows too narrow to swizzle (one unswizzled box).
    pub swizzle: i64,
    /// Columns of one box (one swizzled row).
    pub box_cols: i64,
    /// Boxes side by side along N.
    pub boxes: i64,
}

impl StagingLayout {
    fn of(bn: i64, element_bytes: i64) -> StagingLayout {
        match swizzle_for_row(bn * element_bytes) {
            Some(span) => StagingLayout {
                swizzle: span,
                box_cols: span / element_bytes,
                boxes: bn * element_bytes / span,
            },
            None => StagingLayout { swizzle: 0, box_cols: bn, boxes: 1 },
        }
    }
}

/// Multiprocessors of the sm_90a parts this lowering is tuned for (H100 SXM, H200): the block count
/// of a persistent launch. On a part with fewer, the extra blocks wait for a free multiprocessor
/// (correct, slower); launchers may pass any block count.
pub const MULTIPROCESSORS: i64 = 132;
/// Shared memory of one multiprocessor (228 KiB), and what the runtime reserves per block.
const SM_SHARED_BYTES: i64 = 233_472;
const BLOCK_RESERVED_BYTES: i64 = 1024;

/// A persistent launch: min(tiles, [`MULTIPROCESSORS`]) blocks walk the program's 2-D grid of
/// output tiles, block `b` tiles `b`, `b + blocks`, ... in the grouped order, so that a tile's loads
/// start during the previous tile's epilogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Persistent {
    /// The grid (tiles along N, tiles along M) when it is static; otherwise the host computes it
    /// and passes it as the kernel's last two parameters.
    pub tiles: Option<(i64, i64)>,
}

impl Persistent {
    /// Blocks launched, when the grid is static.
    pub fn blocks(self) -> Option<i64> {
        self.tiles.map(|(x, y)| (x * y).min(MULTIPROCESSORS))
    }
}

/// The resolved configuration of one Hopper GEMM kernel.
#[derive(Debug)]
pub struct HopperConfig {
    /// Block tile: rows of A and C.
    pub bm: i64,
    /// Block tile: columns of B and C.
    pub bn: i64,
    /// Block tile: the K depth of one main-loop step.
    pub bk: i64,
    /// Warpgroups (128 threads each) sharing the block's rows.
    pub warpgroups: i64,
    /// 64-row wgmma tiles per warpgroup.
    pub m_tiles: i64,
    /// Input element type (f16 or bf16).
    pub input: Element,
    /// Output element type of the global result.
    pub output: Element,
    /// Layout of the A tile.
    pub a: SharedLayout,
    /// Layout of the B tile.
    pub b: SharedLayout,
    /// Layout of the result's staging tile.
    pub c: StagingLayout,
    /// Bytes of one pipeline stage (A tile then B tile, each 1024-aligned).
    pub stage_bytes: i64,
    /// Byte offset of the B tile inside a stage.
    pub b_offset: i64,
    /// Ring depth.
    pub stages: i64,
    /// Result boxes staged at a time (all of them, unless the staging tile lies beside the ring).
    pub staged_boxes: i64,
    /// Set when each block walks several output tiles.
    pub persistent: Option<Persistent>,
    /// Bytes of the scratch where warps exchange partial column reductions (0 without them).
    pub exchange_bytes: i64,
    /// Dimensions of the A, B and result global tensors before the tile's two (0 for matrices): each
    /// tensor map has them with a box of 1, its coordinates the tile's leading offsets there.
    pub leading: [usize; 3],
}

impl HopperConfig {
    /// Bytes of one result box in the staging tile.
    pub fn staging_box_bytes(&self) -> i64 {
        self.bm * self.c.box_cols * output_element_bytes(self.output)
    }

    /// Bytes the staging tile takes when it overlaps the drained ring.
    fn overlapped_staging_bytes(&self) -> i64 {
        round_up(self.c.boxes * self.staging_box_bytes(), 1024)
    }

    /// Bytes of the ring.
    fn ring_bytes(&self) -> i64 {
        // Saturates: a ring that overflows i64 is as much too big as one that does not.
        self.stages.saturating_mul(self.stage_bytes)
    }

    /// Byte offset of the staging tile: over the drained ring, or after it when persistent (the
    /// next tile's loads fill the ring during the epilogue).
    pub fn staging_offset(&self) -> i64 {
        if self.persistent.is_some() { self.ring_bytes() } else { 0 }
    }

    /// Byte offset of the column exchange: after the ring and the staging tile, which may both be
    /// busy when it is written.
    pub fn exchange_offset(&self) -> i64 {
        if self.persistent.is_some() {
            self.staging_offset() + self.staged_boxes * self.staging_box_bytes()
        } else {
            self.ring_bytes().max(self.overlapped_staging_bytes())
        }
    }

    /// Dynamic shared memory the launch needs.
    pub fn shared_bytes(&self) -> i64 {
        self.exchange_offset() + self.exchange_bytes + ALIGN_SLACK
    }

    /// Sets the leading dimensions of the A, B and result tensors (their ranks minus 2); TMA tensor
    /// maps have at most 5 dimensions.
    pub fn with_leading_dimensions(mut self, ranks: [usize; 3]) -> Result<HopperConfig, String> {
        if let Some(rank) = ranks.iter().find(|rank| !(2..=5).contains(*rank)) {
            return Err(format!("expects global tensors of rank 2 to 5 (a TMA tensor map's), but got rank {rank}"));
        }
        self.leading = ranks.map(|rank| rank - 2);
        Ok(self)
    }

    /// Adds the scratch in which `warps` warps exchange their partial column reductions (one f32
    /// per column each), at [`HopperConfig::exchange_offset`].
    pub fn with_column_exchange(mut self, warps: i64) -> HopperConfig {
        self.exchange_bytes = warps * self.bn * 4;
        self
    }

    /// Checks that the ring (and the column exchange) fit the shared memory of a block. Unlike a
    /// shape wgmma cannot take, this is the program's own request (its stages and tiles): no
    /// other strategy would honour it either, so it is an error, not a fallback.
    pub fn check_shared_memory(&self) -> Result<(), String> {
        let (shared_bytes, stages, stage_bytes) = (self.shared_bytes(), self.stages, self.stage_bytes);
        if shared_bytes <= MAX_SHARED_BYTES {
            return Ok(());
        }
        if self.exchange_bytes > 0 {
            return Err(format!(
                "needs {shared_bytes} bytes of shared memory ({stages} stages of {stage_bytes} bytes and {} bytes for the column reductions' exchange between warps), but sm_90a gives a block at most {MAX_SHARED_BYTES}; use fewer stages or a smaller tile",
                self.exchange_bytes
            ));
        }
        let fitting = (MAX_SHARED_BYTES - ALIGN_SLACK) / stage_bytes;
        Err(format!(
            "needs {shared_bytes} bytes of shared memory ({stages} stages of {stage_bytes} bytes), but sm_90a gives a block at most {MAX_SHARED_BYTES}; use stages({fitting}) or a smaller tile"
        ))
    }

    /// Makes the launch persistent for a 2-D grid (`tiles`, when static), when one block
    /// fills a multiprocessor's shared memory (kernels with several blocks per multiprocessor
    /// already overlap one block's epilogue with another's loads) and a staging box fits beside the
    /// ring (the next tile's loads fill the ring during the epilogue).
    /// `asked` makes it persistent whenever the staging tile fits (a `tile.schedule` asked for it).
    pub fn make_persistent(&mut self, tiles: Option<(i64, i64)>, asked: bool) {
        let shares_multiprocessor = 2 * (self.shared_bytes() + BLOCK_RESERVED_BYTES) <= SM_SHARED_BYTES;
        if (shares_multiprocessor && !asked) || tiles.is_some_and(|(x, y)| x * y == 0) {
            return;
        }
        let room = MAX_SHARED_BYTES - ALIGN_SLACK - self.ring_bytes() - self.exchange_bytes;
        let staged = self.c.boxes.min(room / self.staging_box_bytes());
        if staged == 0 {
            return;
        }
        self.persistent = Some(Persistent { tiles });
        self.staged_boxes = staged;
    }
}

fn element_type<'c>(value: Value<'c, '_>) -> Option<Type<'c>> {
    MemRefType::try_from(value.r#type())
        .ok()
        .map(|memref| memref.element())
}

fn round_up(value: i64, to: i64) -> i64 {
    (value + to - 1) / to * to
}

/// The largest swizzle span that one row of `row_bytes` fills exactly.
fn swizzle_for_row(row_bytes: i64) -> Option<i64> {
    [128, 64, 32].into_iter().find(|span| row_bytes % span == 0)
}

/// TMA reads and writes global tensors whose rows (all strides but the innermost) are multiples of
/// 16 bytes; a static shape that breaks this cannot be copied by TMA.
pub fn check_tma_rows(global: Value, role: &str) -> Result<(), String> {
    let dims = memref_shape(global);
    let bytes = element_of(global).map_or(2, output_element_bytes);
    match dims.last() {
        Some(&inner) if inner > 0 && (inner * bytes) % 16 != 0 => Err(format!(
            "expects global tensors whose rows are multiples of 16 bytes (a TMA requirement), but {role} ({}) has rows of {} bytes; pad its inner dimension to a multiple of {}",
            global.r#type(),
            inner * bytes,
            16 / bytes
        )),
        _ => Ok(()),
    }
}

/// Resolves the configuration; `Err` says which limit the tile program breaks and what would fit.
pub fn configure(
    threads: i64,
    a_tile: Value,
    accumulator: Value,
    output: Value,
    transpose_a: bool,
    transpose_b: bool,
    stages: i64,
) -> Result<HopperConfig, String> {
    let input = element_of(a_tile).ok_or("expects a tensor-core input type")?;
    if !matches!(input, Element::F16 | Element::BF16) {
        return Err(format!(
            "expects f16 or bf16 inputs for wgmma on sm_90a, but got {input} (f8E4M3FN and i8 are not lowered yet)"
        ));
    }
    if element_type(accumulator).map(|ty| ty.to_string()) != Some("f32".into()) {
        return Err("expects an f32 accumulator for wgmma on sm_90a".into());
    }
    let output_element = element_of(output).ok_or("expects a result element type")?;
    if !matches!(output_element, Element::F16 | Element::BF16 | Element::F32) {
        return Err(format!(
            "expects an f16, bf16 or f32 result on sm_90a, but got {output_element}"
        ));
    }
    let (bm, bk) = match memref_shape(a_tile)[..] {
        [k, m] if transpose_a => (m, k),
        [m, k] => (m, k),
        _ => return Err("expects a 2-D A tile".into()),
    };
    let [bm_c, bn] = memref_shape(accumulator)[..] else {
        return Err("expects a 2-D accumulator".into());
    };
    debug_assert_eq!(bm, bm_c);
    shape_config(TileShape { threads, bm, bn, bk, input, output: output_element, transpose_a, transpose_b, stages })
}

/// The tile program's choices a configuration follows.
struct TileShape {
    threads: i64,
    bm: i64,
    bn: i64,
    bk: i64,
    input: Element,
    output: Element,
    transpose_a: bool,
    transpose_b: bool,
    stages: i64,
}

/// Returns the shared layouts of the A and B tiles of an `bm`x`bn`x`bk` wgmma GEMM (16-bit inputs):
/// K-major rows take the largest swizzle a row fills; MN-major tiles are read in 64-column boxes
/// with the 128-byte swizzle.
pub fn operand_layouts(bm: i64, bn: i64, bk: i64, transpose_a: bool, transpose_b: bool) -> Result<(SharedLayout, SharedLayout), String> {
    let bytes = 2;
    let k_row = bk * bytes;
    let k_major_swizzle = swizzle_for_row(k_row).filter(|_| k_row <= 128).ok_or_else(|| {
        format!("expects a K tile of 16, 32 or 64 elements on sm_90a (one swizzled row of at most 128 bytes), but got {bk}")
    })?;
    if bm > 256 {
        return Err(format!("expects M <= 256 (one TMA box), but got {bm}"));
    }
    // A as KxM is M-major: 64-column boxes with the 128-byte swizzle, one per m64 tile.
    let a = if transpose_a {
        SharedLayout {
            swizzle: 128,
            box_inner: 64,
            box_rows: bk,
            boxes: bm / 64,
            k_major: false,
        }
    } else {
        SharedLayout {
            swizzle: k_major_swizzle,
            box_inner: bk,
            box_rows: bm,
            boxes: 1,
            k_major: true,
        }
    };
    let b = if transpose_b {
        SharedLayout {
            swizzle: k_major_swizzle,
            box_inner: bk,
            box_rows: bn,
            boxes: 1,
            k_major: true,
        }
    } else {
        if bn % 64 != 0 {
            return Err(format!(
                "expects N to be a multiple of 64 when B is KxN (N-major, read in 128-byte swizzled columns), but got {bn}; use transpose_b with an NxK B"
            ));
        }
        SharedLayout {
            swizzle: 128,
            box_inner: 64,
            box_rows: bk,
            boxes: bn / 64,
            k_major: false,
        }
    };
    Ok((a, b))
}

/// Resolves the configuration of a tile shape (element types already checked).
fn shape_config(shape: TileShape) -> Result<HopperConfig, String> {
    let TileShape { threads, bm, bn, bk, input, output: output_element, transpose_a, transpose_b, stages } = shape;
    let warpgroups = threads / 128;
    if bm % (64 * warpgroups) != 0 {
        return Err(format!(
            "expects the tile's M ({bm}) to be a multiple of 64 per warpgroup ({warpgroups} warpgroups: M = {} or a multiple) for wgmma m64",
            64 * warpgroups
        ));
    }
    if bn % 8 != 0 || bn > 256 {
        return Err(format!(
            "expects the tile's N ({bn}) to be a multiple of 8 and at most 256 for wgmma on sm_90a"
        ));
    }
    if bk % 16 != 0 {
        return Err(format!(
            "expects the tile's K ({bk}) to be a multiple of 16 for wgmma k16"
        ));
    }
    let bytes = 2;
    let (a, b) = operand_layouts(bm, bn, bk, transpose_a, transpose_b)?;
    let a_bytes = round_up(bm * bk * bytes, 1024);
    let b_bytes = round_up(bn * bk * bytes, 1024);
    let stage_bytes = a_bytes + b_bytes;
    let c = StagingLayout::of(bn, output_element_bytes(output_element));
    let config = HopperConfig {
        bm,
        bn,
        bk,
        warpgroups,
        m_tiles: bm / warpgroups / 64,
        input,
        output: output_element,
        a,
        b,
        c,
        stage_bytes,
        b_offset: a_bytes,
        stages,
        staged_boxes: c.boxes,
        persistent: None,
        exchange_bytes: 0,
        leading: [0; 3],
    };
    Ok(config)
}

/// Returns the bytes of one element of `element`.
pub fn output_element_bytes(element: Element) -> i64 {
    if element == Element::F32 { 4 } else { 2 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(bm: i64, bn: i64, bk: i64, threads: i64, stages: i64, output: Element) -> HopperConfig {
        shape_config(TileShape { threads, bm, bn, bk, input: Element::F16, output, transpose_a: false, transpose_b: false, stages })
            .expect("a legal tile")
    }

    #[test]
    fn the_result_is_staged_in_rows_of_one_swizzle_span() {
        assert_eq!(StagingLayout::of(256, 2), StagingLayout { swizzle: 128, box_cols: 64, boxes: 4 });
        assert_eq!(StagingLayout::of(256, 4), StagingLayout { swizzle: 128, box_cols: 32, boxes: 8 });
        assert_eq!(StagingLayout::of(48, 2), StagingLayout { swizzle: 32, box_cols: 16, boxes: 3 });
        // 16-byte rows cannot be swizzled: one plain box.
        assert_eq!(StagingLayout::of(8, 2), StagingLayout { swizzle: 0, box_cols: 8, boxes: 1 });
    }

    #[test]
    fn a_block_that_fills_a_multiprocessor_runs_persistent_with_its_staging_beside_the_ring() {
        let mut config = shape(128, 256, 64, 256, 4, Element::F16);
        assert_eq!(config.shared_bytes(), 4 * 49_152 + ALIGN_SLACK);
        config.make_persistent(Some((16, 32)), false);
        assert_eq!(config.persistent.and_then(Persistent::blocks), Some(MULTIPROCESSORS));
        // Two of the four 16 KiB boxes fit beside the 192 KiB ring: two rounds.
        assert_eq!((config.staging_offset(), config.staged_boxes), (4 * 49_152, 2));
        assert!(config.shared_bytes() <= MAX_SHARED_BYTES);
        let mut small_grid = shape(128, 256, 64, 256, 4, Element::F16);
        small_grid.make_persistent(Some((3, 7)), false);
        assert_eq!(small_grid.persistent.and_then(Persistent::blocks), Some(21));
    }

    #[test]
    fn blocks_that_share_a_multiprocessor_stay_tilewise_unless_asked() {
        let mut config = shape(128, 128, 32, 128, 3, Element::F16);
        config.make_persistent(Some((32, 32)), false);
        assert_eq!(config.persistent, None);
        assert_eq!((config.staging_offset(), config.staged_boxes), (0, 2));
        config.make_persistent(Some((32, 32)), true);
        assert!(config.persistent.is_some());
        // A dynamic grid: the host computes the block count.
        let mut dynamic = shape(128, 256, 64, 256, 4, Element::F16);
        dynamic.make_persistent(None, false);
        assert_eq!(dynamic.persistent, Some(Persistent { tiles: None }));
        assert_eq!(dynamic.persistent.and_then(Persistent::blocks), None);
    }

    #[test]
    fn column_exchange_lies_after_the_ring_and_the_staging_tile() {
        let config = shape(128, 256, 64, 256, 4, Element::F32).with_column_exchange(8);
        assert_eq!(config.exchange_bytes, 8 * 256 * 4);
        assert_eq!(config.exchange_offset(), 4 * 49_152);
        let mut persistent = config;
        persistent.make_persistent(Some((4, 8)), false);
        // One 16 KiB f32 box beside the ring and the 8 KiB exchange.
        assert_eq!(persistent.staged_boxes, 1);
        assert_eq!(persistent.exchange_offset(), 4 * 49_152 + 16_384);
        assert!(persistent.shared_bytes() <= MAX_SHARED_BYTES);
    }

    #[test]
    fn a_ring_that_does_not_fit_names_the_stages_that_would() {
        let error = shape_config(TileShape {
            threads: 256, bm: 128, bn: 256, bk: 64, input: Element::F16, output: Element::F16,
            transpose_a: false, transpose_b: false, stages: 5,
        })
        .expect("a valid wgmma shape")
        .check_shared_memory()
        .expect_err("5 stages of 48 KiB do not fit");
        assert!(error.contains("use stages(4)"), "{error}");
    }
}
