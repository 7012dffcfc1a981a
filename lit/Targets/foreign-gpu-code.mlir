// The target pipelines take modules that another frontend also put upstream GPU code in: its
// gpu.launch is outlined and lowered with the tile kernels (never left behind with exit status 0),
// and the tile kernel's launch manifest survives as the tile.manifest attribute of its gpu.binary
// (NVIDIA, AMD) or spirv.module.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm)' | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl)' | FileCheck %s --check-prefix=ROCDL
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-spirv)' | FileCheck %s --check-prefix=SPIRV
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-spirv{chip=spirv-coopmat})' | FileCheck %s --check-prefix=SPIRV

// NVVM-DAG: gpu.binary @other_kernel [#gpu.object<#nvvm.target
// NVVM-DAG: gpu.binary @scale_0_module {tile.manifest = "{\22version\22: 2, {{.*}}\22entry\22: \22scale_0_kernel\22{{.*}}\22target\22: \22sm_90a\22
// NVVM-DAG: llvm.func @other
// NVVM-NOT: gpu.launch blocks
// NVVM-NOT: tile.manifests

// ROCDL-DAG: gpu.binary @other_kernel [#gpu.object<#rocdl.target
// ROCDL-DAG: gpu.binary @scale_0_module {tile.manifest = "{{.*}}\22target\22: \22gfx942\22
// ROCDL-DAG: llvm.func @other
// ROCDL-NOT: gpu.launch blocks
// ROCDL-NOT: tile.manifests

// SPIRV-DAG: spirv.module @__spv__other_kernel
// SPIRV-DAG: spirv.func @other_kernel
// SPIRV-DAG: spirv.module @__spv__scale_0_module {{.*}}tile.manifest = "{{.*}}\22entry\22: \22scale_0_kernel\22
// SPIRV-NOT: gpu.launch blocks
// SPIRV-NOT: tile.manifests

func.func @scale(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%bx, %bx], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Y[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// Another frontend's kernel, as upstream writes it.
func.func @other(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
