// Row softmax of a 64x128 f32 tile on 128 threads: 64 registers a thread. The fragment lies in
// registers in chunks of 4 columns, 32 threads a row, and the row statistics combine over lanes.
func.func @row_softmax_64x128(%X: memref<256x128xf32>, %Y: memref<256x128xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c4) threads(128) (%bx) {
    %x = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c64 : index
    tile.copy %X[%r0, %c0], %x : memref<256x128xf32>, memref<64x128xf32, #tile.fragment>
    tile.reduce <max> %x, %m dim(1) : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 128) {
      %v = memref.load %x[%i, %j] : memref<64x128xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<64x128xf32, #tile.fragment>
    }
    tile.reduce <sum> %x, %s dim(1) : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 128) {
      %v = memref.load %x[%i, %j] : memref<64x128xf32, #tile.fragment>
      %t = memref.load %s[%i] : memref<64xf32, #tile.fragment>
      %q = arith.divf %v, %t : f32
      memref.store %q, %x[%i, %j] : memref<64x128xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%r0, %c0] : memref<64x128xf32, #tile.fragment>, memref<256x128xf32>
  }
  return
}
