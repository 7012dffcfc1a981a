//! Errors: out-of-bounds accesses, unsupported ops and undefined operations, each at its op.

use super::{pattern, run, tensor};
use crate::Error;

// The shift goes through a cast, which the verifier's static index check cannot bound (it refuses
// `%i + 1` over a 4-row tile outright); two ops on one line keep the load's location.
const OUT_OF_BOUNDS: &str = r#"
    func.func @shifted(%X: memref<4x4xf32>, %Y: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32 %c1 = arith.index_cast %one : i32 to index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
        tile.copy %X[%c0, %c0], %F : memref<4x4xf32>, memref<4x4xf32, #tile.fragment>
        tile.parallel (%i, %j) in (4, 4) {
          %next = arith.addi %i, %c1 : index
          %v = memref.load %F[%next, %j] : memref<4x4xf32, #tile.fragment>
          memref.store %v, %F[%i, %j] : memref<4x4xf32, #tile.fragment>
        }
        tile.copy %F, %Y[%c0, %c0] : memref<4x4xf32, #tile.fragment>, memref<4x4xf32>
      }
      return
    }"#;

#[test]
fn out_of_bounds_loads_are_errors_naming_the_op_and_the_index() {
    let mut tensors = [tensor(&[4, 4], pattern(1)), tensor(&[4, 4], |_| 0.0)];
    let error = run(OUT_OF_BOUNDS, "shifted", &mut tensors).unwrap_err();
    match &error {
        Error::OutOfBounds(details) => {
            let crate::OutOfBounds {
                site,
                access,
                index,
                block,
                ..
            } = &**details;
            assert_eq!(site.op, "memref.load");
            assert_eq!(*access, "read");
            assert_eq!(index, &vec![4, 0]);
            assert_eq!(block, &Some(vec![0]));
            assert!(site.location.ends_with(":10:16"), "{}", site.location);
        }
        other => panic!("expected an out-of-bounds error, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .contains("reads index [4, 0] out of bounds of memref<4x4xf32, #tile.fragment>"),
        "{error}"
    );
}

#[test]
fn copies_outside_an_on_chip_tile_are_errors_not_clipped() {
    let source = r#"
    func.func @spill(%X: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %S = tile.alloc_shared : memref<4x8xf32, #gpu.address_space<workgroup>>
        tile.copy %X, %S[%c2, %c0] : memref<4x4xf32>, memref<4x8xf32, #gpu.address_space<workgroup>>
      }
      return
    }"#;
    let mut tensors = [tensor(&[4, 4], pattern(1))];
    match run(source, "spill", &mut tensors).unwrap_err() {
        Error::OutOfBounds(details) => {
            let crate::OutOfBounds {
                site,
                access,
                index,
                ..
            } = *details;
            assert_eq!(
                (site.op.as_str(), access, index),
                ("tile.copy", "write", vec![4, 0])
            );
        }
        other => panic!("expected an out-of-bounds error, got {other:?}"),
    }
}

#[test]
fn unsupported_ops_and_undefined_operations_are_located_errors() {
    let source = r#"
    func.func @erf(%Y: memref<4xf32>, %Z: memref<4xi32>) {
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4xf32, #tile.fragment>
        tile.parallel (%i) in (4) {
          %v = memref.load %F[%i] : memref<4xf32, #tile.fragment>
          %e = math.atanh %v : f32
          memref.store %e, %F[%i] : memref<4xf32, #tile.fragment>
        }
      }
      return
    }
    func.func @divide(%Y: memref<4xf32>, %Z: memref<4xi32>) {
      %c1 = arith.constant 1 : index
      %seven = arith.constant 7 : i32
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4xi32, #tile.fragment>
        tile.parallel (%i) in (4) {
          %d = arith.index_cast %i : index to i32
          %q = arith.divsi %seven, %d : i32
          memref.store %q, %F[%i] : memref<4xi32, #tile.fragment>
        }
        tile.copy %F, %Z : memref<4xi32, #tile.fragment>, memref<4xi32>
      }
      return
    }"#;
    let mut tensors = [tensor(&[4], |_| 0.0), tensor(&[4], |_| 0.0)];
    let error = run(source, "erf", &mut tensors).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'math.atanh' op is not supported by the interpreter"
    );
    assert!(
        error.site().unwrap().location.ends_with(":8:16"),
        "{error:?}"
    );
    let error = run(source, "divide", &mut tensors).unwrap_err();
    assert_eq!(error.to_string(), "'arith.divsi' op divides by zero");
    assert!(matches!(
        run(source, "missing", &mut tensors),
        Err(Error::NoFunction(_))
    ));
}
