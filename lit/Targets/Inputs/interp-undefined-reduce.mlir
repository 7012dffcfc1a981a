// tile.reduce with clear = false folds into what its result holds: a result nothing wrote makes
// the row maxima undefined (the source is copied in; the result is not).
func.func @row_max(%X: memref<16x16xf32>, %Y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %R = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<16x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.reduce <max> %F, %R dim(1) {clear = false} : memref<16x16xf32, #tile.fragment>, memref<16xf32, #tile.fragment>
    tile.copy %R, %Y[%c0] : memref<16xf32, #tile.fragment>, memref<16xf32>
  }
  return
}
