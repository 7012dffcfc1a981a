// Reads of a partly written tile are defined when they read only written elements: rows 0..7 of
// a 16-row fragment are written and read back, and the copy out moves only those rows (rows 8..15
// land past the end of the 8-row output and are dropped, unread); the ragged copy in fills the
// rows past the end of X with zeros, which the reduction reads.
func.func @partly(%X: memref<12x16xf32>, %Y: memref<8x16xf32>, %S: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %R = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %G : memref<12x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.reduce <sum> %G, %R dim(0) : memref<16x16xf32, #tile.fragment>, memref<16xf32, #tile.fragment>
    tile.copy %R, %S[%c0] : memref<16xf32, #tile.fragment>, memref<16xf32>
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %G[%i, %j] : memref<16x16xf32, #tile.fragment>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %F[%i, %j] : memref<16x16xf32, #tile.fragment>
      %w = arith.addf %v, %two : f32
      memref.store %w, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%c0, %c0] : memref<16x16xf32, #tile.fragment>, memref<8x16xf32>
  }
  return
}
