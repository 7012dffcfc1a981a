// Producer warpgroups (sm_90a): tile-plan-pipelines gives a persistent GEMM's ring, filled by TMA
// alone, `producer = "warpgroup"`, and tile-expand-pipelines writes its copies into a tile.producer
// before the loop: one loop over the block's (tile, step) pairs that waits for the slot's previous
// round to be released (from round 1 on), issues the step's copies and arrives on the slot's
// barrier. The kernel's threads only wait for their slots and release them, each right after the
// gemm that read the previous one (a tile's epilogue then holds no slot). The trip count is the
// block's share of the tiles times the steps a tile, known only at run time.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines | FileCheck %s --check-prefix=PLAN
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -canonicalize | FileCheck %s

// PLAN-LABEL: func.func @gemm_128x128
// PLAN: tile.pipelined {{.*}} {tile.schedule = {buffers = 4 : i64, fill = "async", persistent = true, prefetch = 3 : i64, producer = "warpgroup", release = "previous", wait = "mbarrier"}

// CHECK-LABEL: func.func @gemm_128x128
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// The rings keep their tiles' layouts (TMA's swizzled boxes), four times.
// CHECK: %[[A:.*]] = tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [128, 64], buffers = 4>} : memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [64, 64], boxes = 2, buffers = 4>} : memref<4x64x128xf16, #gpu.address_space<workgroup>>
// CHECK: %[[STEPS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: %[[FREE:.*]] = tile.alloc_barriers : memref<4xi64, #gpu.address_space<workgroup>>
// No prologue: the producer issues every step.
// CHECK-NOT: tile.copy_async
// CHECK: tile.producer {
// CHECK-NEXT: scf.for %[[S:.*]] = %[[C0]] to %[[STEPS]] step %[[C1]] {
// CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[S]], %[[C4]] : index
// CHECK-NEXT: %[[ROUND:.*]] = arith.divui %[[S]], %[[C4]] : index
// CHECK-NEXT: %[[REUSE:.*]] = arith.cmpi uge, %[[S]], %[[C4]] : index
// CHECK-NEXT: scf.if %[[REUSE]] {
// CHECK-NEXT: %[[RELEASED:.*]] = arith.subi %[[ROUND]], %[[C1]] : index
// CHECK-NEXT: tile.wait %[[FREE]][%[[SLOT]]], %[[RELEASED]]
// CHECK-NEXT: }
// CHECK: %[[AS:.*]] = tile.slot %[[A]][%[[SLOT]]]
// CHECK: tile.copy_async %{{.*}}, %[[AS]], %[[FULL]][%[[SLOT]]]
// CHECK: %[[BS:.*]] = tile.slot %[[B]][%[[SLOT]]]
// CHECK: tile.copy_async %{{.*}}, %[[BS]], %[[FULL]][%[[SLOT]]]
// CHECK-NEXT: tile.arrive %[[FULL]][%[[SLOT]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// The kernel's threads: per tile, step 0 (the fill), a loop over steps 1 .. 7, the epilogue; no
// copy, no wait for a free slot.
// CHECK: scf.for
// CHECK: tile.wait %[[FULL]]
// CHECK: tile.fill
// CHECK-NEXT: tile.gemm
// CHECK: tile.arrive %[[FREE]][%{{.*}}] {tile.releases_previous}
// CHECK: scf.for
// CHECK-NOT: tile.copy_async
// CHECK-NOT: tile.wait %[[FREE]]
// CHECK: tile.gemm
// CHECK: tile.arrive %[[FREE]][%{{.*}}] {tile.releases_previous}
// CHECK-NEXT: }
// CHECK-NEXT: } {tile.carries_gemm}
// CHECK-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
// CHECK-NOT: tile.copy_async
// CHECK: return
module attributes {tile.target = "sm_90a"} {
func.func @gemm_128x128(%A: memref<4096x512xf16>, %B: memref<512x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c8 stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<512x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// Three steps a tile, fewer than the ring's 4 slots: the producer's one loop runs on across the
// tiles all the same (a tile's steps take slots 0-2, the next tile's 3, 0, 1, ...).
// PLAN-LABEL: func.func @gemm_k192
// PLAN: producer = "warpgroup"
// CHECK-LABEL: func.func @gemm_k192
// CHECK: tile.producer {
// CHECK: scf.for
// CHECK: arith.remui %{{.*}}, %[[C4:.*]] : index
// CHECK: tile.copy_async
// CHECK: tile.copy_async
// CHECK-NEXT: tile.arrive
// The tile's three steps: the first, then a loop over the other two.
// CHECK: scf.for
// CHECK: tile.gemm
// CHECK: scf.for %{{.*}} = %c1 to %c3 step %c1
// CHECK: tile.gemm
// CHECK-NOT: tile.copy_async
// CHECK: } {tile.carries_gemm}
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x256xf32, #tile.fragment>
module attributes {tile.target = "sm_90a"} {
func.func @gemm_k192(%A: memref<4096x192xf16>, %B: memref<192x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %c3 stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x192xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<192x4096xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// Three warpgroups on a 192x256 tile keep their 128 accumulator registers a thread beside 168
// without a producer; beside one they would have 152: no producer, the ring as before.
// PLAN-LABEL: func.func @gemm_192x256
// PLAN-NOT: producer
// PLAN: release = "previous"
// CHECK-LABEL: func.func @gemm_192x256
// CHECK-NOT: tile.producer
// CHECK: tile.copy_async
module attributes {tile.target = "sm_90a"} {
func.func @gemm_192x256(%A: memref<4032x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4032x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %c16 = arith.constant 16 : index
  %c21 = arith.constant 21 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c21) threads(384) (%bx, %by) {
    %As = tile.alloc_shared : memref<192x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<192x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<192x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c192 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %c64 stages(3) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4032x4096xf16>, memref<192x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<192x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<192x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<192x256xf32, #tile.fragment>, memref<4032x4096xf16>
  }
  return
}
}

// -----

// A program that asks for no producer keeps the ring of its threads.
// PLAN-LABEL: func.func @no_producer
// PLAN: producer = "none", release = "previous"
// CHECK-LABEL: func.func @no_producer
// CHECK-NOT: tile.producer
// CHECK-COUNT-4: tile.arrive
module attributes {tile.target = "sm_90a"} {
func.func @no_producer(%A: memref<4096x512xf16>, %B: memref<512x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c8 stages(4) attributes {tile.schedule = {producer = "none"}} {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<512x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// One tile a block, but a ring that fills most of a multiprocessor's shared memory (one block a
// multiprocessor anyway): a producer. It goes before the first op the larger block's every
// thread may not run (a copy into a shared tile, which the kernel's threads do after it), with
// the loop's bound and the copies' offsets, computed after that copy, hoisted before it.
// PLAN-LABEL: func.func @one_block_per_multiprocessor
// PLAN: persistent = false, prefetch = 3 : i64, producer = "warpgroup"
// CHECK-LABEL: func.func @one_block_per_multiprocessor
// CHECK: tile.kernel grid
// CHECK: tile.fill
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[BOUND:.*]] = arith.addi
// CHECK-NEXT: %[[FULL:.*]] = tile.alloc_barriers
// CHECK-NEXT: %[[FREE:.*]] = tile.alloc_barriers
// CHECK-NEXT: tile.producer {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[BOUND]] step
// CHECK: tile.copy_async
// CHECK: tile.copy_async
// CHECK: tile.arrive %[[FULL]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[BOUND]] step
// CHECK: tile.wait %[[FULL]]
// CHECK: tile.gemm
// CHECK: tile.arrive %[[FREE]]
module attributes {tile.target = "sm_90a"} {
func.func @one_block_per_multiprocessor(%A: memref<512x512xf16>, %B: memref<512x512xf16>, %X: memref<128x64xf16>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Xs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    %steps = arith.addi %bx, %c4 : index
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %steps stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<512x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<512x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<512x512xf32>
  }
  return
}
}

// -----

// The copies' rows come from a table the kernel only reads (a varlen kernel's sequence offsets,
// a gathered GEMM's row starts), loaded at the kernel's top level: the load is replicated like
// index arithmetic, so the producer goes after it (and after the bound computed from it) and
// reads the same value.
// PLAN-LABEL: func.func @rows_from_a_table
// PLAN: persistent = false, prefetch = 3 : i64, producer = "warpgroup"
// CHECK-LABEL: func.func @rows_from_a_table
// CHECK: tile.kernel grid
// CHECK: %[[FIRST:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<5xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[FIRST]] : i32 to index
// CHECK: tile.producer {
// CHECK: tile.copy_async %{{.*}}[%[[ROW]], %{{.*}}]
// CHECK: tile.copy_async
// CHECK: tile.arrive
// CHECK: scf.for
// CHECK: tile.gemm
module attributes {tile.target = "sm_90a"} {
func.func @rows_from_a_table(%A: memref<512x512xf16>, %B: memref<512x512xf16>, %Rows: memref<5xi32>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %by1 = arith.addi %by, %c1 : index
    %first = memref.load %Rows[%by] : memref<5xi32>
    %after = memref.load %Rows[%by1] : memref<5xi32>
    %m0 = arith.index_cast %first : i32 to index
    %m1 = arith.index_cast %after : i32 to index
    %span = arith.subi %m1, %m0 : index
    // (At most 8 steps whatever the table holds: the fuzzer runs this on random tables.)
    %rows = arith.minui %span, %c512 : index
    %steps = arith.ceildivui %rows, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %steps stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<512x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<512x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<512x512xf32>
  }
  return
}
}

// -----

// The copies read what a loop over a table finds (a grouped GEMM's search for its row tile's
// group in the group sizes): a loop of index arithmetic and table loads is replicated like them,
// so the producer goes after it and reads the group and the first row it yields.
// PLAN-LABEL: func.func @group_from_a_table_loop
// PLAN: persistent = false, prefetch = 3 : i64, producer = "warpgroup"
// CHECK-LABEL: func.func @group_from_a_table_loop
// CHECK: tile.kernel grid
// CHECK: %[[FOUND:.*]]:3 = scf.for
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: tile.producer {
// CHECK: tile.copy_async %{{.*}}[%[[FOUND]]#1, %{{.*}}]
// CHECK: tile.copy_async %{{.*}}[%[[FOUND]]#2, %{{.*}}, %{{.*}}]
// CHECK: tile.arrive
// CHECK: scf.for
// CHECK: tile.gemm
module attributes {tile.target = "sm_90a"} {
func.func @group_from_a_table_loop(%A: memref<512x512xf16>, %B: memref<4x512x512xf16>, %Sizes: memref<4xi32>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    // The last group whose first row is at most this row tile's (sizes taken modulo 128 rows).
    %m0 = arith.muli %by, %c128 : index
    %found:3 = scf.for %g = %c0 to %c4 step %c1 iter_args(%start = %c0, %row = %c0, %grp = %c0) -> (index, index, index) {
      %size = memref.load %Sizes[%g] : memref<4xi32>
      %rows = arith.index_cast %size : i32 to index
      %clamped = arith.remui %rows, %c128 : index
      %reached = arith.cmpi ule, %start, %m0 : index
      %row2 = arith.select %reached, %start, %row : index
      %grp2 = arith.select %reached, %g, %grp : index
      %next = arith.addi %start, %clamped : index
      scf.yield %next, %row2, %grp2 : index, index, index
    }
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c8 stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%found#1, %k0], %As : memref<512x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%found#2, %k0, %n0], %Bs : memref<4x512x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<512x512xf32>
  }
  return
}
}

// -----

// A persistent GEMM of run-time sizes: the producer's loop carries its tile, the step within it
// and the tile's offsets (the grouped walk, divisions by run-time sizes) from step to step, and
// computes the offsets again only when a tile's last step leads to another: no step divides by
// the steps a tile.
// PLAN-LABEL: func.func @dynamic_persistent
// PLAN: persistent = true, prefetch = 3 : i64, producer = "warpgroup"
// CHECK-LABEL: func.func @dynamic_persistent
// CHECK: tile.producer {
// CHECK: %[[FIRST:.*]]:2 = scf.if %{{.*}} -> (index, index) {
// CHECK: arith.divui
// CHECK: } else {
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %[[END:.*]] step %{{.*}} iter_args(%[[TILE:.*]] = %{{.*}}, %[[STEP:.*]] = %{{.*}}, %[[ROW:.*]] = %[[FIRST]]#0, %[[COLUMN:.*]] = %[[FIRST]]#1) -> (index, index, index, index) {
// CHECK-NOT: arith.divui %{{.*}}, %{{[0-9]+}}{{( {.*})?}} : index
// CHECK: %[[K0:.*]] = arith.muli %[[STEP]], %{{.*}} : index
// CHECK: tile.copy_async %{{.*}}[%[[ROW]], %[[K0]]]
// CHECK: tile.copy_async %{{.*}}[%[[K0]], %[[COLUMN]]]
// CHECK-NEXT: tile.arrive
// CHECK: %[[NEXT_STEP:.*]] = arith.addi %[[STEP]], %{{.*}} : index
// CHECK: %[[WRAPS:.*]] = arith.cmpi eq, %[[NEXT_STEP]], %{{.*}} : index
// CHECK: %[[NEXT_TILE:.*]] = arith.addi %[[TILE]], %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi ult, %{{.*}}, %[[END]] : index
// CHECK: %[[AGAIN:.*]] = arith.andi %[[WRAPS]], %[[MORE]] : i1
// CHECK: %[[NEXT:.*]]:2 = scf.if %[[AGAIN]] -> (index, index) {
// CHECK: arith.divui
// CHECK: } else {
// CHECK: scf.yield %[[ROW]], %[[COLUMN]] : index, index
// CHECK: %[[T:.*]] = arith.select %[[WRAPS]], %[[NEXT_TILE]], %[[TILE]] : index
// CHECK: %[[K:.*]] = arith.select %[[WRAPS]], %{{.*}}, %[[NEXT_STEP]] : index
// CHECK: scf.yield %[[T]], %[[K]], %[[NEXT]]#0, %[[NEXT]]#1 : index, index, index, index
module attributes {tile.target = "sm_90a"} {
func.func @dynamic_persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
}
