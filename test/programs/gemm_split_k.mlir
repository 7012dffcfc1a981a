// A decode-shaped product: 64 rows, K of 4096, on 64x128 output tiles. Four tiles leave the chip
// idle, so tile-split-k splits each tile's 64 steps across a cluster of 8 blocks on sm_90a.
func.func @gemm_split_k(%A: memref<64x4096xf16>, %B: memref<4096x512xf16>, %C: memref<64x512xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c64 stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<64x512xf16>
  }
  return
}
