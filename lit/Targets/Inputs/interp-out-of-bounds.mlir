// A stencil that reads one row past its fragment, by a shift the verifier cannot bound (a cast): the interpreter stops at the load, naming the index and the grid block.
func.func @shift_rows(%X: memref<32x16xf32>, %Y: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %c1 = arith.index_cast %one : i32 to index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c2) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.copy %X[%r0, %c0], %F : memref<32x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %below = arith.addi %i, %c1 : index
      %v = memref.load %F[%below, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %v, %G[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %G, %Y[%r0, %c0] : memref<16x16xf32, #tile.fragment>, memref<32x16xf32>
  }
  return
}
