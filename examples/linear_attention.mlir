// Chunked linear attention (linear_attention): 8 x 32 heads of 1024 tokens, dim 128,
// f16, causal, no decay. Written by tools/gen/linear_attention.py: one block a head walks
// its chunks of 64 tokens carrying the state H = K^T V of the chunks before.
func.func @linear_attention(%Q: memref<8x32x1024x128xf16>, %K: memref<8x32x1024x128xf16>, %V: memref<8x32x1024x128xf16>, %O: memref<8x32x1024x128xf32>) {
  %c0 = arith.constant 0 : index
  %cchunk = arith.constant 64 : index
  %cchunks = arith.constant 16 : index
  %cheads = arith.constant 32 : index
  %cbatch = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Hs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %H = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %H, %zero : memref<128x128xf32, #tile.fragment>
    tile.copy %H, %Hs : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.pipelined %c = %c0 to %cchunks stages(2) {
      %t0 = arith.muli %c, %cchunk : index
      tile.copy %Q[%bb, %bh, %t0, %c0], %Qs : memref<8x32x1024x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %K[%bb, %bh, %t0, %c0], %Ks : memref<8x32x1024x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %t0, %c0], %Vs : memref<8x32x1024x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
        %future = arith.cmpi ugt, %j, %i : index
        %masked = arith.select %future, %zero, %s : f32
        memref.store %masked, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
      tile.gemm %Qs, %Hs, %Acc : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.gemm %Ps, %Vs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.copy %Acc, %O[%bb, %bh, %t0, %c0] : memref<64x128xf32, #tile.fragment>, memref<8x32x1024x128xf32>
      tile.gemm %Ks, %Vs, %H {transpose_a} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.copy %H, %Hs : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
