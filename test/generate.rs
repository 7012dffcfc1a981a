//! A seeded generator of valid tile programs, for differential testing: every program it writes is
//! run on the reference interpreter (`tile-interp`, the oracle), the CPU reference and Vulkan
//! (lavapipe), and each target's outputs must agree with the interpreter's element by element
//! within a tolerance that fits the program's types and accumulation lengths ([`check`]). Program
//! `index` of `seed` depends on nothing else.
//!
//! Four families ([`program`] picks one per program):
//! - [`rows`]: f32 row programs: a block copies BM rows of X into a fragment (directly or through
//!   a shared tile, the last block ragged), applies elementwise chains and reductions of every
//!   kind, and writes the rows and a row statistic out;
//! - [`gemm`]: GEMM kernels: `tile.gemm` on f16/bf16 shared tiles (or a fragment A) into f32
//!   fragments (or i8 tiles into i32 fragments, converted to f32 for the epilogue), either orientation of A and B, tile sizes tensor cores take and sizes they do not
//!   (K = 8, N = 24, M = 16), inside `tile.pipelined` K loops over ragged global tensors (the last
//!   K, M and N tiles clip), one gemm, two gemms in the loop (two accumulators, or two products into
//!   one), or two gemms chained (the first result, converted, is the second's A operand); 2-D, 3-D
//!   and 4-D global tensors indexed at leading offsets; epilogues with elementwise chains, row and
//!   column reductions, a bias vector and a residual tile read from other global tensors (loaded
//!   at clamped indices, or copied into a fragment with clipping); outputs in f32, f16 or bf16;
//! - [`attention`]: FlashAttention forward kernels: two gemms a pipelined loop over key blocks
//!   with the online softmax between them (masked ragged and causal keys, row reductions, the
//!   accumulator rescaled), the second gemm's A operand the converted scores in registers or a
//!   shared tile;
//! - [`matmul`]: one `tile.matmul` of ragged sizes, static or known at run time, the kernels the
//!   compiler's choice.
//!
//! Every program verifies; its inputs are tile-run's seeded uniform values in [-1, 1) (never zero
//! tensors). [`gpu`] writes the sm_90a cases of generated programs for the GPU machine.

pub mod attention;
pub mod check;
pub mod gemm;
pub mod gpu;
pub mod matmul;
pub mod rows;

pub use gpu::{CaseOutcome, write_gpu_case, write_gpu_cases, write_program_cases};

use crate::fuzz::Rng;
use std::fmt::Write;
use tile_dialect::element::Element;

/// One generated program and what it is made of (for messages and counts).
#[derive(Clone, Debug)]
pub struct Program {
    /// The MLIR text.
    pub text: String,
    /// A one-line description: shapes, threads, stages.
    pub summary: String,
    /// Its `tile.gemm` ops.
    pub gemms: usize,
    /// Its `tile.pipelined` loops.
    pub pipelined: usize,
    /// The longest sum of products or elements behind one output element (K of a gemm, plus the
    /// second gemm's K in a chain; a reduction's length): the comparison's tolerance grows with it.
    pub accumulation: usize,
    /// The element type of the gemms' A and B operands (bf16 products round more coarsely when
    /// results feed a second gemm), if any.
    pub inputs: Option<Element>,
    /// A gemm result, converted to the input type, is another gemm's operand: the targets' last-bit
    /// differences in the transcendental functions before the conversion can round an operand
    /// element to a neighbouring value, moving the second product by one ulp of it.
    pub chained: bool,
}

impl Program {
    /// Returns the tolerance of an element-by-element comparison of an output of `element` with
    /// the interpreter's (relative, with a floor of 1 on the magnitude, as `tile_run::compare`
    /// measures): the output's rounding plus a term that grows with the accumulation length
    /// (summation order differs between targets; a rounding flip of a chained gemm's A operand
    /// moves the second product by one ulp of that operand's type).
    pub fn tolerance(&self, element: Element) -> f64 {
        let base = match element {
            Element::F16 => 4e-3,
            Element::BF16 => 1.6e-2,
            _ => 1e-4,
        };
        let per_term = match self.inputs {
            Some(Element::BF16) => 6e-5,
            Some(_) => 1e-5,
            None => 2e-6,
        };
        // A few rounding flips of a chained operand (f16: 2^-10 relative, bf16: 2^-7), each one
        // ulp of an element of magnitude about 1 times a weight below 1 (seed 2026 program 5441:
        // 1.4e-3 on lavapipe, exact once its exp and tanh are replaced by exactly rounded ops).
        let flips = match (self.chained, self.inputs) {
            (true, Some(Element::BF16)) => 4.0 * 2f64.powi(-7),
            (true, _) => 4.0 * 2f64.powi(-10),
            (false, _) => 0.0,
        };
        base + self.accumulation as f64 * per_term + flips
    }
}

/// Generates program `index` of `seed`: about one in sixteen is a matmul; of the rest, about one
/// in six is an attention kernel; of the rest, three in five are GEMM kernels and the others row
/// programs.
pub fn program(seed: u64, index: u64) -> Program {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ index);
    // Decided on forks, so that the other programs of a seed stay what they were.
    let mut program = if rng.fork(0x3A7A).below(16) == 0 {
        matmul::program(&mut rng.fork(0x3A7B))
    } else if rng.fork(0xA77E).below(6) == 0 {
        attention::program(&mut rng.fork(0xA77F))
    } else if rng.below(5) < 3 {
        gemm::program(&mut rng)
    } else {
        rows::program(&mut rng)
    };
    program.text = format!("// generated: seed {seed}, program {index}\n{}", program.text);
    program
}

/// Returns a float literal in [-2, 2] with two decimals.
pub(crate) fn literal(rng: &mut Rng) -> String {
    format!("{:.2}", (rng.below(401) as f64 - 200.0) / 100.0)
}

/// Writes an elementwise chain on `input` into `body` (lines indented by `indent`), returning the
/// name of its result. It reads the host constants `%k0`..`%k3` and `%one`; `extra`, when given,
/// is a second value some steps combine with. Values stay bounded (tanh before exp), so every
/// target computes in the same range, and every step is Lipschitz (sqrt away from 0), so the
/// targets' last-bit differences in tanh and exp stay last-bit differences.
pub(crate) fn chain(rng: &mut Rng, body: &mut String, prefix: &str, input: &str, extra: Option<&str>) -> String {
    let indent = "      ";
    let mut current = input.to_string();
    let steps = 1 + rng.below(4);
    for step in 0..steps {
        let name = format!("%{prefix}{step}");
        let line = match rng.below(if extra.is_some() { 10 } else { 9 }) {
            0 => format!("{name} = arith.addf {current}, %k{} : f32", rng.below(4)),
            1 => format!("{name} = arith.mulf {current}, %k{} : f32", rng.below(4)),
            2 => format!("{name} = arith.maximumf {current}, %k{} : f32", rng.below(4)),
            3 => format!("{name} = arith.minimumf {current}, %k{} : f32", rng.below(4)),
            4 => format!("{name} = arith.negf {current} : f32"),
            5 => format!("{name} = math.tanh {current} : f32"),
            6 => {
                let squashed = format!("{name}t");
                writeln!(body, "{indent}{squashed} = math.tanh {current} : f32").ok();
                format!("{name} = math.exp {squashed} : f32")
            }
            7 => {
                // sqrt(|x| + 1): away from 0, where sqrt would magnify the last-bit differences
                // of targets' transcendental functions (x = v - max(v) is 0 or nearly).
                let magnitude = format!("{name}a");
                let shifted = format!("{name}b");
                writeln!(body, "{indent}{magnitude} = math.absf {current} : f32").ok();
                writeln!(body, "{indent}{shifted} = arith.addf {magnitude}, %one : f32").ok();
                format!("{name} = math.sqrt {shifted} : f32")
            }
            8 => {
                let magnitude = format!("{name}a");
                let denominator = format!("{name}d");
                writeln!(body, "{indent}{magnitude} = math.absf {current} : f32").ok();
                writeln!(body, "{indent}{denominator} = arith.addf {magnitude}, %one : f32").ok();
                format!("{name} = arith.divf %k{}, {denominator} : f32", rng.below(4))
            }
            _ => {
                let other = extra.unwrap_or(&current);
                let squashed = format!("{name}s");
                writeln!(body, "{indent}{squashed} = math.tanh {other} : f32").ok();
                format!("{name} = arith.subf {current}, {squashed} : f32")
            }
        };
        writeln!(body, "{indent}{line}").ok();
        current = name;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_reproducible_and_differ() {
        assert_eq!(program(1, 3).text, program(1, 3).text);
        assert_ne!(program(1, 3).text, program(1, 4).text);
    }

    #[test]
    fn every_family_is_generated() {
        let programs: Vec<Program> = (0..100).map(|index| program(7, index)).collect();
        assert!(programs.iter().any(|p| p.summary.starts_with("attention")));
        assert!(programs.iter().any(|p| p.gemms == 0));
        assert!(programs.iter().any(|p| p.gemms == 2));
        assert!(programs.iter().any(|p| p.pipelined > 0));
        assert!(programs.iter().any(|p| p.text.contains("transpose_a")));
        assert!(programs.iter().any(|p| p.text.contains("xbf16")));
        assert!(programs.iter().any(|p| p.text.contains("split = 2")));
        assert!(programs.iter().any(|p| p.text.contains("tile.matmul")));
    }
}
