//! The CPU reference lowering, executed: tile programs run through `convert-tile-to-cpu` and MLIR's
//! execution engine on seeded random inputs, checked element by element against references written
//! here in plain Rust (f64), so that the reference semantics are themselves tested.

mod common;

use tile_run::{CpuProgram, buffer::Buffer, buffer::Random, buffers, context, host_functions};

/// Runs the only host function of `programs/<file>` with `seed`; returns every buffer after the run.
fn run(file: &str, seed: u64, dynamic_size: usize) -> Vec<Buffer> {
    let path = common::repo_root().join("test/programs").join(file);
    let context = context();
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).expect("program parses");
    let functions = host_functions(&module).expect("host functions");
    assert_eq!(functions.len(), 1);
    let program = CpuProgram::compile(&context, &mut module).expect("lowers and compiles");
    let mut data = buffers(&functions[0], &mut Random::new(seed), dynamic_size);
    program.run(&functions[0].name, &mut data).expect("runs");
    data
}

/// Asserts every element of `out` is within `tolerance` (relative, floor 1) of `reference`.
fn assert_close(out: &Buffer, reference: &[f64], tolerance: f64) {
    assert_eq!(out.len(), reference.len());
    for (index, expected) in reference.iter().enumerate() {
        let got = out.get(index);
        let bound = tolerance * expected.abs().max(1.0);
        assert!(
            (got - expected).abs() <= bound,
            "element {index} (at {:?}): got {got}, expected {expected}",
            unflatten(index, &out.shape)
        );
    }
}

/// Returns the multi-index of row-major element `index` of `shape`.
fn unflatten(mut index: usize, shape: &[usize]) -> Vec<usize> {
    let mut indices = vec![0; shape.len()];
    for (dim, size) in shape.iter().enumerate().rev() {
        indices[dim] = index % size;
        index /= size;
    }
    indices
}

fn matmul(a: &Buffer, b: &Buffer, transpose_b: bool) -> Vec<f64> {
    let (m, k) = (a.shape[0], a.shape[1]);
    let n = if transpose_b { b.shape[0] } else { b.shape[1] };
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k)
                .map(|p| {
                    a.get(i * k + p)
                        * if transpose_b {
                            b.get(j * k + p)
                        } else {
                            b.get(p * n + j)
                        }
                })
                .sum();
        }
    }
    c
}

#[test]
fn ragged_gemm_with_relu() {
    let data = run("gemm_ragged_relu.mlir", 7, 0);
    let reference: Vec<f64> = matmul(&data[0], &data[1], false)
        .into_iter()
        .map(|x| x.max(0.0))
        .collect();
    // f32 accumulation, f16 output: the output rounding dominates.
    assert_close(&data[2], &reference, 2e-3);
    assert!(
        reference.iter().any(|x| *x > 0.0) && reference.contains(&0.0),
        "ReLU must matter"
    );
}

#[test]
fn gemm_accumulating_onto_a_nonzero_fill() {
    let data = run("gemm_bias_fill.mlir", 8, 0);
    let reference: Vec<f64> = matmul(&data[0], &data[1], false).into_iter().map(|x| x + 0.5).collect();
    assert_close(&data[2], &reference, 2e-3);
}

#[test]
fn bf16_gemm_with_transposed_b_and_a_k_tail() {
    let data = run("gemm_transpose_b_bf16.mlir", 11, 0);
    let reference = matmul(&data[0], &data[1], true);
    assert_close(&data[2], &reference, 1e-5);
}

#[test]
fn multi_head_gemm_on_4d_tensors_with_a_ragged_sequence() {
    // Q K^T / 8 per (batch, head) of 2x3x104x64 tensors on 64-row tiles: the last sequence block of
    // each head must read zeros past row 104, not the next head's rows, and write none of them.
    let data = run("multi_head_scores.mlir", 31, 0);
    let (heads, seq, dim) = (6, 104, 64);
    let (q, k) = (&data[0], &data[1]);
    let mut reference = vec![0.0; heads * seq * seq];
    for head in 0..heads {
        for s in 0..seq {
            for t in 0..seq {
                let dot: f64 = (0..dim)
                    .map(|d| q.get((head * seq + s) * dim + d) * k.get((head * seq + t) * dim + d))
                    .sum();
                reference[(head * seq + s) * seq + t] = dot / 8.0;
            }
        }
    }
    assert_eq!(data[2].shape, vec![2, 3, seq, seq]);
    assert_close(&data[2], &reference, 2e-3);
}

#[test]
fn batched_gemm_with_a_3d_a_and_shared_weights() {
    // relu(X[b] W) for a 3x100x64 X and a 64x48 W on 64x64 tiles: ragged rows and columns, the
    // batch picked by the leading offset of X's and Y's copies.
    let data = run("batched_gemm_relu.mlir", 35, 0);
    let (batches, rows, k, n) = (3, 100, 64, 48);
    let (x, w) = (&data[0], &data[1]);
    let mut reference = vec![0.0; batches * rows * n];
    for b in 0..batches {
        for i in 0..rows {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| x.get((b * rows + i) * k + p) * w.get(p * n + j)).sum();
                reference[(b * rows + i) * n + j] = dot.max(0.0);
            }
        }
    }
    assert_close(&data[2], &reference, 2e-3);
}

#[test]
fn gemm_with_a_bias_vector_and_a_residual_tile_in_the_epilogue() {
    // relu(A B + bias) + R for 100x64 by 64x128 on 64x64 tiles: the residual copy clips the ragged
    // last row block.
    let data = run("gemm_bias_residual.mlir", 37, 0);
    let (bias, residual) = (&data[2], &data[3]);
    let n = 128;
    let reference: Vec<f64> = matmul(&data[0], &data[1], false)
        .into_iter()
        .enumerate()
        .map(|(index, x)| (x + bias.get(index % n)).max(0.0) + residual.get(index))
        .collect();
    assert_close(&data[4], &reference, 2e-3);
}

#[test]
fn gemm_with_an_epilogue_that_loads_a_bias_vector_and_a_residual_tile() {
    // relu(A B + bias) + R for 200x64 by 64x192 on 128x128 tiles, the bias and the residual read
    // with memref.load in the epilogue.
    let data = run("gemm_epilogue_reads.mlir", 39, 0);
    let (bias, residual) = (&data[2], &data[3]);
    let n = 192;
    let reference: Vec<f64> = matmul(&data[0], &data[1], false)
        .into_iter()
        .enumerate()
        .map(|(index, x)| (x + bias.get(index % n)).max(0.0) + residual.get(index))
        .collect();
    assert_close(&data[4], &reference, 2e-3);
}

#[test]
fn grouped_gemm_over_groups_read_on_the_device() {
    // C[r] = A[r] B[g] for the rows r of group g; the sizes as the program makes them valid: |s| * 9
    // rows for the first three groups (at most what is left), the rest of the 288 for the last.
    let (m, k, n, groups) = (288, 96, 80, 4);
    let mut shapes = Vec::new();
    for seed in 40..52 {
        let data = run("grouped_gemm_small.mlir", seed, 0);
        let (a, b, sizes) = (&data[0], &data[1], &data[2]);
        let mut rows = Vec::new();
        let mut start = 0;
        for g in 0..groups {
            let wanted = (sizes.get(g).abs() as usize * 9).min(m - start);
            let count = if g + 1 == groups { m - start } else { wanted };
            rows.push(count);
            start += count;
        }
        let mut reference = vec![0.0; m * n];
        let mut row = 0;
        for (g, count) in rows.iter().enumerate() {
            for r in row..row + count {
                for j in 0..n {
                    reference[r * n + j] = (0..k).map(|p| a.get(r * k + p) * b.get((g * k + p) * n + j)).sum();
                }
            }
            row += count;
        }
        assert_close(&data[3], &reference, 2e-3);
        shapes.extend(rows);
    }
    // The seeds give an empty group, groups of fewer rows than a 64-row tile and groups that span
    // tiles: every case of the walk over the groups' tiles.
    assert!(shapes.contains(&0), "{shapes:?}");
    assert!(
        shapes.iter().any(|rows| (1..64).contains(rows) && rows % 64 != 0),
        "{shapes:?}"
    );
    assert!(shapes.iter().any(|rows| *rows > 64), "{shapes:?}");
}

#[test]
fn nd_copies_through_a_fragment_and_shared_memory() {
    // 2x+1 over a 3x70x32 tensor in 32x32 tiles placed at (head, sequence block, 0): every element
    // written once, the ragged last block clipped per dimension.
    let data = run("nd_copy_scale.mlir", 32, 0);
    let reference: Vec<f64> = (0..data[0].len()).map(|i| 2.0 * data[0].get(i) + 1.0).collect();
    assert_close(&data[1], &reference, 1e-6);
}

#[test]
fn row_softmax() {
    let data = run("row_softmax.mlir", 3, 0);
    let (rows, cols) = (24, 64);
    let mut reference = vec![0.0; rows * cols];
    for r in 0..rows {
        let row: Vec<f64> = (0..cols).map(|c| data[0].get(r * cols + c)).collect();
        let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = row.iter().map(|x| (x - max).exp()).sum();
        for c in 0..cols {
            reference[r * cols + c] = (row[c] - max).exp() / sum;
        }
    }
    assert_close(&data[1], &reference, 1e-5);
}

#[test]
fn every_reduction_kind_and_accumulation() {
    let data = run("reduce_kinds.mlir", 5, 0);
    let (rows, cols) = (16, 32);
    let input = &data[0];
    let column = |c: usize| (0..rows).map(move |r| input.get(r * cols + c));
    let mut reference = Vec::new();
    type Kind = fn(&mut dyn Iterator<Item = f64>) -> f64;
    let kinds: [Kind; 6] = [
        |xs| xs.sum(),
        |xs| xs.fold(f64::NEG_INFINITY, f64::max),
        |xs| xs.fold(f64::INFINITY, f64::min),
        |xs| xs.map(f64::abs).sum(),
        |xs| xs.map(f64::abs).fold(0.0, f64::max),
        |xs| 2.0 * xs.sum::<f64>(),
    ];
    for kind in kinds {
        for c in 0..cols {
            reference.push(kind(&mut column(c)));
        }
    }
    assert_close(&data[1], &reference, 1e-5);
}

#[test]
fn dynamic_gemm_example_on_small_sizes() {
    // examples/gemm_dynamic.mlir with every size 96: one 128x256 tile, mostly clipped.
    let path = common::repo_root().join("examples/gemm_dynamic.mlir");
    let context = context();
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).unwrap();
    let functions = host_functions(&module).unwrap();
    let program = CpuProgram::compile(&context, &mut module).unwrap();
    let mut data = buffers(&functions[0], &mut Random::new(13), 96);
    program.run(&functions[0].name, &mut data).unwrap();
    let reference = matmul(&data[0], &data[1], false);
    assert_close(&data[2], &reference, 2e-3);
}

#[test]
fn unwritten_outputs_stay_nan() {
    // Only rows 0..64 of a 100-row output are written by a 1x1 grid: the rest must stay NaN.
    let source = std::fs::read_to_string(common::repo_root().join("test/programs/gemm_ragged_relu.mlir")).unwrap();
    let one_block = source
        .replace("tile.kernel grid(%c2, %c2)", "tile.kernel grid(%c1, %c1)")
        .replace(
            "%c2 = arith.constant 2 : index",
            "%c2 = arith.constant 2 : index\n  %c1 = arith.constant 1 : index",
        );
    let context = context();
    let mut module = melior::ir::Module::parse(&context, &one_block).expect("parses");
    let functions = host_functions(&module).unwrap();
    let program = CpuProgram::compile(&context, &mut module).unwrap();
    let mut data = buffers(&functions[0], &mut Random::new(1), 0);
    program.run(&functions[0].name, &mut data).unwrap();
    let c = &data[2];
    assert!(!c.get(0).is_nan());
    assert!(c.get(64 * 90).is_nan(), "row 64 is outside the one block's tile");
    assert!(
        c.get(63 * 90 + 64).is_nan(),
        "column 64 is outside the one block's tile"
    );
}

/// Returns erf(x) in f64 from its Taylor series (|x| <= 3 here: 60 terms leave under 1e-12).
fn erf(x: f64) -> f64 {
    let (mut term, mut sum) = (x, x);
    for n in 1..60 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// Returns trunc(1000 x) computed in f32, the integer math_functions.mlir counts the bits of.
fn bits(x: f64) -> i32 {
    (x as f32 * 1000.0) as i32
}

/// One row of math_functions.mlir: f(x, |x| + 1/4, 3x, x/2), the shifted arguments in f32.
type MathFunction = fn(f64, f64, f64, f64) -> f64;

#[test]
fn every_math_function() {
    // Row k of the output is function k of x (test/programs/math_functions.mlir), with the
    // program's f32 shifts of x redone in f32 so that floor, ceil and the integer exponents see the
    // same arguments.
    let data = run("math_functions.mlir", 5, 0);
    let functions: [(&str, MathFunction); 39] = [
        ("exp", |_, _, w, _| w.exp()),
        ("exp2", |_, _, w, _| w.exp2()),
        ("expm1", |_, _, _, h| h.exp_m1()),
        ("log", |_, p, _, _| p.ln()),
        ("log2", |_, p, _, _| p.log2()),
        ("log10", |_, p, _, _| p.log10()),
        ("log1p", |_, _, _, h| h.ln_1p()),
        ("rsqrt", |_, p, _, _| 1.0 / p.sqrt()),
        ("sqrt", |_, p, _, _| p.sqrt()),
        ("tanh", |_, _, w, _| w.tanh()),
        ("erf", |_, _, w, _| erf(w)),
        ("sin", |_, _, w, _| w.sin()),
        ("cos", |_, _, w, _| w.cos()),
        ("tan", |x, _, _, _| x.tan()),
        ("atan", |_, _, w, _| w.atan()),
        ("atan2", |x, _, _, h| x.atan2(h)),
        ("powf", |_, p, w, _| p.powf(w)),
        ("fpowi 3", |_, _, w, _| w.powi(3)),
        ("absf", |x, _, _, _| x.abs()),
        ("floor", |_, _, w, _| w.floor()),
        ("ceil", |_, _, w, _| w.ceil()),
        ("round", |_, _, w, _| w.round()),
        ("fma", |x, _, w, h| x.mul_add(w, h)),
        ("copysign", |x, p, _, _| p.copysign(x)),
        ("cbrt", |_, _, w, _| w.cbrt()),
        ("erfc", |x, _, _, _| 1.0 - erf(x)),
        ("trunc", |_, _, w, _| w.trunc()),
        ("roundeven", |_, _, w, _| w.round_ties_even()),
        ("asin", |_, _, _, h| h.asin()),
        ("acos", |_, _, _, h| h.acos()),
        ("sinh", |x, _, _, _| x.sinh()),
        ("cosh", |x, _, _, _| x.cosh()),
        ("powf of an integer", |x, _, w, _| w.powf((x * 4.0).trunc())),
        ("fpowi", |x, _, w, _| w.powi((x * 4.0).trunc() as i32)),
        ("ctlz", |x, _, _, _| f64::from(bits(x).leading_zeros())),
        ("cttz", |x, _, _, _| f64::from(bits(x).trailing_zeros())),
        ("ctpop", |x, _, _, _| f64::from(bits(x).count_ones())),
        ("absi", |x, _, _, _| f64::from(bits(x).abs())),
        ("isfinite + 4 isnan", |_, _, _, _| 1.0),
    ];
    let cols = 64;
    for (row, (name, function)) in functions.iter().enumerate() {
        for col in 0..cols {
            let x = data[0].get(col) as f32;
            let (p, w, h) = ((x.abs() + 0.25) as f64, (x * 3.0) as f64, (x * 0.5) as f64);
            let expected = function(x as f64, p, w, h);
            let got = data[1].get(row * cols + col);
            assert!(
                (got - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                "{name} of x = {x}: got {got}, expected {expected}"
            );
        }
    }
}

#[test]
fn sixteen_bit_math_is_computed_in_f32_and_rounded_once() {
    // log1p and expm1 of x / 64 in f16 and bf16 (test/programs/math_near_zero_f16.mlir): computed in
    // the 16-bit type, 1 + x rounds first and the result is off by up to half an ulp of 1 (7% here);
    // computed in f32 and rounded once, it is within half an ulp of the result.
    let data = run("math_near_zero_f16.mlir", 7, 0);
    let cols = 64;
    for col in 0..cols {
        // The program's f16 argument: x / 64, rounded where it falls below f16's normal range.
        let step = 2f64.powi(-24);
        let h = (data[0].get(col) * 0.015625 / step).round_ties_even() * step;
        // The program's bf16 argument: the f16 value rounded to bf16 (to nearest even).
        let b = {
            let bits = (h as f32).to_bits();
            let rounded = bits + 0x7fff + ((bits >> 16) & 1);
            f64::from(f32::from_bits(rounded & 0xffff_0000))
        };
        // (name, exact result, half an ulp relative, half the spacing of subnormal results)
        let rows: [(&str, f64, f64, f64); 4] = [
            ("f16 log1p", h.ln_1p(), 2f64.powi(-11), 2f64.powi(-25)),
            ("f16 expm1", h.exp_m1(), 2f64.powi(-11), 2f64.powi(-25)),
            ("bf16 log1p", b.ln_1p(), 2f64.powi(-8), 0.0),
            ("bf16 expm1", b.exp_m1(), 2f64.powi(-8), 0.0),
        ];
        for (row, (name, expected, half_ulp, subnormal)) in rows.into_iter().enumerate() {
            let got = data[1].get(row * cols + col);
            assert!(
                (got - expected).abs() <= half_ulp * expected.abs() * 1.01 + subnormal,
                "{name} of {}: got {got}, expected {expected}",
                if row < 2 { h } else { b }
            );
        }
    }
}

/// The scaled scores of `query` in head `h` (of the flattened [batch x heads] heads) in f64, over
/// the keys of the sequence (and, causally, up to the query).
fn scores(q: &Buffer, k: &Buffer, h: usize, query: usize, causal: bool) -> Vec<f64> {
    let (seq, dim) = (q.shape[2], q.shape[3]);
    let at = |buffer: &Buffer, row: usize, d: usize| buffer.get((h * seq + row) * dim + d);
    let keys = if causal { query + 1 } else { seq };
    (0..keys)
        .map(|key| (0..dim).map(|d| at(q, query, d) * at(k, key, d)).sum::<f64>() / (dim as f64).sqrt())
        .collect()
}

/// Attention in f64 on [batch, heads, sequence, dim] tensors: softmax(Q K^T / sqrt(dim)) V over the
/// keys of the sequence (and, causally, up to the query), P rounded to f16 as the program does.
fn attention(q: &Buffer, k: &Buffer, v: &Buffer, causal: bool) -> Vec<f64> {
    let (heads, seq, dim) = (q.shape[0] * q.shape[1], q.shape[2], q.shape[3]);
    let mut out = vec![0.0; heads * seq * dim];
    for h in 0..heads {
        for query in 0..seq {
            let scores = scores(q, k, h, query, causal);
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f64 = weights.iter().sum();
            for d in 0..dim {
                let value: f64 = weights
                    .iter()
                    .enumerate()
                    .map(|(key, w)| w * v.get((h * seq + key) * dim + d))
                    .sum();
                out[(h * seq + query) * dim + d] = value / total;
            }
        }
    }
    out
}

/// Each row's log-sum-exp of the scaled scores (causal or not), in f64: what a backward pass reads.
fn log_sum_exp(q: &Buffer, k: &Buffer, causal: bool) -> Vec<f64> {
    let (heads, seq) = (q.shape[0] * q.shape[1], q.shape[2]);
    let mut out = vec![0.0; heads * seq];
    for h in 0..heads {
        for query in 0..seq {
            let scores = scores(q, k, h, query, causal);
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            out[h * seq + query] = max + scores.iter().map(|s| (s - max).exp()).sum::<f64>().ln();
        }
    }
    out
}

#[test]
fn flash_attention_writes_the_rows_log_sum_exp() {
    let data = run("attention_lse_small.mlir", 48, 0);
    assert_close(&data[3], &attention(&data[0], &data[1], &data[2], true), 1e-2);
    assert_close(&data[4], &log_sum_exp(&data[0], &data[1], true), 1e-3);
}

#[test]
fn flash_attention_on_4d_tensors_with_a_ragged_sequence() {
    let data = run("attention_4d.mlir", 46, 0);
    assert_close(&data[3], &attention(&data[0], &data[1], &data[2], false), 1e-2);
}

#[test]
fn causal_flash_attention_on_4d_tensors_with_a_ragged_sequence() {
    let data = run("attention_4d_causal.mlir", 47, 0);
    assert_close(&data[3], &attention(&data[0], &data[1], &data[2], true), 1e-2);
}

/// test/programs/attention_persistent_small.mlir's functions `names`, all causal or none, as
/// written (the CPU reference runs one block an item; interp.rs runs the persistent kernels
/// sm_90a's passes write against it).
fn persistent_flash_attention_kernels_match_f64(causal: bool, names: &[&str]) {
    for name in names {
        let data = run_function("attention_persistent_small.mlir", name, 49);
        assert_close(&data[3], &attention(&data[0], &data[1], &data[2], causal), 1e-2);
    }
}

// In two tests, so that the test threads share them.
#[test]
fn persistent_flash_attention_kernels_match_f64_non_causal() {
    persistent_flash_attention_kernels_match_f64(
        false,
        &[
            "attention_persistent_small",
            "attention_persistent_short_small",
            "attention_persistent_pingpong_small",
            "attention_persistent_ring_ends_small",
            "attention_persistent_ring_ends_pingpong_small",
        ],
    );
}

#[test]
fn persistent_flash_attention_kernels_match_f64_causal() {
    persistent_flash_attention_kernels_match_f64(
        true,
        &[
            "attention_persistent_causal_small",
            "attention_persistent_causal_fa3_small",
            "attention_persistent_causal_ring_ends_small",
        ],
    );
}

#[test]
fn saturating_copies_give_values_past_the_range_the_largest_finite_one() {
    // test/programs/f8_saturate.mlir: f32 inputs scaled by 1000 (f8E4M3FN, largest finite 448)
    // and 100000 (f8E5M2, 57344) copied into 8-bit floats with `saturate`, from a fragment into a
    // fragment (then widened into E) and into a global tensor (D).
    for (name, scale, largest, mantissa) in [("e4m3_saturate", 1e3, 448.0, 3), ("e5m2_saturate", 1e5, 57344.0, 2)] {
        let data = run_function("f8_saturate.mlir", name, 29);
        let (x, d, e) = (&data[0], &data[1], &data[2]);
        let mut saturated = 0;
        for i in 0..x.len() {
            let exact = (x.get(i) as f32 * scale as f32) as f64;
            for got in [d.get(i), e.get(i)] {
                assert!(
                    got.is_finite() && got.abs() <= largest,
                    "{name}[{i}]: {exact} gave {got}"
                );
                if exact.abs() >= largest {
                    assert_eq!(got, largest.copysign(exact), "{name}[{i}]: {exact} did not saturate");
                } else {
                    let quantum = 2f64.powi(exact.abs().log2().floor() as i32 - mantissa);
                    assert!(
                        (got - exact).abs() <= quantum / 2.0 + 1e-12,
                        "{name}[{i}]: {exact} rounded to {got}"
                    );
                }
            }
            saturated += (exact.abs() >= largest) as usize;
        }
        assert!(saturated > 100, "{name}: only {saturated} values past the range");
    }
}

#[test]
fn ring_ends_flash_attention_kernels_match_f64() {
    // test/programs/attention_ring_ends_small.mlir as written: FlashAttention-3's order whose first
    // K and last V come through the ring, the loop one step longer than the key blocks.
    for (name, causal) in [
        ("attention_ring_ends_small", false),
        ("attention_ring_ends_pingpong_small", false),
        ("attention_causal_ring_ends_small", true),
    ] {
        let data = run_function("attention_ring_ends_small.mlir", name, 53);
        assert_close(&data[3], &attention(&data[0], &data[1], &data[2], causal), 1e-2);
    }
}

/// One query's attention output over `keys` keys in f64: softmax over the keys of the scaled
/// scores (`product(key, d)` summed over the head dim) times the values (`value(key, d)`).
fn attention_row(
    keys: usize,
    dim: usize,
    product: impl Fn(usize, usize) -> f64,
    value: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let scores: Vec<f64> = (0..keys)
        .map(|key| (0..dim).map(|d| product(key, d)).sum::<f64>() / (dim as f64).sqrt())
        .collect();
    let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    (0..dim)
        .map(|d| {
            weights
                .iter()
                .enumerate()
                .map(|(key, w)| w * value(key, d))
                .sum::<f64>()
                / total
        })
        .collect()
}

/// Runs host function `name` of `programs/<file>` with `seed` (a file of several functions).
fn run_function(file: &str, name: &str, seed: u64) -> Vec<Buffer> {
    let path = common::repo_root().join("test/programs").join(file);
    let context = context();
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).expect("program parses");
    let functions = host_functions(&module).expect("host functions");
    let function = functions
        .iter()
        .find(|function| function.name == name)
        .expect("the function");
    let program = CpuProgram::compile(&context, &mut module).expect("lowers and compiles");
    let mut data = buffers(function, &mut Random::new(seed), 0);
    program.run(&function.name, &mut data).expect("runs");
    data
}

#[test]
fn flash_attention_over_packed_sequences_of_different_lengths() {
    // tools/gen/attention.py test-varlen: 3 sequences packed into [300 tokens, 2 heads, 32], their
    // lengths |L| * 13 tokens, at most 100. Each sequence attends to itself alone (causally in the
    // second function); rows of no sequence stay NaN.
    let (heads, dim, longest) = (2, 32, 100);
    let mut lengths_seen = Vec::new();
    for (name, causal) in [
        ("attention_varlen_small", false),
        ("attention_varlen_causal_small", true),
    ] {
        for seed in 60..66 {
            let data = run_function("attention_varlen_small.mlir", name, seed);
            let (q, k, v, lengths, out) = (&data[0], &data[1], &data[2], &data[3], &data[4]);
            let at =
                |tensor: &Buffer, token: usize, head: usize, d: usize| tensor.get((token * heads + head) * dim + d);
            let mut first = 0;
            for b in 0..3 {
                let length = (lengths.get(b).abs() as usize * 13).min(longest);
                lengths_seen.push(length);
                for head in 0..heads {
                    for query in 0..length {
                        let keys = if causal { query + 1 } else { length };
                        let row = attention_row(
                            keys,
                            dim,
                            |key, d| at(q, first + query, head, d) * at(k, first + key, head, d),
                            |key, d| at(v, first + key, head, d),
                        );
                        for (d, expected) in row.into_iter().enumerate() {
                            let got = at(out, first + query, head, d);
                            assert!(
                                (got - expected).abs() <= 1e-2 * expected.abs().max(1.0),
                                "{name} seed {seed}: sequence {b}, head {head}, query {query}, {d}: got {got}, expected {expected}"
                            );
                        }
                    }
                }
                first += length;
            }
            for index in first * heads * dim..out.len() {
                assert!(
                    out.get(index).is_nan(),
                    "{name} seed {seed}: element {index} of no sequence was written"
                );
            }
        }
    }
    // Empty sequences, sequences shorter than a 32-row block and ones of several blocks with a
    // ragged end.
    assert!(lengths_seen.contains(&0), "{lengths_seen:?}");
    assert!(lengths_seen.iter().any(|n| (1..32).contains(n)), "{lengths_seen:?}");
    assert!(lengths_seen.iter().any(|n| *n > 32 && n % 32 != 0), "{lengths_seen:?}");
}

#[test]
fn flash_attention_on_8_bit_float_inputs() {
    // tools/gen/attention.py test-fp8: f8E4M3FN Q, K and V^T ([1, 2, 64, 112]), O in f16. P is
    // rounded to f8E4M3FN (3 mantissa bits) before the second product, as FlashAttention-3's fp8
    // path does: the output is within that rounding of exact attention on the same inputs.
    let (heads, seq, dim) = (2, 112, 64);
    for (name, causal) in [
        ("attention_fp8_small", false),
        ("attention_fp8_causal_small", true),
        ("attention_fp8_registers_small", false),
        ("attention_fp8_registers_causal_small", true),
        ("attention_fp8_saturate_small", false),
        ("attention_fp8_causal_saturate_small", true),
    ] {
        let data = run_function("attention_fp8_small.mlir", name, 71);
        let (q, k, vt, out) = (&data[0], &data[1], &data[2], &data[3]);
        let mut worst: f64 = 0.0;
        for head in 0..heads {
            for query in 0..seq {
                let keys = if causal { query + 1 } else { seq };
                let row = attention_row(
                    keys,
                    dim,
                    |key, d| q.get((head * seq + query) * dim + d) * k.get((head * seq + key) * dim + d),
                    |key, d| vt.get((head * dim + d) * seq + key),
                );
                for (d, expected) in row.into_iter().enumerate() {
                    worst = worst.max((out.get((head * seq + query) * dim + d) - expected).abs());
                }
            }
        }
        assert!(worst < 3e-2, "{name}: worst absolute error {worst}");
    }
}

#[test]
fn grouped_gemm_example_on_a_random_valid_partition() {
    // examples/grouped_gemm.mlir declares its group sizes a partition of A's rows (`tile.sizes`):
    // tile-run fills them with a random valid partition (no size below 0, summing to at most M),
    // and every row of a group is A's row times its group's B; rows past the groups stay NaN.
    let path = common::repo_root().join("examples/grouped_gemm.mlir");
    let context = context();
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).unwrap();
    let functions = host_functions(&module).unwrap();
    let program = CpuProgram::compile(&context, &mut module).unwrap();
    // 40 rows, 40 groups of 40 x 40 weights.
    let mut data = buffers(&functions[0], &mut Random::new(5), 40);
    let sizes: Vec<i64> = (0..data[2].len()).map(|g| data[2].get(g) as i64).collect();
    assert!(sizes.iter().all(|size| *size >= 0), "sizes {sizes:?}");
    let total: i64 = sizes.iter().sum();
    assert!(total <= 40 && total > 0, "sizes {sizes:?} sum to {total}");
    assert!(
        sizes.iter().filter(|size| **size > 0).count() > 1,
        "sizes {sizes:?}: one group"
    );
    program.run(&functions[0].name, &mut data).unwrap();
    let (a, b, c) = (&data[0], &data[1], &data[3]);
    let mut row = 0;
    for (group, size) in sizes.iter().enumerate() {
        for _ in 0..*size {
            for j in 0..40 {
                let expected: f64 = (0..40)
                    .map(|p| a.get(row * 40 + p) * b.get(group * 1600 + p * 40 + j))
                    .sum();
                let got = c.get(row * 40 + j);
                assert!(
                    (got - expected).abs() <= 2e-3 * expected.abs().max(1.0),
                    "row {row}, column {j}: got {got}, expected {expected}"
                );
            }
            row += 1;
        }
    }
    assert!(
        (row * 40..40 * 40).all(|index| c.get(index).is_nan()),
        "rows past the groups were written"
    );
}
