// A foreign gpu.launch the SPIR-V pipeline cannot lower is an error at it (exit status 1), never a
// half-lowered module: SPIR-V entry points need a constant workgroup size.
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile-to-spirv)' 2>&1 | FileCheck %s

// CHECK: foreign-gpu-code-invalid.mlir:[[# @LINE + 3]]:3: error: 'gpu.func' op expects a known block size (a gpu.launch with constant threads) to be lowered to SPIR-V, but got none
func.func @dynamic_threads(%A: memref<64xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    memref.store %v, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
