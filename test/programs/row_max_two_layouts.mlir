// A row statistic read under two layouts: the row maxima of a gemm's accumulator (laid out as the
// matrix instruction's rows) subtracted from a 64x8 tile laid out for its copy; tile-infer-layouts
// gives the loop a copy of the maxima in its own layout, converted through a shared tile.
func.func @two_layouts(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %Y: memref<64x8xf32>, %O: memref<64x8xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %y = tile.alloc_fragment : memref<64x8xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %A, %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B, %Bs : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %Y, %y : memref<64x8xf32>, memref<64x8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 8) {
      %v = memref.load %y[%i, %j] : memref<64x8xf32, #tile.fragment>
      %s = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %r = arith.subf %v, %s : f32
      memref.store %r, %y[%i, %j] : memref<64x8xf32, #tile.fragment>
    }
    tile.copy %y, %O : memref<64x8xf32, #tile.fragment>, memref<64x8xf32>
  }
  return
}
