// tile-check-external-calls: a call from a GPU kernel module to a function without a body that is
// not an LLVM intrinsic is an error at the call (which upstream's conversions locate at the op that
// needed it), naming the op, the target and what compiles instead; so is a math op left unconverted.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-external-calls

// libdevice's __nv_erf, what an f64 math.erf becomes: refused, naming math.erf on f64 and sm_90a.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @__nv_erf(f64) -> f64
    llvm.func @kernel(%x: f64) -> f64 {
      // expected-error @below {{'math.erf' on f64 would call __nv_erf from libdevice, an external function that sm_90a kernels cannot load; compute it on f32, f16 or bf16, which tile-math-to-nvptx lowers to hardware instructions or polynomial approximations}}
      %e = llvm.call @__nv_erf(%x) : (f64) -> f64
      llvm.return %e : f64
    }
  }
}

// -----

// ROCm's __ocml_sin_f64 on gfx942: refused, pointing at tile-math-to-rocdl.
module attributes {gpu.container_module} {
  gpu.module @k [#rocdl.target<chip = "gfx942">] {
    llvm.func @__ocml_sin_f64(f64) -> f64
    llvm.func @kernel(%x: f64) -> f64 {
      // expected-error @below {{'math.sin' on f64 would call __ocml_sin_f64 from the ROCm device library, an external function that gfx942 kernels cannot load}}
      %e = llvm.call @__ocml_sin_f64(%x) : (f64) -> f64
      llvm.return %e : f64
    }
  }
}

// -----

// Any other external function: refused too, without a math op to name.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @helper(f32) -> f32
    llvm.func @kernel(%x: f32) -> f32 {
      // expected-error @below {{this call to the external function helper cannot be resolved in a sm_90a kernel (no device library is linked); call only functions defined in the kernel's module}}
      %e = llvm.call @helper(%x) : (f32) -> f32
      llvm.return %e : f32
    }
  }
}

// -----

// math.ipowi: an op that no pattern takes (no instruction, expansion or approximation), left after
// the conversion to LLVM; refused at the op rather than by the translation to LLVM IR.
module attributes {gpu.container_module} {
  gpu.module @k [#rocdl.target<chip = "gfx942">] {
    llvm.func @kernel(%x: i32) -> i32 {
      // expected-error @below {{'math.ipowi' on i32 cannot be compiled for gfx942: no instruction, expansion or polynomial approximation takes it, and no device library is linked; compute it with an integer power by arith.muli, or math.fpowi on f32}}
      %p = math.ipowi %x, %x : i32
      llvm.return %p : i32
    }
  }
}

// -----

// Negative: intrinsics, functions with a body, and host code outside gpu.module are fine.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @llvm.fabs.f32(f32) -> f32
    llvm.func @square(%x: f32) -> f32 {
      %s = llvm.fmul %x, %x : f32
      llvm.return %s : f32
    }
    llvm.func @kernel(%x: f32) -> f32 {
      %e = llvm.call @llvm.fabs.f32(%x) : (f32) -> f32
      %s = llvm.call @square(%e) : (f32) -> f32
      llvm.return %s : f32
    }
  }
  llvm.func @host_library(f32) -> f32
  llvm.func @host(%x: f32) -> f32 {
    %e = llvm.call @host_library(%x) : (f32) -> f32
    llvm.return %e : f32
  }
}

// -----

// CUDA's vprintf (what gpu.printf and tile.print become on NVIDIA chips): the driver provides it,
// so it passes; the same call on gfx942 is refused.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
    llvm.func @kernel(%format: !llvm.ptr, %arguments: !llvm.ptr) {
      %n = llvm.call @vprintf(%format, %arguments) : (!llvm.ptr, !llvm.ptr) -> i32
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k [#rocdl.target<chip = "gfx942">] {
    llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
    llvm.func @kernel(%format: !llvm.ptr, %arguments: !llvm.ptr) {
      // expected-error @below {{this call to the external function vprintf cannot be resolved in a gfx942 kernel (no device library is linked); call only functions defined in the kernel's module}}
      %n = llvm.call @vprintf(%format, %arguments) : (!llvm.ptr, !llvm.ptr) -> i32
      llvm.return
    }
  }
}
