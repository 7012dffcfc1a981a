// A module written for another target (tile.target = "sm_90a", as lit files and embedders set it)
// run on plain SPIR-V through tile-run: the SPIR-V lowering records its own target, so the backend
// holds bf16 as integers as SPIR-V needs (it read sm_90a's types and lavapipe computed zeros).
// RUN: tile-run %s --target vulkan --check --against interp 2>&1 | FileCheck %s

// CHECK: @bf16_transposed_a ran on
// CHECK: check %arg2: match
// CHECK-NOT: MISMATCH

module attributes {tile.target = "sm_90a"} {
func.func @bf16_transposed_a(%A: memref<32x16xbf16>, %B: memref<32x16xbf16>, %C: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(32) (%bx) {
    %As = tile.alloc_shared : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<32x16xbf16>, memref<32x16xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<32x16xbf16>, memref<32x16xbf16, #gpu.address_space<workgroup>>
    tile.fill %Cf, %zero : memref<16x16xf32, #tile.fragment>
    tile.gemm %As, %Bs, %Cf {transpose_a} : memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<16x16xf32, #tile.fragment>, memref<16x16xf32>
  }
  return
}
}
