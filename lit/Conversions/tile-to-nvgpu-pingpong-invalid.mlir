// Ping-pong asked for where no gemm of the loop runs on wgmma (K of 8): the loop runs as it
// comes, and the lowering says so at it; no turn barriers.
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @pingpong_off_wgmma_0_kernel
// CHECK-NOT: nvvm.barrier.arrive
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
  func.func @pingpong_off_wgmma(%Q: memref<128x8xf16>, %K: memref<1024x8xf16>, %V: memref<1024x8xf16>, %O: memref<128x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %zero16 = arith.constant 0.0 : f16
    tile.kernel grid(%c1) threads(256) (%bx) {
      %Qs = tile.alloc_shared : memref<128x8xf16, #gpu.address_space<workgroup>>
      %Ks = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
      %Vs = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
      %S = tile.alloc_fragment : memref<128x8xf32, #tile.fragment>
      %P = tile.alloc_fragment : memref<128x8xf16, #tile.fragment>
      %Acc = tile.alloc_fragment : memref<128x8xf32, #tile.fragment>
      tile.copy %Q[%c0, %c0], %Qs : memref<128x8xf16>, memref<128x8xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<128x8xf32, #tile.fragment>
      tile.fill %P, %zero16 : memref<128x8xf16, #tile.fragment>
      // expected-warning @+1 {{none of its gemms runs on wgmma (see the warnings at them); its warpgroups issue their gemms as they come}}
      tile.pipelined %j = %c0 to %c128 stages(2) attributes {tile.schedule = {pingpong = true}} {
        %k0 = arith.muli %j, %c8 : index
        tile.copy %K[%k0, %c0], %Ks : memref<1024x8xf16>, memref<8x8xf16, #gpu.address_space<workgroup>>
        tile.copy %V[%k0, %c0], %Vs : memref<1024x8xf16>, memref<8x8xf16, #gpu.address_space<workgroup>>
        // expected-warning @+1 {{does not fit wgmma (K = 8 is not a multiple of 16)}}
        tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x8xf16, #gpu.address_space<workgroup>>, memref<8x8xf16, #gpu.address_space<workgroup>>, memref<128x8xf32, #tile.fragment>
        // expected-warning @+1 {{does not fit wgmma (K = 8 is not a multiple of 16)}}
        tile.gemm %P, %Vs, %Acc : memref<128x8xf16, #tile.fragment>, memref<8x8xf16, #gpu.address_space<workgroup>>, memref<128x8xf32, #tile.fragment>
        tile.copy %S, %P : memref<128x8xf32, #tile.fragment>, memref<128x8xf16, #tile.fragment>
      }
      tile.copy %Acc, %O[%c0, %c0] : memref<128x8xf32, #tile.fragment>, memref<128x8xf32>
    }
    return
  }
}
