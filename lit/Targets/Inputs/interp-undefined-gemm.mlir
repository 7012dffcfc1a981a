// tile.gemm adds to its accumulator: one never filled makes the product undefined (the shared
// operands are copied in; the accumulator is not).
func.func @gemm(%A: memref<16x16xf16>, %B: memref<16x16xf16>, %C: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<16x16xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<16x16xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<16x16xf32, #tile.fragment>, memref<16x16xf32>
  }
  return
}
