//! sm_90a tensor cores in the register rules: `tile.gemm` on `nvvm.wgmma.mma_async` when its
//! accumulator has the wgmma layout and its A and B tiles can be laid out for the instruction.
//!
//! Both operands are kept in shared memory without a swizzle, as the instruction's core matrices
//! (8 rows of 16 bytes, 128 contiguous bytes each), in column slabs: a tile of R rows (as it lies
//! in global memory: MN rows of a K-major operand, K rows of an MN-major one) is stored as its
//! slabs of 8 columns one after the other, each slab R rows of 16 bytes, row-major. Element (r, c)
//! lies at `(c / 8) * R * 8 + r * 8 + c % 8` elements from the tile's start. A slab is what one
//! TMA box of R rows by 8 elements writes (no swizzle), and 8 neighbouring rows of a slab are one
//! core matrix, so
//! - a K-major operand (A, or B given NxK) has its core matrices 128 bytes apart along M/N (the
//!   descriptor's stride byte offset) and `R * 16` bytes apart along K (its leading byte offset);
//!   each k16 step starts `2 * R * 16` bytes further, each 64-row tile 1024 bytes further;
//! - an MN-major B (KxN) has its core matrices 128 bytes apart along K and `K * 16` bytes apart
//!   along N; each k16 step starts 256 bytes further.
//! The only alignment this needs is 16 bytes. The register rules write these tiles themselves
//! (copies from global memory, a fragment A operand staged for the instruction), so a tile gets
//! this layout only when nothing else touches it.

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

/// Returns the `!llvm.struct` of one 64-row accumulator tile of `n` columns.
pub fn accumulator_type(n: i64) -> String {
    format!("!llvm.struct<({})>", vec!["f32"; (n / 2) as usize].join(", "))
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
        let mut offsets: Vec<i64> = (0..64).flat_map(|row| (0..48).map(move |column| core_offset(row, column, 64))).collect();
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
    fn descriptors_carry_the_core_matrix_strides() {
        assert_eq!(k_major_descriptor(64), (64 << 16) | (8 << 32));
        assert_eq!(mn_major_descriptor(64), (8 << 16) | (64 << 32));
    }
}
