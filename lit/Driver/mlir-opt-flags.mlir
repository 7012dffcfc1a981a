// tile-opt is MlirOptMain: mlir-opt's flags work unchanged.
// RUN: tile-opt %s --mlir-timing -tile-canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: tile-opt %s --pass-pipeline='builtin.module(func.func(tile-canonicalize),cse)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: tile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tile-opt --help | FileCheck %s --check-prefix=HELP

// TIMING: Execution time report
// TIMING: TileCanonicalize

// PRINT: // -----// IR Dump After TileCanonicalize (tile-canonicalize)
// PRINT: // -----// IR Dump After CSE (cse)

// GENERIC: "tile.kernel"(%{{.*}}) <{threads = 64 : i64}> ({
// GENERIC: "tile.fill"(%{{.*}}, %{{.*}}) : (memref<16x16xf32, #tile.fragment>, f32) -> ()
// GENERIC: "tile.yield"() : () -> ()

// HELP: --tile-canonicalize
// HELP: --verify-diagnostics

func.func @flags(%C: memref<32x32xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.fill %F, %zero : memref<16x16xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<16x16xf32, #tile.fragment>, memref<32x32xf32>
  }
  return
}
