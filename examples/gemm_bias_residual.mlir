// A GEMM with a bias and residual epilogue, as a transformer's output projection: C = relu(A B +
// bias) + R on 4096x4096x4096 f16, 128x128x64 tiles, 3 stages. The epilogue loads the bias at the
// output column and the residual at (row, column) straight from global memory (the indices clamped
// to the tensors, whose tails the result's clipped store drops), so on sm_90a it stays on tensor cores.
func.func @gemm_bias_residual(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %bias: memref<4096xf32>, %R: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %last = arith.constant 4095 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %m = arith.addi %m0, %i : index
      %n = arith.addi %n0, %j : index
      %mc = arith.minui %m, %last : index
      %nc = arith.minui %n, %last : index
      %b = memref.load %bias[%nc] : memref<4096xf32>
      %s = arith.addf %v, %b : f32
      %a = arith.maximumf %s, %zero : f32
      %r16 = memref.load %R[%mc, %nc] : memref<4096x4096xf16>
      %r = arith.extf %r16 : f16 to f32
      %o = arith.addf %a, %r : f32
      memref.store %o, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
