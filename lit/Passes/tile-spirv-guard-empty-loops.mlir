// tile-spirv-guard-empty-loops: an scf.for with results whose bounds do not show that it runs puts
// itself under an scf.if on its trip count (slt, or ult for unsignedCmp loops) whose else branch
// yields the initial values; a loop whose constant bounds run it, and a loop without results,
// stay as they are.
// RUN: tile-opt %s -split-input-file -tile-spirv-guard-empty-loops | FileCheck %s

// CHECK-LABEL: gpu.func @dynamic_bound
// CHECK: %[[GO:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : index
// CHECK: %[[R:.*]]:2 = scf.if %[[GO]] -> (f32, f32) {
// CHECK:   %[[L:.*]]:2 = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%{{.*}} = %[[A:.*]], %{{.*}} = %[[B:.*]]) -> (f32, f32) {
// CHECK:   scf.yield %[[L]]#0, %[[L]]#1 : f32, f32
// CHECK: } else {
// CHECK:   scf.yield %[[A]], %[[B]] : f32, f32
// CHECK: memref.store %[[R]]#1, %arg0
// CHECK: memref.store %[[R]]#0, %arg0
module attributes {gpu.container_module} {
  gpu.module @dynamic_bound {
    gpu.func @dynamic_bound(%out: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %a = arith.constant 1.0 : f32
      %b = arith.constant 2.0 : f32
      %n = gpu.block_id x
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (f32, f32) {
        %s = arith.addf %x, %y : f32
        scf.yield %s, %x : f32, f32
      }
      memref.store %r#1, %out[%c0] : memref<2xf32>
      memref.store %r#0, %out[%c1] : memref<2xf32>
      gpu.return
    }
  }
}

// -----

// CHECK-LABEL: gpu.func @unsigned_and_empty
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: scf.for unsigned
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: scf.for
module attributes {gpu.container_module} {
  gpu.module @unsigned_and_empty {
    gpu.func @unsigned_and_empty(%out: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %a = arith.constant 1.0 : f32
      %n = gpu.thread_id x
      %u = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%x = %a) -> (f32) {
        %s = arith.addf %x, %x : f32
        scf.yield %s : f32
      }
      %e = scf.for %i = %c4 to %c0 step %c1 iter_args(%x = %a) -> (f32) {
        %s = arith.addf %x, %x : f32
        scf.yield %s : f32
      }
      memref.store %u, %out[%c0] : memref<2xf32>
      memref.store %e, %out[%c1] : memref<2xf32>
      gpu.return
    }
  }
}

// -----

// CHECK-LABEL: gpu.func @runs_or_no_results
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @runs_or_no_results {
    gpu.func @runs_or_no_results(%out: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %a = arith.constant 1.0 : f32
      %n = gpu.thread_id x
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (f32) {
        %s = arith.addf %x, %x : f32
        scf.yield %s : f32
      }
      scf.for %i = %c0 to %n step %c1 {
        memref.store %r, %out[%c0] : memref<2xf32>
      }
      gpu.return
    }
  }
}
