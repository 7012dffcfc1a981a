// tile.scan: sums, maxima and minima along either dimension of fragments and shared tiles,
// inclusive and exclusive, in place or into another tile; it prints back as it parses.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @kinds_and_dimensions
// CHECK: tile.scan <sum> %[[F:.*]], %[[G:.*]] dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
// CHECK: tile.scan <max> %[[F]], %[[G]] dim(0) {exclusive} : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
// CHECK: tile.scan <min> %[[F]], %[[F]] dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
func.func @kinds_and_dimensions(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    tile.scan <sum> %F, %G dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
    tile.scan <max> %F, %G dim(0) {exclusive} : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
    tile.scan <min> %F, %F dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
  }
  return
}

// -----

// A chunk's cumulative sum of 16-bit steps in a shared tile, and into a fragment.
// CHECK-LABEL: func.func @shared_and_sixteen_bit
// CHECK: tile.scan <sum> %{{.*}}, %{{.*}} dim(0) : memref<256xf16, #gpu.address_space<workgroup>>, memref<256xf16, #tile.fragment>
func.func @shared_and_sixteen_bit(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %S = tile.alloc_shared : memref<256xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<256xf16, #tile.fragment>
    tile.scan <sum> %S, %F dim(0) : memref<256xf16, #gpu.address_space<workgroup>>, memref<256xf16, #tile.fragment>
  }
  return
}
