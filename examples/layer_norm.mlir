// Layer norm over the 1024 features of 4096 f16 rows, 8 rows a block on 256 threads: each row's
// mean and variance by two row reductions of an f32 fragment held in registers (32 a thread, a row
// in chunks of 4 over 32 lanes), then y = (x - mean) / sqrt(var + eps) * gamma + beta, with gamma
// and beta read from global memory in the elementwise loop.
func.func @layer_norm(%X: memref<4096x1024xf16>, %gamma: memref<1024xf32>, %beta: memref<1024xf32>, %Y: memref<4096x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  %inv_n = arith.constant 0.0009765625 : f32
  %eps = arith.constant 1.0e-5 : f32
  tile.kernel grid(%c512) threads(256) (%b) {
    %x = tile.alloc_fragment : memref<8x1024xf32, #tile.fragment>
    %sq = tile.alloc_fragment : memref<8x1024xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    %var = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    %r0 = arith.muli %b, %c8 : index
    tile.copy %X[%r0, %c0], %x : memref<4096x1024xf16>, memref<8x1024xf32, #tile.fragment>
    tile.reduce <sum> %x, %sum dim(1) : memref<8x1024xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 1024) {
      %v = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.fragment>
      %s = memref.load %sum[%i] : memref<8xf32, #tile.fragment>
      %mean = arith.mulf %s, %inv_n : f32
      %d = arith.subf %v, %mean : f32
      %d2 = arith.mulf %d, %d : f32
      memref.store %d, %x[%i, %j] : memref<8x1024xf32, #tile.fragment>
      memref.store %d2, %sq[%i, %j] : memref<8x1024xf32, #tile.fragment>
    }
    tile.reduce <sum> %sq, %var dim(1) : memref<8x1024xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 1024) {
      %d = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.fragment>
      %v = memref.load %var[%i] : memref<8xf32, #tile.fragment>
      %mv = arith.mulf %v, %inv_n : f32
      %ve = arith.addf %mv, %eps : f32
      %r = math.rsqrt %ve : f32
      %g = memref.load %gamma[%j] : memref<1024xf32>
      %bt = memref.load %beta[%j] : memref<1024xf32>
      %n = arith.mulf %d, %r : f32
      %s = arith.mulf %n, %g : f32
      %y = arith.addf %s, %bt : f32
      memref.store %y, %x[%i, %j] : memref<8x1024xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%r0, %c0] : memref<8x1024xf32, #tile.fragment>, memref<4096x1024xf16>
  }
  return
}
