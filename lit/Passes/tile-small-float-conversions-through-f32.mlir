// tile-small-float-conversions-through-f32: a conversion between a type the target emulates and
// f16 or bf16 becomes two, through f32, which arith-emulate-unsupported-floats can take (it gives
// the emulated side f32, which turned `truncf f16 -> f8E4M3FN` into an invalid
// `truncf f16 -> f32`). Conversions from or to f32 or f64, and those of types the target has, stay.
// RUN: tile-opt %s -split-input-file -tile-small-float-conversions-through-f32 | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-small-float-conversions-through-f32 -arith-emulate-unsupported-floats="source-types=bf16,f8E4M3FN target-type=f32" -tile-emulate-small-floats | FileCheck %s --check-prefix=EMULATED

// Without a target (the CPU reference): f8E4M3FN. f16 and bf16 widen to f32 exactly.
// CHECK-LABEL: func.func @f8_from_and_to_other_floats
// CHECK-SAME: (%[[H:.*]]: f16, %[[B:.*]]: bf16, %[[D:.*]]: f64, %[[F:.*]]: f32)
// CHECK: %[[HW:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[H8:.*]] = arith.truncf %[[HW]] : f32 to f8E4M3FN
// CHECK: %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[B8:.*]] = arith.truncf %[[BW]] : f32 to f8E4M3FN
// CHECK: %[[D8:.*]] = arith.truncf %[[D]] : f64 to f8E4M3FN
// CHECK: %[[F8:.*]] = arith.truncf %[[F]] : f32 to f8E4M3FN
// CHECK: %[[BACK:.*]] = arith.extf %[[H8]] : f8E4M3FN to f32
// CHECK: %[[BACK16:.*]] = arith.truncf %[[BACK]] : f32 to f16
// CHECK: %[[BBACK:.*]] = arith.extf %[[B8]] : f8E4M3FN to f32
// CHECK: %[[BBACK16:.*]] = arith.truncf %[[BBACK]] : f32 to bf16
// CHECK: %[[WIDE:.*]] = arith.extf %[[D8]] : f8E4M3FN to f64
// CHECK: %[[SAME:.*]] = arith.extf %[[F8]] : f8E4M3FN to f32
// CHECK: return %[[BACK16]], %[[BBACK16]], %[[WIDE]], %[[SAME]]
// Then upstream's pass and ours leave no 8-bit float, and the module verifies.
// EMULATED-LABEL: func.func @f8_from_and_to_other_floats
// EMULATED-NOT: f8E4M3FN
// EMULATED: return
func.func @f8_from_and_to_other_floats(%h: f16, %b: bf16, %d: f64, %f: f32) -> (f16, bf16, f64, f32) {
  %h8 = arith.truncf %h : f16 to f8E4M3FN
  %b8 = arith.truncf %b : bf16 to f8E4M3FN
  %d8 = arith.truncf %d : f64 to f8E4M3FN
  %f8 = arith.truncf %f : f32 to f8E4M3FN
  %back = arith.extf %h8 : f8E4M3FN to f16
  %bback = arith.extf %b8 : f8E4M3FN to bf16
  %wide = arith.extf %d8 : f8E4M3FN to f64
  %same = arith.extf %f8 : f8E4M3FN to f32
  return %back, %bback, %wide, %same : f16, bf16, f64, f32
}

// -----

// sm_90a emulates only f8E4M3FN: bf16 <-> f32 stays as written.
// CHECK-LABEL: func.func @bf16_on_sm90a
// CHECK-NEXT: %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: return %[[N]]
module attributes {tile.target = "sm_90a"} {
func.func @bf16_on_sm90a(%h: bf16) -> bf16 {
  %w = arith.extf %h : bf16 to f32
  %n = arith.truncf %w : f32 to bf16
  return %n : bf16
}
}
