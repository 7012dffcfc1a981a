// Iterations of a tile.parallel that read what another iteration changed: each row is divided in
// place by its first element, which iteration [i, 0] overwrites. The iterations are unordered, so
// what iteration [i, 1] reads depends on an order no target keeps. The interpreter stops at the
// first such read. (The fuzzer's seed 13131, case 339, raced the same way with a tile.copy moved
// into the body; the verifier now refuses whole-tile ops in a tile.parallel body.)
func.func @row_scale(%X: memref<24x64xf32>, %Y: memref<24x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c3) threads(64) (%bx) {
    %S = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c8 : index
    tile.copy %X[%r0, %c0], %S : memref<24x64xf32>, memref<8x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 64) {
      %e = memref.load %S[%i, %j] : memref<8x64xf32, #tile.fragment>
      %s = memref.load %S[%i, %c0] : memref<8x64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<8x64xf32, #tile.fragment>
    }
    tile.copy %S, %Y[%r0, %c0] : memref<8x64xf32, #tile.fragment>, memref<24x64xf32>
  }
  return
}
