// math.fpowi with an exponent that is no C int runs on the CPU reference (seed 24242, case 761: an
// i8 exponent ended in LLVM's "POWI exponent does not match sizeof(int)", an error located
// nowhere): exponents narrower than i32 are sign-extended (conversions/src/cpu/powi.rs), wider ones
// outlined as an exact loop by convert-math-to-funcs; the results match the interpreter's.
// RUN: tile-run %s --target cpu --check 2>&1 | FileCheck %s
// CHECK: @powi_widths ran on the CPU reference
// CHECK: check %arg1: match
func.func @powi_widths(%X: memref<64xf32>, %Y: memref<3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %y = tile.alloc_fragment : memref<3x64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf32, #tile.fragment>
      %eight = arith.constant 8.0 : f32
      %v8 = arith.mulf %v, %eight : f32
      %n8 = arith.fptosi %v8 : f32 to i8
      %n16 = arith.fptosi %v8 : f32 to i16
      %n64 = arith.fptosi %v8 : f32 to i64
      %two = arith.constant 1.5 : f32
      %a = math.fpowi %two, %n8 : f32, i8
      %b = math.fpowi %two, %n16 : f32, i16
      %c = math.fpowi %two, %n64 : f32, i64
      memref.store %a, %y[%c0, %j] : memref<3x64xf32, #tile.fragment>
      memref.store %b, %y[%c1, %j] : memref<3x64xf32, #tile.fragment>
      memref.store %c, %y[%c2, %j] : memref<3x64xf32, #tile.fragment>
    }
    tile.copy %y, %Y[%c0, %c0] : memref<3x64xf32, #tile.fragment>, memref<3x64xf32>
  }
  return
}
