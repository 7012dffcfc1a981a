// shared_kv_attention.mlir with P stored into a shared tile by the threads (as MLA decode stores
// it when warpgroups split the scores' columns): the second gemm reads A from that tile.
func.func @shared_p_attention(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688011112042 : f32
  %nscale = arith.constant -0.18033688011112042 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 64) {
      %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
