// Stock mlir-opt with the plugin parses, verifies and prints tile IR, in custom and generic form.
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin %s | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin %s -mlir-print-op-generic | mlir-opt --load-dialect-plugin=%tile_plugin | FileCheck %s
// The same printed text is what tile-opt prints.
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin %s > %t.stock
// RUN: tile-opt %s > %t.ours
// RUN: diff %t.stock %t.ours

// CHECK-LABEL: func.func @plugin_kernel
// CHECK: tile.kernel grid(%{{.*}}) threads(128) (%{{.*}}) {
// CHECK-NEXT: %[[F:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK-NEXT: %[[M:.*]] = tile.alloc_fragment : memref<64xf32, #tile.fragment>
// CHECK-NEXT: tile.fill %[[F]], %{{.*}} : memref<64x64xf32, #tile.fragment>
// CHECK-NEXT: tile.reduce <max> %[[F]], %[[M]] dim(1)
// CHECK-NEXT: tile.copy %[[F]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment>, memref<?x?xf16>
func.func @plugin_kernel(%C: memref<?x?xf16>, %n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.reduce <max> %F, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
