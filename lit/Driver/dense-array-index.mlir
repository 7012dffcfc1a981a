// A dense array of `index` elements (`array<index: ...>`, directly or through a type alias) is
// refused with a located error and exit status 1 by every tool, before MLIR 22's parser sees it:
// the parser takes `index` for an integer or float type and dies of SIGSEGV asking its bit width
// (issue 11, seed 16161 case 2011: a generic-form `operandSegmentSizes` mutated to index).
// RUN: split-file %s %t
// RUN: not tile-opt %t/generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-opt < %t/generic.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not tile-opt -split-input-file %t/generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-compile %t/generic.mlir --target spirv -o %t/out 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-compile %t/generic.mlir --target sm_90a -o %t/out 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-run %t/generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-run %t/generic.mlir --target interp 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not tile-opt %t/alias.mlir 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not tile-compile %t/alias.mlir --target gfx942 -o %t/out 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not tile-opt %t/spaced.mlir 2>&1 | FileCheck %s --check-prefix=SPACED
// RUN: tile-opt %t/quoted.mlir | FileCheck %s --check-prefix=QUOTED

// GENERIC: generic.mlir:7:65: error: a dense array's element type must be an integer or a float, got 'index'
// GENERIC-NOT: PLEASE submit a bug report
// STDIN: <stdin>:7:65: error: a dense array's element type must be an integer or a float, got 'index'

// ALIAS: alias.mlir:3:19: error: a dense array's element type must be an integer or a float, got 'index' (through the alias '!j')
// ALIAS-NOT: PLEASE submit a bug report

// SPACED: spaced.mlir:2:3: error: a dense array's element type must be an integer or a float, got 'index'

// In a string or a comment it is text, not an attribute.
// QUOTED-LABEL: func.func @quoted
// QUOTED: note = "array<index: 1>"

//--- generic.mlir
func.func @generic(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    %S = "tile.alloc_shared"() : () -> memref<64x32xf16, #gpu.address_space<workgroup>>
    // The seed's `array<i32: 1, 2, 1, 0>` with the fuzzer's element type.
    "tile.copy"(%A, %c0, %bx, %S) <{operandSegmentSizes = array<index: 1, 2, 1, 0>}> : (memref<?x?xf16>, index, index, memref<64x32xf16, #gpu.address_space<workgroup>>) -> ()
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

//--- alias.mlir
!i = index
!j = !i
#segments = array<!j: 1, 2, 1, 0>
func.func @alias() {
  return
}

//--- spaced.mlir
func.func @spaced() attributes {sizes = array <  // element type on the next line
  index : 4>} {
  return
}

//--- quoted.mlir
// array<index: 1> in a comment
func.func @quoted() attributes {note = "array<index: 1>"} {
  return
}
