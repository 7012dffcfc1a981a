// Row sums of a product A B (64x128 by 128x64, K split over 4 blocks of 128 threads): each block's
// partial product is a 64x64 accumulator whose row sums are held by several threads each (the row
// slice of the matrix instruction's layout, a replicated layout); they go into S with an atomic
// tile.copy (one replica of each element updates it), then again through a tile.parallel of
// atomic updates into T (one replica of each iteration updates); S and T hold random values first.
func.func @row_sums(%A: memref<64x128xf16>, %B: memref<128x64xf16>, %S: memref<64xf32>, %T: memref<64xf32>) {
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %k0 = arith.muli %bx, %c32 : index
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %k0], %As : memref<64x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0], %Bs : memref<128x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.reduce <sum> %Cf, %s dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %s, %S[%c0] atomic <sum> : memref<64xf32, #tile.fragment>, memref<64xf32>
    tile.parallel (%i) in (64) {
      %v = memref.load %s[%i] : memref<64xf32, #tile.fragment>
      %old = memref.atomic_rmw addf %v, %T[%i] : (f32, memref<64xf32>) -> f32
    }
  }
  return
}
