// tile-to-nvvm{chip=...}: the registered pipeline from tile IR to a gpu.binary of PTX, in tile-opt and
// in stock mlir-opt with the plugin.
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_90a})' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin --load-pass-plugin=%tile_plugin %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_90a})' | FileCheck %s
// RUN: not tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_75})' 2>&1 | FileCheck %s --check-prefix=CHIP
// A target pipeline nested under another op is an error at that op, not an abort (tile-opt and the
// plugin in mlir-opt alike).
// RUN: not tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(func.func(tile-to-nvvm))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not mlir-opt --load-dialect-plugin=%tile_plugin --load-pass-plugin=%tile_plugin %examples/gemm_relu.mlir --pass-pipeline='builtin.module(func.func(tile-to-spirv{chip=spirv}))' 2>&1 | FileCheck %s --check-prefix=NESTED-SPIRV
// Without chip, each pipeline compiles for its first: sm_90a here, plain SPIR-V for tile-to-spirv.
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm)' | FileCheck %s
// RUN: tile-opt %examples/softmax.mlir --pass-pipeline='builtin.module(tile-to-spirv)' | FileCheck %s --check-prefix=SPIRV

// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm)' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-nvvm)' | FileCheck %s --check-prefix=HOST
// The host is LLVM too: the tensor maps and the launch through MLIR's CUDA runtime wrappers.
// HOST: llvm.func @gemm_relu(
// HOST: llvm.call @mgpuTensorMapEncodeTiledMemref
// HOST: gpu.launch_func @gemm_relu_0_module::@gemm_relu_0_kernel
// CHECK: gpu.binary @gemm_relu_0_module
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NOT: tile.kernel

// SPIRV: spirv.module @__spv__softmax_0_module Logical GLSL450

// LLVMIR: call ptr @mgpuTensorMapEncodeTiledMemref
// LLVMIR: call void @mgpuLaunchKernel

// CHIP: error: tile-to-nvvm failed: chip sm_75 is not supported yet; supported: sm_90a, sm_80
// NESTED: gemm_relu.mlir:{{[0-9]+}}:1: error: tile-to-nvvm failed: runs on a builtin.module, but was nested in func.func: write builtin.module(tile-to-nvvm{chip=...})
// NESTED-SPIRV: error: tile-to-spirv failed: runs on a builtin.module, but was nested in func.func: write builtin.module(tile-to-spirv{chip=...})
