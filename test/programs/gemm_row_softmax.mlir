// A GEMM whose rows go through a softmax before the store (the shape of attention's S = QK^T, P =
// softmax(S)): row max and row sum with tile.reduce on the accumulator, the exponentials and the
// division with tile.parallel. 200x256 times 256x192 on 64x64x32 tiles: ragged rows, 8 steps.
func.func @gemm_row_softmax(%A: memref<200x256xf16>, %B: memref<256x192xf16>, %C: memref<200x192xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0625 : f32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x192xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %e = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<200x192xf32>
  }
  return
}
