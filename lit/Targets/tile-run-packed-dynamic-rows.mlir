// A 4-bit tensor of dynamic shape read past its first row (the fuzzer's seed 2034, case 3260): its
// bytes are bound as a runtime array on SPIR-V, whose row length the launch computes from the
// tensor's size in bytes (two elements to a byte), as the packed kernel counts it. Rows of 128
// elements: an even count (odd 4-bit rows do not start on a byte).
// RUN: tile-run %s --target vulkan --check --dynamic-size 128 | FileCheck %s
// CHECK: check %arg1: match
func.func @packed_dynamic_rows(%Q: memref<?x?xi4>, %O: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %Q, %c1 : memref<?x?xi4>
  %blocks = arith.divui %n, %c64 : index
  tile.kernel grid(%blocks) threads(64) (%b) {
    tile.parallel (%j) in (64) {
      %row = arith.constant 1 : index
      %col = arith.muli %b, %c64 : index
      %at = arith.addi %col, %j : index
      %q = memref.load %Q[%row, %at] : memref<?x?xi4>
      %f = arith.sitofp %q : i4 to f32
      memref.store %f, %O[%at] : memref<?xf32>
    }
  }
  return
}
