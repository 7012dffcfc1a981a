// tile-run --target cpu: the CPU reference runs every host function on seeded inputs and reports the
// outputs; every element is written (no NaN left), and the same seed gives the same checksum.
// RUN: tile-run %s --target cpu --seed 4 | FileCheck %s
// RUN: tile-run %s --target cpu --seed 4 > %t.a && tile-run %s --target cpu --seed 4 > %t.b
// RUN: diff <(grep checksum %t.a) <(grep checksum %t.b)
// RUN: not tile-run %s --target metal 2>&1 | FileCheck %s --check-prefix=TARGET

// CHECK: @scale_rows ran on the CPU reference in
// CHECK-NEXT: output %arg1 [32, 16] f32: checksum {{.*}}, 0 unwritten, first
// TARGET: error: unknown target metal: expected cpu, interp, vulkan or vulkan-coopmat
func.func @scale_rows(%X: memref<32x16xf32>, %Y: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c2) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.copy %X[%r0, %c0], %F : memref<32x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %v = memref.load %F[%i, %j] : memref<16x16xf32, #tile.fragment>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : memref<16x16xf32, #tile.fragment>, memref<32x16xf32>
  }
  return
}
