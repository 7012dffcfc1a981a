//! Errors: out-of-bounds accesses, unsupported ops and undefined operations, each at its op.

use super::{pattern, run, tensor};
use crate::Error;

// The shift goes through a cast, which the verifier's static index check cannot bound (it refuses
// `%i + 1` over a 4-row tile outright); two ops on one line keep the load's location. The stencil
// writes another fragment (one updated in place would be a race between iterations).
const OUT_OF_BOUNDS: &str = r#"
    func.func @shifted(%X: memref<4x4xf32>, %Y: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32 %c1 = arith.index_cast %one : i32 to index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4x4xf32, #tile.fragment> %G = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
        tile.copy %X[%c0, %c0], %F : memref<4x4xf32>, memref<4x4xf32, #tile.fragment>
        tile.parallel (%i, %j) in (4, 4) {
          %next = arith.addi %i, %c1 : index
          %v = memref.load %F[%next, %j] : memref<4x4xf32, #tile.fragment>
          memref.store %v, %G[%i, %j] : memref<4x4xf32, #tile.fragment>
        }
        tile.copy %G, %Y[%c0, %c0] : memref<4x4xf32, #tile.fragment>, memref<4x4xf32>
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
                site, access, index, ..
            } = *details;
            assert_eq!((site.op.as_str(), access, index), ("tile.copy", "write", vec![4, 0]));
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
    assert_eq!(error.to_string(), "'math.atanh' op is not supported by the interpreter");
    assert!(error.site().unwrap().location.ends_with(":8:16"), "{error:?}");
    let error = run(source, "divide", &mut tensors).unwrap_err();
    assert_eq!(error.to_string(), "'arith.divsi' op divides by zero");
    assert!(matches!(
        run(source, "missing", &mut tensors),
        Err(Error::NoFunction(_))
    ));
}

/// Runs `source`'s function `name` on `tensors` and returns the undefined read it must stop on.
fn undefined_read(source: &str, name: &str, tensors: &mut [crate::Tensor]) -> crate::UndefinedRead {
    match run(source, name, tensors).unwrap_err() {
        Error::UndefinedRead(details) => *details,
        other => panic!("expected an undefined read, got {other:?}"),
    }
}

// Two fragments, one filled, one written in rows 0..1 by a parallel body; each function reads them
// its own way. Ops on lines the tests name.
const PARTLY_WRITTEN: &str = r#"
    func.func @copy_out(%Y: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
        tile.parallel (%i, %j) in (2, 4) {
          %f = arith.constant 1.0 : f32
          memref.store %f, %F[%i, %j] : memref<4x4xf32, #tile.fragment>
        }
        tile.copy %F, %Y[%c0, %c0] : memref<4x4xf32, #tile.fragment>, memref<4x4xf32>
      }
      return
    }
    func.func @clipped(%Y: memref<2x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
        tile.parallel (%i, %j) in (2, 4) {
          %f = arith.constant 1.0 : f32
          memref.store %f, %F[%i, %j] : memref<4x4xf32, #tile.fragment>
        }
        tile.copy %F, %Y[%c0, %c0] : memref<4x4xf32, #tile.fragment>, memref<2x4xf32>
      }
      return
    }
    func.func @gemm(%A: memref<4x4xf16>, %C: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.kernel grid(%c1) threads(32) (%b) {
        %As = tile.alloc_shared : memref<4x4xf16, #gpu.address_space<workgroup>>
        %Cf = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
        tile.copy %A[%c0, %c0], %As : memref<4x4xf16>, memref<4x4xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %As, %Cf : memref<4x4xf16, #gpu.address_space<workgroup>>, memref<4x4xf16, #gpu.address_space<workgroup>>, memref<4x4xf32, #tile.fragment>
        tile.copy %Cf, %C[%c0, %c0] : memref<4x4xf32, #tile.fragment>, memref<4x4xf32>
      }
      return
    }
    func.func @host(%Y: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %T = memref.alloc() : memref<4xf32>
      %f = arith.constant 2.0 : f32
      memref.store %f, %T[%c0] : memref<4xf32>
      %v = memref.load %T[%c0] : memref<4xf32>
      memref.store %v, %Y[%c0] : memref<4xf32>
      %w = memref.load %T[%c3] : memref<4xf32>
      memref.store %w, %Y[%c3] : memref<4xf32>
      return
    }"#;

#[test]
fn reads_of_elements_nothing_wrote_are_errors_naming_the_tile_and_the_index() {
    // The copy moves rows 2..3, which the parallel body never wrote.
    let mut tensors = [tensor(&[4, 4], |_| 9.0)];
    let read = undefined_read(PARTLY_WRITTEN, "copy_out", &mut tensors);
    assert_eq!(
        (read.site.op.as_str(), read.role, read.index.clone()),
        ("tile.copy", "its source", vec![2, 0])
    );
    assert_eq!(read.origin.op, "tile.alloc_fragment");
    assert!(read.origin.location.ends_with(":6:14"), "{read:?}");
    assert!(read.site.location.ends_with(":11:9"), "{read:?}");
    assert_eq!(read.block, Some(vec![0]));
    let message = Error::UndefinedRead(Box::new(read)).to_string();
    assert!(
        message.starts_with(
            "'tile.copy' op reads undefined element [2, 0] of its source memref<4x4xf32, #tile.fragment>: nothing wrote it since 'tile.alloc_fragment' at "
        ) && message.ends_with(" allocated it (in block [0])"),
        "{message}"
    );

    // A gemm reads its accumulator: one never filled is an undefined read at the gemm.
    let mut tensors = [tensor(&[4, 4], pattern(1)), tensor(&[4, 4], |_| 0.0)];
    let read = undefined_read(PARTLY_WRITTEN, "gemm", &mut tensors);
    assert_eq!(
        (read.site.op.as_str(), read.role, read.index),
        ("tile.gemm", "its accumulator", vec![0, 0])
    );

    // Host allocations are undefined too; host buffers (the arguments) are not.
    let mut tensors = [tensor(&[4], |_| f64::NAN)];
    let read = undefined_read(PARTLY_WRITTEN, "host", &mut tensors);
    assert_eq!(
        (read.site.op.as_str(), read.index, read.origin.op.as_str()),
        ("memref.load", vec![3], "memref.alloc")
    );
    assert_eq!(tensors[0].data[0], 2.0);
}

#[test]
fn partly_written_tiles_read_only_where_written_are_defined() {
    // Rows 2..3 of the fragment land past the end of the 2-row output: dropped, never read.
    let mut tensors = [tensor(&[2, 4], |_| 9.0)];
    run(PARTLY_WRITTEN, "clipped", &mut tensors).unwrap();
    assert_eq!(tensors[0].data, vec![1.0; 8]);
}

// Blocks and parallel iterations are unordered: reading or changing what another changed is a race;
// storing the value an element already holds changes nothing.
const RACES: &str = r#"
    func.func @blocks(%X: memref<2xf32>, %Y: memref<1xf32>, %Z: memref<1xf32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %one = arith.constant 1.0 : f32
      tile.kernel grid(%c2) threads(32) (%b) {
        memref.store %one, %Z[%c0] : memref<1xf32>
        %v = memref.load %X[%b] : memref<2xf32>
        memref.store %v, %Y[%c0] : memref<1xf32>
      }
      return
    }
    func.func @neighbours(%Y: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f32
      tile.kernel grid(%c1) threads(32) (%b) {
        %F = tile.alloc_fragment : memref<4xf32, #tile.fragment>
        tile.fill %F, %one : memref<4xf32, #tile.fragment>
        tile.parallel (%i) in (4) {
          %v = memref.load %F[%i] : memref<4xf32, #tile.fragment>
          %w = arith.addf %v, %one : f32
          memref.store %w, %F[%i] : memref<4xf32, #tile.fragment>
          %l = memref.load %F[%c0] : memref<4xf32, #tile.fragment>
          memref.store %l, %Y[%i] : memref<4xf32>
        }
      }
      return
    }"#;

#[test]
fn races_between_blocks_and_between_iterations_are_errors() {
    // Both blocks store 1.0 into Z (the same value: no race), then their own X into Y.
    let mut tensors = [tensor(&[2], |i| i as f64), tensor(&[1], |_| 9.0), tensor(&[1], |_| 9.0)];
    let error = run(RACES, "blocks", &mut tensors).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'memref.store' op races: block [1] of a tile.kernel writes element [0] of memref<1xf32>, which block [0] changed (the blocks of a tile.kernel are unordered)"
    );
    assert_eq!(tensors[2].data, vec![1.0]);
    // The same program with equal X: block 1 stores what block 0 stored.
    let mut tensors = [tensor(&[2], |_| 3.0), tensor(&[1], |_| 9.0), tensor(&[1], |_| 9.0)];
    run(RACES, "blocks", &mut tensors).unwrap();
    assert_eq!(tensors[1].data, vec![3.0]);

    // Iteration 1 reads element 0, which iteration 0 changed.
    let mut tensors = [tensor(&[4], |_| 0.0)];
    let error = run(RACES, "neighbours", &mut tensors).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'memref.load' op races: iteration [1] of a tile.parallel reads element [0] of memref<4xf32, #tile.fragment>, which iteration [0] changed (the iterations of a tile.parallel are unordered) (in block [0])"
    );
}

// Atomic updates by several blocks are ordered by the memory system: no race among them. An
// atomic update of an element another block stored or loaded plainly, or a plain access of one
// another block updated, is a race.
const ATOMICS: &str = r#"
    func.func @sums(%X: memref<4x8xf32>, %S: memref<8xf32>, %N: memref<8xi32>, %M: memref<8xf32>) {
      %c4 = arith.constant 4 : index
      %one = arith.constant 1 : i32
      tile.kernel grid(%c4) threads(32) (%b) {
        tile.parallel (%j) in (8) {
          %v = memref.load %X[%b, %j] : memref<4x8xf32>
          %s = memref.atomic_rmw addf %v, %S[%j] : (f32, memref<8xf32>) -> f32
          %n = memref.atomic_rmw addi %one, %N[%j] : (i32, memref<8xi32>) -> i32
          %m = memref.atomic_rmw maximumf %v, %M[%j] : (f32, memref<8xf32>) -> f32
        }
      }
      return
    }
    func.func @mixed(%X: memref<2xf32>, %S: memref<1xf32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      tile.kernel grid(%c2) threads(32) (%b) {
        %v = memref.load %X[%b] : memref<2xf32>
        %zero = arith.constant 0 : index
        %is_first = arith.cmpi eq, %b, %zero : index
        scf.if %is_first {
          memref.store %v, %S[%c0] : memref<1xf32>
        } else {
          %s = memref.atomic_rmw addf %v, %S[%c0] : (f32, memref<1xf32>) -> f32
        }
      }
      return
    }
    func.func @read_after_update(%X: memref<2xf32>, %S: memref<1xf32>, %Y: memref<2xf32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      tile.kernel grid(%c2) threads(32) (%b) {
        %v = memref.load %X[%b] : memref<2xf32>
        %s = memref.atomic_rmw addf %v, %S[%c0] : (f32, memref<1xf32>) -> f32
        %r = memref.load %S[%c0] : memref<1xf32>
        memref.store %r, %Y[%b] : memref<2xf32>
      }
      return
    }"#;

#[test]
fn atomic_updates_of_several_blocks_accumulate_and_plain_accesses_beside_them_race() {
    let x = tensor(&[4, 8], |i| (i as f64) * 0.5 - 3.0);
    let mut tensors = [
        x.clone(),
        tensor(&[8], |i| i as f64),
        tensor(&[8], |i| 10.0 * i as f64),
        tensor(&[8], |_| -100.0),
    ];
    run(ATOMICS, "sums", &mut tensors).unwrap();
    for j in 0..8 {
        let column: Vec<f64> = (0..4).map(|b| x.data[b * 8 + j]).collect();
        assert_eq!(tensors[1].data[j], j as f64 + column.iter().sum::<f64>());
        assert_eq!(tensors[2].data[j], 10.0 * j as f64 + 4.0);
        assert_eq!(tensors[3].data[j], column.iter().copied().fold(f64::MIN, f64::max));
    }

    let mut tensors = [tensor(&[2], |i| 1.0 + i as f64), tensor(&[1], |_| 0.0)];
    let error = run(ATOMICS, "mixed", &mut tensors).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'memref.atomic_rmw' op races: block [1] of a tile.kernel updates element [0] of memref<1xf32>, which block [0] changed (the blocks of a tile.kernel are unordered)"
    );

    let mut tensors = [
        tensor(&[2], |i| 1.0 + i as f64),
        tensor(&[1], |_| 0.0),
        tensor(&[2], |_| 0.0),
    ];
    let error = run(ATOMICS, "read_after_update", &mut tensors).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'memref.atomic_rmw' op races: block [1] of a tile.kernel updates element [0] of memref<1xf32>, which block [0] read (the blocks of a tile.kernel are unordered)"
    );
}
