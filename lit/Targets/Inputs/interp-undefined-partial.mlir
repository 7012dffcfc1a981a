// A parallel body writes rows 0..7 of a fragment; a second one reads rows 0..8: row 8 was never
// written. Each block stops at the load of row 8.
func.func @partial(%X: memref<32x16xf32>, %Y: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %X[%i, %j] : memref<32x16xf32>
      memref.store %v, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.fill %G, %zero : memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (9, 16) {
      %v = memref.load %F[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %v, %G[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %G, %Y[%r0, %c0] : memref<16x16xf32, #tile.fragment>, memref<32x16xf32>
  }
  return
}
