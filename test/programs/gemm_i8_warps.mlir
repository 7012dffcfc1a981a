// An i8 GEMM (B given N x K) on two warps: no whole warpgroup for wgmma, so mma.sync m16n8k32 with
// both operands K-major (one 32-bit shared load a register), with a warning.
func.func @gemm_i8_warps(%A: memref<128x128xi8>, %B: memref<96x128xi8>, %C: memref<128x96xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cgx = arith.constant 3 : index
  %cgy = arith.constant 4 : index
  %ckt = arith.constant 2 : index
  %cbk = arith.constant 64 : index
  %cbm = arith.constant 32 : index
  %cbn = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%cgx, %cgy) threads(64) (%bx, %by) {
    %As = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<32x32xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<32x32xi32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %k = %c0 to %ckt stages(2) {
      %k0 = arith.muli %k, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<128x128xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<96x128xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<32x64xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<32x32xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<32x32xi32, #tile.fragment>, memref<128x96xi32>
  }
  return
}
