// A GEMM whose epilogue reads two other global tensors: a bias vector (memref.load at the output
// column) and a residual tile (copied into a fragment, clipped at the ragged last row block), as in
// C = relu(A B + bias) + R. No tensor-core lowering takes a tile copied into a second fragment for
// the epilogue yet: they run it with the plain strategy and warn at that copy (sm_90a reads the
// same tensors on tensor cores when the epilogue loads them directly: gemm_epilogue_reads.mlir).
func.func @gemm_bias_residual(%A: memref<100x64xf16>, %B: memref<64x128xf16>, %bias: memref<128xf32>, %R: memref<100x128xf16>, %C: memref<100x128xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Rf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<100x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<64x128xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %R[%m0, %n0], %Rf : memref<100x128xf16>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %n = arith.addi %n0, %j : index
      %b = memref.load %bias[%n] : memref<128xf32>
      %s = arith.addf %v, %b : f32
      %a = arith.maximumf %s, %zero : f32
      %r = memref.load %Rf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %o = arith.addf %a, %r : f32
      memref.store %o, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<100x128xf16>
  }
  return
}
