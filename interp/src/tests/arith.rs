//! Scalar semantics in tile.parallel bodies: integer ops at narrow widths and on negative operands,
//! per-op rounding of f16 and bf16 arithmetic, unordered float comparisons.

use super::{run, tensor};
use half::{bf16, f16};

#[test]
fn integer_ops_follow_arith_on_negative_operands_and_narrow_widths() {
    // For each a in X and b in D (b != 0): floor/ceil division, remainders, shifts and unsigned
    // views at i32, and an i8 multiply that wraps.
    let source = r#"
    func.func @ints(%X: memref<8xi32>, %D: memref<8xi32>, %O: memref<8x8xi32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %three = arith.constant 3 : i32
      tile.kernel grid(%c1) threads(32) (%b) {
        %A = tile.alloc_fragment : memref<8xi32, #tile.fragment>
        %B = tile.alloc_fragment : memref<8xi32, #tile.fragment>
        %R = tile.alloc_fragment : memref<8x8xi32, #tile.fragment>
        tile.copy %X, %A : memref<8xi32>, memref<8xi32, #tile.fragment>
        tile.copy %D, %B : memref<8xi32>, memref<8xi32, #tile.fragment>
        tile.parallel (%i) in (8) {
          %a = memref.load %A[%i] : memref<8xi32, #tile.fragment>
          %d = memref.load %B[%i] : memref<8xi32, #tile.fragment>
          %q0 = arith.divsi %a, %d : i32
          %q1 = arith.ceildivsi %a, %d : i32
          %q2 = arith.floordivsi %a, %d : i32
          %q3 = arith.remsi %a, %d : i32
          %q4 = arith.shrsi %a, %three : i32
          %q5 = arith.shrui %a, %three : i32
          %lt = arith.cmpi ult, %a, %d : i32
          %q6 = arith.extui %lt : i1 to i32
          %a8 = arith.trunci %a : i32 to i8
          %d8 = arith.trunci %d : i32 to i8
          %m8 = arith.muli %a8, %d8 : i8
          %q7 = arith.extsi %m8 : i8 to i32
          memref.store %q0, %R[%i, %c0] : memref<8x8xi32, #tile.fragment>
          %c2 = arith.constant 2 : index
          %c3 = arith.constant 3 : index
          %c4 = arith.constant 4 : index
          %c5 = arith.constant 5 : index
          %c6 = arith.constant 6 : index
          %c7 = arith.constant 7 : index
          memref.store %q1, %R[%i, %c1] : memref<8x8xi32, #tile.fragment>
          memref.store %q2, %R[%i, %c2] : memref<8x8xi32, #tile.fragment>
          memref.store %q3, %R[%i, %c3] : memref<8x8xi32, #tile.fragment>
          memref.store %q4, %R[%i, %c4] : memref<8x8xi32, #tile.fragment>
          memref.store %q5, %R[%i, %c5] : memref<8x8xi32, #tile.fragment>
          memref.store %q6, %R[%i, %c6] : memref<8x8xi32, #tile.fragment>
          memref.store %q7, %R[%i, %c7] : memref<8x8xi32, #tile.fragment>
        }
        tile.copy %R, %O : memref<8x8xi32, #tile.fragment>, memref<8x8xi32>
      }
      return
    }"#;
    let a = [7i32, -7, 7, -7, 100, -100, 2147483647, -2147483648];
    let d = [2i32, 2, -2, -2, 9, 9, -1000, 3];
    let mut tensors = [
        tensor(&[8], |i| a[i] as f64),
        tensor(&[8], |i| d[i] as f64),
        tensor(&[8, 8], |_| 0.0),
    ];
    run(source, "ints", &mut tensors).unwrap();
    for i in 0..8 {
        let (x, y) = (a[i] as i64, d[i] as i64);
        let exact = x as f64 / y as f64;
        let expected = [
            x / y,
            exact.ceil() as i64,
            exact.floor() as i64,
            x % y,
            x >> 3,
            ((a[i] as u32) >> 3) as i32 as i64,
            ((a[i] as u32) < (d[i] as u32)) as i64,
            (a[i] as i8).wrapping_mul(d[i] as i8) as i64,
        ];
        let got: Vec<i64> = tensors[2].data[i * 8..(i + 1) * 8].iter().map(|v| *v as i64).collect();
        assert_eq!(got, expected, "a = {x}, d = {y}");
    }
}

#[test]
fn f16_and_bf16_arithmetic_rounds_every_result() {
    // Y = (x + e) - x in f16 and bf16, e below half an ulp of x: each op rounds, so Y is 0 where
    // x is large and e where it is not; cmpf and select on NaN follow the unordered predicates.
    let source = r#"
    func.func @narrow(%X: memref<4xf32>, %H: memref<4xf16>, %B: memref<4xbf16>, %U: memref<4xf32>) {
      %c1 = arith.constant 1 : index
      %eh = arith.constant 4.8828125e-4 : f16
      %eb = arith.constant 3.90625e-3 : bf16
      %nan = arith.constant 0x7FC00000 : f32
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      tile.kernel grid(%c1) threads(32) (%block) {
        %F = tile.alloc_fragment : memref<4xf32, #tile.fragment>
        %Fh = tile.alloc_fragment : memref<4xf16, #tile.fragment>
        %Fb = tile.alloc_fragment : memref<4xbf16, #tile.fragment>
        tile.copy %X, %F : memref<4xf32>, memref<4xf32, #tile.fragment>
        tile.parallel (%i) in (4) {
          %x = memref.load %F[%i] : memref<4xf32, #tile.fragment>
          %h = arith.truncf %x : f32 to f16
          %h1 = arith.addf %h, %eh : f16
          %h2 = arith.subf %h1, %h : f16
          memref.store %h2, %Fh[%i] : memref<4xf16, #tile.fragment>
          %b = arith.truncf %x : f32 to bf16
          %b1 = arith.addf %b, %eb : bf16
          %b2 = arith.subf %b1, %b : bf16
          memref.store %b2, %Fb[%i] : memref<4xbf16, #tile.fragment>
          %u = arith.cmpf ult, %nan, %x : f32
          %o = arith.cmpf olt, %nan, %x : f32
          %s = arith.select %u, %one, %zero : f32
          %t = arith.select %o, %one, %zero : f32
          %st = arith.addf %s, %t : f32
          memref.store %st, %F[%i] : memref<4xf32, #tile.fragment>
        }
        tile.copy %Fh, %H : memref<4xf16, #tile.fragment>, memref<4xf16>
        tile.copy %Fb, %B : memref<4xbf16, #tile.fragment>, memref<4xbf16>
        tile.copy %F, %U : memref<4xf32, #tile.fragment>, memref<4xf32>
      }
      return
    }"#;
    let x = [1.0, 0.25, 2.0, 0.0078125];
    let mut tensors = [
        tensor(&[4], |i| x[i]),
        tensor(&[4], |_| f64::NAN),
        tensor(&[4], |_| f64::NAN),
        tensor(&[4], |_| f64::NAN),
    ];
    run(source, "narrow", &mut tensors).unwrap();
    for (i, value) in x.iter().enumerate() {
        let (h, eh) = (f16::from_f64(*value), f16::from_f64(4.8828125e-4));
        let expected_h = f16::from_f32(f16::from_f32(h.to_f32() + eh.to_f32()).to_f32() - h.to_f32());
        assert_eq!(tensors[1].data[i], expected_h.to_f64(), "f16 at {value}");
        let (b, eb) = (bf16::from_f64(*value), bf16::from_f64(3.90625e-3));
        let expected_b = bf16::from_f32(bf16::from_f32(b.to_f32() + eb.to_f32()).to_f32() - b.to_f32());
        assert_eq!(tensors[2].data[i], expected_b.to_f64(), "bf16 at {value}");
        assert_eq!(tensors[3].data[i], 1.0, "ult holds and olt does not on NaN");
    }
    assert_eq!(tensors[1].data[0], 0.0, "1 + 2^-11 rounds to 1 in f16");
}

/// Discontinuities within reach of an operand's bound (`crate::bound`): x / 3 * 3 is 1 within an
/// f32 rounding of each step, so a correct target may floor it or convert it to 0 or to 1, and a
/// comparison with 1 may go either way; 1.5 is far from both.
#[test]
fn steps_and_comparisons_within_reach_cover_both_outcomes() {
    let source = r#"
    func.func @steps(%X: memref<2xf32>, %O: memref<2x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %three = arith.constant 3.0 : f32
      %one = arith.constant 1.0 : f32
      %ten = arith.constant 10.0 : f32
      %twenty = arith.constant 20.0 : f32
      tile.kernel grid(%c1) threads(32) (%b) {
        %A = tile.alloc_fragment : memref<2xf32, #tile.fragment>
        %R = tile.alloc_fragment : memref<2x4xf32, #tile.fragment>
        tile.copy %X, %A : memref<2xf32>, memref<2xf32, #tile.fragment>
        tile.parallel (%i) in (2) {
          %x = memref.load %A[%i] : memref<2xf32, #tile.fragment>
          %third = arith.divf %x, %three : f32
          %y = arith.mulf %third, %three : f32
          %f = math.floor %y : f32
          %n = arith.fptosi %y : f32 to i32
          %m = arith.muli %n, %n : i32
          %g = arith.sitofp %m : i32 to f32
          %ge = arith.cmpf oge, %y, %one : f32
          %s = arith.select %ge, %ten, %twenty : f32
          %e = arith.cmpf ole, %y, %y : f32
          %t = arith.select %e, %ten, %twenty : f32
          memref.store %f, %R[%i, %c0] : memref<2x4xf32, #tile.fragment>
          memref.store %g, %R[%i, %c1] : memref<2x4xf32, #tile.fragment>
          memref.store %s, %R[%i, %c2] : memref<2x4xf32, #tile.fragment>
          memref.store %t, %R[%i, %c3] : memref<2x4xf32, #tile.fragment>
        }
        tile.copy %R, %O : memref<2x4xf32, #tile.fragment>, memref<2x4xf32>
      }
      return
    }"#;
    let context = super::context();
    let module = melior::ir::Module::parse(&context, source).unwrap();
    let mut tensors = [tensor(&[2], |i| [1.0, 1.5][i]), tensor(&[2, 4], |_| 0.0)];
    let bounds = crate::Program::new(&module).run_bounded("steps", &mut tensors).unwrap();
    let (values, bounds) = (&tensors[1].data, &bounds[1]);
    // Near 1: floor is 0 or 1; fptosi too, and its square 0 or 1; y >= 1 may fail (10 or 20).
    assert!(values[0] == 0.0 || values[0] == 1.0, "{values:?}");
    assert!(bounds[0] >= 1.0, "{bounds:?}");
    assert!(bounds[1] >= 1.0, "{bounds:?}");
    assert!(bounds[2] >= 10.0, "{bounds:?}");
    // A comparison of a value with itself cannot flip by rounding, but the bounds do not know
    // that the operands are one value: it is judged like any other within reach.
    assert!(bounds[3] >= 10.0, "{bounds:?}");
    // Near 1.5: nothing within reach; floor, the conversion and the comparison are exact.
    assert_eq!(&values[4..7], &[1.0, 1.0, 10.0]);
    assert_eq!((bounds[4], bounds[6]), (0.0, 0.0), "{bounds:?}");
    // (A conversion of an integer to a float adds a rounding, exact or not.)
    assert!(bounds[5] < 1e-6, "{bounds:?}");
}

#[test]
fn bitcasts_read_a_values_bits_in_the_other_type() {
    // i16 codes read as f16 and bf16 and back; i8 codes read as f8E4M3FN and back. The expected
    // values come from the `half` crate's decoding and f8E4M3FN's codes written out by hand.
    let source = r#"
    func.func @bits(%X: memref<8xi16>, %H: memref<8xf16>, %B: memref<8xbf16>, %R: memref<8xi16>, %E: memref<8xi8>, %F: memref<8xf8E4M3FN>, %S: memref<8xi8>) {
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%block) {
        tile.parallel (%i) in (8) {
          %x = memref.load %X[%i] : memref<8xi16>
          %h = arith.bitcast %x : i16 to f16
          memref.store %h, %H[%i] : memref<8xf16>
          %b = arith.bitcast %x : i16 to bf16
          memref.store %b, %B[%i] : memref<8xbf16>
          %r = arith.bitcast %h : f16 to i16
          memref.store %r, %R[%i] : memref<8xi16>
          %e = memref.load %E[%i] : memref<8xi8>
          %f = arith.bitcast %e : i8 to f8E4M3FN
          memref.store %f, %F[%i] : memref<8xf8E4M3FN>
          %s = arith.bitcast %f : f8E4M3FN to i8
          memref.store %s, %S[%i] : memref<8xi8>
        }
      }
      return
    }"#;
    // 1.0, -2.0, the smallest subnormal, 65504, infinity, 0.333 (f16 0x3555), -0.0, a bf16 pattern.
    let codes: [u16; 8] = [0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x3555, 0x8000, 0x3F80];
    let signed = |code: u16| code as i16 as f64;
    // 1.0, -2.0, 2^-9, 448, NaN, 0.5, 2^-6, -0.0
    let f8_codes: [u8; 8] = [0x38, 0xC0, 0x01, 0x7E, 0x7F, 0x30, 0x08, 0x80];
    let f8_values = [1.0, -2.0, 2f64.powi(-9), 448.0, f64::NAN, 0.5, 2f64.powi(-6), -0.0];
    let mut tensors = [
        tensor(&[8], |i| signed(codes[i])),
        tensor(&[8], |_| 0.0),
        tensor(&[8], |_| 0.0),
        tensor(&[8], |_| 0.0),
        tensor(&[8], |i| f8_codes[i] as i8 as f64),
        tensor(&[8], |_| 0.0),
        tensor(&[8], |_| 0.0),
    ];
    run(source, "bits", &mut tensors).unwrap();
    for (i, code) in codes.iter().enumerate() {
        assert_eq!(
            tensors[1].data[i].to_bits(),
            f16::from_bits(*code).to_f64().to_bits(),
            "f16 {code:#x}"
        );
        assert_eq!(
            tensors[2].data[i].to_bits(),
            bf16::from_bits(*code).to_f64().to_bits(),
            "bf16 {code:#x}"
        );
        assert_eq!(tensors[3].data[i], signed(*code), "f16 {code:#x} back");
    }
    for (i, (code, value)) in f8_codes.iter().zip(f8_values).enumerate() {
        let got = tensors[5].data[i];
        assert!(
            got.to_bits() == value.to_bits() || (got.is_nan() && value.is_nan()),
            "f8 {code:#x}: {got}"
        );
        assert_eq!(tensors[6].data[i], *code as i8 as f64, "f8 {code:#x} back");
    }
}
