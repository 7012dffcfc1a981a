//! sm_90a tensor cores in the register rules: `tile.gemm` on `nvvm.wgmma.mma_async` when its
//! accumulator has the wgmma layout and its A and B tiles can be laid out for the instruction.
//!
//! Both operands are kept in shared memory without a swizzle, as the instruction's core matrices
//! (8 rows of 16 bytes, 128 contiguous bytes each), in column slabs: a tile of R rows (as it lies
//! in global memory: MN rows of a K-major operand, K rows of an MN-major one) is stored as its
//! slabs of 16 bytes (8 16-bit columns; 16 of i8) one after the other, each slab R rows of 16
//! bytes, row-major. Element (r, c) of a 16-bit tile lies at `(c / 8) * R * 8 + r * 8 + c % 8`
//! elements from the tile's start. A slab is what one TMA box of R rows by 16 bytes writes (no
//! swizzle), and 8 neighbouring rows of a slab are one core matrix, so
//! - a K-major operand (A, or B given NxK) has its core matrices 128 bytes apart along M/N (the
//!   descriptor's stride byte offset) and `R * 16` bytes apart along K (its leading byte offset);
//!   each instruction's K step (32 bytes: k16 of 16-bit, k32 of i8 elements) starts `2 * R * 16`
//!   bytes further, each 64-row tile 1024 bytes further;
//! - an MN-major operand (B given KxN, or A given KxM) has its core matrices 128 bytes apart along
//!   K and `K * 16` bytes apart along M/N; each k16 step starts 256 bytes further, each 64 columns
//!   of M `8 * K * 16` bytes further.
//!
//! The only alignment this needs is 16 bytes. The register rules write these tiles themselves
//! (copies from global memory, a fragment A operand staged for the instruction), so a tile gets
//! this layout only when nothing else touches it. A ring that only TMA fills is kept instead in
//! TMA's 128-byte swizzled boxes ([`OperandLayout::Swizzled`], `patterns::tma`).

/// Elements of a tile of `rows` rows kept in column slabs before its element (row, column): the
/// formula the copy and staging rules compute in IR (`Lowering::core_offset`), kept here to be
/// tested.
#[cfg_attr(not(test), allow(dead_code))]
pub fn core_offset(row: i64, column: i64, rows: i64) -> i64 {
    (column / 8) * rows * 8 + row * 8 + column % 8
}

/// The constant part (leading and stride byte offsets) of a descriptor.
fn descriptor_fields(leading: i64, stride: i64) -> i64 {
    ((leading >> 4) << 16) | ((stride >> 4) << 32)
}

/// The constant part of the descriptor of a K-major operand whose tile has `rows` rows (M of A, N
/// of an NxK B): core matrices `rows * 16` bytes apart along K, 128 bytes apart along M/N.
pub fn k_major_descriptor(rows: i64) -> i64 {
    descriptor_fields(rows * 16, 128)
}

/// The constant part of the descriptor of an MN-major B (KxN) of `depth` (K) rows: leading byte
/// offset 128 (core matrices along K), stride byte offset `depth * 16` (along N). (The assignment
/// of the two offsets was checked on the H200, RESULTS run 36, where the other gave wrong
/// products.)
pub fn mn_major_descriptor(depth: i64) -> i64 {
    descriptor_fields(128, depth * 16)
}

/// How an operand tile lies in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandLayout {
    /// Column slabs of 8 elements (no swizzle; see the module's doc): what the register rules'
    /// own copies and staging write.
    Slabs,
    /// Boxes one after the other, each the tile's rows of `span` bytes (64 columns and the
    /// 128-byte swizzle; a K-major tile's 32 or 16 columns and the 64- or 32-byte swizzle): what
    /// TMA writes (`patterns::tma`). Needs the tile on 1024 bytes.
    Swizzled(i64),
}

/// The descriptor fields and byte offsets of one operand tile of `rows` rows (as it lies: M/N
/// rows of a K-major operand, K rows of an MN-major one).
#[derive(Clone, Copy, Debug)]
pub struct OperandAddressing {
    layout: OperandLayout,
    k_major: bool,
    rows: i64,
}

impl OperandAddressing {
    /// The addressing of an operand tile of `rows` rows in `layout`, K-major or not.
    pub fn new(layout: OperandLayout, k_major: bool, rows: i64) -> Self {
        OperandAddressing { layout, k_major, rows }
    }

    /// The descriptor's constant part (offsets and swizzle mode; the start address is added).
    pub fn constant(&self) -> i64 {
        match (self.layout, self.k_major) {
            (OperandLayout::Slabs, true) => k_major_descriptor(self.rows),
            (OperandLayout::Slabs, false) => mn_major_descriptor(self.rows),
            // K-major, swizzled: 8-row groups of 128-byte rows 1024 bytes apart; a k16 step (32
            // bytes) stays inside a row, so the leading offset is unused (1 by convention).
            (OperandLayout::Swizzled(span), true) => descriptor_fields(16, 8 * span) | swizzle_mode(span),
            // MN-major, swizzled: the next 64 columns of N one box (rows x 128 bytes) further, 8 rows
            // of K 1024 bytes further.
            (OperandLayout::Swizzled(_), false) => descriptor_fields(self.rows * 128, 1024) | swizzle_mode(128),
        }
    }

    /// Bytes from the tile's start to where the instruction's K step `step` (32 bytes of K) starts.
    pub fn step_bytes(&self, step: i64) -> i64 {
        match (self.layout, self.k_major) {
            // Two slabs of 8 columns further.
            (OperandLayout::Slabs, true) => step * 2 * self.rows * 16,
            // Two core matrices (of 8 rows of K) further.
            (OperandLayout::Slabs, false) => step * 256,
            // 32 bytes along a swizzled row, four steps a box.
            (OperandLayout::Swizzled(span), true) => step / (span / 32) * self.rows * span + step % (span / 32) * 32,
            // 16 rows of 128 bytes further.
            (OperandLayout::Swizzled(_), false) => step * 16 * 128,
        }
    }

    /// Bytes from a K-major tile's start to its row `row` (a multiple of 8).
    pub fn row_bytes(&self, row: i64) -> i64 {
        match self.layout {
            OperandLayout::Slabs => row * 16,
            OperandLayout::Swizzled(span) => row * span,
        }
    }

    /// Bytes from the tile's start to index `mn` along M (or N): a row of a K-major tile, a column
    /// of an MN-major one (a multiple of 8).
    pub fn mn_bytes(&self, mn: i64) -> i64 {
        match (self.layout, self.k_major) {
            (_, true) => self.row_bytes(mn),
            // Slabs of 8 columns, each the tile's K rows of 16 bytes.
            (OperandLayout::Slabs, false) => mn / 8 * self.rows * 16,
            // Boxes of 64 columns, each the tile's K rows of 128 bytes; inside a box, the column's
            // bytes along the row (MN-major operands are 16-bit), which the swizzle of the
            // address's bits leaves where TMA put them, as a K step inside a K-major row does.
            (OperandLayout::Swizzled(_), false) => mn / 64 * self.rows * 128 + mn % 64 * 2,
        }
    }
}

/// The descriptor's swizzle mode field (bits 62-63) for a swizzle of `span` bytes: 1 for 128, 2
/// for 64, 3 for 32.
fn swizzle_mode(span: i64) -> i64 {
    (match span {
        128 => 1,
        64 => 2,
        _ => 3,
    }) << 62
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_matrices_are_128_contiguous_bytes() {
        // Row 0 of the first core matrix, then its row 1, then the next core matrix along the rows.
        assert_eq!(core_offset(0, 7, 64), 7);
        assert_eq!(core_offset(1, 0, 64), 8);
        assert_eq!(core_offset(8, 0, 64), 64);
        // The second slab of 8 columns starts after the first slab's 64 rows.
        assert_eq!(core_offset(0, 8, 64), 64 * 8);
        let mut offsets: Vec<i64> = (0..64)
            .flat_map(|row| (0..48).map(move |column| core_offset(row, column, 64)))
            .collect();
        offsets.sort_unstable();
        assert!(offsets.iter().copied().eq(0..64 * 48));
    }

    #[test]
    fn a_slab_is_a_tma_box_of_eight_columns() {
        // A box of R rows by 8 elements, row-major, lands as one slab.
        let rows = 192;
        for row in 0..rows {
            for column in 16..24 {
                assert_eq!(core_offset(row, column, rows), 2 * rows * 8 + row * 8 + (column - 16));
            }
        }
    }

    #[test]
    fn swizzled_k_major_steps_walk_a_row_then_the_next_box() {
        let a = OperandAddressing::new(OperandLayout::Swizzled(128), true, 192);
        assert_eq!(a.step_bytes(0), 0);
        assert_eq!(a.step_bytes(3), 96);
        // Step 4 is column 64: the second box, 192 rows of 128 bytes on.
        assert_eq!(a.step_bytes(4), 192 * 128);
        assert_eq!(a.row_bytes(64), 8192);
        assert_eq!(a.constant(), (1 << 16) | (64 << 32) | (1 << 62));
        let v = OperandAddressing::new(OperandLayout::Swizzled(128), false, 64);
        assert_eq!(v.step_bytes(1), 2048);
        assert_eq!(v.constant(), ((64 * 128 >> 4) << 16) | (64 << 32) | (1 << 62));
    }

    #[test]
    fn a_k_major_tile_of_32_columns_is_one_64_byte_swizzled_box() {
        // 128 rows of K = 32: 64-byte rows, 8-row groups 512 bytes apart, two k16 steps a row.
        let a = OperandAddressing::new(OperandLayout::Swizzled(64), true, 128);
        assert_eq!((a.step_bytes(0), a.step_bytes(1)), (0, 32));
        assert_eq!(a.row_bytes(64), 64 * 64);
        assert_eq!(a.constant(), (1 << 16) | (32 << 32) | (2 << 62));
    }

    #[test]
    fn an_mn_major_operand_moves_along_m_by_slabs_or_boxes() {
        // A KxM A of 64 rows of K: the second 64 columns of M are 8 slabs (or one box) further.
        let slabs = OperandAddressing::new(OperandLayout::Slabs, false, 64);
        assert_eq!(slabs.mn_bytes(64), 8 * 64 * 16);
        let boxes = OperandAddressing::new(OperandLayout::Swizzled(128), false, 64);
        assert_eq!(boxes.mn_bytes(128), 2 * 64 * 128);
        // Warpgroups splitting N = 64 start the second at column 32: 64 bytes into each row.
        assert_eq!(boxes.mn_bytes(32), 64);
        assert_eq!(boxes.mn_bytes(96), 64 * 128 + 64);
        // K-major: rows.
        assert_eq!(
            OperandAddressing::new(OperandLayout::Slabs, true, 128).mn_bytes(64),
            64 * 16
        );
    }

    #[test]
    fn descriptors_carry_the_core_matrix_strides() {
        assert_eq!(k_major_descriptor(64), (64 << 16) | (8 << 32));
        assert_eq!(mn_major_descriptor(64), (8 << 16) | (64 << 32));
    }
}
