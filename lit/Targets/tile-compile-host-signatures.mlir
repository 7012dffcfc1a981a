// A host function whose memref argument is in a layout that is not strided (here a permutation
// map) is refused at the function on the targets that compile host code to LLVM (seed 26262, case
// 20741: upstream's conversion failed there, "conversion to strided form failed", located
// nowhere, and tile-compile went on); SPIR-V, which compiles no host code, takes the program.
// RUN: not tile-compile %s --target sm_90a -o %t 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: not tile-compile %s --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: tile-compile %s --target spirv -o %t 2>&1 | FileCheck %s --check-prefix=SPIRV

// LLVM: tile-compile-host-signatures.mlir:[[# @LINE + 5]]:1: error: 'func.func' op argument 0 of @copy_in has type memref<?x?xf16, affine_map<(d0, d1) -> (d1, d0)>>, whose layout is not strided: the host code is compiled to LLVM, which passes memrefs as strided descriptors; use the identity layout or strided<...>
// LLVM-NOT: loc(unknown)
// LLVM: tile-compile-host-signatures.mlir:[[# @LINE + 10]]:1: error: 'func.func' op result 0 of @permuted
// LLVM: lowering for {{.*}} failed
// SPIRV: 1 kernel(s) for spirv written
func.func @copy_in(%A: memref<?x?xf16, affine_map<(d0, d1) -> (d1, d0)>>, %n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
  }
  return
}

// A strided layout is fine; a function without a kernel is compiled for the host too.
func.func @permuted(%A: memref<4x4xf16, strided<[1, 4]>>) -> memref<4x4xf16, affine_map<(d0, d1) -> (d1, d0)>> {
  %B = memref.alloc() : memref<4x4xf16, affine_map<(d0, d1) -> (d1, d0)>>
  return %B : memref<4x4xf16, affine_map<(d0, d1) -> (d1, d0)>>
}
