// f8E4M3FN (4 exponent bits, 3 mantissa bits, no infinity) rounded from f32 across its range on
// every target: subnormals (below 2^-6), ordinary values and values up to about 400 of its 448,
// each rounded to nearest even, stored, and widened back (sm_90a rounds by its cvt instruction,
// the other targets in integer arithmetic: the same codes).
func.func @e4m3_round_trip(%X: memref<64x64xf32>, %D: memref<3x64x64xf8E4M3FN>, %E: memref<3x64x64xf32>) {
  %c1 = arith.constant 1 : index
  %small = arith.constant 0.001 : f32
  %middle = arith.constant 3.0 : f32
  %large = arith.constant 90.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    tile.parallel (%i, %j) in (64, 64) {
      %c0 = arith.constant 0 : index
      %c1i = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x = memref.load %X[%i, %j] : memref<64x64xf32>
      %a = arith.mulf %x, %small : f32
      %m = arith.mulf %x, %middle : f32
      %l = arith.mulf %x, %large : f32
      %ta = arith.truncf %a : f32 to f8E4M3FN
      %tm = arith.truncf %m : f32 to f8E4M3FN
      %tl = arith.truncf %l : f32 to f8E4M3FN
      memref.store %ta, %D[%c0, %i, %j] : memref<3x64x64xf8E4M3FN>
      memref.store %tm, %D[%c1i, %i, %j] : memref<3x64x64xf8E4M3FN>
      memref.store %tl, %D[%c2, %i, %j] : memref<3x64x64xf8E4M3FN>
      %ea = arith.extf %ta : f8E4M3FN to f32
      %em = arith.extf %tm : f8E4M3FN to f32
      %el = arith.extf %tl : f8E4M3FN to f32
      memref.store %ea, %E[%c0, %i, %j] : memref<3x64x64xf32>
      memref.store %em, %E[%c1i, %i, %j] : memref<3x64x64xf32>
      memref.store %el, %E[%c2, %i, %j] : memref<3x64x64xf32>
    }
  }
  return
}
