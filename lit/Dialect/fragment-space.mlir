// #tile.fragment is an ordinary memref memory space: it appears in function signatures and with
// layouts, prints as written, and is recognised as the fragment level.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s
// RUN: tile-opt %s -split-input-file -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%{{.*}}: memref<16x16xf32, #tile.fragment>)
// GENERIC: function_type = (memref<16x16xf32, #tile.fragment>) -> ()
func.func @signature(%f: memref<16x16xf32, #tile.fragment>) {
  return
}

// -----

// A strided layout with the fragment space; the tile op sees the level, not the layout.
// CHECK-LABEL: func.func @layout
// CHECK: tile.alloc_fragment : memref<16x16xf32, strided<[1, 16]>, #tile.fragment>
func.func @layout(%n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<16x16xf32, strided<[1, 16]>, #tile.fragment>
    tile.fill %f, %zero : memref<16x16xf32, strided<[1, 16]>, #tile.fragment>
  }
  return
}
