// Partition arguments (`tile.offsets`, `tile.sizes` on host function arguments) print back as
// written, and the manifest of every kernel of their function carries the launcher's check.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s
// RUN: rm -rf %t && tile-compile %s --target sm_90a -o %t
// RUN: FileCheck %s --check-prefix=OFFSETS < %t/first_rows_0_kernel.json
// RUN: FileCheck %s --check-prefix=SIZES < %t/first_rows_of_groups_1_kernel.json

// CHECK-LABEL: func.func @first_rows
// CHECK-SAME: %{{.*}}: memref<4xi32> {tile.offsets = array<i64: 0, 0>}
// OFFSETS: "checks": [{"argument": 1, "partition": "offsets", "within": {"dim": [0, 0]}}]
func.func @first_rows(%X: memref<?x64xf32>, %Offsets: memref<4xi32> {tile.offsets = array<i64: 0, 0>}, %Y: memref<3x64xf32>) {
  %c3 = arith.constant 3 : index
  tile.kernel grid(%c3) threads(64) (%b) {
    %first = memref.load %Offsets[%b] : memref<4xi32>
    %row = arith.index_cast %first : i32 to index
    tile.parallel (%d) in (64) {
      %v = memref.load %X[%row, %d] : memref<?x64xf32>
      memref.store %v, %Y[%b, %d] : memref<3x64xf32>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @first_rows_of_groups
// CHECK-SAME: %{{.*}}: memref<?xi64> {tile.sizes = array<i64: 2, 1>}
// SIZES: "checks": [{"argument": 1, "partition": "sizes", "within": {"dim": [2, 1]}}]
func.func @first_rows_of_groups(%X: memref<64x?xf32>, %Sizes: memref<?xi64> {tile.sizes = array<i64: 2, 1>}, %Y: memref<64x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %groups = memref.dim %Sizes, %c0 : memref<?xi64>
  tile.kernel grid(%groups) threads(64) (%g) {
    %size = memref.load %Sizes[%g] : memref<?xi64>
    tile.parallel (%d) in (64) {
      %s = arith.sitofp %size : i64 to f32
      memref.store %s, %Y[%d, %g] : memref<64x?xf32>
    }
  }
  return
}
