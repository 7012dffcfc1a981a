/*===-- tile-c/Tile.h - C API of the tile dialect and passes -------*- C -*-===*\
|*                                                                            *|
|* Link against libtile_plugin.so (and libMLIR-C.so next to it). Use these    *|
|* with MLIR's own C API (mlir-c/IR.h, mlir-c/Pass.h).                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_C_TILE_H
#define TILE_C_TILE_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Returns the handle of the tile dialect (for mlirDialectHandleInsertDialect,
/// mlirDialectHandleLoadDialect, ...).
MlirDialectHandle tileGetDialectHandle(void);

/// Registers the tile dialect in `registry`.
void tileRegisterDialect(MlirDialectRegistry registry);

/// Registers every tile pass in MLIR's global pass registry, so that
/// mlirParsePassPipeline and --pass-pipeline find them by name.
void tileRegisterPasses(void);

/// Creates the `tile-canonicalize` pass: the tile ops' canonicalization
/// patterns plus folding. The caller owns it (hand it to a pass manager).
MlirPass tileCreateCanonicalizePass(void);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_TILE_H */
