// An i8 GEMM into i32 (B given N x K, as int8 weights usually are), 128x128x64 tiles on two
// warpgroups, pipelined: wgmma m64n128k32 on sm_90a, A and B in TMA's 64-byte swizzled boxes.
// bench/prepare.sh makes 4096^3 versions of it (gemm_i8_large) to time against torch._int_mm.
func.func @gemm_i8(%A: memref<512x512xi8>, %B: memref<512x512xi8>, %C: memref<512x512xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4, %c4) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xi32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<512x512xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<512x512xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x64xi8, #gpu.address_space<workgroup>>, memref<128x64xi8, #gpu.address_space<workgroup>>, memref<128x128xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xi32, #tile.fragment>, memref<512x512xi32>
  }
  return
}
