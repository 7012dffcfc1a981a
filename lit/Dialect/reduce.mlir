// tile.reduce: every kind, either dimension, shared or fragment sources, down to a scalar.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// The online-softmax pattern: running max and sum combine with what the result holds.
// CHECK-LABEL: func.func @online_softmax_statistics
// CHECK: tile.reduce <max> %[[S:.*]], %[[M:.*]] dim(1) {clear = false} : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
// CHECK: tile.reduce <sum> %[[S]], %{{.*}} dim(1) {clear = false}
func.func @online_softmax_statistics(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.reduce <sum> %S, %l dim(1) {clear = false} : memref<64x128xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// Column reductions of a shared tile into shared memory, in half precision.
// CHECK-LABEL: func.func @shared_columns
// CHECK: tile.reduce <abssum> %{{.*}}, %{{.*}} dim(0) : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.reduce <min> %{{.*}}, %{{.*}} dim(0) : memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
func.func @shared_columns(%n: index) {
  tile.kernel grid(%n) threads(64) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %T = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %r = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.reduce <abssum> %S, %r dim(0) : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64xf16, #gpu.address_space<workgroup>>
    tile.reduce <min> %T, %f dim(0) : memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// A 1-D tile reduces to a rank-0 result.
// CHECK-LABEL: func.func @to_scalar
// CHECK: tile.reduce <absmax> %{{.*}}, %{{.*}} dim(0) : memref<256xf32, #tile.fragment>, memref<f32, #tile.fragment>
func.func @to_scalar(%n: index) {
  tile.kernel grid(%n) threads(256) (%bx) {
    %v = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<f32, #tile.fragment>
    tile.reduce <absmax> %v, %s dim(0) : memref<256xf32, #tile.fragment>, memref<f32, #tile.fragment>
  }
  return
}
