// tile-persistent-kernels on loops whose tile.schedule asks for a persistent kernel that cannot be
// written: a located error at the loop naming what stands in the way.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layouts -tile-persistent-kernels

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

// A copy into a fragment before the loop (a bias the sum starts from) would run once a tile in a
// persistent kernel.
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
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but an op before the loop is neither an allocation, index arithmetic, a fill of a fragment nor a copy from a global tensor into a shared tile that only the loop reads (a persistent kernel runs those once a tile); drop the entry}}
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
    // expected-error @+1 {{'tile.pipelined' op asks for persistent = true in its tile.schedule, but a copy before the loop (copied once a tile) needs the grid and the loop's bounds known at compile time; drop the entry}}
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
