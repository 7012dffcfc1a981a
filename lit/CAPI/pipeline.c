// One call gives a C host a context that runs the target pipelines: tileCreateContext registers
// upstream's dialects, translations and passes and tile's, and a pipeline string names the target.
// A pipeline nested under another op is an error the diagnostic handler sees, not an abort.
// RUN: clang %s -o %t -I%tile_include -I/usr/lib/llvm-22/include -L%tile_bin -ltile_plugin -lMLIR-C -Wl,-rpath,%tile_bin -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t 2>&1 | FileCheck %s

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tile-c/Tile.h"

#include <stdio.h>
#include <string.h>

static const char *program =
    "func.func @scale(%X: memref<256xf32>, %Y: memref<256xf32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %two = arith.constant 2.0 : f32\n"
    "  tile.kernel grid(%c1) threads(128) (%bx) {\n"
    "    %F = tile.alloc_fragment : memref<256xf32, #tile.fragment>\n"
    "    tile.copy %X[%c0], %F : memref<256xf32>, memref<256xf32, #tile.fragment>\n"
    "    tile.parallel (%i) in (256) {\n"
    "      %v = memref.load %F[%i] : memref<256xf32, #tile.fragment>\n"
    "      %w = arith.mulf %v, %two : f32\n"
    "      memref.store %w, %F[%i] : memref<256xf32, #tile.fragment>\n"
    "      tile.yield\n"
    "    }\n"
    "    tile.copy %F, %Y[%c0] : memref<256xf32, #tile.fragment>, memref<256xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static void print_to_stdout(MlirStringRef text, void *user_data) {
  (void)user_data;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult print_diagnostic(MlirDiagnostic diagnostic, void *user_data) {
  (void)user_data;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, print_to_stdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static int run(MlirContext context, const char *pipeline) {
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(program));
  if (mlirModuleIsNull(module))
    return -1;
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                   mlirStringRefCreateFromCString(pipeline),
                                                   print_to_stdout, NULL);
  int ok = mlirLogicalResultIsSuccess(parsed) &&
           mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  if (ok) {
    // The kernel module became a gpu.binary (or a spirv.module).
    printf("%s: ", pipeline);
    mlirOperationPrint(mlirModuleGetOperation(module), print_to_stdout, NULL);
    printf("\n");
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return ok;
}

int main(void) {
  MlirContext context = tileCreateContext();
  mlirContextAttachDiagnosticHandler(context, print_diagnostic, NULL, NULL);
  // CHECK: builtin.module(tile-to-nvvm{chip=sm_80}):
  // CHECK: gpu.binary @scale_0_module
  // CHECK: sm_80: 1
  printf("sm_80: %d\n", run(context, "builtin.module(tile-to-nvvm{chip=sm_80})"));
  // CHECK: builtin.module(tile-to-spirv{chip=spirv}):
  // CHECK: spirv.module
  // CHECK: spirv: 1
  printf("spirv: %d\n", run(context, "builtin.module(tile-to-spirv{chip=spirv})"));
  // CHECK: diagnostic: tile-to-nvvm failed: runs on a builtin.module, but was nested in func.func: write builtin.module(tile-to-nvvm{chip=...})
  // CHECK: nested: 0
  printf("nested: %d\n", run(context, "builtin.module(func.func(tile-to-nvvm))"));
  mlirContextDestroy(context);
  return 0;
}
