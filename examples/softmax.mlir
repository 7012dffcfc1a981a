// Row softmax of a 4096x1024 f16 matrix, 4 rows per block, in f32: a kernel outside the GEMM family.
// It compiles for every target with the plain strategy (the tile ops' loops dealt out to the block's
// threads); the running max and sum are tile.reduce, the exponentials and the division tile.parallel
// (with `arcp`: a row's reciprocal once, then a multiply an element, where IEEE division costs more).
func.func @softmax(%X: memref<4096x1024xf16>, %Y: memref<4096x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %blocks = arith.constant 1024 : index
  tile.kernel grid(%blocks) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<4x1024xf32, #tile.fragment>
    %max = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %row = arith.muli %bx, %c4 : index
    tile.copy %X[%row, %c0], %S : memref<4096x1024xf16>, memref<4x1024xf32, #tile.fragment>
    tile.reduce <max> %S, %max dim(1) : memref<4x1024xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 1024) {
      %x = memref.load %S[%i, %j] : memref<4x1024xf32, #tile.fragment>
      %m = memref.load %max[%i] : memref<4xf32, #tile.fragment>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<4x1024xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %sum dim(1) : memref<4x1024xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 1024) {
      %e = memref.load %S[%i, %j] : memref<4x1024xf32, #tile.fragment>
      %s = memref.load %sum[%i] : memref<4xf32, #tile.fragment>
      %p = arith.divf %e, %s fastmath<arcp> : f32
      memref.store %p, %S[%i, %j] : memref<4x1024xf32, #tile.fragment>
    }
    tile.copy %S, %Y[%row, %c0] : memref<4x1024xf32, #tile.fragment>, memref<4096x1024xf16>
  }
  return
}
