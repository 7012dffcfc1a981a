// Mamba-2 state passing (mamba2_state_passing): batch 8, 80 heads, 16 chunks of 256 tokens, head dim
// 64, state 128. Written by tools/gen/mamba2.py: a block carries 32 rows of one head's state across the chunks.
func.func @mamba2_state_passing(%states: memref<8x16x80x64x128xf32>, %dA: memref<8x80x16x256xf16>, %prev: memref<8x16x80x64x128xf16>, %final: memref<8x80x64x128xf32>) {
  %c0 = arith.constant 0 : index
  %cheads = arith.constant 80 : index
  %cbatch = arith.constant 8 : index
  %cchunks = arith.constant 16 : index
  %clast = arith.constant 255 : index
  %csplits = arith.constant 2 : index
  %cbp = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.4426950408889634 : f32
  tile.kernel grid(%cheads, %cbatch, %csplits) threads(128) (%h, %b, %r) {
    %S = tile.alloc_fragment : memref<32x128xf32, #tile.fragment>
    %T = tile.alloc_fragment : memref<32x128xf32, #tile.fragment>
    %p0 = arith.muli %r, %cbp : index
    tile.fill %S, %zero : memref<32x128xf32, #tile.fragment>
    tile.pipelined %c = %c0 to %cchunks stages(1) {
      tile.copy %S, %prev[%b, %c, %h, %p0, %c0] : memref<32x128xf32, #tile.fragment>, memref<8x16x80x64x128xf16>
      tile.copy %states[%b, %c, %h, %p0, %c0], %T : memref<8x16x80x64x128xf32>, memref<32x128xf32, #tile.fragment>
      %a16 = memref.load %dA[%b, %h, %c, %clast] : memref<8x80x16x256xf16>
      %a = arith.extf %a16 : f16 to f32
      %al = arith.mulf %a, %log2e : f32
      %decay = math.exp2 %al : f32
      tile.parallel (%p, %n) in (32, 128) {
        %s = memref.load %S[%p, %n] : memref<32x128xf32, #tile.fragment>
        %t = memref.load %T[%p, %n] : memref<32x128xf32, #tile.fragment>
        %sd = arith.mulf %s, %decay : f32
        %u = arith.addf %sd, %t : f32
        memref.store %u, %S[%p, %n] : memref<32x128xf32, #tile.fragment>
      }
    }
    tile.copy %S, %final[%b, %h, %p0, %c0] : memref<32x128xf32, #tile.fragment>, memref<8x80x64x128xf32>
  }
  return
}
