// A run-time integer division by zero, or a signed one of the minimum by -1, is undefined: the
// interpreter says so, and the CPU reference must not die of it (x86's div traps: SIGFPE in the
// fuzzer's seed 15151, case 9535; SIGSEGV on the first program below, once LLVM had made use of
// the undefined behaviour). tile-run gives such a divisor the value 1 before the CPU lowering
// (tools/tile-run/src/divisions.rs), so the run ends normally with whatever results.
// RUN: split-file %s %t
// RUN: tile-run %t/unsigned.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: tile-run %t/signed.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tile-run %t/unsigned.mlir --target interp 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not tile-run %t/signed.mlir --target interp 2>&1 | FileCheck %s --check-prefix=SIGNED

// CPU: ran on the CPU reference
// UNSIGNED: unsigned.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.remui' op divides by zero
// UNSIGNED: the program's behaviour is undefined
// SIGNED: signed.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.divsi' op overflows
// SIGNED: the program's behaviour is undefined

//--- unsigned.mlir
// Blocks 0-2 divide by %b = 0.
func.func @remainder(%S: memref<2x3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c6) threads(64) (%bz) {
    %t = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.fill %t, %zero : memref<1x64xf32, #tile.fragment>
    %b = arith.divui %bz, %c3 : index
    %h = arith.remui %bz, %b : index
    tile.copy %t, %S[%b, %h, %c0] : memref<1x64xf32, #tile.fragment>, memref<2x3x64xf32>
  }
  return
}

//--- signed.mlir
// Blocks 0-2 divide the minimum by %b - 1 = -1.
func.func @quotient(%S: memref<2x3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c6) threads(64) (%bz) {
    %t = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.fill %t, %zero : memref<1x64xf32, #tile.fragment>
    %b = arith.divui %bz, %c3 : index
    %c1 = arith.constant 1 : index
    %min = arith.constant -9223372036854775808 : index
    %m = arith.subi %b, %c1 : index
    %h = arith.divsi %min, %m : index
    tile.copy %t, %S[%b, %h, %c0] : memref<1x64xf32, #tile.fragment>, memref<2x3x64xf32>
  }
  return
}
