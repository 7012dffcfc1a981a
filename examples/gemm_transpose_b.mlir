// C = A * B^T with B given as NxK (K contiguous, the layout of a linear layer's weight), f16.
func.func @gemm_transpose_b(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 64 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 256 : index
  %ktiles = arith.constant 64 : index
  %gx = arith.constant 16 : index
  %gy = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(4) {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<4096x4096xf16>, memref<256x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<256x64xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
