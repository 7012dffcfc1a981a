// Split-K: a 128x128 by 128x192 product on 64x64 output tiles, K split in 4 parts of 32 (a
// 2x3x4 grid); each block adds its partial sums to C (which holds random values first) with
// atomic float adds, so the blocks that share a tile do not race.
func.func @split_k(%A: memref<128x128xf16>, %B: memref<128x192xf16>, %C: memref<128x192xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c3, %c2, %c4) threads(128) (%bx, %by, %bz) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    %part = arith.muli %bz, %c32 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %c16 = arith.constant 16 : index
      %step = arith.muli %k, %c16 : index
      %k0 = arith.addi %part, %step : index
      tile.copy %A[%m0, %k0], %As : memref<128x128xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<128x192xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %m = arith.addi %m0, %i : index
      %n = arith.addi %n0, %j : index
      %old = memref.atomic_rmw addf %v, %C[%m, %n] : (f32, memref<128x192xf32>) -> f32
    }
  }
  return
}
