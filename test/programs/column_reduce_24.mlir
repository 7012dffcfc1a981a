// Regression (generator, seed 101 program 2): a column reduction (dim 0) of a fragment whose
// columns do not split evenly into the blocked layout's 4-element chunks over the threads (32x24 on
// 32 threads: 6 chunks a row). tile-infer-layouts gave the column vector the slot of each column's
// first element, so thread 0 held column 0 (row 0) and column 8 (row 5) in slot 0: the inferred
// layout failed its own verifier ("expects each thread to hold each element in a slot of its own")
// and every target refused this valid program. The slice now gives such elements slots of their own.
func.func @column_reduce_24(%X: memref<40x24xf32>, %S: memref<24xf32>, %Y: memref<40x24xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<32x24xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<24xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<40x24xf32>, memref<32x24xf32, #tile.fragment>
    tile.reduce <abssum> %F, %s dim(0) : memref<32x24xf32, #tile.fragment>, memref<24xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 24) {
      %v = memref.load %F[%i, %j] : memref<32x24xf32, #tile.fragment>
      %t = memref.load %s[%j] : memref<24xf32, #tile.fragment>
      %w = arith.divf %v, %t : f32
      memref.store %w, %F[%i, %j] : memref<32x24xf32, #tile.fragment>
    }
    tile.copy %s, %S[%c0] : memref<24xf32, #tile.fragment>, memref<24xf32>
    tile.copy %F, %Y[%c0, %c0] : memref<32x24xf32, #tile.fragment>, memref<40x24xf32>
  }
  return
}
