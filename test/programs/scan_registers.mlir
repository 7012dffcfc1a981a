// tile.scan on fragments that stay in registers (the register lowering's rule: through a scratch
// tile, a line a thread): per 32-row block of X, the cumulative sums along each row, the exclusive
// running maxima down each column added to them, and the row sums of the result through a 1-D
// exclusive scan of a reduced vector.
func.func @scan_registers(%X: memref<128x64xf32>, %Y: memref<128x64xf32>, %R: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    %r = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %row = arith.muli %b, %c32 : index
    tile.copy %X[%row, %c0], %F : memref<128x64xf32>, memref<32x64xf32, #tile.fragment>
    tile.scan <max> %F, %G dim(0) {exclusive} : memref<32x64xf32, #tile.fragment>, memref<32x64xf32, #tile.fragment>
    tile.scan <sum> %F, %F dim(1) : memref<32x64xf32, #tile.fragment>, memref<32x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 64) {
      %f = memref.load %F[%i, %j] : memref<32x64xf32, #tile.fragment>
      %g = memref.load %G[%i, %j] : memref<32x64xf32, #tile.fragment>
      %first = arith.cmpi eq, %i, %c0 : index
      %h = arith.select %first, %zero, %g : f32
      %s = arith.addf %f, %h : f32
      memref.store %s, %F[%i, %j] : memref<32x64xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%row, %c0] : memref<32x64xf32, #tile.fragment>, memref<128x64xf32>
    tile.reduce <sum> %F, %r dim(1) : memref<32x64xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
    tile.scan <sum> %r, %r dim(0) {exclusive} : memref<32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
    tile.copy %r, %R[%row] : memref<32xf32, #tile.fragment>, memref<128xf32>
  }
  return
}
