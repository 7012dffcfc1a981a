// Mamba-2 chunk scan (mamba2_chunk_scan): batch 8, 80 heads in 1 group(s), 4096 tokens in
// chunks of 256, head dim 64, state 128, f16. Written by tools/gen/mamba2.py: a block
// computes 64 tokens x 64 channels of one head's chunk: the entering state's part, then the
// chunk's causal part over 64-token steps up to the diagonal, then D x.
func.func @mamba2_chunk_scan(%cb: memref<8x16x1x256x256xf16>, %x: memref<8x4096x80x64xf16>, %dt: memref<8x80x16x256xf16>, %dA: memref<8x80x16x256xf16>, %C: memref<8x4096x1x128xf16>, %prev: memref<8x16x80x64x128xf16>, %D: memref<80xf16>, %y: memref<8x4096x80x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cheads = arith.constant 80 : index
  %cgroup_heads = arith.constant 80 : index
  %ctiles = arith.constant 4 : index
  %cn_blocks = arith.constant 1 : index
  %cbatch_chunks = arith.constant 128 : index
  %cbatch = arith.constant 8 : index
  %cchunk = arith.constant 256 : index
  %cbm = arith.constant 64 : index
  %cbn = arith.constant 64 : index
  %cbk = arith.constant 64 : index
  %cstate_step = arith.constant 64 : index
  %cstate_steps = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.4426950408889634 : f32
  tile.kernel grid(%cheads, %ctiles, %cbatch_chunks) threads(128) (%h, %tile, %bc) {
    %Cs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ss = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %CBs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Xs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %dAks = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %dtks = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %CB = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %R = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %dAm = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %dAk = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %dtk = tile.alloc_fragment : memref<64xf32, #tile.fragment>
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
    tile.copy %x[%b, %t0, %h, %n0], %R dims [1, 3] : memref<8x4096x80x64xf16>, memref<64x64xf32, #tile.fragment>
    // The entering state's part: exp(dA[t]) C[t] . prev_state.
    tile.copy %dA[%b, %h, %ch, %m0], %dAm : memref<8x80x16x256xf16>, memref<64xf32, #tile.fragment>
    // Over the state in steps of 64, so that its tiles arrive asynchronously (by TMA on
    // sm_90a), the next step's while this one's product runs.
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %s = %c0 to %cstate_steps stages(2) {
      %d0 = arith.muli %s, %cstate_step : index
      tile.copy %C[%b, %t0, %g, %d0], %Cs dims [1, 3] : memref<8x4096x1x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %prev[%b, %ch, %h, %n0, %d0], %Ss : memref<8x16x80x64x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Cs, %Ss, %Acc {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %a = memref.load %dAm[%i] : memref<64xf32, #tile.fragment>
      %al = arith.mulf %a, %log2e : f32
      %scale = math.exp2 %al : f32
      %v = memref.load %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    // The chunk's causal part, over the steps up to the diagonal.
    %steps = arith.addi %mi, %c1 : index
    tile.pipelined %k = %c0 to %steps stages(2) {
      %k0 = arith.muli %k, %cbk : index
      %s0 = arith.addi %chunk0, %k0 : index
      tile.copy %cb[%b, %ch, %g, %m0, %k0], %CBs : memref<8x16x1x256x256xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %x[%b, %s0, %h, %n0], %Xs dims [1, 3] : memref<8x4096x80x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %dA[%b, %h, %ch, %k0], %dAks : memref<8x80x16x256xf16>, memref<64xf16, #gpu.address_space<workgroup>>
      tile.copy %dt[%b, %h, %ch, %k0], %dtks : memref<8x80x16x256xf16>, memref<64xf16, #gpu.address_space<workgroup>>
      tile.copy %CBs, %CB : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
      tile.copy %dAks, %dAk : memref<64xf16, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
      tile.copy %dtks, %dtk : memref<64xf16, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %j) in (64, 64) {
        %am = memref.load %dAm[%i] : memref<64xf32, #tile.fragment>
        %ak = memref.load %dAk[%j] : memref<64xf32, #tile.fragment>
        %step = memref.load %dtk[%j] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %am, %ak : f32
        %dl = arith.mulf %diff, %log2e : f32
        %decay = math.exp2 %dl : f32
        %w = memref.load %CB[%i, %j] : memref<64x64xf16, #tile.fragment>
        %wf = arith.extf %w : f16 to f32
        %wd = arith.mulf %wf, %decay : f32
        %ws = arith.mulf %wd, %step : f32
        %row = arith.addi %m0, %i : index
        %col = arith.addi %k0, %j : index
        %past = arith.cmpi uge, %row, %col : index
        %kept = arith.select %past, %ws, %zero : f32
        %kh = arith.truncf %kept : f32 to f16
        memref.store %kh, %CB[%i, %j] : memref<64x64xf16, #tile.fragment>
      }
      tile.gemm %CB, %Xs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    // D x, and out.
    tile.parallel (%i, %j) in (64, 64) {
      %dh = memref.load %D[%h] : memref<80xf16>
      %df = arith.extf %dh : f16 to f32
      %r = memref.load %R[%i, %j] : memref<64x64xf32, #tile.fragment>
      %v = memref.load %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      %rd = arith.mulf %r, %df : f32
      %o = arith.addf %v, %rd : f32
      memref.store %o, %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %y[%b, %t0, %h, %n0] dims [1, 3] : memref<64x64xf32, #tile.fragment>, memref<8x4096x80x64xf16>
  }
  return
}
