// Every block writes rows 0..7 of Y (the offset does not depend on the block) with its own rows
// of X: which block's rows remain depends on the order the blocks run in. The interpreter stops
// at block [1]'s copy, which overwrites what block [0] wrote.
func.func @same_rows(%X: memref<16x16xf32>, %Y: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c2) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c8 : index
    tile.copy %X[%r0, %c0], %F : memref<16x16xf32>, memref<8x16xf32, #tile.fragment>
    tile.copy %F, %Y[%c0, %c0] : memref<8x16xf32, #tile.fragment>, memref<16x16xf32>
  }
  return
}
