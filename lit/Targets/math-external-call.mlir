// A kernel whose code would still call a device library is refused before any code is written:
// an error at the math op, naming the function, the target and what compiles instead; exit status 1.
// RUN: rm -rf %t
// RUN: not tile-compile %s --target sm_90a -o %t 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not tile-compile %s --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not ls %t

// NV-NOT: panic
// NV: math-external-call.mlir:[[# @LINE + 21]]:12: error: 'math.erf' on f64 would call __nv_erf from libdevice, an external function that sm_90a kernels cannot load; compute it on f32, f16 or bf16, which tile-math-to-nvptx lowers to hardware instructions or polynomial approximations
// NV-NEXT: error: {{.*}}math-external-call.mlir: code generation for sm_90a failed (see the errors above)
// NV-NOT: internal error
// NV-NOT: panic

// AMD-NOT: panic
// AMD: math-external-call.mlir:[[# @LINE + 15]]:12: error: 'math.erf' on f64 would call __ocml_erf_f64 from the ROCm device library, an external function that gfx942 kernels cannot load; compute it on f32, f16 or bf16, which tile-math-to-rocdl lowers to hardware instructions or polynomial approximations
// AMD-NEXT: error: {{.*}}math-external-call.mlir: code generation for gfx942 failed (see the errors above)
// AMD-NOT: internal error
// AMD-NOT: panic

// f64 has no hardware approximation and no polynomial here: nothing takes math.erf on f64.
func.func @erf_f64(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf32, #tile.fragment>
      %d = arith.extf %v : f32 to f64
      %e = math.erf %d : f64
      %r = arith.truncf %e : f64 to f32
      memref.store %r, %x[%j] : memref<64xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
