// tile-math-to-nvptx: f32 math ops become LLVM/NVPTX intrinsics, so no libdevice is needed.
// RUN: tile-opt %s -split-input-file -tile-math-to-nvptx | FileCheck %s

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

// Negative: other element types keep their math ops (upstream lowers them).
// CHECK-LABEL: func.func @f64_untouched
// CHECK: math.exp %{{.*}} : f64
func.func @f64_untouched(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}

// -----

// Half absolute values (what tile.reduce <absmax> on an f16 tile lowers to) use llvm.fabs too:
// upstream would call __nv_fabsf, unresolved without libdevice (issue 11).
// CHECK-LABEL: func.func @abs_half
// CHECK: llvm.call_intrinsic "llvm.fabs.f16"(%{{.*}}) : (f16) -> f16
// CHECK: llvm.call_intrinsic "llvm.fabs.bf16"(%{{.*}}) : (bf16) -> bf16
func.func @abs_half(%x: f16, %y: bf16) -> (f16, bf16) {
  %a = math.absf %x : f16
  %b = math.absf %y : bf16
  return %a, %b : f16, bf16
}
