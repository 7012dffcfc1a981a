// Names from the input become kernel symbols and file names: a host function whose name holds
// anything but ASCII letters, digits and '_' is refused at the function on every target, so nothing
// is written outside the output folder and no assembler sees a symbol it cannot take.
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: not tile-compile %s --target spirv -o %t/out 2>&1 | FileCheck %s
// RUN: not tile-compile %s --target sm_90a -o %t/out 2>&1 | FileCheck %s
// RUN: not tile-compile %s --target gfx942 -o %t/out 2>&1 | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=WRITTEN

// CHECK: tile-compile-names.mlir:[[# @LINE + 3]]:1: error: 'func.func' op expects a name of ASCII letters, digits and '_' (its kernels' symbols and files are named after it), but got @"../escaped"
// CHECK: tile-compile-names.mlir:[[# @LINE + 12]]:1: error: 'func.func' op expects a name of ASCII letters, digits and '_' (its kernels' symbols and files are named after it), but got @"a b"
// CHECK: tile-compile-names.mlir:[[# @LINE + 22]]:1: error: 'func.func' op expects a name of ASCII letters, digits and '_' (its kernels' symbols and files are named after it), but got @""
func.func @"../escaped"(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.copy %x, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
func.func @"a b"(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.copy %x, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
// An empty name (the fuzzer's: melior's reading of an empty string panicked).
func.func @""(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.copy %x, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// Only the output folder exists beside the input's temporaries.
// WRITTEN: out
// WRITTEN-NOT: escaped
