// A GEMM whose epilogue loads two other global tensors directly: a bias vector at the output column
// and a residual tile at (row, column), C = relu(A B + bias) + R, on ragged sizes (200x192 on
// 128x128 tiles; the indices are clamped into the tensors, whose elements past the ends are never
// stored). sm_90a reads them in its register epilogue (the tensors passed as memrefs beside the
// tensor maps, loads clipped at the tensors' ends); gfx942 and cooperative matrices run the kernel
// with the plain strategy and warn at the first load.
func.func @gemm_epilogue_reads(%A: memref<200x64xf16>, %B: memref<64x192xf16>, %bias: memref<192xf32>, %R: memref<200x192xf16>, %C: memref<200x192xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %last_row = arith.constant 199 : index
  %last_column = arith.constant 191 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<64x192xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %m = arith.addi %m0, %i : index
      %n = arith.addi %n0, %j : index
      %mc = arith.minui %m, %last_row : index
      %nc = arith.minui %n, %last_column : index
      %b = memref.load %bias[%nc] : memref<192xf32>
      %s = arith.addf %v, %b : f32
      %a = arith.maximumf %s, %zero : f32
      %r16 = memref.load %R[%mc, %nc] : memref<200x192xf16>
      %r = arith.extf %r16 : f16 to f32
      %o = arith.addf %a, %r : f32
      memref.store %o, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<200x192xf16>
  }
  return
}
