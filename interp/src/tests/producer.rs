//! A `tile.producer` runs beside its block: an iteration of its loop each time the block waits
//! for a phase it has not completed; a producer waiting for a release the block never gives is
//! a deadlock.

use super::{pattern, run, tensor};
use crate::Error;

/// Six 4x4 tiles through a ring of two slots: the producer copies tile k into slot k mod 2 once
/// the block has released the slot's previous tile; the block copies each slot out.
const RING: &str = r#"
func.func @ring(%X: memref<24x4xf32>, %Y: memref<24x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x4x4xf32, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %empty = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.producer {
      scf.for %k = %c0 to %c6 step %c1 {
        %slot = arith.remui %k, %c2 : index
        %round = arith.divui %k, %c2 : index
        %reuse = arith.cmpi uge, %k, %c2 : index
        scf.if %reuse {
          %released = arith.subi %round, %c1 : index
          tile.wait %empty[%slot], %released : memref<2xi64, #gpu.address_space<workgroup>>
        }
        %tile = tile.slot %ring[%slot] : memref<2x4x4xf32, #gpu.address_space<workgroup>> -> memref<4x4xf32, #gpu.address_space<workgroup>>
        %row = arith.muli %k, %c4 : index
        tile.copy_async %X[%row, %c0], %tile, %full[%slot] : memref<24x4xf32>, memref<4x4xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%slot] : memref<2xi64, #gpu.address_space<workgroup>>
      }
    }
    scf.for %k = %c0 to %c6 step %c1 {
      %slot = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      tile.wait %full[%slot], %round : memref<2xi64, #gpu.address_space<workgroup>>
      %tile = tile.slot %ring[%slot] : memref<2x4x4xf32, #gpu.address_space<workgroup>> -> memref<4x4xf32, #gpu.address_space<workgroup>>
      %row = arith.muli %k, %c4 : index
      tile.copy %tile, %Y[%row, %c0] : memref<4x4xf32, #gpu.address_space<workgroup>>, memref<24x4xf32>
      tile.arrive %empty[%slot] : memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  return
}
"#;

#[test]
fn a_producer_fills_a_ring_the_block_reads_in_order() {
    let mut tensors = [tensor(&[24, 4], pattern(1)), tensor(&[24, 4], |_| f64::NAN)];
    run(RING, "ring", &mut tensors).unwrap();
    assert_eq!(tensors[1].data, tensors[0].data);
    // The producer a slot ahead (the slot index taken one iteration late): the block reads the
    // slot before the tile it waits for has arrived there.
    let late = RING.replace(
        "%slot = arith.remui %k, %c2 : index\n        %round",
        "%next = arith.addi %k, %c1 : index\n        %slot = arith.remui %next, %c2 : index\n        %round",
    );
    assert_ne!(late, RING);
    let mut tensors = [tensor(&[24, 4], pattern(1)), tensor(&[24, 4], |_| f64::NAN)];
    let wrong = run(&late, "ring", &mut tensors).map(|_| tensors[1].data != tensors[0].data);
    assert!(!matches!(wrong, Ok(false)), "a misplaced tile went unnoticed");
}

#[test]
fn a_producer_waiting_for_a_release_that_never_comes_is_a_deadlock() {
    let source = RING.replace("      tile.arrive %empty[%slot]", "      // no release");
    assert_ne!(source, RING);
    let mut tensors = [tensor(&[24, 4], pattern(1)), tensor(&[24, 4], |_| 0.0)];
    let error = run(&source, "ring", &mut tensors).unwrap_err();
    assert!(matches!(error, Error::Undefined(..)), "{error:?}");
    assert!(error.to_string().contains("on the GPU, a deadlock"), "{error}");
}
