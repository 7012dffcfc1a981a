// tile-check-external-calls reports a place once: the copies of one op that a lowering unrolls (a
// thread's elements) share the program's location, and one error there says it all. (Beside
// tile-check-external-calls.mlir, whose -verify-diagnostics would accept the same error twice.)
// RUN: not tile-opt %s -tile-check-external-calls -o /dev/null 2>&1 | FileCheck %s

// CHECK-COUNT-1: program.mlir:7:12: error: 'math.erf' on f64 would call __nv_erf from libdevice
// CHECK-NOT: error
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @__nv_erf(f64) -> f64
    llvm.func @kernel(%x: f64, %y: f64) -> f64 {
      %e = llvm.call @__nv_erf(%x) : (f64) -> f64 loc("program.mlir":7:12)
      %f = llvm.call @__nv_erf(%y) : (f64) -> f64 loc("program.mlir":7:12)
      %s = llvm.fadd %e, %f : f64
      llvm.return %s : f64
    }
  }
}
