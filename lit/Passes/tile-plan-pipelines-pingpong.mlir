// tile-plan-pipelines: a loop that asks for ping-pong warpgroups (pingpong = true) where its
// kernel cannot have them runs without, with a warning at the loop that says what is missing, and
// its schedule says nothing of it.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-plan-pipelines -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: pingpong
// CHECK-LABEL: func.func @gemms_apart
// CHECK-NOT: pingpong
// CHECK-LABEL: func.func @ampere
// CHECK-NOT: pingpong
module attributes {tile.target = "sm_90a"} {
  func.func @one_warpgroup(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %zero16 = arith.constant 0.0 : f16
    tile.kernel grid(%c1) threads(128) (%bx) {
      %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
      %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
      %Acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      tile.copy %Q[%c0, %c0], %Qs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<128x64xf32, #tile.fragment>
      tile.fill %P, %zero16 : memref<128x64xf16, #tile.fragment>
      // expected-warning @+1 {{asks for pingpong = true, but the kernel has 128 threads, and two consumer warpgroups (256 threads) take turns; its warpgroups issue their gemms as they come}}
      tile.pipelined %j = %c0 to %c16 stages(2) attributes {tile.schedule = {pingpong = true}} {
        %k0 = arith.muli %j, %c64 : index
        tile.copy %K[%k0, %c0], %Ks : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %V[%k0, %c0], %Vs : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.gemm %P, %Vs, %Acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.copy %S, %P : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
      }
      tile.copy %Acc, %O[%c0, %c0] : memref<128x64xf32, #tile.fragment>, memref<128x64xf32>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  func.func @gemms_apart(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %zero16 = arith.constant 0.0 : f16
    tile.kernel grid(%c1) threads(256) (%bx) {
      %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
      %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
      %Acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      tile.copy %Q[%c0, %c0], %Qs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<128x64xf32, #tile.fragment>
      tile.fill %P, %zero16 : memref<128x64xf16, #tile.fragment>
      // expected-warning @+1 {{but other tile ops come between the loop's gemms}}
      tile.pipelined %j = %c0 to %c16 stages(2) attributes {tile.schedule = {pingpong = true}} {
        %k0 = arith.muli %j, %c64 : index
        tile.copy %K[%k0, %c0], %Ks : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %V[%k0, %c0], %Vs : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.copy %S, %P : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
        tile.gemm %P, %Vs, %Acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
      }
      tile.copy %Acc, %O[%c0, %c0] : memref<128x64xf32, #tile.fragment>, memref<128x64xf32>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  func.func @ampere(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %zero16 = arith.constant 0.0 : f16
    tile.kernel grid(%c1) threads(256) (%bx) {
      %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
      %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
      %Acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      tile.copy %Q[%c0, %c0], %Qs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<128x64xf32, #tile.fragment>
      tile.fill %P, %zero16 : memref<128x64xf16, #tile.fragment>
      // expected-warning @+1 {{but warpgroups that take turns at wgmma are sm_90a's (compile for it)}}
      tile.pipelined %j = %c0 to %c16 stages(2) attributes {tile.schedule = {pingpong = true}} {
        %k0 = arith.muli %j, %c64 : index
        tile.copy %K[%k0, %c0], %Ks : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %V[%k0, %c0], %Vs : memref<1024x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.gemm %P, %Vs, %Acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.copy %S, %P : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
      }
      tile.copy %Acc, %O[%c0, %c0] : memref<128x64xf32, #tile.fragment>, memref<128x64xf32>
    }
    return
  }
}
