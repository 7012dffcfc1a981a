// FlashMLA decode (flash_mla_decode): 64 sequences x 128 query heads of one token each against
// 4096 cached tokens (latent 512 + rotary 64, one KV head for all query heads), bf16,
// the cache contiguous.
// Written by tools/gen/mla.py: 64 heads a block on two warpgroups that split the columns of
// the scores and of the output; each 64-token tile of the latent cache is read as the keys
// and as the values, with the online softmax between the gemms.
func.func @flash_mla_decode(%Q: memref<64x128x512xbf16>, %Qpe: memref<64x128x64xbf16>, %KV: memref<64x4096x512xbf16>, %Kpe: memref<64x4096x64xbf16>, %O: memref<64x128x512xbf16>) {
  %c0 = arith.constant 0 : index
  %cbh = arith.constant 64 : index
  %cbn = arith.constant 64 : index
  %csteps = arith.constant 64 : index
  %cheads = arith.constant 2 : index
  %cbatch = arith.constant 64 : index
  %cpages = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.06011229337037347 : f32
  %nscale = arith.constant -0.06011229337037347 : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x512xbf16, #gpu.address_space<workgroup>>
    %Qpes = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x512xbf16, #gpu.address_space<workgroup>>
    %Kpes = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x512xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %h0 = arith.muli %bh, %cbh : index
    tile.copy %Q[%bb, %h0, %c0], %Qs : memref<64x128x512xbf16>, memref<64x512xbf16, #gpu.address_space<workgroup>>
    tile.copy %Qpe[%bb, %h0, %c0], %Qpes : memref<64x128x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x512xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %csteps stages(2) {
      %t0 = arith.muli %j, %cbn : index
      tile.copy %KV[%bb, %t0, %c0], %KVs : memref<64x4096x512xbf16>, memref<64x512xbf16, #gpu.address_space<workgroup>>
      tile.copy %Kpe[%bb, %t0, %c0], %Kpes : memref<64x4096x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.gemm %Qpes, %Kpes, %S {transpose_b} : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %v = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %v, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 512) {
        %o = memref.load %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x512xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 512) {
      %o = memref.load %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %h0, %c0] : memref<64x512xf32, #tile.fragment>, memref<64x128x512xbf16>
  }
  return
}
