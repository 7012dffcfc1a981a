// Bad input gives a located error and exit status 1, never a crash or a hang.
// RUN: not tile-opt %s 2>&1 | FileCheck %s
// RUN: tile-opt %s; test $? -eq 1

// CHECK: errors.mlir:[[# @LINE + 3]]:24: error: custom op 'tile.kernel' expected 'threads'
// CHECK-NOT: PLEASE submit a bug report
func.func @missing_threads(%n: index) {
  tile.kernel grid(%n) (%bx) {
  }
  return
}
