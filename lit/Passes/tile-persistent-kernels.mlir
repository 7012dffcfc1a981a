// tile-persistent-kernels (sm_90a): a GEMM kernel that the per-op rules lower, with more output
// tiles than the H200 has multiprocessors (132) and a block that fills a multiprocessor's shared
// memory, becomes a persistent kernel in tile IR: 132
// blocks, each walking its tiles in groups of 8 grid rows, the tiles' main loops one pipelined
// loop over (tile, step) pairs with the fills in a tile's first step and the epilogue in its last.
// tile-expand-pipelines then writes that loop out with one ring for all the tiles and nests it by
// tile: step 0 (the fills), a loop over the other steps (the only one that carries a gemm across
// its back edge), then the epilogue. A kernel whose sizes are known at run time only is
// rewritten where its schedule asks: the host counts the tiles, each block its tiles and their
// steps.
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
// Steps 1 to 7: the only loop whose gemm stays in flight across its back edge; the epilogue
// after it.
// NESTED: scf.for %{{.*}} = %[[C1:.*]] to %[[C8:.*]] step %[[C1]]
// NESTED: tile.wait
// NESTED: tile.gemm
// NESTED-NOT: tile.copy %{{.*}} : memref<128x128xf32, #tile.fragment>
// NESTED: tile.arrive %{{.*}} {tile.releases_previous}
// NESTED: } {tile.carries_gemm}
// NESTED-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
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

// Tiles that run their own step counts (the loop's end over the block's row: 1 to 4 K tiles, as a
// causal attention's query blocks run their own key blocks): each count is evaluated at compile
// time (the fewest, 1, is tile.tile_steps), the flattened loop runs the block's counts summed, a
// search over the block's tiles (which only the interpreter runs) finds a step's tile and its first
// step, and the tile's own count, marked, ends it. The waves of the walk go back and forth (block
// 131 - pid in odd ones), which evens out the blocks' steps: 256 tiles on 132 blocks, the second
// wave's 124 tiles on blocks 131 down to 8.
// CHECK-LABEL: func.func @gemm_rows_own_steps
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[PID:.*]], %{{.*}})
// CHECK: %[[PLACE:.*]] = arith.subi %c131, %[[PID]]
// CHECK: %[[IN_LAST:.*]] = arith.cmpi ult, %[[PLACE]], %c124
// CHECK: %[[LAST_WAVE:.*]] = arith.select %[[IN_LAST]], %c1, %c0
// CHECK: %[[COUNT:.*]] = arith.addi %[[LAST_WAVE]], %c1
// CHECK: %[[TOTAL:.*]] = scf.for %[[WAVE:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (index) {
// CHECK: %[[PARITY:.*]] = arith.remui %[[WAVE]], %c2
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %c0
// CHECK: %[[BACK:.*]] = arith.subi %c131, %[[PID]]
// CHECK: arith.select %[[ODD]], %[[BACK]], %[[PID]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[SUM]], %{{.*}} : index
// CHECK: scf.yield %[[NEXT]]
// CHECK: tile.pipelined %[[S:.*]] = %{{.*}} to %[[TOTAL]] stages(3) attributes {tile.schedule = {persistent = true}, tile.tile_steps = 1 : i64}
// CHECK: %[[FOUND:.*]]:3 = scf.for %[[J:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[TILE:.*]] = %{{.*}}, %[[START:.*]] = %{{.*}}, %[[AT:.*]] = %{{.*}})
// CHECK: %[[REACHED:.*]] = arith.cmpi ule, %[[AT]], %[[S]]
// CHECK: arith.select %[[REACHED]], %[[J]], %[[TILE]]
// CHECK: arith.select %[[REACHED]], %[[AT]], %[[START]]
// CHECK: } {tile.tile_of_step}
// CHECK: %[[STEP:.*]] = arith.subi %[[S]], %[[FOUND]]#1 {tile.step_in_tile}
// CHECK: arith.muli %[[FOUND]]#0, %{{.*}}
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: tile.fill
// CHECK-NEXT: } {tile.first_step}
// CHECK: tile.gemm
// CHECK: %[[STEPS:.*]] = arith.maxui %{{.*}}, %{{.*}} {tile.steps_of_tile}
// CHECK: %[[LAST_STEP:.*]] = arith.subi %[[STEPS]], %{{.*}}
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[STEP]], %[[LAST_STEP]]
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: tile.copy
// CHECK-NEXT: } {tile.last_step}

// A producer carries the tile and the step (and the tile's count) from step to step; the kernel's
// threads walk the tiles, each tile's first step carried on, its steps to its own count.
// NESTED-LABEL: func.func @gemm_rows_own_steps
// NESTED: tile.producer {
// NESTED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PTILE:.*]] = %{{.*}}, %[[PSTEP:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// NESTED-NOT: scf.for
// NESTED: tile.copy_async
// NESTED: tile.copy_async
// NESTED: %[[PNEXT:.*]] = arith.addi %[[PSTEP]], %{{.*}}
// NESTED: arith.cmpi eq, %[[PNEXT]], %{{arg[0-9]+}}
// NESTED: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}) -> (index) {
// NESTED: tile.wait
// NESTED: tile.fill
// NESTED-NEXT: tile.gemm
// NESTED: %[[OWN:.*]] = arith.maxui
// NESTED: scf.for %[[K:.*]] = %{{.*}} to %[[OWN]] step
// NESTED: arith.addi %[[FIRST]], %[[K]]
// NESTED: tile.gemm
// NESTED: }
// NESTED-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
// NESTED-NEXT: %[[AFTER:.*]] = arith.addi %[[FIRST]], %[[OWN]]
// NESTED-NEXT: scf.yield %[[AFTER]]
// NESTED-NOT: tile.steps_of_tile
module attributes {tile.target = "sm_90a"} {
func.func @gemm_rows_own_steps(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cbk = arith.constant 128 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
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
    %r = arith.remui %by, %c4 : index
    %ktiles = arith.addi %r, %c1 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
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

// A 3-D grid's rows walked in pairs from both ends (x = 0, 31, 1, 30, ...), where the compiler's
// simulation of the walk finds the busiest block with fewer steps so (3 against 4 here: rows of
// 32 tiles of 1 or 2 steps, 160 tiles on 132 blocks; test/programs/persistent_own_steps.mlir).
// CHECK-LABEL: func.func @persistent_own_steps
// CHECK: scf.for
// CHECK: %[[X:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[HALF:.*]] = arith.divui %[[X]], %c2
// CHECK: %[[PARITY:.*]] = arith.remui %[[X]], %c2
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %c0
// CHECK: %[[FROM_END:.*]] = arith.subi %c31, %[[HALF]]
// CHECK: arith.select %[[ODD]], %[[FROM_END]], %[[HALF]]
// CHECK: tile.pipelined
module attributes {tile.target = "sm_90a"} {
func.func @persistent_own_steps(%A: memref<320x128xf16>, %B: memref<128x2048xf16>, %C: memref<320x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c5, %c1) threads(128) (%bx, %by, %bz) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    %half = arith.divui %bx, %c16 : index
    %ktiles = arith.addi %half, %c1 : index
    tile.pipelined %kt = %c0 to %ktiles stages(2) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<320x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<128x2048xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<320x2048xf32>
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

// One tile a block, as asked; its 16x16 tiles launch as 256 blocks that take them in the
// persistent walk's order (groups of 8 grid rows, down a group's rows first), so that the tiles
// that run at once share their A rows and B columns in L2.
// CHECK-LABEL: func.func @one_tile_a_block
// CHECK: tile.kernel grid(%c256, %c1) threads(128) (%[[ID:.*]], %{{.*}})
// CHECK: %[[TILE:.*]] = arith.minui %[[ID]], %c255 : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[TILE]], %c128 : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c8 : index
// CHECK: %[[WITHIN:.*]] = arith.remui %[[TILE]], %c128 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[WITHIN]], %c8 : index
// CHECK: %[[Y:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// CHECK: %[[BY:.*]] = arith.minui %[[Y]], %c15 : index
// CHECK: %[[X:.*]] = arith.divui %[[WITHIN]], %c8 : index
// CHECK: %[[BX:.*]] = arith.minui %[[X]], %c15 : index
// CHECK: arith.muli %[[BY]], %c128 : index
// CHECK: arith.muli %[[BX]], %c128 : index
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

// -----

// Sizes known at run time, a schedule that asks for a persistent kernel: the host launches
// min(tiles, 132) blocks; each counts its tiles and their K = ceil(k / 64) steps (none where the
// loop runs none, K = 0 marked as tile_steps), walks the grid in groups of min(8, rows) rows, and
// where K is 0 fills and writes out each of its tiles in a loop of its own.
// CHECK-LABEL: func.func @dynamic_asked
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128
// CHECK: %[[GY:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[KT:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[TILES:.*]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK: %[[BLOCKS:.*]] = arith.minui %[[TILES]], %c132 : index
// CHECK: tile.kernel grid(%[[BLOCKS]], %c1) threads(128) (%[[PID:.*]], %{{.*}})
// CHECK: %[[RUNS:.*]] = arith.cmpi sgt, %[[KT]], %c0 : index
// CHECK: %[[K:.*]] = arith.select %[[RUNS]], %[[KT]], %c0 : index
// CHECK: %[[END:.*]] = arith.addi %[[TILES]], %[[BLOCKS]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[END]], %c1 : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[LAST]], %[[PID]] : index
// CHECK: %[[COUNT:.*]] = arith.divui %[[LEFT]], %[[BLOCKS]] : index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[COUNT]], %[[K]] : index
// CHECK: tile.pipelined %[[S:.*]] = %c0 to %[[TOTAL]] stages(3) attributes {tile.schedule = {persistent = true, producer = "none"}, tile.tile_steps = 0 : i64}
// CHECK: %[[LOCAL:.*]] = arith.divui %[[S]], %[[K]] {tile.tile_of_step} : index
// CHECK: %[[STEP:.*]] = arith.remui %[[S]], %[[K]] {tile.step_in_tile} : index
// CHECK: arith.minui %[[GY]], %c8 : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: tile.fill
// CHECK-NEXT: } {tile.first_step}
// CHECK: tile.gemm
// CHECK: %[[KLAST:.*]] = arith.subi %[[K]], %c1 : index
// CHECK: %[[IS_LAST:.*]] = arith.cmpi eq, %[[STEP]], %[[KLAST]] : index
// CHECK: scf.if %[[IS_LAST]] {
// CHECK-NEXT: tile.copy
// CHECK-NEXT: } {tile.last_step}
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[K]], %c0 : index
// CHECK: scf.if %[[NONE]] {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[COUNT]] step %c1 {
// CHECK: tile.fill
// CHECK-NEXT: tile.copy
// Nested by tile with K from the step's division: as many tiles as the steps make (no division
// by a K of 0), step 0 with its fill, steps 1 to K - 1 in the loop that carries the gemm, then
// the epilogue after it.
// NESTED-LABEL: func.func @dynamic_asked
// NESTED: %[[K:.*]] = arith.select
// NESTED: %[[DIVISOR:.*]] = arith.maxui %[[K]], %c1 : index
// NESTED: %[[TILES:.*]] = arith.divui %{{.*}}, %[[DIVISOR]] : index
// NESTED: scf.for %{{.*}} = %c0 to %[[TILES]] step %c1 {
// NESTED: tile.fill
// NESTED-NEXT: tile.gemm
// NESTED: scf.for %{{.*}} = %c1 to %[[K]] step %c1 {
// NESTED: tile.gemm
// NESTED: } {tile.carries_gemm}
// NESTED-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
// NESTED-NEXT: }
module attributes {tile.target = "sm_90a"} {
func.func @dynamic_asked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c64 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true, producer = "none"}} {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
}

// -----

// Sizes known at run time and no schedule entry: one tile a block (the tile count is the host's),
// the blocks taking the tiles in groups of min(8, rows) grid rows.
// CHECK-LABEL: func.func @dynamic_not_asked
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK: %[[GY:.*]] = arith.ceildivui %{{.*}}, %c64 : index
// CHECK: %[[TILES:.*]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK: tile.kernel grid(%[[TILES]], %c1) threads(128) (%[[ID:.*]], %{{.*}})
// CHECK: %[[ROWS:.*]] = arith.minui %[[GY]], %c8 : index
// CHECK: %[[GROUP_TILES:.*]] = arith.muli %[[ROWS]], %[[GX]] : index
// CHECK: arith.divui %[[ID]], %[[GROUP_TILES]] : index
// CHECK-NOT: tile.tile_steps
// CHECK: return
module attributes {tile.target = "sm_90a"} {
func.func @dynamic_not_asked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c64 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
}

// -----

// multicast = 2: clusters of two blocks (tile.multicast on the kernel) walk pairs of consecutive
// grid rows of one column, block x mod 2 the pair's row, x / 2 the walker of the grouped walk over
// 8 x 16 pairs (15 rows: the last pair's second block takes row 14 again); 66 clusters of 2 (what
// the H200 runs at once). B's copy reads the same tile for both rows of a pair: tile.cluster_shared,
// which tile-expand-pipelines keeps on its copy_async.
// CHECK-LABEL: func.func @gemm_multicast
// CHECK-DAG: %[[C132:.*]] = arith.constant 132 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C66:.*]] = arith.constant 66 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: tile.kernel grid(%[[C132]], %{{.*}}) threads(128) (%[[PID:.*]], %{{.*}}) attributes {tile.multicast = 2 : i64
// CHECK: %[[RANK:.*]] = arith.remui %[[PID]], %[[C2]]
// CHECK: %[[CLUSTER:.*]] = arith.divui %[[PID]], %[[C2]]
// CHECK: tile.pipelined
// CHECK: %[[LOCAL:.*]] = arith.divui %{{.*}} {tile.tile_of_step}
// CHECK: %[[WALKED:.*]] = arith.muli %[[LOCAL]], %[[C66]]
// CHECK: arith.addi %[[CLUSTER]], %[[WALKED]]
// CHECK: %[[PAIR:.*]] = arith.muli %{{.*}}, %[[C2]]
// CHECK: %[[ROW:.*]] = arith.addi %[[PAIR]], %[[RANK]]
// CHECK: arith.minui %[[ROW]], %[[C14]]
// CHECK: tile.copy %{{.*}}, %{{.*}} : memref<2048x1024xf16>
// CHECK: tile.copy %{{.*}}, %{{.*}} {tile.cluster_shared} : memref<1024x2048xf16>
// NESTED-LABEL: func.func @gemm_multicast
// NESTED: tile.producer
// NESTED: tile.copy_async %{{.*}} : memref<2048x1024xf16>
// NESTED: tile.copy_async %{{.*}} {tile.cluster_shared} : memref<1024x2048xf16>
module attributes {tile.target = "sm_90a"} {
func.func @gemm_multicast(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 128 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %ktiles = arith.constant 8 : index
  %gx = arith.constant 16 : index
  %gy = arith.constant 15 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {multicast = 2}} {
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

// Attention-shaped: a 3-D grid of (query block, head, batch) items, Q copied before the loop into
// a shared tile only the loop reads. Where the schedule asks, the items are walked in order, x
// fastest (neighbouring blocks take a head's query blocks, which read the same keys), and Q's copy
// moves into the loop marked tile.once_a_tile: at every step the IR says (the same tile), and
// tile-expand-pipelines makes it once a tile, into a ring of its own (two slots beside a ring of
// 3 and items of 4 steps) whose full and free barriers the producer and a tile's first and last
// steps use.
// CHECK-LABEL: func.func @attention_items
// CHECK-DAG: %[[C132:.*]] = arith.constant 132 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C143:.*]] = arith.constant 143 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: tile.kernel grid(%[[C132]], %[[C1]], %[[C1]]) threads(128) (%[[PID:.*]], %{{.*}}, %{{.*}})
// CHECK: tile.pipelined %{{.*}} stages(3) attributes {tile.schedule = {persistent = true}, tile.tile_steps = 4 : i64}
// CHECK: %[[LOCAL:.*]] = arith.divui %{{.*}}, %[[C4]] {tile.tile_of_step}
// CHECK: %[[ITEM:.*]] = arith.minui %{{.*}}, %[[C143]]
// CHECK: %[[BQ:.*]] = arith.remui %[[ITEM]], %[[C4]]
// CHECK: %[[REST:.*]] = arith.divui %[[ITEM]], %[[C4]]
// CHECK: %[[BH:.*]] = arith.remui %[[REST]], %[[C4]]
// CHECK: %[[Z:.*]] = arith.divui %[[REST]], %[[C4]]
// CHECK: %[[BB:.*]] = arith.minui %[[Z]], %[[C8]]
// CHECK: %[[Q0:.*]] = arith.muli %[[BQ]], %{{.*}}
// CHECK: tile.copy %{{.*}}[%[[BB]], %[[BH]], %[[Q0]], %{{.*}}], %{{.*}} {tile.once_a_tile}
// CHECK: scf.if
// CHECK-NEXT: tile.fill
// CHECK-NEXT: } {tile.first_step}
// CHECK: scf.if
// CHECK-NEXT: tile.copy %{{.*}}, %{{.*}}[%[[BB]], %[[BH]], %[[Q0]], %{{.*}}]
// CHECK-NEXT: } {tile.last_step}

// NESTED-LABEL: func.func @attention_items
// NESTED: %[[QRING:.*]] = tile.alloc_shared {{.*}} : memref<2x64x64xf16, #gpu.address_space<workgroup>>
// NESTED: %[[FULL:.*]] = tile.alloc_barriers : memref<3xi64
// NESTED: %[[FREE:.*]] = tile.alloc_barriers : memref<3xi64
// NESTED: %[[QFULL:.*]] = tile.alloc_barriers : memref<2xi64
// NESTED: %[[QFREE:.*]] = tile.alloc_barriers : memref<2xi64
// The producer: at an item's first step (s mod 4 == 0), item t's Q into slot t mod 2 once the
// item two before has released it, then that step's K and V.
// NESTED: tile.producer {
// NESTED: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step
// NESTED: tile.wait %[[FREE]]
// NESTED: %[[IN_ITEM:.*]] = arith.remui %[[S]], %c4
// NESTED: %[[FIRST:.*]] = arith.cmpi eq, %[[IN_ITEM]], %c0
// NESTED: scf.if %[[FIRST]] {
// NESTED: %[[T:.*]] = arith.divui %[[S]], %c4
// NESTED: %[[QSLOT:.*]] = arith.remui %[[T]], %c2
// NESTED: %[[REUSED:.*]] = arith.cmpi uge, %[[T]], %c2
// NESTED: scf.if %[[REUSED]] {
// NESTED: tile.wait %[[QFREE]][%[[QSLOT]]]
// NESTED: %[[QVIEW:.*]] = tile.slot %[[QRING]][%[[QSLOT]]]
// NESTED: tile.copy_async %arg0[{{.*}}], %[[QVIEW]], %[[QFULL]][%[[QSLOT]]]
// NESTED-NEXT: tile.arrive %[[QFULL]][%[[QSLOT]]]
// NESTED: tile.copy_async %arg1
// NESTED: tile.copy_async %arg2
// The kernel's threads, nested by item: the item's first step waits for its Q slot, every step
// reads it, and after the item's loop and the epilogue's store the slot is released.
// NESTED: scf.for %[[ITEM:.*]] = %{{.*}} to %{{.*}} step
// NESTED: tile.wait %[[FULL]]
// NESTED: %[[SLOT0:.*]] = arith.remui %[[ITEM]], %c2
// NESTED: %[[ROUND0:.*]] = arith.divui %[[ITEM]], %c2
// NESTED-NEXT: tile.wait %[[QFULL]][%[[SLOT0]]], %[[ROUND0]]
// NESTED-NEXT: %[[Q_FIRST:.*]] = tile.slot %[[QRING]][%[[SLOT0]]]
// NESTED: tile.gemm %[[Q_FIRST]], %{{.*}}, %{{.*}} {transpose_b}
// NESTED: scf.for
// NESTED-NOT: tile.wait %[[QFULL]]
// NESTED: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
// NESTED: tile.gemm
// NESTED: }
// NESTED-NEXT: tile.copy %{{.*}}, %arg3
// NESTED-NEXT: tile.arrive %[[QFREE]][%[[SLOT0]]]
module attributes {tile.target = "sm_90a"} {
func.func @attention_items(%Q: memref<9x4x256x64xf16>, %K: memref<9x4x256x64xf16>, %V: memref<9x4x256x64xf16>, %O: memref<9x4x256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4, %c9) threads(128) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<9x4x256x64xf16>
  }
  return
}
}

// -----

// A 3-D grid of one plane (batch 1): walked as any 3-D grid, its z always 0.
// CHECK-LABEL: func.func @attention_one_plane
// CHECK-DAG: %[[C132:.*]] = arith.constant 132 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C36:.*]] = arith.constant 36 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: tile.kernel grid(%[[C132]], %[[C1]], %[[C1]]) threads(128)
// CHECK: %[[ITEM:.*]] = arith.minui
// CHECK: %[[BQ:.*]] = arith.remui %[[ITEM]], %[[C36]]
// CHECK: %[[REST:.*]] = arith.divui %[[ITEM]], %[[C36]]
// CHECK: %[[BH:.*]] = arith.remui %[[REST]], %{{.*}}
// CHECK: %[[Q0:.*]] = arith.muli %[[BQ]], %{{.*}}
// CHECK: tile.copy %{{.*}}[%[[C0]], %[[BH]], %[[Q0]], %[[C0]]], %{{.*}} {tile.once_a_tile}
module attributes {tile.target = "sm_90a"} {
func.func @attention_one_plane(%Q: memref<1x4x2304x64xf16>, %K: memref<1x4x2304x64xf16>, %V: memref<1x4x2304x64xf16>, %O: memref<1x4x2304x64xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 1 : index
  %c36 = arith.constant 36 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c36, %c4, %c9) threads(128) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<1x4x2304x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : memref<1x4x2304x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<1x4x2304x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<1x4x2304x64xf16>
  }
  return
}
}

// -----

// FlashAttention-3's order: the first key block's S before the loop, the last block's P V after
// it. Where the schedule asks, they are a tile's first and last work: the first S (with the fills)
// in the first step's branch, the last P V in the last step's; the first K and the last V, like
// Q, are copied once a tile (the last V's offset, index arithmetic after the loop, computed at
// each step before its copy).
// CHECK-LABEL: func.func @attention_fa3_order
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : index
// CHECK: tile.pipelined %{{.*}} attributes {tile.schedule = {persistent = true}, tile.tile_steps = 3 : i64}
// CHECK: tile.copy %arg0[%[[BB:.*]], %[[BH:.*]], %{{.*}}, %{{.*}}], %{{.*}} {tile.once_a_tile}
// CHECK-NEXT: tile.copy %arg1[%[[BB]], %[[BH]], %{{.*}}, %{{.*}}], %[[K0:.*]] {tile.once_a_tile}
// CHECK-NEXT: tile.copy %arg2[%[[BB]], %[[BH]], %[[C192]], %{{.*}}], %[[VL:.*]] {tile.once_a_tile}
// CHECK: scf.if
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.gemm %{{.*}}, %[[K0]], %{{.*}} {transpose_b}
// CHECK-NEXT: tile.copy
// CHECK-NEXT: } {tile.first_step}
// CHECK: tile.gemm
// CHECK: tile.gemm
// CHECK: scf.if
// CHECK-NEXT: tile.gemm %{{.*}}, %[[VL]], %{{.*}}
// CHECK-NEXT: tile.copy %{{.*}}, %arg3
// CHECK-NEXT: } {tile.last_step}
module attributes {tile.target = "sm_90a"} {
func.func @attention_fa3_order(%Q: memref<9x4x256x64xf16>, %K: memref<9x4x256x64xf16>, %V: memref<9x4x256x64xf16>, %O: memref<9x4x256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4, %c9) threads(128) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %K0s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vls = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %K[%bb, %bh, %c0, %c0], %K0s : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %K0s, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.pipelined %j = %c0 to %c3 stages(2) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %j, %c64 : index
      %k1 = arith.addi %k0, %c64 : index
      tile.copy %K[%bb, %bh, %k1, %c0], %Ks : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    }
    %kl = arith.muli %c3, %c64 : index
    tile.copy %V[%bb, %bh, %kl, %c0], %Vls : memref<9x4x256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %P, %Vls, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<9x4x256x64xf16>
  }
  return
}
}

// -----

// A copy into a fragment before the loop (a bias the sum starts from), where the schedule asks:
// a tile's first work, at its first step.
// CHECK-LABEL: func.func @copy_before_loop
// CHECK: tile.pipelined
// CHECK: scf.if
// CHECK-NEXT: tile.copy %arg3[%{{.*}}, %{{.*}}], %{{.*}} : memref<1024x1024xf32>, memref<128x128xf32, #tile.fragment>
// CHECK-NEXT: } {tile.first_step}
module attributes {tile.target = "sm_90a"} {
func.func @copy_before_loop(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %Bias: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c8, %c8) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %Bias[%m0, %n0], %Cf : memref<1024x1024xf32>, memref<128x128xf32, #tile.fragment>
    tile.pipelined %kt = %c0 to %c8 stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c128 : index
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

// A kernel that guards its work by a block index below a bound of its own (a grouped GEMM: the
// host bounds the grid's row tiles, the kernel counts its groups' on the device) and asks for a
// persistent kernel: the guard goes, the count stays at the kernel's top, and the blocks walk the
// grid's rows below it only (the same launch, fewer tiles); each tile's search for its group runs
// in the loop over the tile's block indices.
// CHECK-LABEL: func.func @grouped_guard
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128
// CHECK: %[[GY:.*]] = arith.addi
// CHECK: %[[TILES:.*]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK: %[[BLOCKS:.*]] = arith.minui %[[TILES]], %c132 : index
// CHECK: tile.kernel grid(%[[BLOCKS]], %c1) threads(128) (%[[PID:.*]], %{{.*}})
// CHECK: %[[LIVE:.*]] = scf.for
// CHECK-NOT: scf.if
// CHECK: %[[ROWS:.*]] = arith.minui %[[GY]], %[[LIVE]] : index
// CHECK: %[[WALKED:.*]] = arith.muli %[[GX]], %[[ROWS]] : index
// CHECK: %[[END:.*]] = arith.addi %[[WALKED]], %[[BLOCKS]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[END]], %c1 : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[LAST]], %[[PID]] : index
// CHECK: arith.divui %[[LEFT]], %[[BLOCKS]] : index
// CHECK: tile.pipelined
// CHECK: arith.divui %{{.*}} {tile.tile_of_step}
// CHECK: arith.minui %[[ROWS]], %c8 : index
// CHECK: %[[SEARCH:.*]]:3 = scf.for
// CHECK: memref.load
// CHECK: tile.copy %{{.*}}[%[[SEARCH]]#2, %{{.*}}, %{{.*}}]
// The producer warpgroup searches for the first tile's group before its loop and for the next
// tile's at a tile's last step, carrying the result; the consumers, which do not read it, run no
// search.
// NESTED-LABEL: func.func @grouped_guard
// NESTED: tile.producer {
// NESTED: scf.if
// NESTED: scf.for
// NESTED: memref.load
// NESTED: scf.for %{{.*}} iter_args(
// NESTED: tile.copy_async %{{.*}}[%[[GROUP:.*]], %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x?xf16>
// NESTED: scf.if
// NESTED: scf.for
// NESTED: memref.load
// NESTED: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : index, index, index, index, index
// NESTED-NOT: memref.load
// NESTED: return
module attributes {tile.target = "sm_90a"} {
func.func @grouped_guard(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c64 : index
  %gy = arith.addi %mtiles, %groups : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %live = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0) -> (index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c64 : index
      %next = arith.addi %sum, %mt : index
      scf.yield %next : index
    }
    %in_groups = arith.cmpi ult, %by, %live : index
    scf.if %in_groups {
      %at:3 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %first = %c0, %grp = %c0) -> (index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %mt = arith.ceildivui %rows, %c64 : index
        %end = arith.addi %first, %mt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %here = arith.andi %after_first, %before_end : i1
        %grp2 = arith.select %here, %g, %grp : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %grp2 : index, index, index
      }
      %n0 = arith.muli %bx, %c128 : index
      %m0 = arith.muli %by, %c64 : index
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#2, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
}

// -----

// A count loop with two results (a grouped GEMM that walks the row tiles whole in their group
// first, each group's partial one after them, bench/grouped_gemm_walk.mlir): it stays at the
// kernel's top, its first result bounds the walk, and its second, which no block index reaches,
// is read by the search each tile runs.
// CHECK-LABEL: func.func @grouped_guard_counts
// CHECK: tile.kernel grid(%{{.*}}, %c1)
// CHECK: %[[COUNTS:.*]]:2 = scf.for
// CHECK-NOT: scf.if
// CHECK: %[[ROWS:.*]] = arith.minui %{{.*}}, %[[COUNTS]]#0 : index
// CHECK: tile.pipelined
// CHECK: %[[WHOLE:.*]] = arith.cmpi ult, %{{.*}}, %[[COUNTS]]#1 : index
// CHECK: %[[SEARCH:.*]]:3 = scf.for
// CHECK: arith.andi %{{.*}}, %[[WHOLE]] : i1
// CHECK: tile.copy %{{.*}}[%[[SEARCH]]#2, %{{.*}}, %{{.*}}]
module attributes {tile.target = "sm_90a"} {
func.func @grouped_guard_counts(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c64 : index
  %gy = arith.addi %mtiles, %groups : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %counts:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0, %sum_whole = %c0) -> (index, index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c64 : index
      %wt = arith.divui %rows, %c64 : index
      %next = arith.addi %sum, %mt : index
      %next_whole = arith.addi %sum_whole, %wt : index
      scf.yield %next, %next_whole : index, index
    }
    %in_groups = arith.cmpi ult, %by, %counts#0 : index
    scf.if %in_groups {
      %is_whole = arith.cmpi ult, %by, %counts#1 : index
      %at:3 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %first = %c0, %grp = %c0) -> (index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %wt = arith.divui %rows, %c64 : index
        %end = arith.addi %first, %wt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %in_whole = arith.andi %after_first, %before_end : i1
        %here = arith.andi %in_whole, %is_whole : i1
        %grp2 = arith.select %here, %g, %grp : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %grp2 : index, index, index
      }
      %n0 = arith.muli %bx, %c128 : index
      %m0 = arith.muli %by, %c64 : index
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#2, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
}

// -----

// A row offset loaded from a table before the loop (a tile's rows named by the device, as a
// mixture-of-experts frontend hands a block's expert): loaded again for each tile, at its block
// indices, in the loop.
// CHECK-LABEL: func.func @table_row_offset
// CHECK: tile.pipelined
// CHECK: %[[ROW:.*]] = arith.minui %{{.*}}, %c7 : index
// CHECK: %[[OFFSET:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<8xi32>
// CHECK: %[[M:.*]] = arith.index_cast %[[OFFSET]] : i32 to index
// CHECK: %[[M0:.*]] = arith.muli %[[M]], %c128 : index
// CHECK: tile.copy %{{.*}}[%[[M0]], %{{.*}}]
module attributes {tile.target = "sm_90a"} {
func.func @table_row_offset(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %Rows: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8, %c8) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %row = memref.load %Rows[%by] : memref<8xi32>
    %m = arith.index_cast %row : i32 to index
    %m0 = arith.muli %m, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %kt = %c0 to %c8 stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c128 : index
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

// The grouped GEMM example's form: each tile stores one copy limited to its group's rows. The
// walk keeps the limit: the epilogue, in a tile's last step, stores at the row and up to the
// rows the tile's group search gave.
// CHECK-LABEL: func.func @grouped_limited_store
// CHECK: tile.kernel grid(%{{.*}}, %c1)
// CHECK: tile.pipelined
// CHECK: %[[SEARCH:.*]]:5 = scf.for
// CHECK: tile.copy %{{.*}}, %{{.*}}[%[[SEARCH]]#3, %{{.*}}] limits [%[[SEARCH]]#4, %c128] : memref<128x128xf32, #tile.fragment>, memref<?x?xf16>
module attributes {tile.target = "sm_90a"} {
func.func @grouped_limited_store(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %ntiles = arith.ceildivui %n, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c128 : index
  %row_tiles = arith.addi %mtiles, %groups : index
  tile.kernel grid(%ntiles, %row_tiles) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // The groups' row tiles.
    %count = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0) -> (index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %next = arith.addi %sum, %mt : index
      scf.yield %next : index
    }
    %in_groups = arith.cmpi ult, %by, %count : index
    scf.if %in_groups {
      // Row tile %by's group, its first row in A and C, and the group's rows from there.
      %at:5 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %grp = %c0, %row0 = %c0, %left = %c0)
          -> (index, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %mt = arith.ceildivui %rows, %c128 : index
        %end = arith.addi %first, %mt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %here = arith.andi %after_first, %before_end : i1
        %grp2 = arith.select %here, %g, %grp : index
        %tile = arith.subi %by, %first : index
        %m0 = arith.muli %tile, %c128 : index
        %r0 = arith.addi %start, %m0 : index
        %row02 = arith.select %here, %r0, %row0 : index
        %rest = arith.subi %rows, %m0 : index
        %left2 = arith.select %here, %rest, %left : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %grp2, %row02, %left2 : index, index, index, index, index
      }
      %n0 = arith.muli %bx, %c128 : index
      tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%at#3, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#2, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
            memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%at#3, %n0] limits [%at#4, %c128] : memref<128x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
}
