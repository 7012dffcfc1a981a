// Mamba-2 chunk state (mamba2_chunk_state): batch 8, 80 heads in 1 group(s), 4096 tokens in chunks
// of 256, head dim 64, state 128. Written by tools/gen/mamba2.py: a block sums one head's chunk
// into a 64 x 128 tile of its state, 64 tokens a step.
func.func @mamba2_chunk_state(%x: memref<8x4096x80x64xf16>, %B: memref<8x4096x1x128xf16>, %dt: memref<8x80x16x256xf16>, %dA: memref<8x80x16x256xf16>, %states: memref<8x16x80x64x128xf32>) {
  %c0 = arith.constant 0 : index
  %cheads = arith.constant 80 : index
  %cgroup_heads = arith.constant 80 : index
  %ctiles = arith.constant 1 : index
  %cn_blocks = arith.constant 1 : index
  %cbatch_chunks = arith.constant 128 : index
  %cbatch = arith.constant 8 : index
  %cchunk = arith.constant 256 : index
  %clast = arith.constant 255 : index
  %csteps = arith.constant 4 : index
  %cbp = arith.constant 64 : index
  %cbn = arith.constant 128 : index
  %cbl = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.4426950408889634 : f32
  tile.kernel grid(%cheads, %ctiles, %cbatch_chunks) threads(128) (%h, %tile, %bc) {
    %Xs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Xw = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %dAks = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %dtks = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %b = arith.remui %bc, %cbatch : index
    %ch = arith.divui %bc, %cbatch : index
    %pi = arith.divui %tile, %cn_blocks : index
    %ni = arith.remui %tile, %cn_blocks : index
    %g = arith.divui %h, %cgroup_heads : index
    %p0 = arith.muli %pi, %cbp : index
    %n0 = arith.muli %ni, %cbn : index
    %chunk0 = arith.muli %ch, %cchunk : index
    %last16 = memref.load %dA[%b, %h, %ch, %clast] : memref<8x80x16x256xf16>
    %last = arith.extf %last16 : f16 to f32
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %csteps stages(2) {
      %k0 = arith.muli %k, %cbl : index
      %l0 = arith.addi %chunk0, %k0 : index
      tile.copy %x[%b, %l0, %h, %p0], %Xs dims [1, 3] : memref<8x4096x80x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%b, %l0, %g, %n0], %Bs dims [1, 3] : memref<8x4096x1x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %dA[%b, %h, %ch, %k0], %dAks : memref<8x80x16x256xf16>, memref<64xf16, #gpu.address_space<workgroup>>
      tile.copy %dt[%b, %h, %ch, %k0], %dtks : memref<8x80x16x256xf16>, memref<64xf16, #gpu.address_space<workgroup>>
      // x's rows (tokens) decayed to the chunk's end and scaled by the step, transposed into the
      // register tile the gemm reads as A.
      tile.parallel (%p, %l) in (64, 64) {
        %a = memref.load %dAks[%l] : memref<64xf16, #gpu.address_space<workgroup>>
        %step = memref.load %dtks[%l] : memref<64xf16, #gpu.address_space<workgroup>>
        %af = arith.extf %a : f16 to f32
        %stepf = arith.extf %step : f16 to f32
        %diff = arith.subf %last, %af : f32
        %dl = arith.mulf %diff, %log2e : f32
        %decay = math.exp2 %dl : f32
        %w = arith.mulf %decay, %stepf : f32
        %v = memref.load %Xs[%l, %p] : memref<64x64xf16, #gpu.address_space<workgroup>>
        %vf = arith.extf %v : f16 to f32
        %vw = arith.mulf %vf, %w : f32
        %vh = arith.truncf %vw : f32 to f16
        memref.store %vh, %Xw[%p, %l] : memref<64x64xf16, #tile.fragment>
      }
      tile.gemm %Xw, %Bs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %states[%b, %ch, %h, %p0, %n0] : memref<64x128xf32, #tile.fragment>, memref<8x16x80x64x128xf32>
  }
  return
}
