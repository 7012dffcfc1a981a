// tile-expand-pipelines: a loop that tile-plan-pipelines gave an asynchronous schedule becomes
// rings of shared tiles, barriers and asynchronous copies, with their slot and phase arithmetic in
// plain IR: a prologue that issues iterations 0 .. D-1 (each guarded by the trip count), then a loop
// whose iteration k waits for phase k / D of barrier k mod D, reads slot k mod D, and refills a slot:
// its own with iteration k + D after a barrier of the block (rings of 2), or, once every thread has
// released it, the previous iteration's with iteration k - 1 + D (rings of 3 and more).
// RUN: tile-opt %s -split-input-file -tile-plan-pipelines -tile-expand-pipelines -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @column_sums
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: tile.kernel
// CHECK: %[[RING:.*]] = tile.alloc_shared {tile.layout = #tile.smem<buffers = 3>} : memref<3x32x64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc_shared
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<3xi64, #gpu.address_space<workgroup>>
// CHECK: %[[FREE:.*]] = tile.alloc_barriers : memref<3xi64, #gpu.address_space<workgroup>>
// Prologue: iterations 0, 1, 2 into slots 0, 1, 2 (the trip count of 5 is known: no guards left).
// CHECK: %[[S0:.*]] = tile.slot %[[RING]][%[[C0]]]
// CHECK: tile.copy_async %{{.*}}[%[[C0]], %[[C0]]], %[[S0]], %[[FULL]][%[[C0]]]
// CHECK: tile.arrive %[[FULL]][%[[C0]]]
// CHECK: %[[S1:.*]] = tile.slot %[[RING]][%[[C1]]]
// CHECK: tile.copy_async %{{.*}}[%[[C32]], %[[C0]]], %[[S1]], %[[FULL]][%[[C1]]]
// CHECK: tile.arrive %[[FULL]][%[[C1]]]
// CHECK: %[[S2:.*]] = tile.slot %[[RING]][%[[C2]]]
// CHECK: tile.copy_async %{{.*}}[%[[C64]], %[[C0]]], %[[S2]], %[[FULL]][%[[C2]]]
// CHECK: tile.arrive %[[FULL]][%[[C2]]]
// CHECK: scf.for %[[K:.*]] = %[[C0]] to %[[C5]] step %[[C1]] {
// CHECK: %[[SLOT:.*]] = arith.remui %[[K]], %[[C3]] : index
// CHECK: %[[ROUND:.*]] = arith.divui %[[K]], %[[C3]] : index
// CHECK: tile.wait %[[FULL]][%[[SLOT]]], %[[ROUND]]
// CHECK: %[[TILE:.*]] = tile.slot %[[RING]][%[[SLOT]]]
// CHECK: tile.reduce <sum> %[[TILE]], %{{.*}} dim(0) {clear = false}
// A ring of 3 releases late: the slot is free once every thread has arrived on its free barrier,
// and the slot of the previous iteration is refilled with iteration k - 1 + 3.
// CHECK: tile.arrive %[[FREE]][%[[SLOT]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %[[C2]] : index
// CHECK: %[[STARTED:.*]] = arith.cmpi uge, %[[K]], %[[C1]] : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[C5]] : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[STARTED]], %[[MORE]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK-NOT: gpu.barrier
// CHECK: %[[PREVIOUS:.*]] = arith.subi %[[K]], %[[C1]] : index
// CHECK: %[[PSLOT:.*]] = arith.remui %[[PREVIOUS]], %[[C3]] : index
// CHECK: %[[PROUND:.*]] = arith.divui %[[PREVIOUS]], %[[C3]] : index
// CHECK: tile.wait %[[FREE]][%[[PSLOT]]], %[[PROUND]]
// CHECK: %[[ROW:.*]] = arith.muli %[[NEXT]], %[[C32]] : index
// CHECK: %[[REFILL:.*]] = tile.slot %[[RING]][%[[PSLOT]]]
// CHECK: tile.copy_async %{{.*}}[%[[ROW]], %[[C0]]], %[[REFILL]], %[[FULL]][%[[PSLOT]]]
// CHECK: tile.arrive %[[FULL]][%[[PSLOT]]]
// CHECK-NOT: tile.pipelined
module attributes {tile.target = "sm_90a"} {
func.func @column_sums(%A: memref<160x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c5 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<160x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// A dynamic trip count, a lower bound and a step: the guards stay, the iteration number is
// (i - lb) / step. Two copies share one barrier per slot.
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[RA:.*]] = tile.alloc_shared {tile.layout = #tile.smem<buffers = 2>} : memref<2x16x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[RB:.*]] = tile.alloc_shared {tile.layout = #tile.smem<buffers = 2>} : memref<2x16x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: %[[FIRST:.*]] = arith.cmpi sgt, %[[N:.*]], %[[C2]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: tile.copy_async
// CHECK: tile.copy_async
// CHECK: tile.arrive
// CHECK: scf.if
// CHECK: scf.for %[[I:.*]] = %[[C2]] to %[[N]] step %[[C2]] {
// CHECK: %[[D:.*]] = arith.subi %[[I]], %[[C2]] : index
// CHECK: %[[IT:.*]] = arith.divui %[[D]], %[[C2]] : index
// CHECK: %[[SLOT:.*]] = arith.remui %[[IT]], %[[C2]] : index
// CHECK: %[[ROUND:.*]] = arith.divui %[[IT]], %[[C2]] : index
// CHECK: tile.wait %[[FULL]][%[[SLOT]]], %[[ROUND]]
// A ring of 2 refills at once, after a barrier of the block.
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %[[C4]] : index
// CHECK: arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK: gpu.barrier
module attributes {tile.target = "sm_90a"} {
func.func @dynamic(%A: memref<?x64xf32>, %B: memref<?x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %A, %c0 : memref<?x64xf32>
  %n = arith.divui %rows, %c16 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %sa = tile.alloc_shared : memref<16x64xf32, #gpu.address_space<workgroup>>
    %sb = tile.alloc_shared : memref<16x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c2 to %n step %c2 stages(2) {
      %r0 = arith.muli %k, %c16 : index
      tile.copy %A[%r0, %c0], %sa : memref<?x64xf32>, memref<16x64xf32, #gpu.address_space<workgroup>>
      tile.copy %B[%r0, %c0], %sb : memref<?x64xf32>, memref<16x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %sa, %acc dim(0) {clear = false} : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
      tile.reduce <sum> %sb, %acc dim(0) {clear = false} : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// An offset computed from another offset of the body (k1 = k0 + shift, shift unknown): the copy
// issued ahead clones the chain operands first, so each clone follows the clones it uses.
// CHECK-LABEL: func.func @chained_offsets
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.if
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[K1:.*]] = arith.addi %[[K0]], %[[SHIFT:.*]] : index
// CHECK: tile.copy_async %{{.*}}[%[[K1]], %{{.*}}]
module attributes {tile.target = "sm_90a"} {
func.func @chained_offsets(%A: memref<256x64xf32>, %O: memref<64xf32>, %shift: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c5 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      %k1 = arith.addi %k0, %shift : index
      tile.copy %A[%k1, %c0], %s : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// A GEMM's main loop (its one gemm accumulates across iterations): tile-plan-pipelines gives it
// release = "previous", and iteration k >= 1 releases the slot iteration k - 1 read, after its own
// gemm, then refills that slot with iteration k - 1 + 3 once every thread has released it. The
// loop is marked for the register rules, which let its gemm run into the next iteration.
// CHECK-LABEL: func.func @gemm_bias
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<3xi64
// CHECK: %[[FREE:.*]] = tile.alloc_barriers : memref<3xi64
// CHECK: scf.for %[[IV:.*]] = 
// CHECK: tile.wait %[[FULL]]
// CHECK: tile.gemm
// CHECK: %[[STARTED:.*]] = arith.cmpi uge, %[[K:.*]], %[[C1]] : index
// CHECK: scf.if %[[STARTED]] {
// CHECK: %[[PREVIOUS:.*]] = arith.subi %[[K]], %[[C1]] : index
// CHECK: %[[PSLOT:.*]] = arith.remui %[[PREVIOUS]], %[[C3]] : index
// CHECK: tile.arrive %[[FREE]][%[[PSLOT]]] {tile.releases_previous}
// CHECK: scf.if
// CHECK: tile.wait %[[FREE]][%[[PSLOT]]]
// CHECK: tile.copy_async
// CHECK: tile.copy_async
// CHECK: tile.arrive %[[FULL]][%[[PSLOT]]]
// CHECK: } {tile.carries_gemm}
module attributes {tile.target = "sm_90a"} {
func.func @gemm_bias(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %Bias: memref<256xf32>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %bias = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.fill %Acc, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Bias[%n0], %bias : memref<256xf32>, memref<128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
      %b = memref.load %bias[%j] : memref<128xf32, #tile.fragment>
      %s = arith.addf %v, %b : f32
      memref.store %s, %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
}

// -----

// sm_80 rings are awaited by cp.async commit groups (`wait = "group"`): the prologue issues
// iterations 0 .. D-2 (D = 3) and arrives on each slot whether or not its copies were issued (a
// group an iteration, so that an iteration's wait always has D - 2 later groups); the loop's
// iteration k waits for its slot, then refills slot (k + 2) mod 3, which iteration k - 1 read, with
// iteration k + 2 (guarded by the trip count) and arrives on it unconditionally, before the reads.
// CHECK-LABEL: func.func @column_sums_groups
// CHECK: %[[RING:.*]] = tile.alloc_shared {tile.layout = #tile.smem<buffers = 3>} : memref<3x32x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<3xi64, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc_barriers
// CHECK: scf.if
// CHECK: tile.copy_async %{{.*}}, %{{.*}}, %[[FULL]][%[[Z:.*]]]
// CHECK: }
// CHECK-NEXT: tile.arrive %[[FULL]][%[[Z]]]
// CHECK: scf.if
// CHECK: tile.copy_async %{{.*}}, %{{.*}}, %[[FULL]][%[[O:.*]]]
// CHECK: }
// CHECK-NEXT: tile.arrive %[[FULL]][%[[O]]]
// CHECK-NOT: tile.copy_async
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[N:.*]] step
// CHECK: %[[SLOT:.*]] = arith.remui %[[K]], %[[C3:.*]] : index
// CHECK: tile.wait %[[FULL]][%[[SLOT]]]
// CHECK: %[[TILE:.*]] = tile.slot %[[RING]][%[[SLOT]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %[[C2:.*]] : index
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %[[C2]] : index
// CHECK: %[[NSLOT:.*]] = arith.remui %[[AHEAD]], %[[C3]] : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK: scf.if %[[MORE]] {
// CHECK: %[[REFILL:.*]] = tile.slot %[[RING]][%[[NSLOT]]]
// CHECK: tile.copy_async %{{.*}}, %[[REFILL]], %[[FULL]][%[[NSLOT]]]
// CHECK: }
// CHECK-NEXT: tile.arrive %[[FULL]][%[[NSLOT]]]
// CHECK-NEXT: tile.reduce <sum> %[[TILE]]
// CHECK-NOT: tile.pipelined
module attributes {tile.target = "sm_80"} {
func.func @column_sums_groups(%A: memref<?x64xf32>, %O: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<?x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// A ring's copy of a tile across the middle of its tensor keeps the dimensions it spans.
// CHECK-LABEL: func.func @head_rows
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
module attributes {tile.target = "sm_90a"} {
func.func @head_rows(%X: memref<2x80x3x64xf16>, %Y: memref<2x3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c3, %c2) threads(128) (%bh, %bb) {
    %Xs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%bb, %k0, %bh, %c0], %Xs dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.reduce <sum> %Xs, %F dim(0) {clear = false} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%bb, %bh, %c0] : memref<64xf32, #tile.fragment>, memref<2x3x64xf32>
  }
  return
}
}
