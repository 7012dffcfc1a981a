// Host code of a dialect a target pipeline does not lower (affine, linalg, tensor) is an error at
// the op left, never a module that exits 0 half lowered: the NVIDIA and AMD pipelines leave LLVM IR,
// tile-to-spirv leaves host code in the dialects a host lowers to LLVM.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-nvvm)' -o /dev/null
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_80})' -o /dev/null
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-rocdl)' -o /dev/null
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-spirv)' -o /dev/null
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-spirv{chip=spirv-coopmat})' -o /dev/null

func.func @host_fill(%A: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'linalg.fill' op was left unlowered by}}
  linalg.fill ins(%zero : f32) outs(%A : memref<64xf32>)
  return
}

// -----

func.func @scale(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.copy %x, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'linalg.fill' op was left unlowered by}}
  linalg.fill ins(%zero : f32) outs(%X : memref<64xf32>)
  return
}
