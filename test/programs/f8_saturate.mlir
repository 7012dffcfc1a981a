// Saturating copies into 8-bit floats (`tile.copy ... saturate`): f32 values scaled far past the
// largest finite f8E4M3FN (448) and f8E5M2 (57344) round to that value with their sign instead of
// NaN or infinity, from a fragment into a fragment and into a global tensor; the f8 fragment is
// widened back into an f32 tensor. (sm_90a's conversion instruction saturates by itself; the
// other targets clamp before rounding in integer arithmetic.)
func.func @e4m3_saturate(%X: memref<64x64xf32>, %D: memref<64x64xf8E4M3FN>, %E: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scale = arith.constant 1000.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %F[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = arith.mulf %x, %scale : f32
      memref.store %y, %F[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %F, %G saturate : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #tile.fragment>
    tile.copy %G, %E[%c0, %c0] : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x64xf32>
    tile.copy %F, %D[%c0, %c0] saturate : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN>
  }
  return
}

func.func @e5m2_saturate(%X: memref<64x64xf32>, %D: memref<64x64xf8E5M2>, %E: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scale = arith.constant 100000.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<64x64xf8E5M2, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %F[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = arith.mulf %x, %scale : f32
      memref.store %y, %F[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %F, %G saturate : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E5M2, #tile.fragment>
    tile.copy %G, %E[%c0, %c0] : memref<64x64xf8E5M2, #tile.fragment>, memref<64x64xf32>
    tile.copy %F, %D[%c0, %c0] saturate : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E5M2>
  }
  return
}
