// A persistent GEMM whose tiles run their own step counts (the loop's end over the block's
// column: 1 or 2 K steps, as a causal attention's query blocks run their own key blocks), on a
// 3-D grid of 32 x 5 x 1 tiles: on sm_90a 132 blocks walk the 160 tiles in waves that go back and
// forth, each row of 32 tiles in pairs from both ends (0, 31, 1, 30, ...), which gives the
// busiest block 3 steps where the grid's order gives it 4. Each tile of C sums the products of
// its own K steps (64 or 128 of A's columns); checked after each target's decisions against the
// CPU reference.
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
