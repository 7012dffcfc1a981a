// tile-infer-layouts: the layout a tile.reduce gives its destination (the source's layout with the
// reduced dimension projected away) is valid even where a blocked source's rows do not divide the
// threads evenly (found by the program generator, seed 101 program 2).
// RUN: tile-opt %s -split-input-file -tile-infer-layouts | FileCheck %s

// 32x24 on 32 threads: rows of 6 four-element chunks, so column 0 (row 0) and column 8 (row 5) both
// land on thread 0 in slot 0 of the source's first row; the column vector was given those slots and
// failed its own verifier. Each column now has a slot of its own.
// CHECK-LABEL: func.func @column_slice_of_uneven_rows
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [32, 24], threads = 32, {{.*}} origin = "blocked">}
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [24], threads = 32, replicate = 32,
// CHECK-SAME: thread = (d0)[s0] -> ((d0 floordiv 4 + s0 * 6) mod 32), slot = (d0) -> (d0), origin = "slice(blocked)">}
module attributes {tile.target = "spirv"} {
func.func @column_slice_of_uneven_rows(%X: memref<32x24xf32>, %Y: memref<24xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<32x24xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<24xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<32x24xf32>, memref<32x24xf32, #tile.fragment>
    tile.reduce <sum> %F, %s dim(0) : memref<32x24xf32, #tile.fragment>, memref<24xf32, #tile.fragment>
    tile.copy %s, %Y[%c0] : memref<24xf32, #tile.fragment>, memref<24xf32>
  }
  return
}
}

// -----

// Negative case: where the first element's slot is each thread's own (64 columns in chunks of 4 on
// 32 threads: 16 chunks a row, which divide the threads), the slice keeps the source's slots and
// does not take a register per column.
// CHECK-LABEL: func.func @column_slice_of_even_rows
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [8, 64], threads = 32, {{.*}} origin = "blocked">}
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 32, replicate = 8,
// CHECK-SAME: thread = (d0)[s0] -> ((d0 floordiv 4 + s0 * 16) mod 32), slot = (d0) -> (d0 mod 4), origin = "slice(blocked)">}
module attributes {tile.target = "spirv"} {
func.func @column_slice_of_even_rows(%X: memref<8x64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<8x64xf32>, memref<8x64xf32, #tile.fragment>
    tile.reduce <max> %F, %s dim(0) : memref<8x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %s, %Y[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}
