// The C header is enough to embed tile in a C or C++ compiler: register the dialect, parse and
// verify tile IR, and run a tile pass, all through MLIR's C API plus tile-c/Tile.h.
// RUN: clang %s -o %t -I%tile_include -I/usr/lib/llvm-22/include -L%tile_bin -ltile_plugin -lMLIR-C -Wl,-rpath,%tile_bin -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t 2>&1 | FileCheck %s

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tile-c/Tile.h"

#include <stdio.h>

static const char *program =
    "func.func @dead_fill(%C: memref<64x64xf32>, %n: index) {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %one = arith.constant 1.0 : f32\n"
    "  tile.kernel grid(%n) threads(128) (%bx) {\n"
    "    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>\n"
    "    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>\n"
    "    tile.fill %F, %one : memref<64x64xf32, #tile.fragment>\n"
    "    tile.copy %F, %C[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char *bad_program =
    "func.func @bad(%n: index) {\n"
    "  tile.kernel grid(%n) threads(100) (%bx) {\n"
    "  }\n"
    "  return\n"
    "}\n";

static void print_to_stdout(MlirStringRef text, void *user_data) {
  (void)user_data;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult print_diagnostic(MlirDiagnostic diagnostic, void *user_data) {
  (void)user_data;
  printf("diagnostic at ");
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), print_to_stdout, NULL);
  printf(": ");
  mlirDiagnosticPrint(diagnostic, print_to_stdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tileRegisterDialect(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, print_diagnostic, NULL, NULL);

  // CHECK: tile dialect loaded: 1
  MlirDialect tile = mlirContextGetOrLoadDialect(context, mlirStringRefCreateFromCString("tile"));
  printf("tile dialect loaded: %d\n", !mlirDialectIsNull(tile));

  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(program));
  // CHECK-NEXT: parsed and verified: 1
  printf("parsed and verified: %d\n",
         !mlirModuleIsNull(module) && mlirOperationVerify(mlirModuleGetOperation(module)));

  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirPassManagerAddOwnedPass(pm, tileCreateCanonicalizePass());
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK-NEXT: pass succeeded: 1
  printf("pass succeeded: %d\n", mlirLogicalResultIsSuccess(result));
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT: tile.kernel grid(%{{.*}}) threads(128)
  // CHECK-NEXT: tile.alloc_fragment
  // CHECK-NEXT: tile.fill %{{.*}}, %[[ONE]] : memref<64x64xf32, #tile.fragment>
  // CHECK-NEXT: tile.copy
  mlirOperationPrint(mlirModuleGetOperation(module), print_to_stdout, NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  // The pass is also in the global registry, reachable by name from a pipeline string.
  tileRegisterPasses();
  MlirPassManager named = mlirPassManagerCreate(context);
  MlirOpPassManager top = mlirPassManagerGetAsOpPassManager(named);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      top, mlirStringRefCreateFromCString("builtin.module(func.func(tile-canonicalize))"),
      print_to_stdout, NULL);
  // CHECK: pipeline parsed: 1
  printf("pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  mlirPassManagerDestroy(named);

  // Bad input: the verifier's diagnostic reaches the C handler, with its location.
  // CHECK-NEXT: diagnostic at loc("-":2:3): 'tile.kernel' op expects threads to be a positive multiple of 32 and at most 1024, but got 100
  // CHECK-NEXT: bad program rejected: 1
  MlirModule bad = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(bad_program));
  printf("bad program rejected: %d\n", mlirModuleIsNull(bad));

  mlirContextDestroy(context);
  return 0;
}
