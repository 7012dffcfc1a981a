// An i8 GEMM (B given N x K) on ragged sizes, pipelined, whose i32 accumulator is scaled into f32
// (wgmma m64n64k32 on sm_90a, one warpgroup).
func.func @i8_scaled(%A: memref<300x160xi8>, %B: memref<200x160xi8>, %C: memref<300x200xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %scale = arith.constant 0.125 : f32
  tile.kernel grid(%c4, %c5) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    %Out = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<300x160xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<200x160xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xi32, #tile.fragment>
      %f = arith.sitofp %v : i32 to f32
      %s = arith.mulf %f, %scale : f32
      memref.store %s, %Out[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Out, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<300x200xf32>
  }
  return
}
