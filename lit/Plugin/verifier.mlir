// The Rust verifiers run inside stock mlir-opt too, and their diagnostics are located.
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin %s -split-input-file -verify-diagnostics
// RUN: not mlir-opt --load-dialect-plugin=%tile_plugin %s -split-input-file 2>&1 | FileCheck %s

// CHECK: verifier.mlir:[[# @LINE + 3]]:3: error: 'tile.kernel' op expects threads to be a positive multiple of 32 and at most 1024, but got 48
func.func @threads(%n: index) {
  // expected-error @+1 {{expects threads to be a positive multiple of 32 and at most 1024, but got 48}}
  tile.kernel grid(%n) threads(48) (%bx) {
  }
  return
}

// -----

// CHECK: verifier.mlir:[[# @LINE + 3]]:8: error: 'tile.alloc_shared' op expects to be nested in a tile.kernel
func.func @outside() {
  // expected-error @+1 {{expects to be nested in a tile.kernel}}
  %s = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  return
}
