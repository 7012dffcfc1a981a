// tile-expand-matmuls: a matmul its target's kernels cannot take is a located error at it.
// RUN: tile-opt %s -split-input-file -tile-expand-matmuls -verify-diagnostics

// wgmma reads 8-bit operands K-major only: B must come as N x K.
module attributes {tile.target = "sm_90a"} {
  func.func @fp8_b_as_k_by_n(%A: memref<?x512xf8E4M3FN>, %B: memref<512x384xf8E4M3FN>, %C: memref<?x384xf32>) {
    // expected-error @+1 {{'tile.matmul' op expects B as NxK (transpose_b) for 8-bit inputs on sm_90a: wgmma reads 8-bit operands K-major only (give the weight as a linear layer stores it)}}
    tile.matmul %A, %B, %C : memref<?x512xf8E4M3FN>, memref<512x384xf8E4M3FN>, memref<?x384xf32>
    return
  }
}

// -----

// The pass needs the module's target.
// expected-error @+1 {{tile-expand-matmuls failed: needs the target}}
module {
  func.func @no_target(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
    tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>
    return
  }
}
