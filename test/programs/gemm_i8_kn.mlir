// An i8 GEMM with B given K x N (its register quads gathered byte by byte), a plain scf.for over K
// and ragged sizes: mma.sync m16n8k32 on sm_90a.
func.func @gemm_i8_kn(%A: memref<200x96xi8>, %B: memref<96x130xi8>, %C: memref<200x130xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    scf.for %k = %c0 to %c3 step %c1 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x96xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<96x130xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xi32, #tile.fragment>, memref<200x130xi32>
  }
  return
}
