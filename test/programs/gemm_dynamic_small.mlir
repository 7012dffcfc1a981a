// A GEMM on tensors whose sizes the host gives at run time (the dynamic GEMM example's form at a
// size every target runs, SPIR-V's 32 KiB of workgroup memory included): C = A B + C0 with A MxK,
// B KxN, C MxN; the grid and the trip count come from the sizes, and tiles past a tensor's end
// clip. A row scale after it reads a 1-D tensor of dynamic length.
func.func @gemm_dynamic_small(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %S: memref<?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  %ktiles = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Sf = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %kt = %c0 to %ktiles stages(2) {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>,
          memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S[%m0], %Sf : memref<?xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %c = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %Sf[%i] : memref<64xf32, #tile.fragment>
      %r = arith.mulf %c, %s : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<?x?xf32>
  }
  return
}
