// Mamba-2 state passing (mamba2_state_passing_small): batch 1, 2 heads, 2 chunks of 128 tokens, head dim
// 32, state 32. Written by tools/gen/mamba2.py: a block carries 16 rows of one head's state across the chunks.
func.func @mamba2_state_passing_small(%states: memref<1x2x2x32x32xf32>, %dA: memref<1x2x2x128xf16>, %prev: memref<1x2x2x32x32xf16>, %final: memref<1x2x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %cheads = arith.constant 2 : index
  %cbatch = arith.constant 1 : index
  %cchunks = arith.constant 2 : index
  %clast = arith.constant 127 : index
  %csplits = arith.constant 2 : index
  %cbp = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.4426950408889634 : f32
  tile.kernel grid(%cheads, %cbatch, %csplits) threads(128) (%h, %b, %r) {
    %S = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %T = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %p0 = arith.muli %r, %cbp : index
    tile.fill %S, %zero : memref<16x32xf32, #tile.fragment>
    tile.pipelined %c = %c0 to %cchunks stages(1) {
      tile.copy %S, %prev[%b, %c, %h, %p0, %c0] : memref<16x32xf32, #tile.fragment>, memref<1x2x2x32x32xf16>
      tile.copy %states[%b, %c, %h, %p0, %c0], %T : memref<1x2x2x32x32xf32>, memref<16x32xf32, #tile.fragment>
      %a16 = memref.load %dA[%b, %h, %c, %clast] : memref<1x2x2x128xf16>
      %a = arith.extf %a16 : f16 to f32
      %al = arith.mulf %a, %log2e : f32
      %decay = math.exp2 %al : f32
      tile.parallel (%p, %n) in (16, 32) {
        %s = memref.load %S[%p, %n] : memref<16x32xf32, #tile.fragment>
        %t = memref.load %T[%p, %n] : memref<16x32xf32, #tile.fragment>
        %sd = arith.mulf %s, %decay : f32
        %u = arith.addf %sd, %t : f32
        memref.store %u, %S[%p, %n] : memref<16x32xf32, #tile.fragment>
      }
    }
    tile.copy %S, %final[%b, %h, %p0, %c0] : memref<16x32xf32, #tile.fragment>, memref<1x2x32x32xf32>
  }
  return
}
