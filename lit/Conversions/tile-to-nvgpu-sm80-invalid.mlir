// sm_80: a gemm mma.sync cannot take keeps the scalar rule (one loop over K per accumulator
// element), with a warning at the gemm saying what mma.sync takes.
// A schedule asking for TMA (boxes, a persistent kernel, a producer warpgroup) is refused at its
// loop, naming the target that has it.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-plan-pipelines -convert-tile-to-nvgpu-sm80 -verify-diagnostics | FileCheck %s

// f16 with K = 8: mma.sync's f16 form takes K steps of 16.
// CHECK-LABEL: gpu.func @shallow_k_0_kernel
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.mulf
// CHECK: gpu.return
module attributes {tile.target = "sm_80"} {
func.func @shallow_k(%X: memref<64x8xf16>, %W: memref<8x64xf16>, %Y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<8x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<64x8xf16>, memref<64x8xf16, #gpu.address_space<workgroup>>
    tile.copy %W[%c0, %c0], %Ws : memref<8x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op does not fit mma.sync (K = 8 is not a multiple of 16); it runs without tensor cores on sm_80 (one loop over K per accumulator element)}}
    tile.gemm %Xs, %Ws, %Acc : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %Y[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

module attributes {tile.target = "sm_80"} {
func.func @gemm_64x128(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op has tile.schedule {fill = "tma"}, but the sm_80 lowering builds {buffers = 2 : i64, fill = "async", prefetch = 1 : i64, wait = "group"}; TMA rings and producer warpgroups need sm_90a (compile for it); on sm_80 the block's threads fill the rings: drop the entry}}
    tile.pipelined %k = %c0 to %c8 stages(2) attributes {tile.schedule = {fill = "tma"}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %k0], %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %c0], %Bs : memref<256x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
}

