// The spirv-shared-memory test program without its tile.shared_memory_bytes: tile-compile --shared-memory gives it.
module {
func.func @wide_rows(%X: memref<64x160xf32>, %Y: memref<64x160xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x160xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%c0, %c0], %S : memref<64x160xf32>, memref<64x160xf32, #gpu.address_space<workgroup>>
    tile.copy %S, %Y[%c0, %c0] : memref<64x160xf32, #gpu.address_space<workgroup>>, memref<64x160xf32>
  }
  return
}
}
