// cbrt and copysign whose argument and sign come from the other 16-bit float type: row 0 the bf16
// cbrt of an f16 value, row 1 the f16 cbrt of a bf16 value, row 2 |x| in bf16 with the sign of
// -x in f16. On gfx942 LLVM 22 folded each copysign (cbrt's approximation ends in one) rounded to
// one type with its sign widened from the other into an fcopysign its backend cannot select.
func.func @math_mixed_halves(%X: memref<64xf16>, %Y: memref<3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    %y = tile.alloc_fragment : memref<3x64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf16>, memref<64xf16, #tile.fragment>
    tile.parallel (%j) in (64) {
      %h = memref.load %x[%j] : memref<64xf16, #tile.fragment>
      %h32 = arith.extf %h : f16 to f32
      %b = arith.truncf %h32 : f32 to bf16
      %b32 = arith.extf %b : bf16 to f32
      %hb = arith.truncf %b32 : f32 to f16
      %n = arith.negf %h : f16
      %cb = math.cbrt %b : bf16
      %ch = math.cbrt %hb : f16
      %n32 = arith.extf %n : f16 to f32
      %nb = arith.truncf %n32 : f32 to bf16
      %sb = math.copysign %b, %nb : bf16
      %r0 = arith.extf %cb : bf16 to f32
      %r1 = arith.extf %ch : f16 to f32
      %r2 = arith.extf %sb : bf16 to f32
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      memref.store %r0, %y[%i0, %j] : memref<3x64xf32, #tile.fragment>
      memref.store %r1, %y[%i1, %j] : memref<3x64xf32, #tile.fragment>
      memref.store %r2, %y[%i2, %j] : memref<3x64xf32, #tile.fragment>
    }
    tile.copy %y, %Y[%c0, %c0] : memref<3x64xf32, #tile.fragment>, memref<3x64xf32>
  }
  return
}
