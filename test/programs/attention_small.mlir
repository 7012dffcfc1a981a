// FlashAttention's forward loop on 32-row blocks of 128x32 f16 Q, K and V (4 key blocks): S = Q K^T,
// the online softmax (running max with clear = false, exp2 of scaled differences, rescaled running
// sum), P = S as f16, O = O * scale + P V, O / l at the end. Two gemms, the second with a register A
// operand: no tensor-core lowering takes it yet, so every GPU target runs it with the plain
// strategy, its fragments in registers.
func.func @attention_small(%Q: memref<128x32xf16>, %K: memref<128x32xf16>, %V: memref<128x32xf16>, %Out: memref<128x32xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %scale = arith.constant 0.18 : f32
  tile.kernel grid(%c4) threads(64) (%bx) {
    %Qs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %q0 = arith.muli %bx, %c64 : index
    tile.copy %Q[%q0, %c0], %Qs : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<32x32xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<32xf32, #tile.fragment>
    tile.fill %l, %zero : memref<32xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0], %Ks : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0], %Vs : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<32x32xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
      tile.copy %m, %mp : memref<32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %s = memref.load %S[%i, %k] : memref<32x32xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %d = arith.subf %s, %mi : f32
        %x = arith.mulf %d, %scale : f32
        %e = math.exp2 %x : f32
        memref.store %e, %S[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i) in (32) {
        %a = memref.load %mp[%i] : memref<32xf32, #tile.fragment>
        %b = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %d = arith.subf %a, %b : f32
        %x = arith.mulf %d, %scale : f32
        %c = math.exp2 %x : f32
        %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<32xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<32xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<32xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<32x32xf32, #tile.fragment>, memref<32x32xf16, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %o = memref.load %O[%i, %k] : memref<32x32xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<32xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %O[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.gemm %P, %Vs, %O : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    }
    tile.parallel (%i, %k) in (32, 32) {
      %o = memref.load %O[%i, %k] : memref<32x32xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %O[%i, %k] : memref<32x32xf32, #tile.fragment>
    }
    tile.copy %O, %Out[%q0, %c0] : memref<32x32xf32, #tile.fragment>, memref<128x32xf16>
  }
  return
}
