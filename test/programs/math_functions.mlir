// Every math function a tile.parallel body may use, on 64 f32 inputs x uniform in [-1, 1): one row
// of the 39x64 output per function. Arguments are shifted into each function's domain (log of
// |x| + 0.25, asin of x / 2, ...); rows 32 and 33 raise 3x, negative too, to the integer exponent
// trunc(4x) (-3 to 3) with powf and fpowi; rows 34 to 37 count the bits of n = trunc(1000x) (ctlz,
// cttz, ctpop, absi); row 38 classifies x (isfinite + 4 isnan: 1; Vulkan need not keep
// infinities and NaNs, so none are made).
func.func @math_functions(%X: memref<64xf32>, %Y: memref<39x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %y = tile.alloc_fragment : memref<39x64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf32, #tile.fragment>
      %quarter = arith.constant 0.25 : f32
      %half = arith.constant 0.5 : f32
      %two = arith.constant 2.0 : f32
      %three = arith.constant 3.0 : f32
      %a = math.absf %v : f32
      %p = arith.addf %a, %quarter : f32
      %w = arith.mulf %v, %three : f32
      %h = arith.mulf %v, %half : f32
      %r0 = math.exp %w : f32
      %r1 = math.exp2 %w : f32
      %r2 = math.expm1 %h : f32
      %r3 = math.log %p : f32
      %r4 = math.log2 %p : f32
      %r5 = math.log10 %p : f32
      %r6 = math.log1p %h : f32
      %r7 = math.rsqrt %p : f32
      %r8 = math.sqrt %p : f32
      %r9 = math.tanh %w : f32
      %r10 = math.erf %w : f32
      %r11 = math.sin %w : f32
      %r12 = math.cos %w : f32
      %r13 = math.tan %v : f32
      %r14 = math.atan %w : f32
      %r15 = math.atan2 %v, %h : f32
      %r16 = math.powf %p, %w : f32
      %c3 = arith.constant 3 : i32
      %r17 = math.fpowi %w, %c3 : f32, i32
      %r18 = math.absf %v : f32
      %r19 = math.floor %w : f32
      %r20 = math.ceil %w : f32
      %r21 = math.round %w : f32
      %r22 = math.fma %v, %w, %h : f32
      %r23 = math.copysign %p, %v : f32
      %r24 = math.cbrt %w : f32
      %r25 = math.erfc %v : f32
      %r26 = math.trunc %w : f32
      %r27 = math.roundeven %w : f32
      %r28 = math.asin %h : f32
      %r29 = math.acos %h : f32
      %r30 = math.sinh %v : f32
      %r31 = math.cosh %v : f32
      %four = arith.constant 4.0 : f32
      %v4 = arith.mulf %v, %four : f32
      %n = arith.fptosi %v4 : f32 to i32
      %k = arith.sitofp %n : i32 to f32
      %r32 = math.powf %w, %k : f32
      %r33 = math.fpowi %w, %n : f32, i32
      %thousand = arith.constant 1000.0 : f32
      %vk = arith.mulf %v, %thousand : f32
      %m = arith.fptosi %vk : f32 to i32
      %b0 = math.ctlz %m : i32
      %b1 = math.cttz %m : i32
      %b2 = math.ctpop %m : i32
      %b3 = math.absi %m : i32
      %r34 = arith.sitofp %b0 : i32 to f32
      %r35 = arith.sitofp %b1 : i32 to f32
      %r36 = arith.sitofp %b2 : i32 to f32
      %r37 = arith.sitofp %b3 : i32 to f32
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %four_f = arith.constant 4.0 : f32
      %is_finite = math.isfinite %v : f32
      %is_nan = math.isnan %v : f32
      %k0 = arith.select %is_finite, %one, %zero : f32
      %k2 = arith.select %is_nan, %four_f, %zero : f32
      %r38 = arith.addf %k0, %k2 : f32
      %c_0 = arith.constant 0 : index
      %c_1 = arith.constant 1 : index
      %c_2 = arith.constant 2 : index
      %c_3 = arith.constant 3 : index
      %c_4 = arith.constant 4 : index
      %c_5 = arith.constant 5 : index
      %c_6 = arith.constant 6 : index
      %c_7 = arith.constant 7 : index
      %c_8 = arith.constant 8 : index
      %c_9 = arith.constant 9 : index
      %c_10 = arith.constant 10 : index
      %c_11 = arith.constant 11 : index
      %c_12 = arith.constant 12 : index
      %c_13 = arith.constant 13 : index
      %c_14 = arith.constant 14 : index
      %c_15 = arith.constant 15 : index
      %c_16 = arith.constant 16 : index
      %c_17 = arith.constant 17 : index
      %c_18 = arith.constant 18 : index
      %c_19 = arith.constant 19 : index
      %c_20 = arith.constant 20 : index
      %c_21 = arith.constant 21 : index
      %c_22 = arith.constant 22 : index
      %c_23 = arith.constant 23 : index
      %c_24 = arith.constant 24 : index
      %c_25 = arith.constant 25 : index
      %c_26 = arith.constant 26 : index
      %c_27 = arith.constant 27 : index
      %c_28 = arith.constant 28 : index
      %c_29 = arith.constant 29 : index
      %c_30 = arith.constant 30 : index
      %c_31 = arith.constant 31 : index
      memref.store %r0, %y[%c_0, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r1, %y[%c_1, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r2, %y[%c_2, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r3, %y[%c_3, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r4, %y[%c_4, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r5, %y[%c_5, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r6, %y[%c_6, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r7, %y[%c_7, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r8, %y[%c_8, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r9, %y[%c_9, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r10, %y[%c_10, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r11, %y[%c_11, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r12, %y[%c_12, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r13, %y[%c_13, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r14, %y[%c_14, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r15, %y[%c_15, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r16, %y[%c_16, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r17, %y[%c_17, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r18, %y[%c_18, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r19, %y[%c_19, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r20, %y[%c_20, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r21, %y[%c_21, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r22, %y[%c_22, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r23, %y[%c_23, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r24, %y[%c_24, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r25, %y[%c_25, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r26, %y[%c_26, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r27, %y[%c_27, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r28, %y[%c_28, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r29, %y[%c_29, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r30, %y[%c_30, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r31, %y[%c_31, %j] : memref<39x64xf32, #tile.fragment>
      %c_32 = arith.constant 32 : index
      %c_33 = arith.constant 33 : index
      memref.store %r32, %y[%c_32, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r33, %y[%c_33, %j] : memref<39x64xf32, #tile.fragment>
      %c_34 = arith.constant 34 : index
      %c_35 = arith.constant 35 : index
      %c_36 = arith.constant 36 : index
      %c_37 = arith.constant 37 : index
      %c_38 = arith.constant 38 : index
      memref.store %r34, %y[%c_34, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r35, %y[%c_35, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r36, %y[%c_36, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r37, %y[%c_37, %j] : memref<39x64xf32, #tile.fragment>
      memref.store %r38, %y[%c_38, %j] : memref<39x64xf32, #tile.fragment>
    }
    tile.copy %y, %Y[%c0, %c0] : memref<39x64xf32, #tile.fragment>, memref<39x64xf32>
  }
  return
}
