// The asynchronous-copy ops (what tile-expand-pipelines writes) print and parse back.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @ring
// CHECK: %[[RING:.*]] = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: %[[SLOT:.*]] = tile.slot %[[RING]][%{{.*}}] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}], %[[SLOT]], %[[FULL]][%{{.*}}] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: tile.arrive %[[FULL]][%{{.*}}] : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: tile.wait %[[FULL]][%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
func.func @ring(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %s = tile.slot %ring[%c1] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.copy_async %K[%c0, %c0], %s, %full[%c1] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    tile.arrive %full[%c1] : memref<2xi64, #gpu.address_space<workgroup>>
    tile.wait %full[%c1], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// N-D tensors as tile.copy takes them: the tile in the trailing dimensions.
// CHECK-LABEL: func.func @heads
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] : memref<2x4x1000x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
func.func @heads(%K: memref<2x4x1000x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<3x64x64xbf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<3xi64, #gpu.address_space<workgroup>>
    %s = tile.slot %ring[%c0] : memref<3x64x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    tile.copy_async %K[%c1, %c0, %c0, %c0], %s, %full[%c0] : memref<2x4x1000x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  }
  return
}
