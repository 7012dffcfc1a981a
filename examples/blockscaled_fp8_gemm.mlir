// Block-scaled fp8 GEMM (blockscaled_fp8_gemm): 4096x4096x4096, A and B f8E4M3FN (B given N x K), a scale per
// row of A and 128-wide K block ([K/128, M]) and per 128 x 128 block of B ([N/128, K/128]), C bf16.
// Written by tools/gen/blockscaled.py: 128x128 output tiles on 256 threads, K steps of 128 in a
// ring of 3, each step's product promoted to f32 and added scaled.
func.func @blockscaled_fp8_gemm(%A: memref<4096x4096xf8E4M3FN>, %B: memref<4096x4096xf8E4M3FN>, %SA: memref<32x4096xf32>, %SB: memref<32x32xf32>, %C: memref<4096x4096xbf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %cbk = arith.constant 128 : index
  %csteps = arith.constant 16 : index
  %cunroll = arith.constant 2 : index
  %gm = arith.constant 32 : index
  %gn = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  tile.kernel grid(%gn, %gm) threads(256) (%bn, %bm) {
    %As0 = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs0 = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %As1 = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs1 = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Part0 = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %Part1 = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %Sa0 = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %Sa1 = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.fill %Acc, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %csteps stages(3) attributes {tile.schedule = {producer = "none"}} {
      %kfirst = arith.muli %k, %cunroll : index
      %kb0 = arith.addi %kfirst, %c0 : index
      %k0 = arith.muli %kb0, %cbk : index
      tile.copy %A[%m0, %k0], %As0 : memref<4096x4096xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs0 : memref<4096x4096xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %SA[%kb0, %m0], %Sa0 : memref<32x4096xf32>, memref<128xf32, #tile.fragment>
      %sb0 = memref.load %SB[%bn, %kb0] : memref<32x32xf32>
      %kb1 = arith.addi %kfirst, %c1 : index
      %k1 = arith.muli %kb1, %cbk : index
      tile.copy %A[%m0, %k1], %As1 : memref<4096x4096xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k1], %Bs1 : memref<4096x4096xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %SA[%kb1, %m0], %Sa1 : memref<32x4096xf32>, memref<128xf32, #tile.fragment>
      %sb1 = memref.load %SB[%bn, %kb1] : memref<32x32xf32>
      tile.fill %Part0, %zero : memref<128x128xf32, #tile.fragment>
      tile.gemm %As0, %Bs0, %Part0 {transpose_b} : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.fill %Part1, %zero : memref<128x128xf32, #tile.fragment>
      tile.gemm %As1, %Bs1, %Part1 {transpose_b} : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.parallel (%i, %j) in (128, 128) {
        %p = memref.load %Part0[%i, %j] : memref<128x128xf32, #tile.fragment>
        %s = memref.load %Sa0[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
        %scale = arith.mulf %s, %sb0 : f32
        %r = math.fma %p, %scale, %o : f32
        memref.store %r, %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
      }
      tile.parallel (%i, %j) in (128, 128) {
        %p = memref.load %Part1[%i, %j] : memref<128x128xf32, #tile.fragment>
        %s = memref.load %Sa1[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
        %scale = arith.mulf %s, %sb1 : f32
        %r = math.fma %p, %scale, %o : f32
        memref.store %r, %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
      }
    }
    tile.copy %Acc, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xbf16>
  }
  return
}
