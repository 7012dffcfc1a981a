// Block-sparse attention at the attention baseline's shape (tools/gen/attention.py sparse-example).

// block_sparse_attention: non-causal attention, 1x32 heads of 4096 tokens, head dim 128, f16.
// Block-sparse: each query block visits the 16 key blocks its row of %Blocks lists (an entry
// modulo the 32 key blocks), in FlashAttention-2's order.
func.func @block_sparse_attention(%Q: memref<1x32x4096x128xf16>, %K: memref<1x32x4096x128xf16>, %V: memref<1x32x4096x128xf16>, %Blocks: memref<32x16xi32>, %O: memref<1x32x4096x128xf16>) {
  %c0 = arith.constant 0 : index
  %csparse = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %cnq = arith.constant 32 : index
  %cnk = arith.constant 32 : index
  %cheads = arith.constant 32 : index
  %cbatch = arith.constant 1 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %cbn_1 = arith.constant 127 : index
  %cseq = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.12751743082459868 : f32
  %nscale = arith.constant -0.12751743082459868 : f32
  tile.kernel grid(%cnq, %cheads, %cbatch) threads(256) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<128x128xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %q0 = arith.muli %bq, %cbm : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<1x32x4096x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<128x128xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
    tile.fill %l, %zero : memref<128xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %csparse stages(2) {
      %entry = memref.load %Blocks[%bq, %j] : memref<32x16xi32>
      %index = arith.index_cast %entry : i32 to index
      %kb = arith.remui %index, %cnk : index
      %k0 = arith.muli %kb, %cbn : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : memref<1x32x4096x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<1x32x4096x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<128x128xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.copy %m, %mp : memref<128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<128x128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.parallel (%i, %k) in (128, 128) {
        %s = memref.load %S[%i, %k] : memref<128x128xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<128x128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.parallel (%i) in (128) {
        %old = memref.load %mp[%i] : memref<128xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<128xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<128xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #tile.fragment>
      tile.parallel (%i, %d) in (128, 128) {
        %o = memref.load %Acc[%i, %d] : memref<128x128xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<128xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      }
      tile.gemm %P, %Vs, %Acc : memref<128x128xf16, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (128, 128) {
      %o = memref.load %Acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %Acc[%i, %d] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1x32x4096x128xf16>
  }
  return
}

