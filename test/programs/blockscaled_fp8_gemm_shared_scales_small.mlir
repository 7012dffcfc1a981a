// Block-scaled fp8 GEMM (blockscaled_fp8_gemm_shared_scales_small): 256x256x512, A and B f8E4M3FN (B given N x K), a scale per
// row of A and 128-wide K block ([K/128, M]) and per 128 x 128 block of B ([N/128, K/128]), C bf16.
// Written by tools/gen/blockscaled.py: 64x128 output tiles on 128 threads, K steps of 128 in a
// ring of 3, each step's product promoted to f32 and added scaled; the activation scales read from a shared tile of the ring.
func.func @blockscaled_fp8_gemm_shared_scales_small(%A: memref<256x512xf8E4M3FN>, %B: memref<256x512xf8E4M3FN>, %SA: memref<4x256xf32>, %SB: memref<2x4xf32>, %C: memref<256x256xbf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 64 : index
  %cbn = arith.constant 128 : index
  %cbk = arith.constant 128 : index
  %csteps = arith.constant 4 : index
  %cunroll = arith.constant 1 : index
  %gm = arith.constant 4 : index
  %gn = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gn, %gm) threads(128) (%bn, %bm) {
    %As0 = tile.alloc_shared : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs0 = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Part0 = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %Sa0 = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %csteps stages(3) {
      %kfirst = arith.muli %k, %cunroll : index
      %kb0 = arith.addi %kfirst, %c0 : index
      %k0 = arith.muli %kb0, %cbk : index
      tile.copy %A[%m0, %k0], %As0 : memref<256x512xf8E4M3FN>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs0 : memref<256x512xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %SA[%kb0, %m0], %Sa0 : memref<4x256xf32>, memref<1x64xf32, #gpu.address_space<workgroup>>
      %sb0 = memref.load %SB[%bn, %kb0] : memref<2x4xf32>
      tile.fill %Part0, %zero : memref<64x128xf32, #tile.fragment>
      tile.gemm %As0, %Bs0, %Part0 {transpose_b} : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.parallel (%i, %j) in (64, 128) {
        %p = memref.load %Part0[%i, %j] : memref<64x128xf32, #tile.fragment>
        %s = memref.load %Sa0[%c0, %i] : memref<1x64xf32, #gpu.address_space<workgroup>>
        %o = memref.load %Acc[%i, %j] : memref<64x128xf32, #tile.fragment>
        %scale = arith.mulf %s, %sb0 : f32
        %r = math.fma %p, %scale, %o : f32
        memref.store %r, %Acc[%i, %j] : memref<64x128xf32, #tile.fragment>
      }
    }
    tile.copy %Acc, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<256x256xbf16>
  }
  return
}
