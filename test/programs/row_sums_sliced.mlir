// Row sums of a 32x512 tensor by 8 blocks of 128 threads, each summing a 32x64 slice held in a
// blocked fragment: 32 sums on 128 threads, held by 16 threads each in every fourth slot (threads
// past the 32 rows hold none in some slots: the register rules skip them by a bounds guard). One
// replica of each sum adds it into S (random first) with an atomic copy.
func.func @row_sums_sliced(%A: memref<32x512xf32>, %S: memref<32xf32>) {
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c8) threads(128) (%bx) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %k0 = arith.muli %bx, %c64 : index
    %a = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.copy %A[%c0, %k0], %a : memref<32x512xf32>, memref<32x64xf32, #tile.fragment>
    tile.reduce <sum> %a, %s dim(1) : memref<32x64xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
    tile.copy %s, %S[%c0] atomic <sum> : memref<32xf32, #tile.fragment>, memref<32xf32>
  }
  return
}
