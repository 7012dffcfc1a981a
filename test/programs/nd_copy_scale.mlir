// N-D copies in the two directions the GEMM does not use: a 3-D (head, sequence, head dim) tensor
// read into a fragment, the result staged in shared memory and written from there, on a ragged
// sequence (70 rows on 32-row tiles: the last block's rows 70..95 read zeros and are not written,
// never the next head's rows). Block (x, y) handles sequence block x of head y.
func.func @nd_copy_scale(%X: memref<3x70x32xf32>, %Y: memref<3x70x32xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c3, %c3) threads(64) (%bx, %by) {
    %Xf = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %Ys = tile.alloc_shared : memref<32x32xf32, #gpu.address_space<workgroup>>
    %s0 = arith.muli %bx, %c32 : index
    tile.copy %X[%by, %s0, %c0], %Xf : memref<3x70x32xf32>, memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %Xf[%i, %j] : memref<32x32xf32, #tile.fragment>
      %w = arith.mulf %v, %two : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %Ys[%i, %j] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %Ys, %Y[%by, %s0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>, memref<3x70x32xf32>
  }
  return
}
