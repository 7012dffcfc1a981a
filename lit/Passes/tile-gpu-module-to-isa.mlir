// tile-gpu-module-to-isa: each gpu.module becomes a gpu.binary of its targets' assembly, as
// gpu-module-to-binary{format=isa} makes it, through the LLVM stage in Rust over inkwell: AMDGCN and
// PTX modules compile on target machines each thread keeps (the second module below reuses the
// first's); other targets go through their own serializer.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-gpu-module-to-isa | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-gpu-module-to-isa -mlir-disable-threading | FileCheck %s
// The same checks hold for upstream's pass:
// RUN: tile-opt %s -split-input-file -verify-diagnostics -gpu-module-to-binary=format=isa | FileCheck %s

// Two gfx942 modules: each its own binary, each with its own kernel's code.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.binary @first [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}amdgcn-amd-amdhsa--gfx942{{.*}}first_kernel:{{.*}}v_add_f32
// CHECK: gpu.binary @second [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}second_kernel:{{.*}}v_mul_f32
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @first [#rocdl.target<chip = "gfx942">] {
    llvm.func @first_kernel(%p: !llvm.ptr<1>, %x: f32) attributes {rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s = llvm.fadd %v, %x : f32
      llvm.store %s, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @second [#rocdl.target<chip = "gfx942">] {
    llvm.func @second_kernel(%p: !llvm.ptr<1>, %x: f32) attributes {rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s = llvm.fmul %v, %x : f32
      llvm.store %s, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// An NVPTX module goes through the LLVM stage over inkwell: PTX, with the optimization level among
// the object's properties.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.binary @ptx [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{.*}}.target sm_90a{{.*}}.entry nv_kernel
module attributes {gpu.container_module} {
  gpu.module @ptx [#nvvm.target<chip = "sm_90a">] {
    llvm.func @nv_kernel(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A module without targets: an error at it, as upstream's pass gives.
module attributes {gpu.container_module} {
  // expected-error @below {{the module has no target attributes}}
  gpu.module @untargeted {
    llvm.func @f() {
      llvm.return
    }
  }
}
