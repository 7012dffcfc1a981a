// tile-math-to-rocdl: math ops become AMDGCN instructions, LLVM intrinsics and upstream polynomial
// approximations, so that no gfx942 kernel calls ROCm's device library (`__ocml_*`).
// RUN: tile-opt %s -split-input-file -tile-math-to-rocdl | FileCheck %s

// exp and log are base changes around v_exp_f32 and v_log_f32 (both base 2).
// CHECK-LABEL: func.func @exp_log
// CHECK: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %arg0, %[[L2E]] : f32
// CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.amdgcn.exp2.f32"(%[[S]]) : (f32) -> f32
// CHECK-NEXT: %[[LG:.*]] = llvm.call_intrinsic "llvm.amdgcn.log.f32"(%[[E]]) : (f32) -> f32
// CHECK: arith.mulf %[[LG]], %{{.*}} : f32
func.func @exp_log(%x: f32) -> f32 {
  %e = math.exp %x : f32
  %l = math.log %e : f32
  return %l : f32
}

// -----

// v_sin_f32 and v_cos_f32 take revolutions: x / 2pi, reduced to [0, 1) by v_fract_f32.
// CHECK-LABEL: func.func @sin_cos
// CHECK: %[[TURN:.*]] = arith.constant 0.159154937 : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %arg0, %[[TURN]] : f32
// CHECK-NEXT: %[[F:.*]] = llvm.call_intrinsic "llvm.amdgcn.fract.f32"(%[[T]]) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.amdgcn.sin.f32"(%[[F]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.cos.f32"
func.func @sin_cos(%x: f32) -> (f32, f32) {
  %s = math.sin %x : f32
  %c = math.cos %x : f32
  return %s, %c : f32, f32
}

// -----

// One instruction each: rsqrt is v_rsq_f32; sqrt, floor, ceil, trunc, fma are LLVM intrinsics the
// AMDGPU backend selects natively (upstream would call __ocml_floor_f32 and __ocml_ceil_f32).
// CHECK-LABEL: func.func @one_instruction
// CHECK-NEXT: llvm.call_intrinsic "llvm.amdgcn.rsq.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.sqrt.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.floor.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.ceil.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.trunc.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.fma.f32"(%arg0, %arg0, %arg0) : (f32, f32, f32) -> f32
func.func @one_instruction(%x: f32) -> (f32, f32, f32, f32, f32, f32) {
  %0 = math.rsqrt %x : f32
  %1 = math.sqrt %x : f32
  %2 = math.floor %x : f32
  %3 = math.ceil %x : f32
  %4 = math.trunc %x : f32
  %5 = math.fma %x, %x, %x : f32
  return %0, %1, %2, %3, %4, %5 : f32, f32, f32, f32, f32, f32
}

// -----

// gfx942 has no tanh instruction: upstream's polynomial approximation (a clamped rational function).
// CHECK-LABEL: func.func @tanh
// CHECK: arith.constant 7.99881172 : f32
// CHECK: arith.divf
// CHECK-NOT: math.
// CHECK: return
func.func @tanh(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

// -----

// f16 is computed in f32; powf is expanded by upstream into exp and log, which become instructions.
// CHECK-LABEL: func.func @half_pow
// CHECK-DAG: arith.extf %arg0 : f16 to f32
// CHECK-DAG: arith.extf %arg1 : f16 to f32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.log.f32"
// CHECK: llvm.call_intrinsic "llvm.amdgcn.exp2.f32"
// CHECK-NOT: math.
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half_pow(%x: f16, %y: f16) -> f16 {
  %p = math.powf %x, %y : f16
  return %p : f16
}

// -----

// isinf is two comparisons (upstream lowers isnan and isfinite, not isinf); ctlz stays for upstream,
// which lowers it to llvm.ctlz itself.
// CHECK-LABEL: func.func @isinf_ctlz
// CHECK: arith.cmpf oeq, %arg0
// CHECK: arith.cmpf oeq, %arg0
// CHECK-NEXT: arith.ori
// CHECK-NEXT: math.ctlz %arg1 : i32
func.func @isinf_ctlz(%x: f32, %n: i32) -> (i1, i32) {
  %0 = math.isinf %x : f32
  %1 = math.ctlz %n : i32
  return %0, %1 : i1, i32
}

// -----

// Negative: f64 keeps its math ops; tile-check-external-calls refuses the __ocml call they become.
// CHECK-LABEL: func.func @f64_untouched
// CHECK: math.sin %{{.*}} : f64
func.func @f64_untouched(%x: f64) -> f64 {
  %s = math.sin %x : f64
  return %s : f64
}

// -----

// A maximum or minimum against a constant (a ReLU, a clamp) is an unordered comparison and a
// select: a NaN x is kept, and the zeros of opposite sign compare so that max(+0, -0) = +0 and
// min(-0, +0) = -0. The constant may be either operand.
// CHECK-LABEL: func.func @bounds
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f16
// CHECK: %[[C0:.*]] = arith.cmpf ugt, %arg0, %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[C0]], %arg0, %[[ZERO]] : f32
// CHECK-NEXT: %[[C1:.*]] = arith.cmpf uge, %[[R]], %[[NZERO]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.select %[[C1]], %[[R]], %[[NZERO]] : f32
// CHECK-NEXT: %[[C2:.*]] = arith.cmpf ule, %[[M]], %[[ZERO]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.select %[[C2]], %[[M]], %[[ZERO]] : f32
// CHECK-NEXT: %[[C3:.*]] = arith.cmpf ult, %arg1, %[[SIX]] : f16
// CHECK-NEXT: arith.select %[[C3]], %arg1, %[[SIX]] : f16
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
func.func @bounds(%x: f32, %h: f16) -> (f32, f16) {
  %zero = arith.constant 0.0 : f32
  %nzero = arith.constant -0.0 : f32
  %six = arith.constant 6.0 : f16
  %r = arith.maximumf %x, %zero : f32
  %m = arith.maximumf %nzero, %r : f32
  %n = arith.minimumf %m, %zero : f32
  %c = arith.minimumf %six, %h : f16
  return %n, %c : f32, f16
}

// -----

// Not a constant, a NaN constant, a vector: left for LLVM.
// CHECK-LABEL: func.func @bounds_kept
// CHECK: arith.maximumf %arg0, %arg1 : f32
// CHECK: arith.minimumf %arg0, %{{.*}} : f32
// CHECK: arith.maximumf %arg2, %{{.*}} : vector<2xf32>
func.func @bounds_kept(%x: f32, %y: f32, %v: vector<2xf32>) -> (f32, f32, vector<2xf32>) {
  %nan = arith.constant 0x7FC00000 : f32
  %zeros = arith.constant dense<0.0> : vector<2xf32>
  %a = arith.maximumf %x, %y : f32
  %b = arith.minimumf %x, %nan : f32
  %c = arith.maximumf %v, %zeros : vector<2xf32>
  return %a, %b, %c : f32, f32, vector<2xf32>
}

// -----

// copysign is |x| or -|x| by y's sign bit, not llvm.copysign: LLVM 22 folds a copysign rounded to
// bf16 whose sign widens an f16 into a bf16-by-f16 fcopysign AMDGPU cannot select.
// CHECK-LABEL: func.func @copysign_by_select
// CHECK: %[[ABS:.*]] = llvm.call_intrinsic "llvm.fabs.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[ABS]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[SIGN:.*]] = arith.cmpi slt, %[[BITS]], %{{.*}} : i32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[SIGN]], %[[NEG]], %[[ABS]] : f32
// CHECK-NEXT: arith.truncf %[[R]] : f32 to bf16
// CHECK-NOT: copysign
func.func @copysign_by_select(%x: bf16, %y: f16) -> bf16 {
  %w = arith.extf %y : f16 to f32
  %b = arith.truncf %w : f32 to bf16
  %c = math.copysign %x, %b : bf16
  return %c : bf16
}
