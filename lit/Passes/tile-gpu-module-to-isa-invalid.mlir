// tile-gpu-module-to-isa refuses, at the module, an AMDGCN module that calls ROCm's device
// libraries, which its LLVM stage does not link (tile's kernels lower their math to ROCDL).
// RUN: tile-opt %s -verify-diagnostics -tile-gpu-module-to-isa

module attributes {gpu.container_module} {
  // expected-error @below {{calls ROCm device-library functions (__ocml_sin_f32), which the LLVM stage does not link: lower the math ops to ROCDL instead (tile-math-to-rocdl)}}
  gpu.module @library [#rocdl.target<chip = "gfx942">] {
    llvm.func @__ocml_sin_f32(f32) -> f32
    llvm.func @library_kernel(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s = llvm.call @__ocml_sin_f32(%v) : (f32) -> f32
      llvm.store %s, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

