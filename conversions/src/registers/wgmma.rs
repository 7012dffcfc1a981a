//! sm_90a tensor cores in the register rules: `tile.gemm` on `nvvm.wgmma.mma_async` when its
//! accumulator has the wgmma layout and its A and B tiles can be laid out for the instruction.
//!
//! Both operands are kept K-major in shared memory without a swizzle, as the instruction's core
//! matrices (8 rows of 16 bytes, 128 contiguous bytes each): element (mn, k) of an operand with K
//! columns lies at `((mn / 8) * (K / 8) + k / 8) * 64 + (mn % 8) * 8 + k % 8` elements from the
//! tile's start. So a descriptor's leading byte offset (between core matrices along K) is 128 and
//! its stride byte offset (between 8-row groups) is `K / 8 * 128`; each k16 step starts 256 bytes
//! further, each 64-row tile `8 * stride` further. The only alignment this needs is 16 bytes. The
//! register rules write these tiles themselves (copies from global memory, a fragment A operand
//! staged for the instruction), so a tile gets this layout only when nothing else touches it.

/// Elements of an operand tile with `depth` (K) columns before element (mn, k): the formula the
/// copy and staging rules compute in IR (`Lowering::core_offset`), kept here to be tested.
#[cfg_attr(not(test), allow(dead_code))]
pub fn core_offset(mn: i64, k: i64, depth: i64) -> i64 {
    ((mn / 8) * (depth / 8) + k / 8) * 64 + (mn % 8) * 8 + k % 8
}

/// Returns the constant part of the descriptor of an operand with `depth` (K) columns in the
/// core-matrix layout (no swizzle): leading byte offset 128, stride byte offset `depth / 8 * 128`.
/// The same constant describes a B operand stored MN-major (each core matrix's 16-byte rows along
/// N, rows along K; the instruction's transpose-B flag set): with core matrices 128 bytes apart
/// along K and `depth / 8 * 128` apart along N, the fields keep their values (checked on the H200,
/// RESULTS run 36, where the other assignment of the two offsets gave wrong products).
pub fn descriptor_constant(depth: i64) -> i64 {
    let (leading, stride) = (128i64, depth / 8 * 128);
    ((leading >> 4) << 16) | ((stride >> 4) << 32)
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
        // Row 0 of the first core matrix, then its row 1, then the next core matrix along K.
        assert_eq!(core_offset(0, 7, 64), 7);
        assert_eq!(core_offset(1, 0, 64), 8);
        assert_eq!(core_offset(0, 8, 64), 64);
        // The second 8-row group starts after the first group's K / 8 core matrices.
        assert_eq!(core_offset(8, 0, 64), 8 * 64);
        let mut offsets: Vec<i64> = (0..64).flat_map(|mn| (0..64).map(move |k| core_offset(mn, k, 64))).collect();
        offsets.sort_unstable();
        assert!(offsets.iter().copied().eq(0..64 * 64));
    }

    #[test]
    fn an_mn_major_b_places_eight_columns_of_n_in_each_row() {
        // The MN-major placement is the K-major formula with the roles inside a core matrix swapped.
        let mn_major = |k: i64, n: i64, depth: i64| ((n / 8) * (depth / 8) + k / 8) * 64 + (k % 8) * 8 + n % 8;
        assert_eq!(mn_major(0, 7, 64), 7);
        assert_eq!(mn_major(1, 0, 64), 8);
        assert_eq!(mn_major(8, 0, 64), 64);
        assert_eq!(mn_major(0, 8, 64), 8 * 64);
    }

    #[test]
    fn descriptors_carry_the_core_matrix_strides() {
        assert_eq!(descriptor_constant(64), (8 << 16) | (64 << 32));
    }
}
