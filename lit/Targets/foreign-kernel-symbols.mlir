// An outlined kernel is named after the function its gpu.launch is in; a name PTX cannot hold (a
// space, a '/', a non-ASCII letter) is an error at the gpu.launch on the NVIDIA pipelines, where
// LLVM's PTX printer aborted the process. '.' and '@', which LLVM renames for PTX, compile.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-nvvm)' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_80})' | FileCheck %s

func.func @"a b"(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{'gpu.func' op expects a symbol PTX can name (ASCII letters, digits, '_', '$', '.', '@'), but got @"a b_kernel"}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    memref.store %v, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @"../up"(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{but got @"../up_kernel"}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    memref.store %v, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// CHECK-LABEL: gpu.binary @dotted.name_kernel
func.func @dotted.name(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    memref.store %v, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
