// tile-persistent-kernels on loops whose tile.schedule asks for a persistent kernel that cannot be
// written: a located error at the loop naming what stands in the way.
// A persistent loop whose ring does not fit is refused by tile-plan-pipelines, after it.
// A loop whose tiles run their own step counts and that no producer warpgroup fills is refused by
// tile-expand-pipelines.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines

// The loop's end depends on the block's row: the tiles' step counts differ, and the host could
// not count the steps.
module attributes {tile.target = "sm_90a"} {
func.func @bounds_from_block(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c64 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    %steps = arith.addi %by, %c1 : index
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but the loop's bounds depend on the block indices; drop the entry}}
    tile.pipelined %kt = %c0 to %steps stages(3) attributes {tile.schedule = {persistent = true}} {
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

// With a run-time step count a tile's epilogue runs after its steps' loop, where the ring's slots
// are no longer the last step's: an epilogue that reads a tile the loop's copies fill is refused.
module attributes {tile.target = "sm_90a"} {
func.func @epilogue_reads_ring(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %D: memref<?x?xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but its epilogue reads a shared tile that the loop's copies write; drop the entry}}
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    tile.copy %As, %D[%m0, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}
}

// -----

// multicast with one tile a block: clusters that multicast are a persistent kernel's.
module attributes {tile.target = "sm_90a"} {
func.func @multicast_not_persistent(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op asks for multicast = 2 in its tile.schedule, but it also asks for persistent = false, and clusters that multicast are a persistent kernel's; drop the entry}}
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {multicast = 2, persistent = false}} {
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

// Clusters of 3 blocks: the target runs clusters of 2, 4 or 8.
module attributes {tile.target = "sm_90a"} {
func.func @multicast_three(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op asks for multicast = 3 in its tile.schedule, but the target runs no clusters of 3 blocks (multicast = 2 or 4 or 8); drop the entry}}
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {multicast = 3}} {
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

// B's copy reads a tile that depends on the block's row: no tile is the same for a pair's rows.
module attributes {tile.target = "sm_90a"} {
func.func @multicast_nothing_shared(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op asks for multicast = 2 in its tile.schedule, but multicast = 2 shares a tile among the blocks of a grid column, and no copy from a global tensor in the loop reads the same tile for every grid row; drop the entry}}
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {multicast = 2}} {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<2048x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%m0, %n0], %Bs : memref<1024x2048xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
  }
  return
}
}

// -----

// A copy into a shared tile that only the loop reads (a FlashAttention block's Q) is made once a
// tile, by a ring of its own that counts a tile's steps: sizes known at run time have no such
// count.
module attributes {tile.target = "sm_90a"} {
func.func @copied_once_a_tile_dynamic(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %O: memref<?x64xf16>, %blocks: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%blocks) threads(128) (%bq) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%q0, %c0], %Qs : memref<?x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but work before the loop other than fills (copies, gemms) needs the grid and the loop's bounds known at compile time; drop the entry}}
    tile.pipelined %j = %c0 to %steps stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0], %Ks : memref<?x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %O[%q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<?x64xf16>
  }
  return
}
}

// -----

// FlashAttention-3's order on 128-key steps of head dim 128: Q's, the first K's and the last V's
// rings of two beside the K and V ring leave no room in a block's shared memory.
module attributes {tile.target = "sm_90a"} {
func.func @persistent_ring_too_large(%Q: memref<9x4x512x128xf16>, %K: memref<9x4x512x128xf16>, %V: memref<9x4x512x128xf16>, %O: memref<9x4x512x128xf16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %c64 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4, %c9) threads(256) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %K0s = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Vls = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<128x128xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<9x4x512x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<128x128xf32, #tile.fragment>
    tile.copy %K[%bb, %bh, %c0, %c0], %K0s : memref<9x4x512x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<128x128xf32, #tile.fragment>
    tile.gemm %Qs, %K0s, %S {transpose_b} : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    tile.copy %S, %P : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #tile.fragment>
    // expected-error @+1 {{is a persistent loop whose ring of two does not fit: with the kernel's shared tiles (and the rings of the copies made once a tile: Q's, and FlashAttention-3's order's first K and last V) it needs 327728 bytes of shared memory, and a block has 230400; smaller tiles (fewer keys a step) fit, or drop persistent = true}}
    tile.pipelined %j = %c0 to %c3 stages(2) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %j, %c64 : index
      %k1 = arith.addi %k0, %c64 : index
      tile.copy %K[%bb, %bh, %k1, %c0], %Ks : memref<9x4x512x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<9x4x512x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<128x128xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<128x128xf16, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.copy %S, %P : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #tile.fragment>
    }
    %kl = arith.muli %c3, %c64 : index
    tile.copy %V[%bb, %bh, %kl, %c0], %Vls : memref<9x4x512x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.gemm %P, %Vls, %Acc : memref<128x128xf16, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<128x128xf32, #tile.fragment>, memref<9x4x512x128xf16>
  }
  return
}
}

// -----

// A static grid whose loop's end is the block's row: row 0's tiles would run no step.
module attributes {tile.target = "sm_90a"} {
func.func @rows_without_steps(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c16) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    %r = arith.remui %by, %c4 : index
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but some of its tiles run no step (the loop's upper bound is 0 for one); each tile needs at least one; drop the entry}}
    tile.pipelined %kt = %c0 to %r stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c128 : index
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

// Each tile its own count, but the loop starts at 1.
module attributes {tile.target = "sm_90a"} {
func.func @rows_own_steps_from_one(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c16) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    %r = arith.remui %by, %c4 : index
    %end = arith.addi %r, %c4 : index
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but its loop's upper bound depends on the block indices (each tile its own step count), which needs the loop to run from 0 by 1; drop the entry}}
    tile.pipelined %kt = %c1 to %end stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c128 : index
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

// Each tile's count read from a tensor: not known at compile time.
module attributes {tile.target = "sm_90a"} {
func.func @rows_steps_from_a_table(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>, %Steps: memref<16xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c16) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    %w = memref.load %Steps[%by] : memref<16xindex>
    %end = arith.addi %w, %c1 : index
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but its loop's upper bound depends on the block indices but is not integer arithmetic over them and constants (each tile's step count is computed at compile time); drop the entry}}
    tile.pipelined %kt = %c0 to %end stages(3) attributes {tile.schedule = {persistent = true}} {
      %k0 = arith.muli %kt, %c128 : index
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

// Each tile its own count, the kernel's threads asked to fill the ring.
module attributes {tile.target = "sm_90a"} {
func.func @rows_own_steps_without_producer(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c16) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    %r = arith.remui %by, %c4 : index
    %end = arith.addi %r, %c1 : index
    // expected-error @+1 {{'tile.pipelined' op is a persistent loop whose tiles run different step counts (its bound depends on the block indices), whose copies only a producer warpgroup issues}}
    tile.pipelined %kt = %c0 to %end stages(3) attributes {tile.schedule = {persistent = true, producer = "none"}} {
      %k0 = arith.muli %kt, %c128 : index
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

// A guard whose bound is the block's own row (no bound of the grid): the walk cannot keep it.
module attributes {tile.target = "sm_90a"} {
func.func @guard_over_block(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
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
    %diagonal = arith.cmpi ult, %bx, %by : index
    scf.if %diagonal {
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %m0 = arith.muli %by, %c64 : index
      %n0 = arith.muli %bx, %c128 : index
      // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but it is neither directly in its kernel's body nor in a guard a persistent kernel's walk keeps (the body's last op an 'scf.if' without results or else branch over 'arith.cmpi ult' of a block index and a bound no block index gives); drop the entry}}
      tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
}

// -----

// A guarded kernel that asks for clusters: their blocks walk a grid known at compile time, and
// the guard's bound is known at run time only.
module attributes {tile.target = "sm_90a"} {
func.func @guard_with_multicast(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %Rows: memref<1xi32>) {
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
    %rows = memref.load %Rows[%c0] : memref<1xi32>
    %live = arith.index_cast %rows : i32 to index
    %in = arith.cmpi ult, %by, %live : index
    scf.if %in {
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %m0 = arith.muli %by, %c64 : index
      %n0 = arith.muli %bx, %c128 : index
      // expected-error @+1 {{'tile.pipelined' op asks for multicast = 2 in its tile.schedule, but multicast = 2 needs the grid and the loop's bounds known at compile time (a cluster's blocks walk the same tiles' steps); drop the entry}}
      tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {persistent = true, multicast = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
}

// -----

// A value loaded before the loop from a tensor the kernel writes (no table: another tile's block
// may have written it) is not loaded again for each tile.
module attributes {tile.target = "sm_90a"} {
func.func @load_of_written_tensor(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8, %c8) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %first = memref.load %C[%by, %bx] : memref<1024x1024xf16>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    %start = arith.extf %first : f16 to f32
    tile.fill %Cf, %start : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but an op before the loop is neither an allocation, index arithmetic, a load of a table or a loop over tables, a fill of a fragment nor (where the schedule asks for persistent = true) an op without results (a persistent kernel runs those once a tile); drop the entry}}
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
