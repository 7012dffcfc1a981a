// An f64 math op that upstream turns into an LLVM intrinsic the AMDGPU back end can only lower as
// a library call (found by the fuzzer, seed 11111: "no libcall available for fasin", located
// nowhere) is refused at the math op, before any code is written; exit status 1.
// RUN: rm -rf %t
// RUN: not tile-compile %s --target gfx942 -o %t 2>&1 | FileCheck %s
// RUN: not ls %t

// CHECK-NOT: libcall
// CHECK: math-library-intrinsic.mlir:[[# @LINE + 12]]:12: error: 'math.asin' on f64 cannot be compiled for gfx942: its back end would call the ROCm device library for it, which gfx942 kernels cannot load; compute it on f32, f16 or bf16, which tile-math-to-rocdl lowers to hardware instructions or polynomial approximations
// CHECK-NEXT: error: {{.*}}math-library-intrinsic.mlir: code generation for gfx942 failed (see the errors above)
// CHECK-NOT: libcall
func.func @asin_f64(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf32, #tile.fragment>
      %d = arith.extf %v : f32 to f64
      %e = math.asin %d : f64
      %r = arith.truncf %e : f64 to f32
      memref.store %r, %x[%j] : memref<64xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
