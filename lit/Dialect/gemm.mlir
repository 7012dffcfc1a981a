// tile.gemm: the shapes and types tensor cores take, with the transpose flags.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// The Hopper-class tile: 128x256x64 with B given as NxK (transpose_b).
// CHECK-LABEL: func.func @hopper_tile
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<256x64xbf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
func.func @hopper_tile(%n: index) {
  tile.kernel grid(%n) threads(256) (%bx) {
    %A = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<256x64xbf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.gemm %A, %B, %C {transpose_b} : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<256x64xbf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  return
}

// -----

// Both operands transposed: A is KxM, B is NxK.
// CHECK-LABEL: func.func @both_transposed
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_a, transpose_b}
func.func @both_transposed(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    tile.gemm %A, %B, %C {transpose_a, transpose_b} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
  }
  return
}

// -----

// fp8 inputs accumulate in f32; A may come from registers (the attention P*V pattern).
// CHECK-LABEL: func.func @fp8_register_a
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
func.func @fp8_register_a(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %P = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
    %V = tile.alloc_shared : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %O = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.gemm %P, %V, %O : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
  }
  return
}
