//! Unit tests: each op's semantics on tiny programs, checked against results computed here
//! independently (plain loops in f64, the `half` crate's conversions, f8 codes decoded by hand).

use crate::{Error, Program, Tensor};
use half::{bf16, f16};
use melior::{Context, dialect::DialectRegistry, ir::Module, utility::register_all_dialects};

mod arith;
mod errors;
mod matmul;
mod producer;

/// Creates the one kind of context the tests use: every upstream dialect plus tile.
fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    tile_dialect::register(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context.attach_diagnostic_handler(|diagnostic| {
        eprintln!("{diagnostic}");
        true
    });
    context
}

/// Parses `source` (which must verify) and runs its function `name` on `tensors`.
pub(super) fn run(source: &str, name: &str, tensors: &mut [Tensor]) -> Result<(), Error> {
    let context = context();
    let module = Module::parse(&context, source).expect("the test program parses and verifies");
    Program::new(&module).run(name, tensors)
}

pub(super) fn tensor(shape: &[usize], value: impl Fn(usize) -> f64) -> Tensor {
    let len = shape.iter().product();
    Tensor {
        shape: shape.to_vec(),
        data: (0..len).map(value).collect(),
    }
}

/// Small exactly representable inputs, never all zero: -2, -1.5, ..., 2, repeating.
pub(super) fn pattern(seed: usize) -> impl Fn(usize) -> f64 {
    move |i| ((i * 7 + seed * 3) % 9) as f64 * 0.5 - 2.0
}

#[test]
fn copy_clips_reads_and_writes_at_the_end_of_global_buffers() {
    // A 4x4 tile at (2, 4) of a 5x7 buffer: rows 5.., columns 7.. are past the end.
    let source = r#"
    func.func @clip(%X: memref<5x7xf32>, %Y: memref<5x7xf32>, %T: memref<4x4xf32>) {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %S = tile.alloc_shared : memref<4x4xf32, #gpu.address_space<workgroup>>
        tile.copy %X[%c2, %c4], %S : memref<5x7xf32>, memref<4x4xf32, #gpu.address_space<workgroup>>
        tile.copy %S, %T : memref<4x4xf32, #gpu.address_space<workgroup>>, memref<4x4xf32>
        tile.copy %S, %Y[%c2, %c4] : memref<4x4xf32, #gpu.address_space<workgroup>>, memref<5x7xf32>
      }
      return
    }"#;
    let x = tensor(&[5, 7], pattern(1));
    let mut tensors = [x.clone(), tensor(&[5, 7], |_| 9.0), tensor(&[4, 4], |_| 9.0)];
    run(source, "clip", &mut tensors).unwrap();
    for r in 0..4 {
        for c in 0..4 {
            let (row, column) = (2 + r, 4 + c);
            let expected = if row < 5 && column < 7 {
                x.data[row * 7 + column]
            } else {
                0.0
            };
            assert_eq!(tensors[2].data[r * 4 + c], expected, "tile ({r}, {c})");
        }
    }
    for row in 0..5 {
        for column in 0..7 {
            let expected = if row >= 2 && column >= 4 {
                x.data[row * 7 + column]
            } else {
                9.0
            };
            assert_eq!(tensors[1].data[row * 7 + column], expected, "Y ({row}, {column})");
        }
    }
}

#[test]
fn copy_converts_with_round_to_nearest_even() {
    // f32 values on and beside the f16, bf16 and f8E4M3FN rounding boundaries, copied to each type.
    let source = r#"
    func.func @convert(%X: memref<1x8xf32>, %H: memref<1x8xf16>, %B: memref<1x8xbf16>, %E: memref<1x8xf8E4M3FN>, %I: memref<1x8xi32>, %N: memref<1x8xi8>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<1x8xf32, #tile.fragment>
        %W = tile.alloc_fragment : memref<1x8xi32, #tile.fragment>
        tile.copy %X[%c0, %c0], %F : memref<1x8xf32>, memref<1x8xf32, #tile.fragment>
        tile.copy %F, %H[%c0, %c0] : memref<1x8xf32, #tile.fragment>, memref<1x8xf16>
        tile.copy %F, %B[%c0, %c0] : memref<1x8xf32, #tile.fragment>, memref<1x8xbf16>
        tile.copy %F, %E[%c0, %c0] : memref<1x8xf32, #tile.fragment>, memref<1x8xf8E4M3FN>
        tile.copy %F, %W : memref<1x8xf32, #tile.fragment>, memref<1x8xi32, #tile.fragment>
        tile.copy %W, %I[%c0, %c0] : memref<1x8xi32, #tile.fragment>, memref<1x8xi32>
        tile.copy %W, %N[%c0, %c0] : memref<1x8xi32, #tile.fragment>, memref<1x8xi8>
      }
      return
    }"#;
    let values = [
        1.0 + 2f64.powi(-11),         // f16 tie: to 1.0 (even)
        1.0 + 3.0 * 2f64.powi(-11),   // f16 tie: to 1 + 2^-9 (even)
        1.0 + 2f64.powi(-8),          // bf16 tie: to 1.0
        -(1.0 + 3.0 * 2f64.powi(-8)), // bf16 tie: away, to the even code
        200.5,                        // i32 200, i8 -56 (wraps)
        -129.75,                      // i32 -129, i8 127 (wraps)
        0.3,
        300.0,
    ];
    let x = Tensor {
        shape: vec![1, 8],
        data: values.iter().map(|v| *v as f32 as f64).collect(),
    };
    let mut tensors = [
        x.clone(),
        tensor(&[1, 8], |_| 0.0),
        tensor(&[1, 8], |_| 0.0),
        tensor(&[1, 8], |_| 0.0),
        tensor(&[1, 8], |_| 0.0),
        tensor(&[1, 8], |_| 0.0),
    ];
    run(source, "convert", &mut tensors).unwrap();
    let f8 = |value: f64| -> f64 {
        // Nearest f8E4M3FN code with ties to the even mantissa, decoded by hand.
        let codes: Vec<(u8, f64)> = (0..=0x7Eu8)
            .map(|bits| {
                let (e, m) = (((bits >> 3) & 0xF) as i32, (bits & 7) as f64);
                (
                    bits,
                    if e == 0 {
                        m / 8.0 * 2f64.powi(-6)
                    } else {
                        (1.0 + m / 8.0) * 2f64.powi(e - 7)
                    },
                )
            })
            .collect();
        let magnitude = value.abs();
        let best = codes
            .iter()
            .min_by(|a, b| {
                let (da, db) = ((a.1 - magnitude).abs(), (b.1 - magnitude).abs());
                da.total_cmp(&db).then((a.0 & 1).cmp(&(b.0 & 1)))
            })
            .unwrap();
        best.1.copysign(value)
    };
    for (index, value) in x.data.iter().enumerate() {
        assert_eq!(tensors[1].data[index], f16::from_f64(*value).to_f64(), "f16 of {value}");
        assert_eq!(
            tensors[2].data[index],
            bf16::from_f64(*value).to_f64(),
            "bf16 of {value}"
        );
        assert_eq!(tensors[3].data[index], f8(*value), "f8E4M3FN of {value}");
        assert_eq!(tensors[4].data[index], value.trunc(), "i32 of {value}");
        assert_eq!(
            tensors[5].data[index],
            value.trunc() as i64 as i8 as f64,
            "i8 of {value}"
        );
    }
}

/// Returns C += op(A) * op(B) in f64, for row-major A, B, C.
fn reference_gemm(a: &Tensor, b: &Tensor, c: &mut Tensor, transpose_a: bool, transpose_b: bool) {
    let (m, n) = (c.shape[0], c.shape[1]);
    let k = if transpose_a { a.shape[0] } else { a.shape[1] };
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                let x = if transpose_a {
                    a.data[p * m + i]
                } else {
                    a.data[i * k + p]
                };
                let y = if transpose_b {
                    b.data[j * k + p]
                } else {
                    b.data[p * n + j]
                };
                c.data[i * n + j] += x * y;
            }
        }
    }
}

#[test]
fn gemm_accumulates_every_transpose_combination() {
    for (transpose_a, transpose_b) in [(false, false), (true, false), (false, true), (true, true)] {
        let (m, n, k) = (6, 5, 4);
        let a_shape = if transpose_a { [k, m] } else { [m, k] };
        let b_shape = if transpose_b { [n, k] } else { [k, n] };
        let attributes = match (transpose_a, transpose_b) {
            (false, false) => "",
            (true, false) => "{transpose_a}",
            (false, true) => "{transpose_b}",
            (true, true) => "{transpose_a, transpose_b}",
        };
        let source = format!(
            r#"
            func.func @gemm(%A: memref<{a0}x{a1}xf16>, %B: memref<{b0}x{b1}xf16>, %C: memref<{m}x{n}xf32>) {{
              %c0 = arith.constant 0 : index
              %c1 = arith.constant 1 : index
              %bias = arith.constant 0.25 : f32
              tile.kernel grid(%c1) threads(32) (%b) {{
                %As = tile.alloc_shared : memref<{a0}x{a1}xf16, #gpu.address_space<workgroup>>
                %Bs = tile.alloc_shared : memref<{b0}x{b1}xf16, #gpu.address_space<workgroup>>
                %Cf = tile.alloc_fragment : memref<{m}x{n}xf32, #tile.fragment>
                tile.fill %Cf, %bias : memref<{m}x{n}xf32, #tile.fragment>
                tile.copy %A[%c0, %c0], %As : memref<{a0}x{a1}xf16>, memref<{a0}x{a1}xf16, #gpu.address_space<workgroup>>
                tile.copy %B[%c0, %c0], %Bs : memref<{b0}x{b1}xf16>, memref<{b0}x{b1}xf16, #gpu.address_space<workgroup>>
                tile.gemm %As, %Bs, %Cf {attributes} : memref<{a0}x{a1}xf16, #gpu.address_space<workgroup>>, memref<{b0}x{b1}xf16, #gpu.address_space<workgroup>>, memref<{m}x{n}xf32, #tile.fragment>
                tile.gemm %As, %Bs, %Cf {attributes} : memref<{a0}x{a1}xf16, #gpu.address_space<workgroup>>, memref<{b0}x{b1}xf16, #gpu.address_space<workgroup>>, memref<{m}x{n}xf32, #tile.fragment>
                tile.copy %Cf, %C[%c0, %c0] : memref<{m}x{n}xf32, #tile.fragment>, memref<{m}x{n}xf32>
              }}
              return
            }}"#,
            a0 = a_shape[0],
            a1 = a_shape[1],
            b0 = b_shape[0],
            b1 = b_shape[1],
        );
        let (a, b) = (tensor(&a_shape, pattern(1)), tensor(&b_shape, pattern(2)));
        let mut tensors = [a.clone(), b.clone(), tensor(&[m, n], |_| f64::NAN)];
        run(&source, "gemm", &mut tensors).unwrap();
        // Twice the product plus the fill: every partial sum is exact in f32 for these inputs.
        let mut expected = tensor(&[m, n], |_| 0.25);
        reference_gemm(&a, &b, &mut expected, transpose_a, transpose_b);
        reference_gemm(&a, &b, &mut expected, transpose_a, transpose_b);
        assert_eq!(
            tensors[2].data, expected.data,
            "transpose_a {transpose_a}, transpose_b {transpose_b}"
        );
    }
}

#[test]
fn gemm_rounds_the_f32_accumulator_after_every_product() {
    // 1 + 2^-24 + 2^-24 in f32, one product at a time: each addition rounds back to 1 (ties to
    // even), so the sum stays 1, where exact accumulation would give 1 + 2^-23.
    let source = r#"
    func.func @order(%A: memref<1x3xbf16>, %B: memref<3x1xbf16>, %C: memref<1x1xf32>) {
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      tile.kernel grid(%c1) threads(32) (%b) {
        %As = tile.alloc_shared : memref<1x3xbf16, #gpu.address_space<workgroup>>
        %Bs = tile.alloc_shared : memref<3x1xbf16, #gpu.address_space<workgroup>>
        %Cf = tile.alloc_fragment : memref<1x1xf32, #tile.fragment>
        tile.fill %Cf, %zero : memref<1x1xf32, #tile.fragment>
        tile.copy %A, %As : memref<1x3xbf16>, memref<1x3xbf16, #gpu.address_space<workgroup>>
        tile.copy %B, %Bs : memref<3x1xbf16>, memref<3x1xbf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<1x3xbf16, #gpu.address_space<workgroup>>, memref<3x1xbf16, #gpu.address_space<workgroup>>, memref<1x1xf32, #tile.fragment>
        tile.copy %Cf, %C : memref<1x1xf32, #tile.fragment>, memref<1x1xf32>
      }
      return
    }"#;
    let tiny = 2f64.powi(-12);
    let mut tensors = [
        Tensor {
            shape: vec![1, 3],
            data: vec![1.0, tiny, tiny],
        },
        Tensor {
            shape: vec![3, 1],
            data: vec![1.0, tiny, tiny],
        },
        tensor(&[1, 1], |_| 0.0),
    ];
    run(source, "order", &mut tensors).unwrap();
    let mut sum = 0f32;
    for product in [1.0f32, (tiny * tiny) as f32, (tiny * tiny) as f32] {
        sum += product;
    }
    assert_eq!(tensors[2].data[0], sum as f64);
    assert_eq!(sum, 1.0);
}

#[test]
fn gemm_on_i8_accumulates_in_i32() {
    let source = r#"
    func.func @int8(%A: memref<4x8xi8>, %B: memref<8x4xi8>, %C: memref<4x4xi32>) {
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      tile.kernel grid(%c1) threads(32) (%b) {
        %As = tile.alloc_shared : memref<4x8xi8, #gpu.address_space<workgroup>>
        %Bs = tile.alloc_shared : memref<8x4xi8, #gpu.address_space<workgroup>>
        %Cf = tile.alloc_fragment : memref<4x4xi32, #tile.fragment>
        tile.fill %Cf, %zero : memref<4x4xi32, #tile.fragment>
        tile.copy %A, %As : memref<4x8xi8>, memref<4x8xi8, #gpu.address_space<workgroup>>
        tile.copy %B, %Bs : memref<8x4xi8>, memref<8x4xi8, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<4x8xi8, #gpu.address_space<workgroup>>, memref<8x4xi8, #gpu.address_space<workgroup>>, memref<4x4xi32, #tile.fragment>
        tile.copy %Cf, %C : memref<4x4xi32, #tile.fragment>, memref<4x4xi32>
      }
      return
    }"#;
    let a = tensor(&[4, 8], |i| [127.0, -128.0, 5.0, -3.0][i % 4]);
    let b = tensor(&[8, 4], |i| [-128.0, 127.0, 100.0][i % 3]);
    let mut tensors = [a.clone(), b.clone(), tensor(&[4, 4], |_| 0.0)];
    run(source, "int8", &mut tensors).unwrap();
    let mut expected = tensor(&[4, 4], |_| 0.0);
    reference_gemm(&a, &b, &mut expected, false, false);
    assert_eq!(tensors[2].data, expected.data);
}

#[test]
fn reduce_every_kind_along_each_dim_with_and_without_clear() {
    let kinds = ["sum", "max", "min", "abssum", "absmax"];
    let fold = |kind: &str, values: &[f64], start: Option<f64>| -> f64 {
        let folded = match kind {
            "sum" => values.iter().sum(),
            "max" => values.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            "min" => values.iter().cloned().fold(f64::INFINITY, f64::min),
            "abssum" => values.iter().map(|v| v.abs()).sum(),
            _ => values.iter().map(|v| v.abs()).fold(0.0, f64::max),
        };
        match (kind, start) {
            (_, None) => folded,
            ("sum" | "abssum", Some(start)) => start + folded,
            ("max" | "absmax", Some(start)) => start.max(folded),
            (_, Some(start)) => start.min(folded),
        }
    };
    for kind in kinds {
        for dim in [0usize, 1] {
            for clear in [true, false] {
                let (rows, columns) = (3, 5);
                let length = if dim == 0 { columns } else { rows };
                let source = format!(
                    r#"
                    func.func @reduce(%X: memref<3x5xf32>, %D: memref<{length}xf32>, %Y: memref<{length}xf32>) {{
                      %c0 = arith.constant 0 : index
                      %c1 = arith.constant 1 : index
                      tile.kernel grid(%c1) threads(32) (%b) {{
                        %S = tile.alloc_shared : memref<3x5xf32, #gpu.address_space<workgroup>>
                        %R = tile.alloc_fragment : memref<{length}xf32, #tile.fragment>
                        tile.copy %X, %S : memref<3x5xf32>, memref<3x5xf32, #gpu.address_space<workgroup>>
                        tile.copy %D, %R : memref<{length}xf32>, memref<{length}xf32, #tile.fragment>
                        tile.reduce <{kind}> %S, %R dim({dim}) {{clear = {clear}}} : memref<3x5xf32, #gpu.address_space<workgroup>>, memref<{length}xf32, #tile.fragment>
                        tile.copy %R, %Y[%c0] : memref<{length}xf32, #tile.fragment>, memref<{length}xf32>
                      }}
                      return
                    }}"#
                );
                let x = tensor(&[rows, columns], pattern(dim + 2));
                let d = tensor(&[length], |i| [0.5, -3.0, 7.0, -0.25, 2.0][i]);
                let mut tensors = [x.clone(), d.clone(), tensor(&[length], |_| f64::NAN)];
                run(&source, "reduce", &mut tensors).unwrap();
                for out in 0..length {
                    let line: Vec<f64> = if dim == 0 {
                        (0..rows).map(|r| x.data[r * columns + out]).collect()
                    } else {
                        (0..columns).map(|c| x.data[out * columns + c]).collect()
                    };
                    let expected = fold(kind, &line, (!clear).then_some(d.data[out]));
                    assert_eq!(
                        tensors[2].data[out], expected,
                        "<{kind}> dim({dim}) clear = {clear}, element {out}"
                    );
                }
            }
        }
    }
}

#[test]
fn parallel_bodies_run_scf_loops_conditions_and_integer_arithmetic() {
    // Y[i][j] = sum over t < j of (t odd ? t : -t), computed with scf.for carrying a value and
    // scf.if; plus an i8 addition that wraps, written through index_cast and sitofp.
    let source = r#"
    func.func @body(%Y: memref<2x6xf32>, %W: memref<2x6xi8>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %zero = arith.constant 0.0 : f32
      %big = arith.constant 125 : i8
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<2x6xf32, #tile.fragment>
        %I = tile.alloc_fragment : memref<2x6xi8, #tile.fragment>
        tile.parallel (%i, %j) in (2, 6) {
          %sum = scf.for %t = %c0 to %j step %c1 iter_args(%acc = %zero) -> (f32) {
            %odd = arith.remui %t, %c2 : index
            %is_odd = arith.cmpi eq, %odd, %c1 : index
            %t64 = arith.index_cast %t : index to i64
            %tf = arith.sitofp %t64 : i64 to f32
            %term = scf.if %is_odd -> (f32) {
              scf.yield %tf : f32
            } else {
              %neg = arith.negf %tf : f32
              scf.yield %neg : f32
            }
            %next = arith.addf %acc, %term : f32
            scf.yield %next : f32
          }
          %row = arith.muli %i, %c1 : index
          memref.store %sum, %F[%row, %j] : memref<2x6xf32, #tile.fragment>
          %j8 = arith.index_cast %j : index to i8
          %w = arith.addi %big, %j8 : i8
          memref.store %w, %I[%i, %j] : memref<2x6xi8, #tile.fragment>
        }
        tile.copy %F, %Y[%c0, %c0] : memref<2x6xf32, #tile.fragment>, memref<2x6xf32>
        tile.copy %I, %W[%c0, %c0] : memref<2x6xi8, #tile.fragment>, memref<2x6xi8>
      }
      return
    }"#;
    let mut tensors = [tensor(&[2, 6], |_| f64::NAN), tensor(&[2, 6], |_| 0.0)];
    run(source, "body", &mut tensors).unwrap();
    for i in 0..2 {
        for j in 0..6 {
            let expected: i64 = (0..j as i64).map(|t| if t % 2 == 1 { t } else { -t }).sum();
            assert_eq!(tensors[0].data[i * 6 + j], expected as f64);
            assert_eq!(tensors[1].data[i * 6 + j], (125i64 + j as i64) as i8 as f64);
        }
    }
}

#[test]
fn kernels_run_every_block_of_a_3d_grid_and_pipelined_loops_with_a_step() {
    // Each block (x, y, z) writes x + 10 y + 100 z + (sum of k over 1, 4, 7 = 12) at its element.
    let source = r#"
    func.func @grid(%Y: memref<2x3x4xf32>) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c10 = arith.constant 10 : index
      %c100 = arith.constant 100 : index
      tile.kernel grid(%c4, %c3, %c2) threads(32) (%x, %y, %z) {
        %F = tile.alloc_fragment : memref<1x1x1xf32, #tile.fragment>
        %a = arith.muli %y, %c10 : index
        %b = arith.muli %z, %c100 : index
        %ab = arith.addi %a, %b : index
        %id = arith.addi %ab, %x : index
        %i64 = arith.index_cast %id : index to i64
        %f = arith.sitofp %i64 : i64 to f32
        tile.fill %F, %f : memref<1x1x1xf32, #tile.fragment>
        tile.pipelined %k = %c1 to %c8 step %c3 stages(2) {
          tile.parallel (%i, %j, %l) in (1, 1, 1) {
            %v = memref.load %F[%i, %j, %l] : memref<1x1x1xf32, #tile.fragment>
            %k64 = arith.index_cast %k : index to i64
            %kf = arith.sitofp %k64 : i64 to f32
            %w = arith.addf %v, %kf : f32
            memref.store %w, %F[%i, %j, %l] : memref<1x1x1xf32, #tile.fragment>
          }
        }
        tile.copy %F, %Y[%z, %y, %x] : memref<1x1x1xf32, #tile.fragment>, memref<2x3x4xf32>
      }
      return
    }"#;
    let mut tensors = [tensor(&[2, 3, 4], |_| f64::NAN)];
    run(source, "grid", &mut tensors).unwrap();
    for z in 0..2 {
        for y in 0..3 {
            for x in 0..4 {
                let expected = (x + 10 * y + 100 * z + 12) as f64;
                assert_eq!(tensors[0].data[(z * 3 + y) * 4 + x], expected);
            }
        }
    }
}

#[test]
fn host_code_reads_dynamic_sizes() {
    // The grid comes from memref.dim and arith.ceildivui; the last tile is clipped.
    let source = r#"
    func.func @scale(%X: memref<?xf32>, %Y: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %three = arith.constant 3.0 : f32
      %n = memref.dim %X, %c0 : memref<?xf32>
      %blocks = arith.ceildivui %n, %c4 : index
      tile.kernel grid(%blocks) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4xf32, #tile.fragment>
        %o = arith.muli %b, %c4 : index
        tile.copy %X[%o], %F : memref<?xf32>, memref<4xf32, #tile.fragment>
        tile.parallel (%i) in (4) {
          %v = memref.load %F[%i] : memref<4xf32, #tile.fragment>
          %w = arith.mulf %v, %three : f32
          %e = math.exp %w : f32
          memref.store %e, %F[%i] : memref<4xf32, #tile.fragment>
        }
        tile.copy %F, %Y[%o] : memref<4xf32, #tile.fragment>, memref<?xf32>
      }
      return
    }"#;
    let x = tensor(&[10], pattern(4));
    let mut tensors = [x.clone(), tensor(&[10], |_| f64::NAN)];
    run(source, "scale", &mut tensors).unwrap();
    for (index, value) in x.data.iter().enumerate() {
        let expected = (((*value as f32) * 3.0) as f64).exp() as f32 as f64;
        assert_eq!(tensors[1].data[index], expected);
    }
}
