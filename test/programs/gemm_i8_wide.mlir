// An i8 GEMM (B given N x K) on 128x256x128 tiles, two warpgroups, pipelined, ragged M and N: wgmma
// m64n256k32 (s8 inputs, s32 sums) reading TMA's 128-byte swizzled boxes of 128 i8 columns,
// the i32 accumulator leaves by TMA (128x32 boxes of 128-byte rows).
func.func @gemm_i8_wide(%A: memref<300x384xi8>, %B: memref<260x384xi8>, %C: memref<300x260xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cgx = arith.constant 2 : index
  %cgy = arith.constant 3 : index
  %ckt = arith.constant 3 : index
  %cbk = arith.constant 128 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 256 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%cgx, %cgy) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x128xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xi32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %k = %c0 to %ckt stages(3) {
      %k0 = arith.muli %k, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<300x384xi8>, memref<128x128xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<260x384xi8>, memref<256x128xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x128xi8, #gpu.address_space<workgroup>>, memref<256x128xi8, #gpu.address_space<workgroup>>, memref<128x256xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xi32, #tile.fragment>, memref<300x260xi32>
  }
  return
}
