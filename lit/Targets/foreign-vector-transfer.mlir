// Another frontend's kernel with 2-D vector transfers (one of them transposing) goes through the
// NVIDIA and AMD pipelines: tile-vector-to-scf lowers them to loops of 1-D transfers (and a
// vector.transpose) as upstream's convert-vector-to-scf did, while the tile kernels, which hold no
// transfer, skip it (lit Passes/tile-vector-to-scf.mlir); the NVIDIA backend's
// convert-vector-to-llvm then takes what convert-gpu-to-nvvm does not (the loops' vector.type_cast
// of a private vector, the transpose), which failed translation to LLVM IR before.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-nvvm)' | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl)' | FileCheck %s --check-prefix=ROCDL

// NVVM: gpu.binary @transpose_kernel [#gpu.object<#nvvm.target
// NVVM-NOT: gpu.launch blocks
// ROCDL: gpu.binary @transpose_kernel [#gpu.object<#rocdl.target
// ROCDL-NOT: gpu.launch blocks
func.func @transpose(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %t = vector.transfer_read %A[%c0, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32>, vector<8x8xf32>
    vector.transfer_write %t, %B[%c0, %c0] : vector<8x8xf32>, memref<8x8xf32>
    gpu.terminator
  }
  return
}
