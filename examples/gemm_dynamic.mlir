// A GEMM on tensors whose sizes are known only at run time: C = A * B with A MxK, B KxN, C MxN (f16).
// The grid and the trip count are computed by the host from the tensor sizes; tiles that reach past
// the end of a tensor are clipped (TMA reads zeros there and drops the writes).
func.func @gemm_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %ktiles stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
