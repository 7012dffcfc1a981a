// C (f32) = A * B^T in bf16 with B given as NxK, a K that is not a tile multiple, and two pipelined
// iterations with a step.
func.func @gemm_tb(%A: memref<48x40xbf16>, %B: memref<80x40xbf16>, %C: memref<48x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<32x32xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<32x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k0 = %c0 to %c40 step %c32 stages(2) {
      tile.copy %A[%m0, %k0], %As : memref<48x40xbf16>, memref<32x32xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<80x40xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<32x32xbf16, #gpu.address_space<workgroup>>, memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<32x64xf32, #tile.fragment>, memref<48x80xf32>
  }
  return
}
