// tile.pipelined and tile.parallel: bounds, steps, nesting, and bodies of upstream ops.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// A dynamic trip count with a step, and a parallel body using math and arith.
// CHECK-LABEL: func.func @dynamic_loop
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} stages(4) {
// CHECK: tile.parallel (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 8, 16) {
// CHECK: math.exp
func.func @dynamic_loop(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<2x8x16xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n step %c64 stages(4) {
      tile.copy %A[%bx, %k], %S : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.parallel (%a, %b, %c) in (2, 8, 16) {
      %v = memref.load %F[%a, %b, %c] : memref<2x8x16xf32, #tile.fragment>
      %e = math.exp %v : f32
      memref.store %e, %F[%a, %b, %c] : memref<2x8x16xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Loops nest: a parallel epilogue inside a pipelined loop, and scf control flow inside a kernel.
// CHECK-LABEL: func.func @nesting
// CHECK: scf.for
// CHECK: tile.pipelined
// CHECK: tile.parallel (%{{.*}}) in (64) {
func.func @nesting(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%n) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    scf.for %t = %c0 to %c2 step %c1 {
      tile.pipelined %k = %c0 to %n stages(2) {
        tile.parallel (%i) in (64) {
          %v = memref.load %F[%i] : memref<64xf32, #tile.fragment>
          memref.store %v, %F[%i] : memref<64xf32, #tile.fragment>
        }
      }
    }
  }
  return
}
