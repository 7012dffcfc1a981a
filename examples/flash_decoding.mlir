// Flash decoding (flash_decoding): 1 sequences x 32 query heads of one token each in groups of
// 4 sharing a KV head, against 8192 cached tokens of 8 KV heads, dim 128, f16.
// Written by tools/gen/flash_decoding.py: the cache split 16 ways over blocks of one KV head's
// 4 queries (a 64-row tile), 64-token tiles in a ring of 4, the splits combined by a second kernel.
func.func @flash_decoding(%Q: memref<1x8x4x128xf16>, %K: memref<1x8192x8x128xf16>, %V: memref<1x8192x8x128xf16>, %Part: memref<1x16x8x4x128xf32>, %Lse: memref<1x8x4x16xf32>, %O: memref<1x8x4x128xf16>) {
  %c0 = arith.constant 0 : index
  %cbn = arith.constant 64 : index
  %csteps = arith.constant 8 : index
  %ckv = arith.constant 8 : index
  %cgroup = arith.constant 4 : index
  %cbatch = arith.constant 1 : index
  %csplits = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.12751743082459868 : f32
  %nscale = arith.constant -0.12751743082459868 : f32
  tile.kernel grid(%ckv, %cbatch, %csplits) threads(128) (%bg, %bb, %bs) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %L = tile.alloc_fragment : memref<64x1xf32, #tile.fragment>
    %split_tokens = arith.constant 512 : index
    %first = arith.muli %bs, %split_tokens : index
    tile.copy %Q[%bb, %bg, %c0, %c0], %Qs : memref<1x8x4x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %csteps stages(4) {
      %t = arith.muli %j, %cbn : index
      %t0 = arith.addi %first, %t : index
      tile.copy %K[%bb, %t0, %bg, %c0], %Ks dims [1, 3] : memref<1x8192x8x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %t0, %bg, %c0], %Vs dims [1, 3] : memref<1x8192x8x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
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
      tile.parallel (%i, %d) in (64, 128) {
        %o = memref.load %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %Vs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 128) {
      %o = memref.load %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %Part[%bb, %bs, %bg, %c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<1x16x8x4x128xf32>
    tile.parallel (%i, %z) in (64, 1) {
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %log = math.log2 %li : f32
      %shift = arith.mulf %mi, %scale : f32
      %e = arith.addf %log, %shift : f32
      memref.store %e, %L[%i, %z] : memref<64x1xf32, #tile.fragment>
    }
    tile.copy %L, %Lse[%bb, %bg, %c0, %bs] dims [2, 3] : memref<64x1xf32, #tile.fragment>, memref<1x8x4x16xf32>
  }
  tile.kernel grid(%cgroup, %ckv, %cbatch) threads(128) (%bh, %bg, %bb) {
    %L = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    %top = tile.alloc_fragment : memref<f32, #tile.fragment>
    %P = tile.alloc_fragment : memref<16x128xf32, #tile.fragment>
    %E = tile.alloc_fragment : memref<16x128xf32, #tile.fragment>
    %Out = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %Total = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.copy %Lse[%bb, %bg, %bh, %c0], %L : memref<1x8x4x16xf32>, memref<16xf32, #tile.fragment>
    tile.copy %Part[%bb, %c0, %bg, %bh, %c0], %P dims [1, 4] : memref<1x16x8x4x128xf32>, memref<16x128xf32, #tile.fragment>
    tile.reduce <max> %L, %top dim(0) : memref<16xf32, #tile.fragment>, memref<f32, #tile.fragment>
    tile.parallel (%d, %s) in (128, 16) {
      %p = memref.load %P[%s, %d] : memref<16x128xf32, #tile.fragment>
      %e = memref.load %L[%s] : memref<16xf32, #tile.fragment>
      %t = memref.load %top[] : memref<f32, #tile.fragment>
      %x = arith.subf %e, %t : f32
      %w = math.exp2 %x : f32
      %r = arith.mulf %p, %w : f32
      memref.store %r, %P[%s, %d] : memref<16x128xf32, #tile.fragment>
      memref.store %w, %E[%s, %d] : memref<16x128xf32, #tile.fragment>
    }
    tile.reduce <sum> %P, %Out dim(0) : memref<16x128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    tile.reduce <sum> %E, %Total dim(0) : memref<16x128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    tile.parallel (%d) in (128) {
      %o = memref.load %Out[%d] : memref<128xf32, #tile.fragment>
      %n = memref.load %Total[%d] : memref<128xf32, #tile.fragment>
      %r = arith.divf %o, %n : f32
      memref.store %r, %Out[%d] : memref<128xf32, #tile.fragment>
    }
    tile.copy %Out, %O[%bb, %bg, %bh, %c0] : memref<128xf32, #tile.fragment>, memref<1x8x4x128xf16>
  }
  return
}
