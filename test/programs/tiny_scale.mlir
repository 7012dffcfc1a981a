// A tiny kernel (128 floats doubled by one block): what launch-overhead measurements launch.
func.func @tiny_scale(%X: memref<128xf32>, %Y: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %x = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<128xf32>, memref<128xf32, #tile.fragment>
    tile.parallel (%i) in (128) {
      %v = memref.load %x[%i] : memref<128xf32, #tile.fragment>
      %d = arith.mulf %v, %two : f32
      memref.store %d, %x[%i] : memref<128xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0] : memref<128xf32, #tile.fragment>, memref<128xf32>
  }
  return
}
