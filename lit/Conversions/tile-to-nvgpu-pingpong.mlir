// Ping-pong consumer warpgroups (FlashAttention-3's schedule), asked for with pingpong = true in a
// loop's tile.schedule: tile-plan-pipelines records it where the kernel can have it,
// tile-expand-pipelines marks the loop it writes (tile.pingpong), and the sm_90a register rules
// put each warpgroup's gemms of an iteration between two named barriers: it waits for its turn
// (barrier 6 + its warpgroup) before the first gemm's fence and hands the turn over (barrier 7 -
// its warpgroup) after the last gemm's commit. Before the loop warpgroup 1 hands warpgroup 0 the
// first turn; after it warpgroup 0 takes the last one, so the barriers end as they began.
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines | FileCheck %s --check-prefix=PLAN
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines | FileCheck %s --check-prefix=EXPAND
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s

// PLAN-LABEL: func.func @pingpong
// PLAN: tile.pipelined {{.*}} attributes {tile.schedule = {{{.*}}pingpong = true{{.*}}}}

// EXPAND-LABEL: func.func @pingpong
// EXPAND: tile.producer
// EXPAND: scf.for
// EXPAND: tile.gemm
// EXPAND-NEXT: tile.gemm
// EXPAND: } {tile.pingpong}

// CHECK-LABEL: gpu.func @pingpong_0_kernel
// CHECK: %[[W0:.*]] = arith.divui %thread_id_x, %{{.*}} : index
// CHECK: %[[W0I:.*]] = arith.index_cast %[[W0]] : index to i32
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[W0I]], %{{.*}} : i32
// CHECK: scf.if %[[SECOND]] {
// CHECK-NEXT: %[[B6:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[N:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[B6]] number_of_threads = %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK: %[[SIX:.*]] = arith.constant 6 : i32
// CHECK: %[[W:.*]] = arith.divui %thread_id_x, %{{.*}} : index
// CHECK: %[[WI:.*]] = arith.index_cast %[[W]] : index to i32
// CHECK: %[[MINE:.*]] = arith.addi %[[SIX]], %[[WI]] : i32
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads = %{{.*}}
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK: %[[THEIRS:.*]] = arith.subi %[[SEVEN]], %{{.*}} : i32
// CHECK: nvvm.barrier.arrive id = %[[THEIRS]] number_of_threads = %{{.*}}
// CHECK-NOT: nvvm.barrier
// CHECK: } {tile.pingpong}
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[B6A:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[NA:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %[[B6A]] number_of_threads = %[[NA]]
module attributes {tile.target = "sm_90a"} {
  func.func @pingpong(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>) {
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
