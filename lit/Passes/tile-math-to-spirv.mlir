// tile-math-to-spirv: the math ops upstream's convert-math-to-spirv cannot take (or takes
// imprecisely) become ones it can; the others are left alone.
// RUN: tile-opt %s -split-input-file -tile-math-to-spirv | FileCheck %s

// GLSL has Exp but convert-math-to-spirv no exp2, and no trunc: exp(x ln 2), copysign(floor|x|, x).
// CHECK-LABEL: func.func @exp2_trunc
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %arg0, %[[LN2]] : f32
// CHECK-NEXT: math.exp %[[S]] : f32
// CHECK-NEXT: %[[A:.*]] = math.absf %arg0 : f32
// CHECK-NEXT: %[[F:.*]] = math.floor %[[A]] : f32
// CHECK-NEXT: math.copysign %[[F]], %arg0 : f32
func.func @exp2_trunc(%x: f32) -> (f32, f32) {
  %e = math.exp2 %x : f32
  %t = math.trunc %x : f32
  return %e, %t : f32, f32
}

// -----

// erf has no GLSL instruction: upstream's polynomial approximation, in f32 for an f16 argument.
// CHECK-LABEL: func.func @erf_half
// CHECK: arith.extf %arg0 : f16 to f32
// CHECK: math.fma
// CHECK: arith.divf
// CHECK-NOT: math.erf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @erf_half(%x: f16) -> f16 {
  %e = math.erf %x : f16
  return %e : f16
}

// -----

// GLSL's Pow is undefined for x < 0: powf is 2^(y log2|x|), negated for odd integer y, NaN for
// fractional y, 1 for y = 0. A variable fpowi exponent becomes powf first (upstream's expansion).
// CHECK-LABEL: func.func @powers
// CHECK: %[[Y:.*]] = arith.sitofp %arg1 : i32 to f32
// CHECK: %[[A:.*]] = math.absf %arg0 : f32
// CHECK-NEXT: %[[L:.*]] = math.log2 %[[A]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[Y]], %[[L]] : f32
// CHECK: %[[FLOOR:.*]] = math.floor %[[Y]] : f32
// CHECK: arith.cmpf olt, %arg0
// CHECK: arith.cmpf oeq, %[[FLOOR]], %[[Y]]
// CHECK: arith.negf
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK: arith.cmpf oeq, %[[Y]]
// CHECK-NOT: math.powf
// CHECK-NOT: math.fpowi
// CHECK: return
func.func @powers(%x: f32, %n: i32) -> f32 {
  %p = math.fpowi %x, %n : f32, i32
  return %p : f32
}

// -----

// f16 ops GLSL has are computed in f32 too: convert-math-to-spirv would emulate f16 with casts
// convert-gpu-to-spirv refuses, finding no target environment on the kernel module.
// CHECK-LABEL: func.func @tanh_half
// CHECK-NEXT: %[[X:.*]] = arith.extf %arg0 : f16 to f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT: arith.truncf %[[T]] : f32 to f16
func.func @tanh_half(%x: f16) -> f16 {
  %t = math.tanh %x : f16
  return %t : f16
}

// -----

// No SPIR-V conversion for cttz and ctpop: cttz is the ones below the lowest set bit, counted by
// adding bits in pairs, nibbles and bytes. OpIsFinite needs the Kernel capability: comparisons.
// CHECK-LABEL: func.func @bits_isfinite
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %arg0 : i32
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %arg0, %[[NEG]] : i32
// CHECK: arith.subi %[[LOW]]
// CHECK: arith.constant 1431655765 : i32
// CHECK: arith.constant 16843009 : i32
// CHECK: arith.muli
// CHECK: arith.constant 24 : i32
// CHECK: arith.cmpf one, %arg1
// CHECK: arith.cmpf one, %arg1
// CHECK-NEXT: arith.andi
// CHECK-NOT: math.
// CHECK: return
func.func @bits_isfinite(%n: i32, %x: f32) -> (i32, i1) {
  %0 = math.cttz %n : i32
  %1 = math.isfinite %x : f32
  return %0, %1 : i32, i1
}

// -----

// Negative: what GLSL has stays for convert-math-to-spirv (exp, tanh, sin, atan, floor, sqrt).
// CHECK-LABEL: func.func @glsl_has_them
// CHECK-NEXT: math.exp
// CHECK-NEXT: math.tanh
// CHECK-NEXT: math.sin
// CHECK-NEXT: math.atan
// CHECK-NEXT: math.floor
// CHECK-NEXT: math.sqrt
func.func @glsl_has_them(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.tanh %0 : f32
  %2 = math.sin %1 : f32
  %3 = math.atan %2 : f32
  %4 = math.floor %3 : f32
  %5 = math.sqrt %4 : f32
  return %5 : f32
}
