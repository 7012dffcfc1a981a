// A verifier failure exits with status 1 and names the op, the rule and the location.
// RUN: not tile-opt %s 2>&1 | FileCheck %s
// RUN: tile-opt %s; test $? -eq 1

// CHECK: verifier-exit-code.mlir:[[# @LINE + 6]]:5: error: 'tile.gemm' op expects C to accumulate in f32 for bf16 inputs, but got f16
func.func @accumulator(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    tile.gemm %A, %B, %C : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
  }
  return
}
