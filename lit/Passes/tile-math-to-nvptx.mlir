// tile-math-to-nvptx: math ops become NVPTX approximation instructions, LLVM intrinsics and upstream
// polynomial approximations, so that no kernel calls libdevice (`__nv_*`).
// RUN: tile-opt %s -split-input-file -tile-math-to-nvptx | FileCheck %s

// exp and log are base changes around ex2.approx and lg2.approx; absf and sqrt are plain intrinsics.
// CHECK-LABEL: func.func @exp_log
// CHECK: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %{{.*}}, %[[L2E]] : f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[S]]) : (f32) -> f32
// CHECK: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
// CHECK: arith.mulf %[[LG]], %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.fabs.f32"
// CHECK: llvm.call_intrinsic "llvm.sqrt.f32"
// CHECK-NOT: math.
func.func @exp_log(%x: f32) -> f32 {
  %e = math.exp %x : f32
  %l = math.log %e : f32
  %a = math.absf %l : f32
  %s = math.sqrt %a : f32
  return %s : f32
}

// -----

// Functions PTX has an instruction for: one intrinsic each. tanh is `llvm.tanh` with `afn`, the only
// form LLVM 22's NVPTX backend selects (as tanh.approx.f32); rsqrt is what the driver rejected as
// `__nv_rsqrtf` before.
// CHECK-LABEL: func.func @one_instruction
// CHECK-NEXT: llvm.call_intrinsic "llvm.tanh.f32"(%arg0) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.sin.approx.f"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.cos.approx.f"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.floor.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.roundeven.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.fma.f32"(%arg0, %arg0, %arg0) : (f32, f32, f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.copysign.f32"(%arg0, %arg0) : (f32, f32) -> f32
func.func @one_instruction(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.sin %x : f32
  %2 = math.cos %x : f32
  %3 = math.rsqrt %x : f32
  %4 = math.exp2 %x : f32
  %5 = math.log2 %x : f32
  %6 = math.floor %x : f32
  %7 = math.roundeven %x : f32
  %8 = math.fma %x, %x, %x : f32
  %9 = math.copysign %x, %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
}

// -----

// exp2 with the afn (or fast) flag flushes denormal results (ex2.approx.ftz.f32: no scaling
// around the instruction); without it, ex2.approx.f32 keeps them.
// CHECK-LABEL: func.func @fast_exp2
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%arg0) : (f32) -> f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%arg0) : (f32) -> f32
func.func @fast_exp2(%x: f32) -> (f32, f32, f32) {
  %0 = math.exp2 %x fastmath<afn> : f32
  %1 = math.exp2 %x fastmath<fast> : f32
  %2 = math.exp2 %x fastmath<nnan> : f32
  return %0, %1, %2 : f32, f32, f32
}

// -----

// f16 and bf16 are computed in f32 (PTX's approximations are f32 instructions).
// CHECK-LABEL: func.func @narrow
// CHECK-NEXT: %[[X:.*]] = arith.extf %arg0 : f16 to f32
// CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[X]]) : (f32) -> f32
// CHECK-NEXT: arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT: %[[Y:.*]] = arith.extf %arg1 : bf16 to f32
// CHECK-NEXT: %[[A:.*]] = llvm.call_intrinsic "llvm.fabs.f32"(%[[Y]]) : (f32) -> f32
// CHECK-NEXT: arith.truncf %[[A]] : f32 to bf16
func.func @narrow(%x: f16, %y: bf16) -> (f16, bf16) {
  %e = math.exp2 %x : f16
  %a = math.absf %y : bf16
  return %e, %a : f16, bf16
}

// -----

// tan has no instruction: upstream's expansion makes it sin / cos, which then have one each.
// CHECK-LABEL: func.func @tan
// CHECK-NEXT: %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"(%arg0)
// CHECK-NEXT: %[[C:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"(%arg0)
// CHECK-NEXT: arith.divf %[[S]], %[[C]] : f32
func.func @tan(%x: f32) -> f32 {
  %t = math.tan %x : f32
  return %t : f32
}

// -----

// erf has neither: upstream's polynomial approximation, a rational function in fma intrinsics.
// CHECK-LABEL: func.func @erf
// CHECK: llvm.call_intrinsic "llvm.fma.f32"
// CHECK: arith.divf
// CHECK-NOT: math.
// CHECK: return
func.func @erf(%x: f32) -> f32 {
  %e = math.erf %x : f32
  return %e : f32
}

// -----

// expm1's approximation needs exp(x) accurate near 0, where ex2.approx would be off by 1e-3
// relative: the exp it creates is approximated too (a polynomial), while the kernel's own exp
// still becomes ex2.approx.
// CHECK-LABEL: func.func @expm1_and_exp
// CHECK: %[[OWN:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// CHECK-NOT: llvm.nvvm.ex2.approx.f32
// CHECK: arith.shli
// CHECK-NOT: math.
// CHECK: return
func.func @expm1_and_exp(%x: f32) -> (f32, f32) {
  %e = math.exp %x : f32
  %m = math.expm1 %x : f32
  return %e, %m : f32, f32
}

// -----

// Integer bit counts are LLVM intrinsics (clz, popc, abs in PTX; zero defined), float classes
// comparisons on any float type: upstream would call __nv_clz, __nv_isnanf, __nv_finitef.
// CHECK-LABEL: func.func @bits_and_classes
// CHECK: %[[F:.*]] = arith.constant false
// CHECK-NEXT: llvm.call_intrinsic "llvm.ctlz.i32"(%arg0, %[[F]]) : (i32, i1) -> i32
// CHECK: llvm.call_intrinsic "llvm.cttz.i32"
// CHECK-NEXT: llvm.call_intrinsic "llvm.ctpop.i64"(%arg1) : (i64) -> i64
// CHECK: llvm.call_intrinsic "llvm.abs.i32"
// CHECK-NEXT: arith.cmpf uno, %arg2, %arg2 : f32
// CHECK: arith.cmpf oeq, %arg3, %{{.*}} : f16
// CHECK: arith.cmpf oeq, %arg3, %{{.*}} : f16
// CHECK-NEXT: arith.ori
// CHECK: arith.cmpf one, %arg2, %{{.*}} : f32
// CHECK: arith.cmpf one, %arg2, %{{.*}} : f32
// CHECK-NEXT: arith.andi
// CHECK-NOT: math.
func.func @bits_and_classes(%n: i32, %m: i64, %x: f32, %h: f16) -> (i32, i32, i64, i32, i1, i1, i1) {
  %0 = math.ctlz %n : i32
  %1 = math.cttz %n : i32
  %2 = math.ctpop %m : i64
  %3 = math.absi %n : i32
  %4 = math.isnan %x : f32
  %5 = math.isinf %h : f16
  %6 = math.isfinite %x : f32
  return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i64, i32, i1, i1, i1
}

// -----

// Negative: f64 keeps its math ops (no PTX approximation exists); tile-check-external-calls refuses
// the libdevice call they become.
// CHECK-LABEL: func.func @f64_untouched
// CHECK: math.exp %{{.*}} : f64
func.func @f64_untouched(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}

// -----

// atan2 gets C's values at the origin (+-0 where x is +0, +-pi where it is -0, the sign y's: the
// sign bits read as integers) in a select around the polynomial approximation, which gives +-pi/2
// wherever x is zero.
// CHECK-LABEL: func.func @atan2_origin
// CHECK: %[[YZ:.*]] = arith.cmpf oeq, %arg0, %{{.*}} : f32
// CHECK: %[[XZ:.*]] = arith.cmpf oeq, %arg1, %{{.*}} : f32
// CHECK: %[[ORIGIN:.*]] = arith.andi %[[YZ]], %[[XZ]] : i1
// CHECK: %[[XBITS:.*]] = arith.bitcast %arg1 : f32 to i32
// CHECK: %[[XNEG:.*]] = arith.cmpi slt, %[[XBITS]], %{{.*}} : i32
// CHECK: %[[MAG:.*]] = arith.select %[[XNEG]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[YBITS:.*]] = arith.bitcast %arg0 : f32 to i32
// CHECK: %[[YNEG:.*]] = arith.cmpi slt, %[[YBITS]], %{{.*}} : i32
// CHECK: %[[SIGNED:.*]] = arith.select %[[YNEG]], %{{.*}}, %[[MAG]] : f32
// CHECK-NOT: math.atan2
// CHECK: arith.select %[[ORIGIN]], %[[SIGNED]], %{{.*}} : f32
func.func @atan2_origin(%y: f32, %x: f32) -> f32 {
  %r = math.atan2 %y, %x : f32
  return %r : f32
}
