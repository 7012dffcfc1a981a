//! `tile.matmul`: host code on whole global tensors, checked against sums computed here (in f32
//! in K's order, and exactly in f64 for the error bounds).

use super::{context, run, tensor};
use crate::{Error, Program, Tensor};
use half::{bf16, f16};
use melior::ir::Module;

/// The element types of the tests, with their rounding (from `half`, or Rust's `as f32`).
#[derive(Clone, Copy)]
enum Type {
    F16,
    BF16,
    F32,
}

impl Type {
    fn round(self, x: f64) -> f64 {
        match self {
            Type::F16 => f16::from_f64(x).to_f64(),
            Type::BF16 => bf16::from_f64(x).to_f64(),
            Type::F32 => x as f32 as f64,
        }
    }
}

/// A tensor of `shape` of random values exact in `element`, none zero, in [-2, 2).
fn random(shape: &[usize], element: Type, seed: u64) -> Tensor {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || loop {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = element.round((state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0);
        if x != 0.0 {
            return x;
        }
    };
    let len = shape.iter().product();
    Tensor {
        shape: shape.to_vec(),
        data: (0..len).map(|_| next()).collect(),
    }
}

/// `A * op(B)` for an MxK `a` as (exact f64 sums, sums of f32 roundings in order k = 0, 1, ...: what
/// a target summing in f32 gets), MxN row-major.
fn reference(a: &Tensor, b: &Tensor, transpose_b: bool) -> (Vec<f64>, Vec<f64>) {
    let (m, k) = (a.shape[0], a.shape[1]);
    let n = if transpose_b { b.shape[0] } else { b.shape[1] };
    let (mut exact, mut in_f32) = (vec![0.0; m * n], vec![0.0; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (mut sum, mut sum32) = (0.0f64, 0.0f32);
            for p in 0..k {
                let y = if transpose_b {
                    b.data[j * k + p]
                } else {
                    b.data[p * n + j]
                };
                let product = a.data[i * k + p] * y;
                sum += product;
                sum32 += product as f32;
            }
            exact[i * n + j] = sum;
            in_f32[i * n + j] = sum32 as f64;
        }
    }
    (exact, in_f32)
}

/// Matrix `index` of `t`: its batch `index` when 3-D, `t` itself (every batch's) when 2-D.
fn matrix(t: &Tensor, index: usize) -> Tensor {
    match t.shape[..] {
        [_, rows, columns] => Tensor {
            shape: vec![rows, columns],
            data: t.data[index * rows * columns..(index + 1) * rows * columns].to_vec(),
        },
        _ => t.clone(),
    }
}

/// Runs `name` of `source` on A, B and a NaN-filled C of MxN (BxMxN for a 3-D A); checks C element
/// by element against the f32 sums in K's order rounded once to `output`, and that the bounds
/// cover them and the exact sums. A 3-D A is a batch of matrices, multiplied by the matrices of a
/// 3-D B one by one, or each by a 2-D B.
fn check(source: &str, name: &str, a: &Tensor, b: &Tensor, transpose_b: bool, output: Type) {
    let batched = a.shape.len() == 3;
    let batch = if batched { a.shape[0] } else { 1 };
    let (rank_a, rank_b) = (a.shape.len(), b.shape.len());
    let m = a.shape[rank_a - 2];
    let n = if transpose_b {
        b.shape[rank_b - 2]
    } else {
        b.shape[rank_b - 1]
    };
    let c_shape = if batched { vec![batch, m, n] } else { vec![m, n] };
    let context = context();
    let module = Module::parse(&context, source).expect("the test program parses and verifies");
    let mut tensors = [a.clone(), b.clone(), tensor(&c_shape, |_| f64::NAN)];
    let bounds = Program::new(&module).run_bounded(name, &mut tensors).unwrap();
    assert_eq!(tensors[2].data.len(), batch * m * n);
    for index in 0..batch {
        let (exact, in_f32) = reference(&matrix(a, index), &matrix(b, index), transpose_b);
        for within in 0..m * n {
            let position = index * m * n + within;
            let (got, bound) = (tensors[2].data[position], bounds[2][position]);
            let (i, j) = (within / n, within % n);
            let at = if batched {
                format!("C[{index}][{i}][{j}]")
            } else {
                format!("C[{i}][{j}]")
            };
            assert_eq!(got, output.round(in_f32[within]), "{at}");
            assert!(bound.is_finite() && bound > 0.0, "{at}: bound {bound}");
            let target = output.round(in_f32[within]);
            assert!(
                (got - exact[within]).abs() <= bound && (target - exact[within]).abs() <= bound,
                "{at}: {got} and a target's {target} from {} within {bound}",
                exact[within]
            );
        }
    }
}

#[test]
fn matmul_f16_with_transpose_b_rounds_the_f32_sum_once() {
    let source = r#"
    func.func @linear(%A: memref<7x40xf16>, %W: memref<5x40xf16>, %C: memref<7x5xf16>) {
      tile.matmul %A, %W, %C {transpose_b} : memref<7x40xf16>, memref<5x40xf16>, memref<7x5xf16>
      return
    }"#;
    let (a, w) = (random(&[7, 40], Type::F16, 1), random(&[5, 40], Type::F16, 2));
    check(source, "linear", &a, &w, true, Type::F16);
}

const DYNAMIC: &str = r#"
    func.func @mm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
      tile.matmul %A, %B, %C : memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>
      return
    }"#;

#[test]
fn matmul_bf16_into_f32_reads_its_sizes_at_run_time() {
    for (seed, m, k, n) in [(3, 9, 33, 4), (5, 1, 70, 13), (7, 16, 3, 1)] {
        let (a, b) = (random(&[m, k], Type::BF16, seed), random(&[k, n], Type::BF16, seed + 1));
        check(DYNAMIC, "mm", &a, &b, false, Type::F32);
    }
}

#[test]
fn matmul_with_k_0_writes_zeros_and_with_m_0_nothing() {
    let mut tensors = [
        tensor(&[3, 0], |_| 1.0),
        tensor(&[0, 4], |_| 1.0),
        tensor(&[3, 4], |_| f64::NAN),
    ];
    run(DYNAMIC, "mm", &mut tensors).unwrap();
    assert_eq!(tensors[2].data, vec![0.0; 12]);
    let mut tensors = [
        tensor(&[0, 5], |_| 1.0),
        tensor(&[5, 4], |_| 1.0),
        tensor(&[0, 4], |_| 1.0),
    ];
    run(DYNAMIC, "mm", &mut tensors).unwrap();
    assert!(tensors[2].data.is_empty());
}

#[test]
fn matmul_checks_its_sizes_and_reads_of_undefined_elements() {
    // Sizes that disagree at run time.
    let mut tensors = [
        tensor(&[2, 3], |_| 1.0),
        tensor(&[4, 2], |_| 1.0),
        tensor(&[2, 2], |_| 0.0),
    ];
    let error = run(DYNAMIC, "mm", &mut tensors).unwrap_err();
    assert!(
        matches!(&error, Error::Undefined(site, _) if site.op == "tile.matmul"),
        "{error:?}"
    );
    assert!(error.to_string().contains("sizes 4x2"), "{error}");
    // B allocated in host code and never written: read when C has rows, not when it has none.
    let source = r#"
    func.func @fresh(%A: memref<?x4xf16>, %C: memref<?x3xf16>) {
      %B = memref.alloc() : memref<4x3xf16>
      tile.matmul %A, %B, %C : memref<?x4xf16>, memref<4x3xf16>, memref<?x3xf16>
      return
    }"#;
    let mut tensors = [tensor(&[2, 4], |_| 1.0), tensor(&[2, 3], |_| 0.0)];
    match run(source, "fresh", &mut tensors).unwrap_err() {
        Error::UndefinedRead(details) => {
            assert_eq!(details.site.op, "tile.matmul");
            assert_eq!(details.role, "its operand B");
            assert_eq!(details.index, vec![0, 0]);
        }
        other => panic!("expected an undefined read, got {other:?}"),
    }
    let mut tensors = [tensor(&[0, 4], |_| 1.0), tensor(&[0, 3], |_| 0.0)];
    run(source, "fresh", &mut tensors).unwrap();
}

#[test]
fn batched_matmul_f16_multiplies_batch_by_batch_with_transpose_b() {
    let source = r#"
    func.func @heads(%Q: memref<3x6x24xf16>, %K: memref<3x5x24xf16>, %S: memref<3x6x5xf16>) {
      tile.matmul %Q, %K, %S {transpose_b} : memref<3x6x24xf16>, memref<3x5x24xf16>, memref<3x6x5xf16>
      return
    }"#;
    let (q, k) = (random(&[3, 6, 24], Type::F16, 11), random(&[3, 5, 24], Type::F16, 12));
    check(source, "heads", &q, &k, true, Type::F16);
}

#[test]
fn batched_matmul_bf16_into_f32_shares_a_2d_b_across_batches() {
    let source = r#"
    func.func @shared(%A: memref<?x?x?xbf16>, %W: memref<?x?xbf16>, %C: memref<?x?x?xf32>) {
      tile.matmul %A, %W, %C : memref<?x?x?xbf16>, memref<?x?xbf16>, memref<?x?x?xf32>
      return
    }"#;
    for (seed, batch, m, k, n) in [(13, 4, 5, 37, 6), (15, 1, 3, 8, 2), (17, 2, 1, 65, 9), (19, 0, 3, 5, 2)] {
        let a = random(&[batch, m, k], Type::BF16, seed);
        let w = random(&[k, n], Type::BF16, seed + 1);
        check(source, "shared", &a, &w, false, Type::F32);
    }
}

#[test]
fn batched_matmul_checks_its_batch_sizes() {
    let source = r#"
    func.func @bmm(%A: memref<?x?x?xf16>, %B: memref<?x?x?xf16>, %C: memref<?x?x?xf16>) {
      tile.matmul %A, %B, %C : memref<?x?x?xf16>, memref<?x?x?xf16>, memref<?x?x?xf16>
      return
    }"#;
    // B's batch size, then C's, disagreeing with A's.
    for (b, c) in [([3, 3, 2], [2, 2, 2]), ([2, 3, 2], [1, 2, 2])] {
        let mut tensors = [tensor(&[2, 2, 3], |_| 1.0), tensor(&b, |_| 1.0), tensor(&c, |_| 0.0)];
        let error = run(source, "bmm", &mut tensors).unwrap_err();
        assert!(
            matches!(&error, Error::Undefined(site, _) if site.op == "tile.matmul"),
            "{error:?}"
        );
        assert!(error.to_string().contains("one batch size"), "{error}");
        assert!(
            error.to_string().contains(&format!("sizes {}x{}x{}", b[0], b[1], b[2])),
            "{error}"
        );
    }
    // Agreeing batch sizes but an unwritten B: the read is reported at its 3-D index.
    let source = r#"
    func.func @fresh(%A: memref<2x2x4xf16>, %C: memref<2x2x3xf16>) {
      %B = memref.alloc() : memref<2x4x3xf16>
      tile.matmul %A, %B, %C : memref<2x2x4xf16>, memref<2x4x3xf16>, memref<2x2x3xf16>
      return
    }"#;
    let mut tensors = [tensor(&[2, 2, 4], |_| 1.0), tensor(&[2, 2, 3], |_| 0.0)];
    match run(source, "fresh", &mut tensors).unwrap_err() {
        Error::UndefinedRead(details) => {
            assert_eq!(details.site.op, "tile.matmul");
            assert_eq!(details.role, "its operand B");
            assert_eq!(details.index, vec![0, 0, 0]);
        }
        other => panic!("expected an undefined read, got {other:?}"),
    }
}
