// An accumulator fragment that nothing fills is copied out: on a GPU its elements are whatever the
// registers held. The interpreter stops at the copy, naming the fragment, its allocation and the
// first element it reads.
func.func @unfilled(%X: memref<16x16xf32>, %Y: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %Cf = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.copy %Cf, %Y[%c0, %c0] : memref<16x16xf32, #tile.fragment>, memref<16x16xf32>
  }
  return
}
