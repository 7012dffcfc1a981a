// tileCompile is the whole compiler behind one call: tile IR and a target in, each kernel's code
// and launch manifest out, diagnostics collected (with locations) instead of printed.
// RUN: clang %s -o %t -I%tile_include -I/usr/lib/llvm-22/include -L%tile_bin -ltile_plugin -lMLIR-C -Wl,-rpath,%tile_bin -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t 2>&1 | FileCheck %s

#include "tile-c/Tile.h"

#include <stdio.h>
#include <string.h>

static const char *program =
    "func.func @scale(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {\n"
    "  %c1 = arith.constant 1 : index\n"
    "  tile.kernel grid(%c1) threads(64) (%bx) {\n"
    "    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>\n"
    "    tile.copy %X[%bx, %bx], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>\n"
    "    tile.copy %F, %Y[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char *bad_program =
    "func.func @bad(%n: index) {\n"
    "  tile.kernel grid(%n) threads(100) (%bx) {\n"
    "  }\n"
    "  return\n"
    "}\n";

static MlirStringRef ref(const char *text) { return mlirStringRefCreateFromCString(text); }

int main(void) {
  TileCompilation *result = tileCompile(ref(program), ref("scale.mlir"), ref("sm_90a"));
  // Two kernels: the twin for 16-byte aligned tensors (launched where its `when` holds) and the
  // kernel for any others (tile-specialize-alignment).
  // CHECK: succeeded: 1, kernels: 2
  printf("succeeded: %d, kernels: %ld\n", tileCompilationSucceeded(result),
         (long)tileCompilationGetNumKernels(result));
  // CHECK-NEXT: kernel scale_0_kernel
  printf("kernel %s\n", tileCompilationGetKernelName(result, 0).data);
  MlirStringRef code = tileCompilationGetKernelCode(result, 0);
  // CHECK-NEXT: PTX with its entry: 1
  printf("PTX with its entry: %d\n", strstr(code.data, ".entry scale_0_kernel") != NULL);
  // CHECK-NEXT: manifest {"version": 2, "compiler": "{{[0-9.]+}}", "entry": "scale_0_kernel", "host_function": "scale", "target": "sm_90a"
  // CHECK-SAME: "when": {"op": "arith.cmpi eq", "args": [{"op": "arith.ori", "args": [{"op": "arith.remui", "args": [{"address": 0}, 16]}, {"op": "arith.remui", "args": [{"address": 1}, 16]}]}, 0]}
  // CHECK-SAME: "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [64, 64], "element": "f32", "written": false}
  printf("manifest %s\n", tileCompilationGetKernelManifest(result, 0).data);
  // CHECK-NEXT: out of range: 0
  printf("out of range: %zu\n", tileCompilationGetKernelName(result, 7).length);
  tileCompilationDestroy(result);

  result = tileCompile(ref(bad_program), ref("bad.mlir"), ref("spirv"));
  // CHECK-NEXT: succeeded: 0, kernels: 0
  printf("succeeded: %d, kernels: %ld\n", tileCompilationSucceeded(result),
         (long)tileCompilationGetNumKernels(result));
  // CHECK-NEXT: bad.mlir:2:3: error: 'tile.kernel' op expects threads to be a positive multiple of 32
  // CHECK: bad.mlir: cannot be compiled
  for (intptr_t i = 0; i < tileCompilationGetNumDiagnostics(result); ++i)
    printf("%s\n", tileCompilationGetDiagnostic(result, i).data);
  tileCompilationDestroy(result);

  result = tileCompile(ref(program), ref("scale.mlir"), ref("sm_75"));
  // CHECK-NEXT: unknown target sm_75: expected sm_90a, sm_80, gfx942, spirv, spirv-coopmat
  printf("%s\n", tileCompilationGetDiagnostic(result, 0).data);
  tileCompilationDestroy(result);
  return 0;
}
