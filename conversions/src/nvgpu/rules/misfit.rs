//! Why a gemm misses the tensor cores: the first condition of wgmma's, and of mma.sync's, that it
//! fails, for the warning at a gemm that runs on the scalar rule instead (one condition each, in
//! the order the anchor rules check them: [`crate::nvgpu::anchors`]).

use super::*;
use crate::nvgpu::chip;
use tile_dialect::element::Element;

/// A gemm's operands and the block it runs on, as the conditions read them.
pub(super) struct Gemm<'c, 'a> {
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    c: Value<'c, 'a>,
    transpose_a: bool,
    transpose_b: bool,
    m: i64,
    n: i64,
    k: i64,
    threads: i64,
    /// The origin of the accumulator's layout.
    origin: String,
}

impl<'c, 'a> Gemm<'c, 'a> {
    /// The gemm `gemm` whose accumulator is laid out as `accumulator` says.
    pub(super) fn of(gemm: &OperationRef<'c, 'a>, accumulator: &Placed) -> Option<Gemm<'c, 'a>> {
        let [a, b, c] = [0, 1, 2].map(|i| gemm.operand(i).ok());
        let (a, b, c) = (a?, b?, c?);
        let transpose_a = gemm.attribute("transpose_a").is_ok();
        let a_shape = memref_shape(a);
        let [m, n] = accumulator.layout.shape[..] else {
            return None;
        };
        Some(Gemm {
            a,
            b,
            c,
            transpose_a,
            transpose_b: gemm.attribute("transpose_b").is_ok(),
            m,
            n,
            k: if transpose_a { a_shape[0] } else { *a_shape.last()? },
            threads: accumulator.distribution.threads,
            origin: accumulator.layout.origin.clone(),
        })
    }

    /// "f16 x f16 into f32", for the messages.
    fn types(&self) -> String {
        format!(
            "{} x {} into {}",
            element_type(self.a),
            element_type(self.b),
            element_type(self.c)
        )
    }

    /// Whether A and B are f16 or bf16 alike and C f32.
    fn sixteen_bit(&self) -> bool {
        let element = |value: Value| crate::support::element_of(value);
        matches!(element(self.a), Some(Element::F16 | Element::BF16))
            && element(self.a) == element(self.b)
            && element(self.c) == Some(Element::F32)
    }

    /// Why wgmma cannot take the gemm.
    pub(super) fn off_wgmma(&self) -> String {
        let eight_bit = crate::support::eight_bit_product(self.a, self.b, self.c);
        let warpgroups = (self.threads / 128).max(1);
        let depth = if eight_bit { 32 } else { 16 };
        let shared = |value: Value| level(value) == Some(MemoryLevel::Shared);
        if !self.sixteen_bit() && !eight_bit {
            format!(
                "it multiplies {}, and wgmma takes f16 or bf16 (both alike) into f32, i8 into i32 or f8E4M3FN into f32",
                self.types()
            )
        } else if eight_bit && !chip::wgmma_reads_eight_bit(shared(self.a), self.transpose_a, self.transpose_b) {
            "its 8-bit operands are not A as MxK in a shared tile and B as NxK (transpose_b), the only way wgmma reads them".to_owned()
        } else if !shared(self.b) {
            "its B operand is not a shared tile".to_owned()
        } else if !shared(self.a) && self.transpose_a {
            "its A operand is a transposed fragment (wgmma reads A from a shared tile, or from registers as MxK)"
                .to_owned()
        } else if self.threads % 128 != 0 {
            format!(
                "its block of {} threads is no whole number of warpgroups (128 threads)",
                self.threads
            )
        } else if self.m % (64 * warpgroups) != 0 {
            format!(
                "M = {} is not a multiple of {} (64 rows a warpgroup)",
                self.m,
                64 * warpgroups
            )
        } else if self.n % 8 != 0 || self.n > 256 {
            format!("N = {} is not a multiple of 8 up to 256", self.n)
        } else if self.k % depth != 0 {
            format!("K = {} is not a multiple of {depth}", self.k)
        } else {
            format!("its accumulator has the layout '{}', not wgmma's", self.origin)
        }
    }

    /// Why mma.sync cannot take the gemm (`chained`: the kernel has several gemms, whose warps
    /// split M alone).
    pub(super) fn off_mma_sync(&self, chained: bool) -> String {
        let i8 = crate::support::i8_product(self.a, self.b, self.c);
        let depth = if i8 { 32 } else { 16 };
        if !self.sixteen_bit() && !i8 {
            format!(
                "it multiplies {}, and mma.sync takes f16 or bf16 (both alike) into f32 or i8 into i32",
                self.types()
            )
        } else if level(self.b) != Some(MemoryLevel::Shared) {
            "its B operand is not a shared tile".to_owned()
        } else if self.k % depth != 0 {
            format!("K = {} is not a multiple of {depth}", self.k)
        } else if chip::mma_warp_split(self.threads, self.m, self.n, chained).is_none() {
            let split = if chained {
                " along M (a kernel of several gemms splits M alone)"
            } else {
                ""
            };
            format!(
                "its {} threads' warps cannot split the {}x{} accumulator into 16x8 tiles{split}",
                self.threads, self.m, self.n
            )
        } else {
            format!("its accumulator has the layout '{}', not mma.sync's", self.origin)
        }
    }
}
