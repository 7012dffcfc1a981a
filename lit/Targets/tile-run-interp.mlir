// tile-run --target interp: the reference interpreter (tile-interp) runs every host function on the
// same seeded inputs as the CPU reference and prints the same summary; --check compares it with the
// CPU reference, and --check on the CPU reference compares it with the interpreter; Vulkan (lavapipe)
// can be checked against the interpreter too.
// RUN: tile-run %s --target interp --seed 4 | FileCheck %s
// RUN: tile-run %s --target interp --seed 4 > %t.a && tile-run %s --target cpu --seed 4 > %t.b
// RUN: diff <(grep checksum %t.a) <(grep checksum %t.b)
// RUN: tile-run %s --target interp --check --seed 5 | FileCheck %s --check-prefix=CHECK-CPU
// RUN: tile-run %s --target cpu --check --seed 5 | FileCheck %s --check-prefix=CHECK-INTERP
// RUN: tile-run %s --target cpu --check --against interp --seed 5 | FileCheck %s --check-prefix=CHECK-INTERP
// RUN: tile-run %s --target vulkan --check --against interp --seed 5 | FileCheck %s --check-prefix=VULKAN
// RUN: not tile-run %s --target interp --check --against interp 2>&1 | FileCheck %s --check-prefix=AGAINST
// RUN: not tile-run %S/Inputs/interp-out-of-bounds.mlir --target interp 2>&1 | FileCheck %s --check-prefix=OOB

// CHECK: @scale_rows ran on the interpreter in
// CHECK-NEXT: output %arg1 [32, 16] f32: checksum {{.*}}, 0 unwritten, first

// CHECK-CPU: @scale_rows ran on the interpreter in
// CHECK-CPU-NEXT: output %arg1 [32, 16] f32: checksum
// CHECK-CPU-NEXT: check %arg1: match, worst relative error 0.000e0

// CHECK-INTERP: @scale_rows ran on the CPU reference in
// CHECK-INTERP-NEXT: output %arg1 [32, 16] f32: checksum
// CHECK-INTERP-NEXT: check %arg1: match, worst relative error 0.000e0

// VULKAN: @scale_rows ran on {{.*}} (Vulkan) in
// VULKAN-NEXT: output %arg1 [32, 16] f32: checksum
// VULKAN-NEXT: check %arg1: match, worst relative error 0.000e0

// AGAINST: error: cannot check interp against interp: expected cpu or interp, other than the target

// Block 0 reads row 16 of its 16-row fragment: the error names the op, its location, the index and
// the block, and nothing is printed as a result.
// OOB: interp-out-of-bounds.mlir:15:12: error: 'memref.load' op reads index [16, 0] out of bounds of memref<16x16xf32, #tile.fragment> (in block [0])
// OOB-NEXT: error: the interpreter stopped: the program's behaviour is undefined (see the error above)
// OOB-NOT: output
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
