// tile-vector-to-scf: upstream's convert-vector-to-scf patterns where the module holds a vector
// transfer or vector.print (a 2-D transfer_read becomes a loop over rows of 1-D reads, and the
// greedy driver folds the module's other ops, as upstream's pass does); a module without one is
// left as it is, its foldable ops included.
// RUN: tile-opt %s -split-input-file -tile-vector-to-scf | FileCheck %s
// RUN: tile-opt %s -split-input-file -convert-vector-to-scf | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: func.func @transfer
// CHECK-NOT: vector.transfer_read {{.*}} vector<4x8xf32>
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<8xf32>
// CHECK-NOT: arith.addi
// UPSTREAM-LABEL: func.func @transfer
// UPSTREAM: scf.for
// UPSTREAM: vector.transfer_read {{.*}} vector<8xf32>
// UPSTREAM-NOT: arith.addi
func.func @transfer(%m: memref<16x16xf32>, %i: index) -> (vector<4x8xf32>, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %i], %pad : memref<16x16xf32>, vector<4x8xf32>
  %s = arith.addi %c1, %c2 : index
  return %v, %s : vector<4x8xf32>, index
}

// -----

// CHECK-LABEL: func.func @no_transfer
// CHECK: vector.load
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: return %{{.*}}, %[[SUM]]
// UPSTREAM-LABEL: func.func @no_transfer
// UPSTREAM-NOT: arith.addi
func.func @no_transfer(%m: memref<16x16xf32>, %i: index) -> (vector<8xf32>, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = vector.load %m[%i, %i] : memref<16x16xf32>, vector<8xf32>
  %s = arith.addi %c1, %c2 : index
  return %v, %s : vector<8xf32>, index
}
