// The LLVM stage over inkwell writes the assembly upstream's gpu-module-to-binary{format=isa}
// writes, byte for byte: PTX at O2 and O3 for sm_90a and sm_80, AMDGCN for gfx942 (the
// code-object version flag), on kernels whose loops LLVM unrolls and vectorizes. Upstream's objects
// carry a timing property (LLVMIRToISATimeInMs) that ours leave out; it is removed before comparing.
// RUN: tile-opt %s -tile-gpu-module-to-isa > %t.ours
// RUN: tile-opt %s -gpu-module-to-binary=format=isa | sed -e 's/LLVMIRToISATimeInMs = [0-9]* : i64, //' > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours
// CHECK: gpu.binary @hopper [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {O = 3 : i32}, assembly = "{{.*}}.target sm_90a
// CHECK: gpu.binary @ampere [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_80
// CHECK: gpu.binary @cdna3 [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}.amdhsa_code_object_version 6
module attributes {gpu.container_module} {
  gpu.module @hopper [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
    llvm.func @saxpy(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %a: f32, %n: i64) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      llvm.br ^loop(%c0 : i64)
    ^loop(%i: i64):
      %more = llvm.icmp "slt" %i, %n : i64
      llvm.cond_br %more, ^body, ^done
    ^body:
      %px = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %py = llvm.getelementptr %y[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %vx = llvm.load %px : !llvm.ptr<1> -> f32
      %vy = llvm.load %py : !llvm.ptr<1> -> f32
      %ax = llvm.fmul %a, %vx : f32
      %s = llvm.fadd %ax, %vy : f32
      llvm.store %s, %py : f32, !llvm.ptr<1>
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next : i64)
    ^done:
      llvm.return
    }
  }
  gpu.module @ampere [#nvvm.target<chip = "sm_80", features = "+ptx80">] {
    llvm.func @sum(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      %c64 = llvm.mlir.constant(64 : i64) : i64
      %zero = llvm.mlir.constant(0.0 : f32) : f32
      llvm.br ^loop(%c0, %zero : i64, f32)
    ^loop(%i: i64, %acc: f32):
      %more = llvm.icmp "slt" %i, %c64 : i64
      llvm.cond_br %more, ^body, ^done
    ^body:
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s = llvm.fadd %acc, %v : f32
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next, %s : i64, f32)
    ^done:
      llvm.store %acc, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @cdna3 [#rocdl.target<chip = "gfx942">] {
    llvm.func @scale(%x: !llvm.ptr<1>, %a: f32) attributes {rocdl.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      %c32 = llvm.mlir.constant(32 : i64) : i64
      llvm.br ^loop(%c0 : i64)
    ^loop(%i: i64):
      %more = llvm.icmp "slt" %i, %c32 : i64
      llvm.cond_br %more, ^body, ^done
    ^body:
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s = llvm.fmul %v, %a : f32
      llvm.store %s, %p : f32, !llvm.ptr<1>
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next : i64)
    ^done:
      llvm.return
    }
  }
}
