// FlashAttention backward (flash_attention_bwd): 1 x 32 heads of 4096 tokens, head dim 128, f16,
// non-causal. Written by tools/gen/attention_bwd.py: Delta = rowsum(dO O) (and dQ zeroed) by one
// kernel; then a block a 64-key block walks the 64-query blocks, accumulating dK and dV in
// registers and adding each step's dQ atomically.
func.func @flash_attention_bwd(%Q: memref<1x32x4096x128xf16>, %K: memref<1x32x4096x128xf16>, %V: memref<1x32x4096x128xf16>, %O: memref<1x32x4096x128xf16>, %dO: memref<1x32x4096x128xf16>, %LSE: memref<1x32x4096xf32>, %Delta: memref<1x32x4096xf32>, %dQ: memref<1x32x4096x128xf32>, %dK: memref<1x32x4096x128xf16>, %dV: memref<1x32x4096x128xf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 64 : index
  %cbn = arith.constant 64 : index
  %cqblocks = arith.constant 64 : index
  %ckblocks = arith.constant 64 : index
  %cheads = arith.constant 32 : index
  %cbatch = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %scale2 = arith.constant 0.12751743082459868 : f32
  %inverse = arith.constant 0.08838834764831843 : f32
  tile.kernel grid(%cqblocks, %cheads, %cbatch) threads(128) (%bq, %bh, %bb) {
    %Of = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %dOf = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %Prod = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %D = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %cbm : index
    tile.copy %O[%bb, %bh, %q0, %c0], %Of : memref<1x32x4096x128xf16>, memref<64x128xf16, #tile.fragment>
    tile.copy %dO[%bb, %bh, %q0, %c0], %dOf : memref<1x32x4096x128xf16>, memref<64x128xf16, #tile.fragment>
    tile.parallel (%i, %d) in (64, 128) {
      %o = memref.load %Of[%i, %d] : memref<64x128xf16, #tile.fragment>
      %g = memref.load %dOf[%i, %d] : memref<64x128xf16, #tile.fragment>
      %o32 = arith.extf %o : f16 to f32
      %g32 = arith.extf %g : f16 to f32
      %p = arith.mulf %o32, %g32 : f32
      memref.store %p, %Prod[%i, %d] : memref<64x128xf32, #tile.fragment>
    }
    tile.reduce <sum> %Prod, %D dim(1) : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %D, %Delta[%bb, %bh, %q0] : memref<64xf32, #tile.fragment>, memref<1x32x4096xf32>
    tile.fill %Prod, %zero : memref<64x128xf32, #tile.fragment>
    tile.copy %Prod, %dQ[%bb, %bh, %q0, %c0] : memref<64x128xf32, #tile.fragment>, memref<1x32x4096x128xf32>
  }
  tile.kernel grid(%ckblocks, %cheads, %cbatch) threads(256) (%bk, %bh, %bb) {
    %Ks = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %dOs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %dSs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %St = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %dPt = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %dKacc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %dVacc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %dQacc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %L = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %Dl = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %k0 = arith.muli %bk, %cbn : index
    tile.copy %K[%bb, %bh, %k0, %c0], %Ks : memref<1x32x4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<1x32x4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %dKacc, %zero : memref<64x128xf32, #tile.fragment>
    tile.fill %dVacc, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %m = %c0 to %cqblocks stages(3) {
      %q0 = arith.muli %m, %cbm : index
      tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<1x32x4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %dO[%bb, %bh, %q0, %c0], %dOs : memref<1x32x4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %LSE[%bb, %bh, %q0], %L : memref<1x32x4096xf32>, memref<64xf32, #tile.fragment>
      tile.copy %Delta[%bb, %bh, %q0], %Dl : memref<1x32x4096xf32>, memref<64xf32, #tile.fragment>
      tile.fill %St, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Ks, %Qs, %St {transpose_b} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.parallel (%j, %i) in (64, 64) {
        %s = memref.load %St[%j, %i] : memref<64x64xf32, #tile.fragment>
        %l = memref.load %L[%i] : memref<64xf32, #tile.fragment>
        %nl = arith.negf %l : f32
        %x = math.fma %s, %scale2, %nl : f32
        %p = math.exp2 %x fastmath<afn> : f32
        memref.store %p, %St[%j, %i] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %St, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %dOs, %dVacc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.fill %dPt, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Vs, %dOs, %dPt {transpose_b} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.parallel (%j, %i) in (64, 64) {
        %p = memref.load %St[%j, %i] : memref<64x64xf32, #tile.fragment>
        %dp = memref.load %dPt[%j, %i] : memref<64x64xf32, #tile.fragment>
        %delta = memref.load %Dl[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %dp, %delta : f32
        %ds = arith.mulf %p, %diff : f32
        %scaled = arith.mulf %ds, %inverse : f32
        memref.store %scaled, %dPt[%j, %i] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %dPt, %dSs : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %dSs, %Qs, %dKacc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.fill %dQacc, %zero : memref<64x128xf32, #tile.fragment>
      tile.gemm %dSs, %Ks, %dQacc {transpose_a} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      tile.copy %dQacc, %dQ[%bb, %bh, %q0, %c0] atomic <sum> : memref<64x128xf32, #tile.fragment>, memref<1x32x4096x128xf32>
    }
    tile.copy %dKacc, %dK[%bb, %bh, %k0, %c0] : memref<64x128xf32, #tile.fragment>, memref<1x32x4096x128xf16>
    tile.copy %dVacc, %dV[%bb, %bh, %k0, %c0] : memref<64x128xf32, #tile.fragment>, memref<1x32x4096x128xf16>
  }
  return
}
