// --split-input-file keeps chunks apart: an error in one does not stop the others, and the output
// keeps the separator.
// RUN: not tile-opt %s -split-input-file 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// CHECK: func.func @first
func.func @first() {
  return
}

// -----

// ERR: split-input-file.mlir:[[# @LINE + 2]]:3: error: 'tile.kernel' op expects threads to be a positive multiple of 32 and at most 1024, but got 33
func.func @broken(%n: index) {
  tile.kernel grid(%n) threads(33) (%bx) {
  }
  return
}

// -----

// CHECK: // -----
// CHECK: module {
// CHECK-NEXT: }
// CHECK: // -----
// CHECK: func.func @third
func.func @third() {
  return
}
