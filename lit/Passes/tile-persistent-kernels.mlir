// tile-persistent-kernels (sm_90a): a GEMM kernel that the per-op rules lower, with more output
// tiles than the H200 has multiprocessors (132) and a block that fills a multiprocessor's shared
// memory, becomes a persistent kernel in tile IR: 132
// blocks, each walking its tiles in groups of 8 grid rows, the tiles' main loops one pipelined
// loop over (tile, step) pairs with the fills in a tile's first step and the epilogue in its last.
// tile-expand-pipelines then writes that loop out with one ring for all the tiles and nests it by
// tile: step 0 (the fills), a loop over the middle steps (the only one that carries a gemm across
// its back edge), step K - 1 (the epilogue).
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -canonicalize 2>/dev/null | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -canonicalize 2>/dev/null | FileCheck %s --check-prefix=NESTED
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty

// 16 x 16 tiles of 8 steps (K tiles of 128). Nothing warns: the per-op rules are the lowering.
// WARN-NOT: warning
// CHECK-LABEL: func.func @gemm_k128
// CHECK-DAG: %[[C132:.*]] = arith.constant 132 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C387:.*]] = arith.constant 387 : index
// CHECK: tile.kernel grid(%[[C132]], %[[C1]]) threads(128) (%[[PID:.*]], %{{.*}})
// CHECK: %[[LEFT:.*]] = arith.subi %[[C387]], %[[PID]]
// CHECK: %[[COUNT:.*]] = arith.divui %[[LEFT]], %[[C132]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[COUNT]], %[[C8]]
// CHECK: tile.pipelined %[[S:.*]] = %{{.*}} to %[[TOTAL]] stages(3) attributes {tile.schedule = {producer = "none"}, tile.tile_steps = 8 : i64}
// CHECK: %[[LOCAL:.*]] = arith.divui %[[S]], %[[C8]] {tile.tile_of_step}
// CHECK: %[[STEP:.*]] = arith.remui %[[S]], %[[C8]] {tile.step_in_tile}
// The walk: tile pid + 132 * local, down the 8 rows of its group, clamped into the grid.
// CHECK: arith.muli %[[LOCAL]], %[[C132]]
// CHECK: arith.minui
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: tile.fill
// CHECK-NEXT: } {tile.first_step}
// CHECK: tile.copy
// CHECK: tile.copy
// CHECK: tile.gemm
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}}
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
// CHECK-NEXT: } {tile.last_step}

// The kernel's threads fill its ring here (producer = "none"), whose prologue and refills this
// test follows; tile-expand-pipelines-producer.mlir has the producer's loop.
// NESTED-LABEL: func.func @gemm_k128
// NESTED: tile.kernel grid(
// The ring's prologue: steps 0, 1, 2 (of the block's first tile) into slots 0, 1, 2.
// NESTED-COUNT-3: tile.arrive
// NESTED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// Step 0 of the tile: its fill, then its gemm (no branch left).
// NESTED: tile.wait
// NESTED-NOT: scf.if
// NESTED: tile.fill
// NESTED-NEXT: tile.gemm
// NESTED: tile.arrive %{{.*}} {tile.releases_previous}
// Steps 1 to 6: the only loop whose gemm stays in flight across its back edge.
// NESTED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// NESTED: tile.gemm
// NESTED-NOT: tile.copy %{{.*}} : memref<128x128xf32, #tile.fragment>
// NESTED: } {tile.carries_gemm}
// Step 7: its gemm, then the epilogue.
// NESTED: tile.wait
// NESTED: tile.gemm
// NESTED-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
// NESTED: tile.arrive %{{.*}} {tile.releases_previous}
module attributes {tile.target = "sm_90a"} {
func.func @gemm_k128(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 128 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %ktiles = arith.constant 8 : index
  %gx = arith.constant 16 : index
  %gy = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {producer = "none"}} {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<2048x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x2048xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
  }
  return
}
}

// -----

// Not taken: 64 tiles (no more than the multiprocessors); a kernel the GEMM template takes (K tiles
// of 64); a loop whose schedule asks for one tile a block; another target.
// CHECK-LABEL: func.func @few_tiles
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[BX:.*]], %[[BY:.*]])
// CHECK: tile.fill
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) {
module attributes {tile.target = "sm_90a"} {
func.func @few_tiles(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 128 : index
  %c128 = arith.constant 128 : index
  %ktiles = arith.constant 8 : index
  %g = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%g, %g) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<1024x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}
}

// -----

// 64 tiles, fewer than the multiprocessors, but the loop's schedule asks for a persistent
// kernel: one block a tile (64), each walking its one tile through the (tile, step) loop.
// CHECK-LABEL: func.func @asked_persistent
// CHECK: %[[BLOCKS:.*]] = arith.constant 64 : index
// CHECK: tile.kernel grid(%[[BLOCKS]], %{{.*}}) threads(128)
// CHECK-SAME: tile.strategy = "per-op"
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) attributes {tile.schedule = {persistent = true}, tile.tile_steps = 16 : i64}
module attributes {tile.target = "sm_90a"} {
func.func @asked_persistent(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ktiles = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8, %c8) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<2048x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x2048xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @one_tile_a_block
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[BX:.*]], %[[BY:.*]])
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) attributes {tile.schedule = {persistent = false}}
module attributes {tile.target = "sm_90a"} {
func.func @one_tile_a_block(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 128 : index
  %c128 = arith.constant 128 : index
  %ktiles = arith.constant 8 : index
  %g = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%g, %g) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = false}} {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<2048x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x2048xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
  }
  return
}
}

// -----

// 1024 tiles of 128x128x32 on a 3-stage ring (48 KiB a block): four blocks share a multiprocessor
// and already overlap one's epilogue with another's loads, so the kernel stays one tile a block.
// CHECK-LABEL: func.func @shares_multiprocessor
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK-NOT: tile.tile_steps
module attributes {tile.target = "sm_90a"} {
func.func @shares_multiprocessor(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}
