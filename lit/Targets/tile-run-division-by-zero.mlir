// Undefined behaviour must not kill tile-run. A run-time integer division by zero, or a signed one
// of the minimum by -1, is undefined: the
// interpreter says so, and the CPU reference must not die of it (x86's div traps: SIGFPE in the
// fuzzer's seed 15151, case 9535; SIGSEGV on the first program below, once LLVM had made use of
// the undefined behaviour). tile-run gives such a divisor the value 1 before the CPU lowering
// (tools/tile-run/src/divisions.rs), so the run ends normally with whatever results.
// RUN: split-file %s %t
// RUN: tile-run %t/unsigned.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: tile-run %t/signed.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tile-run %t/unsigned.mlir --target interp 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not tile-run %t/signed.mlir --target interp 2>&1 | FileCheck %s --check-prefix=SIGNED
// Likewise a memref.load or memref.store outside its buffer: the CPU reference clamps each index to
// its dimension (tools/tile-run/src/accesses.rs); the residual load below, at rows 200..255 of a
// 200-row tensor, ended in SIGSEGV in about half the runs before (seed 2026, case 235).
// RUN: tile-run %t/residual.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tile-run %t/residual.mlir --target interp 2>&1 | FileCheck %s --check-prefix=RESIDUAL
// A constant index is clamped too where its dimension is dynamic: row 65536 of a `?x?xi4` tensor
// of 256 rows (SIGSEGV before: the fuzzer's seed 2037, case 10615).
// RUN: tile-run %t/constant_row.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tile-run %t/constant_row.mlir --target interp 2>&1 | FileCheck %s --check-prefix=CONSTANT-ROW
// Atomic updates are clamped the same way; one to a buffer with an empty dimension has nothing to
// clamp to and is an error at it on the CPU reference (SIGSEGV before: the fuzzer's seed 2026, case
// 85, an atomic_rmw into memref<0xi32>), as on the interpreter when it runs it.
// RUN: tile-run %t/atomic.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tile-run %t/atomic.mlir --target interp 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not tile-run %t/empty.mlir --target cpu 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tile-run %t/empty.mlir --target interp 2>&1 | FileCheck %s --check-prefix=EMPTY-INTERP

// CPU: ran on the CPU reference
// UNSIGNED: unsigned.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.remui' op divides by zero
// UNSIGNED: the program's behaviour is undefined
// SIGNED: signed.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.divsi' op overflows
// SIGNED: the program's behaviour is undefined
// RESIDUAL: residual.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'memref.load' op reads index [200, 0] out of bounds of memref<200x1000xf16>
// CONSTANT-ROW: constant_row.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'memref.load' op reads index [65536, {{[0-9]+}}] out of bounds of memref<?x?xi4> (sizes 256x256)
// ATOMIC: atomic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'memref.atomic_rmw' op updates index [8] out of bounds of memref<8xi32>
// EMPTY: empty.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'memref.atomic_rmw' op accesses memref<0xi32>, which holds no element: every index is out of bounds (the CPU reference does not run it)
// EMPTY-INTERP: empty.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'memref.atomic_rmw' op updates index [0] out of bounds of memref<0xi32>

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

//--- residual.mlir
module attributes {tile.target = "sm_90a"} {
func.func @bias_and_residual(%A: memref<200x64xf16>, %B: memref<64x1000xf16>, %bias: memref<1000xf32>, %R: memref<200x1000xf16>, %C: memref<200x1000xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<64x1000xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %m = arith.addi %m0, %i : index
      %n = arith.addi %n0, %j : index
      %b = memref.load %bias[%n] : memref<1000xf32>
      %s = math.powf %v, %b : f32
      %r16 = memref.load %R[%m, %n] : memref<200x1000xf16>
      %r = arith.extf %r16 : f16 to f32
      %o = arith.addf %s, %r : f32
      memref.store %o, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<200x1000xf16>
  }
  return
}
}


//--- constant_row.mlir
func.func @constant_row(%Q: memref<?x?xi4>, %O: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %Q, %c1 : memref<?x?xi4>
  %blocks = arith.divui %n, %c64 : index
  tile.kernel grid(%blocks) threads(64) (%b) {
    tile.parallel (%j) in (64) {
      %row = arith.constant 65536 : index
      %col = arith.muli %b, %c64 : index
      %at = arith.addi %col, %j : index
      %q = memref.load %Q[%row, %at] : memref<?x?xi4>
      %f = arith.sitofp %q : i4 to f32
      memref.store %f, %O[%at] : memref<?xf32>
    }
  }
  return
}

//--- atomic.mlir
// Each of 256 threads adds one at its own index into 8 counters: indices 8.. are past the end.
func.func @counts(%N: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) (%bx) {
    tile.parallel (%i) in (256) {
      %one = arith.constant 1 : i32
      %n = memref.atomic_rmw addi %one, %N[%i] : (i32, memref<8xi32>) -> i32
    }
  }
  return
}

//--- empty.mlir
func.func @counts(%N: memref<0xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    tile.parallel (%i) in (64) {
      %one = arith.constant 1 : i32
      %n = memref.atomic_rmw addi %one, %N[%i] : (i32, memref<0xi32>) -> i32
    }
  }
  return
}
