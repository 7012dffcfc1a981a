// Math functions on f16 (computed in f32 where the target has no f16 instruction), on 64 inputs x
// uniform in [-1, 1): one row of the 10x64 output per function, arguments shifted into each
// function's domain as in math_functions.mlir.
func.func @math_functions_f16(%X: memref<64xf16>, %Y: memref<10x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    %y = tile.alloc_fragment : memref<10x64xf16, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf16>, memref<64xf16, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf16, #tile.fragment>
      %quarter = arith.constant 0.25 : f16
      %half = arith.constant 0.5 : f16
      %three = arith.constant 3.0 : f16
      %a = math.absf %v : f16
      %p = arith.addf %a, %quarter : f16
      %w = arith.mulf %v, %three : f16
      %h = arith.mulf %v, %half : f16
      %r0 = math.exp %w : f16
      %r1 = math.log %p : f16
      %r2 = math.tanh %w : f16
      %r3 = math.erf %w : f16
      %r4 = math.sin %w : f16
      %r5 = math.rsqrt %p : f16
      %r6 = math.powf %p, %w : f16
      %r7 = math.atan2 %v, %h : f16
      %r8 = math.cbrt %w : f16
      %r9 = math.exp2 %w : f16
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      %i4 = arith.constant 4 : index
      %i5 = arith.constant 5 : index
      %i6 = arith.constant 6 : index
      %i7 = arith.constant 7 : index
      %i8 = arith.constant 8 : index
      %i9 = arith.constant 9 : index
      memref.store %r0, %y[%i0, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r1, %y[%i1, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r2, %y[%i2, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r3, %y[%i3, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r4, %y[%i4, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r5, %y[%i5, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r6, %y[%i6, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r7, %y[%i7, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r8, %y[%i8, %j] : memref<10x64xf16, #tile.fragment>
      memref.store %r9, %y[%i9, %j] : memref<10x64xf16, #tile.fragment>
    }
    tile.copy %y, %Y[%c0, %c0] : memref<10x64xf16, #tile.fragment>, memref<10x64xf16>
  }
  return
}
