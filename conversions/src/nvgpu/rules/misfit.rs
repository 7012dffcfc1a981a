//! Why a gemm misses the tensor cores: the first condition of wgmma's, and of mma.sync's, that it
//! fails, for the warning at a gemm that runs on the scalar rule instead. The shape conditions are
//! the anchor rules' own ([`crate::nvgpu::anchors`]); the input types and operand kinds are
//! checked here first.

use super::*;
use crate::layout::anchors::{Operands, is_shared, sixteen_bit_product};
use crate::nvgpu::{anchors, chip};

/// "f16 x f16 into f32", for the messages.
fn types(ops: &Operands) -> String {
    format!(
        "{} x {} into {}",
        element_type(ops.a),
        element_type(ops.b),
        element_type(ops.c)
    )
}

/// Whether A and B are f16 or bf16 alike into f32.
fn sixteen_bit_alike(ops: &Operands) -> bool {
    sixteen_bit_product(ops) && crate::support::element_of(ops.a) == crate::support::element_of(ops.b)
}

/// Why wgmma cannot take the gemm of `ops` on `threads` threads, whose accumulator is laid out as
/// `origin` names.
pub(super) fn off_wgmma(ops: &Operands, threads: i64, origin: &str) -> String {
    let eight_bit = crate::support::eight_bit_product(ops.a, ops.b, ops.c);
    if !sixteen_bit_alike(ops) && !eight_bit {
        format!(
            "it multiplies {}, and wgmma takes f16 or bf16 (both alike) into f32, i8 into i32 or f8E4M3FN or f8E5M2 into f32",
            types(ops)
        )
    } else if eight_bit
        && !chip::wgmma_reads_eight_bit(
            is_shared(ops.a),
            crate::support::f8_product(ops.a, ops.b, ops.c),
            ops.transpose_a,
            ops.transpose_b,
        )
    {
        "its 8-bit operands are not A as MxK (in a shared tile, or an 8-bit float fragment) and B as NxK (transpose_b) in a shared tile, the only way wgmma reads them"
            .to_owned()
    } else if !is_shared(ops.b) {
        "its B operand is not a shared tile".to_owned()
    } else if !is_shared(ops.a) && ops.transpose_a {
        "its A operand is a transposed fragment (wgmma reads A from a shared tile, or from registers as MxK)".to_owned()
    } else if let Err(reason) = anchors::wgmma_shape(ops, threads) {
        reason
    } else {
        format!("its accumulator has the layout '{origin}', not wgmma's")
    }
}

/// Why mma.sync cannot take the gemm of `ops` on `threads` threads (`chained`: the kernel has
/// several gemms), whose accumulator is laid out as `origin` names.
pub(super) fn off_mma_sync(ops: &Operands, threads: i64, chained: bool, origin: &str) -> String {
    let i8 = crate::support::i8_product(ops.a, ops.b, ops.c);
    if !sixteen_bit_alike(ops) && !i8 {
        return format!(
            "it multiplies {}, and mma.sync takes f16 or bf16 (both alike) into f32 or i8 into i32",
            types(ops)
        );
    }
    match anchors::mma_sync_warps(ops, threads, chained, if i8 { 32 } else { 16 }) {
        Err(reason) => reason,
        Ok(_) => format!("its accumulator has the layout '{origin}', not mma.sync's"),
    }
}
