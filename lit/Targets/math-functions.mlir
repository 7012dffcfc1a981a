// Every math function of test/programs/math_functions.mlir, and a few on f16 and bf16 (this file's
// kernel), compile into code that loads: PTX without `.extern .func` (no libdevice), AMDGCN without
// calls (no __ocml_*), SPIR-V that spirv-val accepts.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tile-compile %S/../../test/programs/math_functions.mlir --target sm_90a -o %t
// RUN: FileCheck %s --check-prefix=PTX < %t/math_functions_0_kernel.ptx
// RUN: not grep -E '\.extern|call' %t/math_functions_0_kernel.ptx
// RUN: tile-compile %S/../../test/programs/math_functions.mlir --target gfx942 -o %t
// RUN: FileCheck %s --check-prefix=GCN < %t/math_functions_0_kernel.s
// RUN: not grep -E '__ocml|s_swappc' %t/math_functions_0_kernel.s
// RUN: tile-compile %S/../../test/programs/math_functions.mlir --target spirv -o %t
// RUN: spirv-val --target-env vulkan1.3 %t/math_functions_0_kernel.spv
// RUN: tile-compile %s --target sm_90a -o %t
// RUN: FileCheck %s --check-prefix=PTX-NARROW < %t/narrow_math_0_kernel.ptx
// RUN: tile-compile %s --target gfx942 -o %t
// RUN: FileCheck %s --check-prefix=GCN-NARROW < %t/narrow_math_0_kernel.s

// PTX-NOT: .extern
// PTX-DAG: ex2.approx.f32
// PTX-DAG: lg2.approx.f32
// PTX-DAG: rsqrt.approx.f32
// PTX-DAG: tanh.approx.f32
// PTX-DAG: sin.approx.f32
// PTX-DAG: cos.approx.f32
// PTX-DAG: sqrt.rn.f32
// PTX-DAG: cvt.rmi.f32.f32
// PTX-DAG: copysign.f32
// PTX-NOT: .extern
// PTX-NOT: call

// GCN-NOT: __ocml
// GCN-DAG: v_exp_f32
// GCN-DAG: v_log_f32
// GCN-DAG: v_rsq_f32
// GCN-DAG: v_fract_f32
// GCN-DAG: v_sin_f32
// GCN-DAG: v_cos_f32
// GCN-DAG: v_sqrt_f32
// GCN-DAG: v_floor_f32
// GCN-NOT: __ocml
// GCN-NOT: s_swappc
// GCN: .has_indirect_call, 0

// PTX-NARROW-NOT: .extern
// PTX-NARROW-DAG: cvt.f32.f16
// PTX-NARROW-DAG: cvt.f32.bf16
// PTX-NARROW-DAG: tanh.approx.f32
// PTX-NARROW-DAG: ex2.approx.f32
// PTX-NARROW-NOT: .extern

// GCN-NARROW-NOT: __ocml
// GCN-NARROW-DAG: v_cvt_f32_f16
// GCN-NARROW-DAG: v_exp_f32
// GCN-NARROW-NOT: __ocml
// GCN-NARROW-NOT: s_swappc

func.func @narrow_math(%X: memref<64xf16>, %B: memref<64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    %b = tile.alloc_fragment : memref<64xbf16, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf16>, memref<64xf16, #tile.fragment>
    tile.copy %B[%c0], %b : memref<64xbf16>, memref<64xbf16, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf16, #tile.fragment>
      %e = math.exp %v : f16
      %t = math.tanh %e : f16
      %r = math.rsqrt %t : f16
      %s = math.erf %r : f16
      memref.store %s, %x[%j] : memref<64xf16, #tile.fragment>
      %w = memref.load %b[%j] : memref<64xbf16, #tile.fragment>
      %g = math.erf %w : bf16
      %c = math.cos %g : bf16
      %l = math.log1p %c : bf16
      memref.store %l, %b[%j] : memref<64xbf16, #tile.fragment>
    }
    tile.copy %x, %X[%c0] : memref<64xf16, #tile.fragment>, memref<64xf16>
    tile.copy %b, %B[%c0] : memref<64xbf16, #tile.fragment>, memref<64xbf16>
  }
  return
}
