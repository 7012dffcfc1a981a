// A small Mamba-2 chunk scan (tools/gen/mamba2.py mamba2_chunk_scan_small 1 2 1 256 128 64 64
// --block 32x32): two chunks of 128 tokens, 32-token tiles so that lavapipe holds its fragments.
// Mamba-2 chunk scan (mamba2_chunk_scan_small): batch 1, 2 heads in 1 group(s), 256 tokens in
// chunks of 128, head dim 64, state 64, f16. Written by tools/gen/mamba2.py: a block
// computes 32 tokens x 32 channels of one head's chunk: the entering state's part, then the
// chunk's causal part over 32-token steps up to the diagonal, then D x.
func.func @mamba2_chunk_scan_small(%cb: memref<1x2x1x128x128xf16>, %x: memref<1x256x2x64xf16>, %dt: memref<1x2x2x128xf16>, %dA: memref<1x2x2x128xf16>, %C: memref<1x256x1x64xf16>, %prev: memref<1x2x2x64x64xf16>, %D: memref<2xf16>, %y: memref<1x256x2x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cheads = arith.constant 2 : index
  %cgroup_heads = arith.constant 2 : index
  %ctiles = arith.constant 8 : index
  %cn_blocks = arith.constant 2 : index
  %cbatch_chunks = arith.constant 2 : index
  %cbatch = arith.constant 1 : index
  %cchunk = arith.constant 128 : index
  %cbm = arith.constant 32 : index
  %cbn = arith.constant 32 : index
  %cbk = arith.constant 32 : index
  %cstate_step = arith.constant 64 : index
  %cstate_steps = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.4426950408889634 : f32
  tile.kernel grid(%cheads, %ctiles, %cbatch_chunks) threads(128) (%h, %tile, %bc) {
    %Cs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Ss = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %CBs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Xs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %dAks = tile.alloc_shared : memref<32xf16, #gpu.address_space<workgroup>>
    %dtks = tile.alloc_shared : memref<32xf16, #gpu.address_space<workgroup>>
    %CB = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %R = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %dAm = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %dAk = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %dtk = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %b = arith.remui %bc, %cbatch : index
    %ch = arith.divui %bc, %cbatch : index
    %mi = arith.divui %tile, %cn_blocks : index
    %ni = arith.remui %tile, %cn_blocks : index
    %g = arith.divui %h, %cgroup_heads : index
    %m0 = arith.muli %mi, %cbm : index
    %n0 = arith.muli %ni, %cbn : index
    %chunk0 = arith.muli %ch, %cchunk : index
    %t0 = arith.addi %chunk0, %m0 : index
    // The residual's loads first: nothing waits for them until D x is added.
    tile.copy %x[%b, %t0, %h, %n0], %R dims [1, 3] : memref<1x256x2x64xf16>, memref<32x32xf32, #tile.fragment>
    // The entering state's part: exp(dA[t]) C[t] . prev_state.
    tile.copy %dA[%b, %h, %ch, %m0], %dAm : memref<1x2x2x128xf16>, memref<32xf32, #tile.fragment>
    // Over the state in steps of 64, so that its tiles arrive asynchronously (by TMA on
    // sm_90a), the next step's while this one's product runs.
    tile.fill %Acc, %zero : memref<32x32xf32, #tile.fragment>
    tile.pipelined %s = %c0 to %cstate_steps stages(2) {
      %d0 = arith.muli %s, %cstate_step : index
      tile.copy %C[%b, %t0, %g, %d0], %Cs dims [1, 3] : memref<1x256x1x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %prev[%b, %ch, %h, %n0, %d0], %Ss : memref<1x2x2x64x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Cs, %Ss, %Acc {transpose_b} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (32, 32) {
      %a = memref.load %dAm[%i] : memref<32xf32, #tile.fragment>
      %al = arith.mulf %a, %log2e : f32
      %scale = math.exp2 %al : f32
      %v = memref.load %Acc[%i, %j] : memref<32x32xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %Acc[%i, %j] : memref<32x32xf32, #tile.fragment>
    }
    // The chunk's causal part, over the steps up to the diagonal.
    %steps = arith.addi %mi, %c1 : index
    tile.pipelined %k = %c0 to %steps stages(2) {
      %k0 = arith.muli %k, %cbk : index
      %s0 = arith.addi %chunk0, %k0 : index
      tile.copy %cb[%b, %ch, %g, %m0, %k0], %CBs : memref<1x2x1x128x128xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.copy %x[%b, %s0, %h, %n0], %Xs dims [1, 3] : memref<1x256x2x64xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.copy %dA[%b, %h, %ch, %k0], %dAks : memref<1x2x2x128xf16>, memref<32xf16, #gpu.address_space<workgroup>>
      tile.copy %dt[%b, %h, %ch, %k0], %dtks : memref<1x2x2x128xf16>, memref<32xf16, #gpu.address_space<workgroup>>
      tile.copy %CBs, %CB : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #tile.fragment>
      tile.copy %dAks, %dAk : memref<32xf16, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
      tile.copy %dtks, %dtk : memref<32xf16, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
      tile.parallel (%i, %j) in (32, 32) {
        %am = memref.load %dAm[%i] : memref<32xf32, #tile.fragment>
        %ak = memref.load %dAk[%j] : memref<32xf32, #tile.fragment>
        %step = memref.load %dtk[%j] : memref<32xf32, #tile.fragment>
        %diff = arith.subf %am, %ak : f32
        %dl = arith.mulf %diff, %log2e : f32
        %decay = math.exp2 %dl : f32
        %w = memref.load %CB[%i, %j] : memref<32x32xf16, #tile.fragment>
        %wf = arith.extf %w : f16 to f32
        %wd = arith.mulf %wf, %decay : f32
        %ws = arith.mulf %wd, %step : f32
        %row = arith.addi %m0, %i : index
        %col = arith.addi %k0, %j : index
        %past = arith.cmpi uge, %row, %col : index
        %kept = arith.select %past, %ws, %zero : f32
        %kh = arith.truncf %kept : f32 to f16
        memref.store %kh, %CB[%i, %j] : memref<32x32xf16, #tile.fragment>
      }
      tile.gemm %CB, %Xs, %Acc : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    }
    // D x, and out.
    tile.parallel (%i, %j) in (32, 32) {
      %dh = memref.load %D[%h] : memref<2xf16>
      %df = arith.extf %dh : f16 to f32
      %r = memref.load %R[%i, %j] : memref<32x32xf32, #tile.fragment>
      %v = memref.load %Acc[%i, %j] : memref<32x32xf32, #tile.fragment>
      %rd = arith.mulf %r, %df : f32
      %o = arith.addf %v, %rd : f32
      memref.store %o, %Acc[%i, %j] : memref<32x32xf32, #tile.fragment>
    }
    tile.copy %Acc, %y[%b, %t0, %h, %n0] dims [1, 3] : memref<32x32xf32, #tile.fragment>, memref<1x256x2x64xf16>
  }
  return
}
