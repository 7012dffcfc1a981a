// The fuzzer's seed-16161 case 4303, a mutant of test/programs/attention_4d_causal.mlir whose
// pipelined softmax takes math.floor of fma(s, scale, -m scale) where the seed has exp2: P holds
// small negative integers, and where an argument lies within rounding of an integer two targets
// floor it to neighbours, each flip adding one row of V (|v| < 1) to one output row. A
// discontinuity, not a miscompile: the interpreter's bounds cover both outcomes of a step within
// reach (interp/src/bound.rs), test/tests/conditioning.rs checks that they do and that a wrong
// element still shows. Not in test/programs/: the suites there compare targets by tolerance alone.

func.func @attention_4d_causal(%Q: memref<1x2x100x32xf16>, %K: memref<1x2x100x32xf16>, %V: memref<1x2x100x32xf16>, %O: memref<1x2x100x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cnq = arith.constant 4 : index
  %cnk = arith.constant 4 : index
  %cheads = arith.constant 2 : index
  %cbatch = arith.constant 1 : index
  %cbm = arith.constant 32 : index
  %cbn = arith.constant 32 : index
  %cbn_1 = arith.constant 31 : index
  %cseq = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.25503486164919736 : f32
  %nscale = arith.constant -0.25503486164919736 : f32
  tile.kernel grid(%cnq, %cheads, %cbatch) threads(64) (%bq, %bh, %bb) {
    %Qs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %K0s = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Vls = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %q0 = arith.muli %bq, %cbm : index
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : memref<1x2x100x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<32x32xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<32xf32, #tile.fragment>
    tile.fill %l, %zero : memref<32xf32, #tile.fragment>
    %qend = arith.addi %q0, %cbm : index
    %qend_up = arith.addi %qend, %cbn_1 : index
    %diag = arith.divui %qend_up, %cbn : index
    %kblocks = arith.minui %diag, %cnk : index
    %last = arith.subi %kblocks, %c1 : index
    tile.copy %K[%bb, %bh, %c0, %c0], %K0s : memref<1x2x100x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<32x32xf32, #tile.fragment>
    tile.gemm %Qs, %K0s, %S {transpose_b} : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %key = arith.addi %c0, %k : index
        %masked = arith.cmpi uge, %key, %cseq : index
        %query = arith.addi %q0, %i : index
        %future = arith.cmpi ugt, %key, %query : index
        %masked_any = arith.ori %masked, %future : i1
        %s = memref.load %S[%i, %k] : memref<32x32xf32, #tile.fragment>
        %v = arith.select %masked_any, %ninf, %s : f32
        memref.store %v, %S[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.copy %m, %mp : memref<32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %s = memref.load %S[%i, %k] : memref<32x32xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i) in (32) {
        %old = memref.load %mp[%i] : memref<32xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<32xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<32xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<32xf32, #tile.fragment>
      }
    tile.copy %S, %P : memref<32x32xf32, #tile.fragment>, memref<32x32xf16, #tile.fragment>
    tile.pipelined %j = %c0 to %last stages(2) {
      %k0 = arith.muli %j, %cbn : index
      %k1 = arith.addi %k0, %cbn : index
      tile.copy %K[%bb, %bh, %k1, %c0], %Ks : memref<1x2x100x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : memref<1x2x100x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<32x32xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %key = arith.addi %k1, %k : index
        %masked = arith.cmpi uge, %key, %cseq : index
        %query = arith.addi %q0, %i : index
        %future = arith.cmpi ugt, %key, %query : index
        %masked_any = arith.ori %masked, %future : i1
        %s = memref.load %S[%i, %k] : memref<32x32xf32, #tile.fragment>
        %v = arith.select %masked_any, %ninf, %s : f32
        memref.store %v, %S[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.copy %m, %mp : memref<32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (32, 32) {
        %s = memref.load %S[%i, %k] : memref<32x32xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.floor %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : memref<32x32xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<32x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
      tile.parallel (%i) in (32) {
        %old = memref.load %mp[%i] : memref<32xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<32xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<32xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<32xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<32xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (32, 32) {
        %o = memref.load %Acc[%i, %d] : memref<32x32xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<32xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<32x32xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<32x32xf32, #tile.fragment>, memref<32x32xf16, #tile.fragment>
    }
    %kl = arith.muli %last, %cbn : index
    tile.copy %V[%bb, %bh, %kl, %c0], %Vls : memref<1x2x100x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %P, %Vls, %Acc : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %d) in (32, 32) {
      %o = memref.load %Acc[%i, %d] : memref<32x32xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<32x32xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<32x32xf32, #tile.fragment>, memref<1x2x100x32xf16>
  }
  return
}
