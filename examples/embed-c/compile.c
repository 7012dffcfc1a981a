// Compiles a tile program for a target through tile's C API and lists its kernels: what a C or C++
// frontend embedding tile does. Build it with build.sh; run `./tile-compile-c PROGRAM.mlir TARGET`.
// Exit status 1 with the located diagnostics when the program does not compile.

#include "tile-c/Tile.h"

#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(size + 1);
  size_t read = fread(text, 1, size, file);
  text[read] = '\0';
  fclose(file);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PROGRAM.mlir TARGET\n", argv[0]);
    return 2;
  }
  char *source = read_file(argv[1]);
  if (!source) {
    fprintf(stderr, "%s: cannot be read\n", argv[1]);
    return 1;
  }
  TileCompilation *result = tileCompile(mlirStringRefCreateFromCString(source),
                                        mlirStringRefCreateFromCString(argv[1]),
                                        mlirStringRefCreateFromCString(argv[2]));
  for (intptr_t i = 0; i < tileCompilationGetNumDiagnostics(result); ++i)
    fprintf(stderr, "%s\n", tileCompilationGetDiagnostic(result, i).data);
  int status = tileCompilationSucceeded(result) ? 0 : 1;
  for (intptr_t i = 0; i < tileCompilationGetNumKernels(result); ++i) {
    MlirStringRef name = tileCompilationGetKernelName(result, i);
    MlirStringRef code = tileCompilationGetKernelCode(result, i);
    MlirStringRef manifest = tileCompilationGetKernelManifest(result, i);
    printf("%s: %zu bytes for %s, manifest %zu bytes\n", name.data, code.length, argv[2],
           manifest.length);
  }
  tileCompilationDestroy(result);
  free(source);
  return status;
}
