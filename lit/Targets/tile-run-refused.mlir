// tile-run refuses, before running anything, what it cannot run: an error located in the input and
// exit status 1, never a crash (issue 11: each of these used to end in SIGSEGV, a stack overflow
// or an allocation failure).
// RUN: split-file %s %t
// RUN: not tile-run %t/returns.mlir 2>&1 | FileCheck %s --check-prefix=RETURNS
// RUN: not tile-run %t/huge.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tile-run %t/strided.mlir 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not tile-run %t/small.mlir --dynamic-size 100000000000 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not tile-run %t/recursive.mlir 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RUN: not tile-run %t/recursive.mlir --target interp 2>&1 | FileCheck %s --check-prefix=RECURSIVE

// A host function with a result: the execution engine's wrapper would write it through a pointer
// tile-run does not pass.
// RETURNS: returns.mlir:1:1: error: tile-run runs host functions that return nothing (outputs are written to memref arguments), but @r returns 1 value(s)
// RETURNS-NOT: ran on

// HUGE: huge.mlir:1:1: error: tile-run fills at most 1073741824 bytes per argument, but argument 0 of @h (memref<4294967296x65536xf32>) takes 1125899906842624

// STRIDED: strided.mlir:1:1: error: tile-run passes row-major global memrefs, but argument 0 of @s is memref<8x8xf32, strided<[1, 8]>>

// DYNAMIC: error: --dynamic-size 100000000000 makes argument 0 of @d take 400000000000 bytes; tile-run fills at most 1073741824

// Host functions that call themselves, here through another: the run would have no end (seed
// 23232's mutant moved a kernel's call to its own host function out of the kernel). Each call that
// starts a cycle is an error; a call to a function outside every cycle (@leaf) is not.
// RECURSIVE: recursive.mlir:5:3: error: 'func.call' op starts a call cycle (@ping -> @pong -> @ping); tile-run runs host functions without recursion
// RECURSIVE: recursive.mlir:10:3: error: 'func.call' op starts a call cycle (@pong -> @ping -> @pong)
// RECURSIVE-NOT: recursive.mlir:6
// RECURSIVE: error: tile-run cannot run @ping, @pong (see the errors above)
// RECURSIVE-NOT: ran on

//--- returns.mlir
func.func @r(%X: memref<64xf32>) -> index {
  %c1 = arith.constant 1 : index
  return %c1 : index
}

//--- huge.mlir
func.func @h(%X: memref<4294967296x65536xf32>) {
  return
}

//--- strided.mlir
func.func @s(%X: memref<8x8xf32, strided<[1, 8]>>) {
  return
}

//--- small.mlir
func.func @d(%X: memref<?xf32>) {
  return
}

//--- recursive.mlir
func.func @leaf(%X: memref<64xf32>) {
  return
}
func.func @ping(%X: memref<64xf32>) {
  func.call @pong(%X) : (memref<64xf32>) -> ()
  func.call @leaf(%X) : (memref<64xf32>) -> ()
  return
}
func.func @pong(%X: memref<64xf32>) {
  func.call @ping(%X) : (memref<64xf32>) -> ()
  return
}
