// A GEMM whose columns are centred and then shifted below zero before the store, per 128-row
// tile: column sums and column maxima with tile.reduce dim(0) on the accumulator (the shape of a
// bias gradient, which sums a product over its rows). 512x256 times 256x512 on 128x256x64 tiles,
// two warpgroups (a column spans all 8 warps), 4 stages.
func.func @gemm_column_center(%A: memref<512x256xf16>, %B: memref<256x512xf16>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %inv_rows = arith.constant 0.0078125 : f32
  tile.kernel grid(%c2, %c4) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %max = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.fill %S, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c4 stages(4) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<512x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x512xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %sum dim(0) : memref<128x256xf32, #tile.fragment>, memref<256xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 256) {
      %v = memref.load %S[%i, %j] : memref<128x256xf32, #tile.fragment>
      %s = memref.load %sum[%j] : memref<256xf32, #tile.fragment>
      %mean = arith.mulf %s, %inv_rows : f32
      %d = arith.subf %v, %mean : f32
      memref.store %d, %S[%i, %j] : memref<128x256xf32, #tile.fragment>
    }
    tile.reduce <max> %S, %max dim(0) : memref<128x256xf32, #tile.fragment>, memref<256xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 256) {
      %v = memref.load %S[%i, %j] : memref<128x256xf32, #tile.fragment>
      %mx = memref.load %max[%j] : memref<256xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      memref.store %d, %S[%i, %j] : memref<128x256xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<512x512xf32>
  }
  return
}
