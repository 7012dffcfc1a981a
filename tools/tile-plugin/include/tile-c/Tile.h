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

#include <stdbool.h>
#include <stdint.h>

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

/// Creates a context ready to run the target pipelines on tile IR (for
/// example mlirParsePassPipeline of "builtin.module(tile-to-nvvm{chip=sm_90a})"):
/// it holds every dialect, LLVM translation and pass they need, upstream's
/// (mlirRegisterAllDialects, mlirRegisterAllLLVMTranslations,
/// mlirRegisterAllPasses) and tile's (tileRegisterDialect, tileRegisterPasses),
/// so that one call replaces the five. The caller destroys it
/// (mlirContextDestroy).
MlirContext tileCreateContext(void);

/// Creates the `tile-canonicalize` pass: the tile ops' canonicalization
/// patterns plus folding. The caller owns it (hand it to a pass manager).
MlirPass tileCreateCanonicalizePass(void);

//===----------------------------------------------------------------------===//
// Compiling: tile IR in, per kernel its code and launch manifest out.
//===----------------------------------------------------------------------===//

/// The result of tileCompile: every kernel's code and launch manifest, or the
/// diagnostics that say why the program did not compile. Opaque; the caller
/// owns it and frees it with tileCompilationDestroy. Every string it hands
/// out lives as long as it and is NUL-terminated (the terminator is not
/// counted in `length`; SPIR-V code may hold NUL bytes, use `length`).
typedef struct TileCompilation TileCompilation;

/// Compiles the tile program `source` for `target` (sm_90a, sm_80, gfx942, spirv,
/// spirv-coopmat); diagnostics name the file `sourceName`. Needs no
/// MlirContext: it makes its own, with every dialect and pass registered.
/// Nothing is printed. Never returns NULL.
TileCompilation *tileCompile(MlirStringRef source, MlirStringRef sourceName,
                             MlirStringRef target);

/// Returns whether the program compiled.
bool tileCompilationSucceeded(const TileCompilation *result);

/// Returns how many kernels the program compiled to (0 when it failed).
intptr_t tileCompilationGetNumKernels(const TileCompilation *result);

/// Returns the entry name of kernel `index`.
MlirStringRef tileCompilationGetKernelName(const TileCompilation *result,
                                           intptr_t index);

/// Returns the code of kernel `index`: PTX text (sm_90a, sm_80), AMDGCN assembly
/// (gfx942), or the SPIR-V binary's bytes (little-endian words).
MlirStringRef tileCompilationGetKernelCode(const TileCompilation *result,
                                           intptr_t index);

/// Returns the HSA code object of gfx942 kernel `index` (empty otherwise).
MlirStringRef tileCompilationGetKernelCodeObject(const TileCompilation *result,
                                                 intptr_t index);

/// Returns the launch manifest of kernel `index`, JSON (see manifest/ for the
/// schema: `version`, `compiler`, `entry`, `target`, grid, block, parameters).
MlirStringRef tileCompilationGetKernelManifest(const TileCompilation *result,
                                               intptr_t index);

/// Returns how many diagnostics the compilation raised: the errors when it
/// failed (the last one a summary), warnings when it compiled.
intptr_t tileCompilationGetNumDiagnostics(const TileCompilation *result);

/// Returns diagnostic `index`, formatted `file:line:col: error: message`.
MlirStringRef tileCompilationGetDiagnostic(const TileCompilation *result,
                                           intptr_t index);

/// Frees a result of tileCompile (NULL is ignored).
void tileCompilationDestroy(TileCompilation *result);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_TILE_H */
