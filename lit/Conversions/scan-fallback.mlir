// tile.scan has no register rule yet: a kernel with one keeps its fragments in private or
// workgroup memory on every GPU target (the plain lowering, whose loops scan each line in one
// thread), and says so at the scan.
// RUN: tile-opt %s -convert-tile-to-nvgpu 2>&1 | FileCheck %s --check-prefixes=CHECK,NV
// RUN: tile-opt %s -convert-tile-to-nvgpu-sm80 2>&1 | FileCheck %s --check-prefixes=CHECK,AMP
// RUN: tile-opt %s -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefixes=CHECK,AMD

// NV: scan-fallback.mlir:[[# @LINE + 13]]:5: warning: 'tile.scan' op uses a fragment in 'tile.scan', which the register lowering has no rule for, so on sm_90a the kernel's fragments live in private or workgroup memory instead of registers (correct, slower)
// AMP: scan-fallback.mlir:[[# @LINE + 12]]:5: warning: 'tile.scan' op uses a fragment in 'tile.scan', which the register lowering has no rule for, so on sm_80 the kernel's fragments live
// AMD: scan-fallback.mlir:[[# @LINE + 11]]:5: warning: 'tile.scan' op uses a fragment in 'tile.scan', which the register lowering has no rule for, so on gfx942 the kernel's fragments live
// CHECK-LABEL: gpu.func @cumsum_0_kernel
// CHECK: scf.for
// CHECK: arith.addf
// CHECK-NOT: tile.scan
func.func @cumsum(%X: memref<16x256xf32>, %Y: memref<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c16) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.copy %X[%b, %c0], %F : memref<16x256xf32>, memref<256xf32, #tile.fragment>
    tile.scan <sum> %F, %F dim(0) : memref<256xf32, #tile.fragment>, memref<256xf32, #tile.fragment>
    tile.copy %F, %Y[%b, %c0] : memref<256xf32, #tile.fragment>, memref<16x256xf32>
  }
  return
}
