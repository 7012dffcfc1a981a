// log1p and expm1 on f16 and bf16 arguments near zero (x / 64, x uniform in [-1, 1)), where
// computing them in the 16-bit type (log(1 + x) with 1 + x rounded first) loses most digits: row 0
// log1p and row 1 expm1 of the f16 argument, rows 2 and 3 the same of the bf16 argument.
func.func @math_near_zero_f16(%X: memref<64xf16>, %Y: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    %y = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf16>, memref<64xf16, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf16, #tile.fragment>
      %scale = arith.constant 0.015625 : f16
      %h = arith.mulf %v, %scale : f16
      %h32 = arith.extf %h : f16 to f32
      %b = arith.truncf %h32 : f32 to bf16
      %l = math.log1p %h : f16
      %e = math.expm1 %h : f16
      %lb = math.log1p %b : bf16
      %eb = math.expm1 %b : bf16
      %l32 = arith.extf %l : f16 to f32
      %e32 = arith.extf %e : f16 to f32
      %lb32 = arith.extf %lb : bf16 to f32
      %eb32 = arith.extf %eb : bf16 to f32
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      memref.store %l32, %y[%i0, %j] : memref<4x64xf32, #tile.fragment>
      memref.store %e32, %y[%i1, %j] : memref<4x64xf32, #tile.fragment>
      memref.store %lb32, %y[%i2, %j] : memref<4x64xf32, #tile.fragment>
      memref.store %eb32, %y[%i3, %j] : memref<4x64xf32, #tile.fragment>
    }
    tile.copy %y, %Y[%c0, %c0] : memref<4x64xf32, #tile.fragment>, memref<4x64xf32>
  }
  return
}
