// An error never dumps IR at the user (issue 11): upstream's "block with no terminator, has <op>"
// keeps the op's first line, and no error prints the op it concerns ("see current operation").
// RUN: not tile-opt %s 2>&1 | FileCheck %s
// RUN: not tile-compile %s --target spirv -o %t 2>&1 | FileCheck %s

// CHECK: no-ir-dump.mlir:[[# @LINE + 5]]:3: error: block with no terminator, has{{ ?}}"tile.kernel"(%{{.*}}) <{threads = 32 : i64}> ({ ({{[0-9]+}} more lines of IR omitted)
// CHECK-NOT: tile.yield
// CHECK-NOT: see current operation
func.func @no_return(%n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.fill %f, %zero : memref<32xf32, #tile.fragment>
  }
}
