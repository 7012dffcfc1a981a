// Expanded pipelines compute what the plain loops compute: the trip counts of
// Inputs/pipeline-trip-counts.mlir (below, equal to and not a multiple of the ring depth, a deeper
// ring, a dynamic count) run in the interpreter before and after tile-expand-pipelines with the same
// seeded inputs, and the expanded program runs on the CPU reference against the interpreter.
// RUN: tile-opt %S/Inputs/pipeline-trip-counts.mlir -tile-plan-pipelines -tile-expand-pipelines -o %t.mlir
// RUN: grep -c tile.copy_async %t.mlir | FileCheck %s --check-prefix=EXPANDED
// RUN: tile-run %S/Inputs/pipeline-trip-counts.mlir --target interp --dynamic-size 150 > %t.plain
// RUN: tile-run %t.mlir --target interp --dynamic-size 150 > %t.expanded
// RUN: cat %t.plain %t.expanded | FileCheck %s
// RUN: tile-run %t.mlir --target cpu --check --against interp --dynamic-size 150 | FileCheck %s --check-prefix=CPU

// D + 1 copies a loop (the prologue's D guarded ones and the refill): 4 for each ring of 3, 5 for
// the ring of 4, 3 for the ring of 2.
// EXPANDED: 20

// CHECK: @below ran on the interpreter
// CHECK-NEXT: checksum [[BELOW:[-0-9.]+]], 0 unwritten
// CHECK: @equal ran on the interpreter
// CHECK-NEXT: checksum [[EQUAL:[-0-9.]+]], 0 unwritten
// CHECK: @ragged ran on the interpreter
// CHECK-NEXT: checksum [[RAGGED:[-0-9.]+]], 0 unwritten
// CHECK: @deep ran on the interpreter
// CHECK-NEXT: checksum [[DEEP:[-0-9.]+]], 0 unwritten
// CHECK: @dynamic ran on the interpreter
// CHECK-NEXT: checksum [[DYNAMIC:[-0-9.]+]], 0 unwritten
// CHECK: @below ran on the interpreter
// CHECK-NEXT: checksum [[BELOW]], 0 unwritten
// CHECK: @equal ran on the interpreter
// CHECK-NEXT: checksum [[EQUAL]], 0 unwritten
// CHECK: @ragged ran on the interpreter
// CHECK-NEXT: checksum [[RAGGED]], 0 unwritten
// CHECK: @deep ran on the interpreter
// CHECK-NEXT: checksum [[DEEP]], 0 unwritten
// CHECK: @dynamic ran on the interpreter
// CHECK-NEXT: checksum [[DYNAMIC]], 0 unwritten

// CPU-COUNT-5: check %arg1: match
