// #tile.fragment is an ordinary memref memory space: it appears in function signatures, prints as
// written, and is recognised as the fragment level. (Tiles with a layout are refused:
// invalid-accesses.mlir.)
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s
// RUN: tile-opt %s -split-input-file -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%{{.*}}: memref<16x16xf32, #tile.fragment>)
// GENERIC: function_type = (memref<16x16xf32, #tile.fragment>) -> ()
func.func @signature(%f: memref<16x16xf32, #tile.fragment>) {
  return
}

