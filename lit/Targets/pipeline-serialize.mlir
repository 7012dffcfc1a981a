// The target pipelines' `serialize` option: `serialize=false` stops before LLVM's code generation,
// leaving each kernel a gpu.module in the LLVM dialect (what the code generator would read) beside
// host code in LLVM IR; the default turns the kernels into gpu.binary code. SPIR-V's pipelines
// serialize nothing either way.
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_80 serialize=false})' | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_90a serialize=false})' | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx942 serialize=false})' | FileCheck %s --check-prefix=GFX942
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_80})' | FileCheck %s --check-prefix=BINARY
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-spirv{chip=spirv serialize=false})' | FileCheck %s --check-prefix=SPIRV
// RUN: tile-opt %examples/grouped_gemm.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_90a serialize=false})' | tile-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: not tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_80 serialize=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD

// The host function launches the kernel module, which holds the kernel in LLVM IR with its 64
// mma.sync a loop trip, and the manifest.
// SM80-NOT: gpu.binary
// SM80: llvm.func @gemm_relu(
// SM80: gpu.launch_func @gemm_relu_0_module::@gemm_relu_0_kernel
// SM80: gpu.module @gemm_relu_0_module [#nvvm.target<chip = "sm_80"
// SM80-SAME: tile.manifest
// SM80: llvm.func @gemm_relu_0_kernel(
// SM80-COUNT-64: nvvm.mma.sync
// SM80-NOT: tile.

// SM90-NOT: gpu.binary
// SM90: gpu.module @gemm_relu_0_module [#nvvm.target<chip = "sm_90a"
// SM90: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// SM90-NOT: tile.

// GFX942-NOT: gpu.binary
// GFX942: gpu.module @gemm_relu_0_module [#rocdl.target<
// GFX942: rocdl.mfma
// GFX942-NOT: tile.

// BINARY-NOT: gpu.module
// BINARY: gpu.binary @gemm_relu_0_module
// BINARY-NOT: gpu.module

// SPIRV: spirv.module
// SPIRV-NOT: gpu.binary

// What the pipeline leaves parses again: a persistent kernel's launch bounds hold each key once.
// ROUNDTRIP: llvm.func @grouped_gemm_0_kernel(
// ROUNDTRIP-SAME: nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32

// BAD: 'maybe' is invalid value for boolean argument
// BAD: error: failed to add `tile-to-nvvm` with options `chip=sm_80 serialize=maybe`
