// tile-compile on an input with no tile.kernel (an empty file, or host code only) writes nothing and
// says so: an error at the input and exit status 1, never "0 kernel(s) written".
// RUN: not tile-compile %s --target spirv -o %t 2>&1 | FileCheck %s
// RUN: printf '' > %t.empty.mlir
// RUN: not tile-compile %t.empty.mlir --target sm_90a -o %t 2>&1 | FileCheck %s --check-prefix=EMPTY

// CHECK: no-kernel.mlir:1:1: error: expects at least one tile.kernel or tile.matmul to compile, but the input has none
// CHECK-NOT: kernel(s)
// EMPTY: empty.mlir:1:1: error: expects at least one tile.kernel or tile.matmul to compile, but the input has none
func.func @host_only(%X: memref<8xf32>) {
  return
}
