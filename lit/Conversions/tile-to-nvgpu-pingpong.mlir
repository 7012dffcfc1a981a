// Ping-pong consumer warpgroups (FlashAttention-3's schedule), asked for with pingpong = true in a
// loop's tile.schedule: tile-plan-pipelines records it where the kernel can have it,
// tile-expand-pipelines marks the loop it writes (tile.pingpong), and the sm_90a register rules
// put each warpgroup's gemms of an iteration between two named barriers: it waits for its turn
// (barrier 6 + its warpgroup) before the first gemm's fence and hands the turn over (barrier 7 -
// its warpgroup) after the last gemm's commit. Before the loop warpgroup 1 hands warpgroup 0 the
// first turn; after it warpgroup 0 takes the last one, so the barriers end as they began.
// A persistent kernel keeps the turns across its tiles: each run of gemms one after the other is a
// turn (a tile's first S alone, then S and P V a step, the last P V alone), the first turn handed
// over once before the loop over the block's tiles and taken back after it.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines | FileCheck %s --check-prefix=PLAN
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines | FileCheck %s --check-prefix=EXPAND
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s

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

// -----

// PLAN-LABEL: func.func @pingpong_persistent
// PLAN: tile.pipelined {{.*}} attributes {tile.schedule = {{{.*}}persistent = true{{.*}}pingpong = true{{.*}}}, tile.tile_steps = 3 : i64}

// CHECK-LABEL: gpu.func @pingpong_persistent_0_kernel
// The first turn, handed over once, before the loop over the block's tiles.
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// A tile's first S: a turn of its own.
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.barrier.arrive id
// The first step's S and P V: one turn.
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.barrier.arrive id
// The other steps: the same turn.
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.barrier.arrive id
// After them, the last P V alone.
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.barrier.arrive id
// CHECK: } {tile.pingpong}
// Warpgroup 0 takes back the last turn.
// CHECK: scf.if
// CHECK-NEXT: %[[SIX:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[N:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %[[SIX]] number_of_threads = %[[N]]
module attributes {tile.target = "sm_90a"} {
  func.func @pingpong_persistent(%Q: memref<9x4x512x64xf16>, %K: memref<9x4x512x64xf16>, %V: memref<9x4x512x64xf16>, %O: memref<9x4x512x64xf32>) {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c9 = arith.constant 9 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c4, %c4, %c9) threads(256) (%bq, %bh, %bb) {
      %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
      %K0s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Vls = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
      %Acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
      %q0 = arith.muli %bq, %c128 : index
      tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<9x4x512x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<128x64xf32, #tile.fragment>
      tile.copy %K[%bb, %bh, %c0, %c0], %K0s : memref<9x4x512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<128x64xf32, #tile.fragment>
      tile.gemm %Qs, %K0s, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
      tile.pipelined %j = %c0 to %c3 stages(2) attributes {tile.schedule = {persistent = true, pingpong = true}} {
        %k0 = arith.muli %j, %c64 : index
        %k1 = arith.addi %k0, %c64 : index
        tile.copy %K[%bb, %bh, %k1, %c0], %Ks : memref<9x4x512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<9x4x512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.fill %S, %zero : memref<128x64xf32, #tile.fragment>
        tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.gemm %P, %Vs, %Acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
        tile.copy %S, %P : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
      }
      %kl = arith.muli %c3, %c64 : index
      tile.copy %V[%bb, %bh, %kl, %c0], %Vls : memref<9x4x512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %P, %Vls, %Acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
      tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<128x64xf32, #tile.fragment>, memref<9x4x512x64xf32>
    }
    return
  }
}
