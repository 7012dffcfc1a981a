//===- TileShim.h - the C boundary between the Rust crates and C++ --------===//
//
// The thin C++ layer exists only where MLIR's C API has a hole: ODS-generated op classes, custom op
// syntax, dialect registration, the global pass registry and MlirOptMain. Everything with behaviour
// (verifiers, rewrite patterns, passes) is Rust, reached from C++ through the hooks installed here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SHIM_H
#define TILE_SHIM_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Rewrite.h"
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Receives one diagnostic message from Rust.
typedef void (*TileMessageSink)(void *userData, MlirStringRef message);
/// Verifies one tile op; on failure calls `sink` once with the message and returns false.
typedef bool (*TileVerifyHook)(MlirOperation op, TileMessageSink sink, void *userData);
/// Adds the canonicalization patterns of the op named `opName` to `patterns`.
typedef void (*TileCanonicalizeHook)(MlirStringRef opName, MlirRewritePatternSet patterns,
                                     MlirContext context);
/// Creates pass number `id` of those Rust registered (see tileShimRegisterPass).
typedef MlirPass (*TilePassFactory)(int32_t id);

/// Installs the Rust verifier and canonicalization hooks. Idempotent.
void tileShimSetHooks(TileVerifyHook verify, TileCanonicalizeHook canonicalize);
/// Returns the handle of the tile dialect.
MlirDialectHandle tileShimGetDialectHandle(void);
/// Inserts the tile dialect into a C++ `mlir::DialectRegistry *` (the plugin callback's argument).
void tileShimInsertDialect(void *registry);

/// The most (element, replica) pairs a fragment layout may have (2^24, a 128x128 fragment
/// replicated 1024 times): its table evaluates the thread map for each. The attribute's verifier
/// bounds the replica count by it, the Rust layout check the pairs.
#define TILE_MAX_LAYOUT_OWNERS 16777216

/// Memory level of a memref type: 0 global, 1 shared, 2 fragment, -1 other memory space,
/// -2 not a memref.
int32_t tileShimMemoryLevel(MlirType type);
/// Whether a memref type is in a thread's private memory: `#gpu.address_space<private>` (NVIDIA's
/// and AMD's per-thread arrays) or SPIR-V's `Function` storage class.
bool tileShimIsPrivateMemory(MlirType type);
/// Returns `#tile.fragment`.
MlirAttribute tileShimFragmentSpaceGet(MlirContext context);
/// Returns `#gpu.address_space<workgroup>`.
MlirAttribute tileShimWorkgroupSpaceGet(MlirContext context);
/// Returns the reduction-kind attribute for `kind` (0 sum .. 4 absmax).
MlirAttribute tileShimReductionKindGet(MlirContext context, int32_t kind);
/// Returns the reduction kind held by `attr`, or -1 when it is not one.
int32_t tileShimReductionKindValue(MlirAttribute attr);

/// Returns `#tile.frag<...>`, or a null attribute (with an error diagnostic) when the fields do not
/// verify.
MlirAttribute tileShimFragmentLayoutGet(MlirContext context, intptr_t rank, const int64_t *shape,
                                        int64_t threads, int64_t replicate, MlirAffineMap thread,
                                        MlirAffineMap slot, MlirStringRef origin);
/// Returns whether `attr` is a `#tile.frag`.
bool tileShimIsFragmentLayout(MlirAttribute attr);
/// Returns the rank of a `#tile.frag`'s shape.
intptr_t tileShimFragmentLayoutRank(MlirAttribute attr);
/// Returns size `dim` of a `#tile.frag`'s shape.
int64_t tileShimFragmentLayoutSize(MlirAttribute attr, intptr_t dim);
/// Returns the threads of a `#tile.frag`.
int64_t tileShimFragmentLayoutThreads(MlirAttribute attr);
/// Returns the replication of a `#tile.frag`.
int64_t tileShimFragmentLayoutReplicate(MlirAttribute attr);
/// Returns the thread map of a `#tile.frag`.
MlirAffineMap tileShimFragmentLayoutThreadMap(MlirAttribute attr);
/// Returns the slot map of a `#tile.frag`.
MlirAffineMap tileShimFragmentLayoutSlotMap(MlirAttribute attr);
/// Returns the origin of a `#tile.frag`.
MlirStringRef tileShimFragmentLayoutOrigin(MlirAttribute attr);
/// Returns `#tile.smem<...>`, or a null attribute (with an error diagnostic) when the fields do not
/// verify.
MlirAttribute tileShimSharedLayoutGet(MlirContext context, int64_t swizzle, int64_t padding,
                                      bool transposed, intptr_t boxRank, const int64_t *box,
                                      int64_t boxes, int64_t buffers);
/// Returns whether `attr` is a `#tile.smem`.
bool tileShimIsSharedLayout(MlirAttribute attr);
/// Returns field `field` of a `#tile.smem`: 0 swizzle, 1 padding, 2 transposed (0 or 1), 3 boxes,
/// 4 buffers, 5 the box's rank, 6 + i size i of the box.
int64_t tileShimSharedLayoutField(MlirAttribute attr, intptr_t field);

/// Registers a pass in MLIR's global registry so that `--pass-pipeline=` finds it; the registry
/// creates instances by calling `factory(id)`.
void tileShimRegisterPass(TilePassFactory factory, int32_t id);
/// Builds pipeline number `id` (see tileShimRegisterPipeline) into `pm`, which runs on ops named
/// `anchor` ("any" for every op), for `chip`; without `serialize`, the kernel modules stay in the
/// LLVM dialect.
typedef void (*TilePipelineBuilder)(int32_t id, MlirOpPassManager pm, MlirStringRef chip, bool serialize,
                                    MlirStringRef anchor);
/// Registers a pass pipeline with `chip` and `serialize` options (`name{chip=... serialize=...}`) in
/// MLIR's global registry.
void tileShimRegisterPipeline(const char *name, const char *description, TilePipelineBuilder build,
                              int32_t id);
/// Receives a serialized SPIR-V binary.
typedef void (*TileWordSink)(void *userData, const uint32_t *words, size_t count);
/// Serializes a `spirv.module` op; returns false when `op` is not one or does not serialize.
bool tileShimSerializeSpirv(MlirOperation op, TileWordSink sink, void *userData);
/// Emits a `warning:` diagnostic at `loc` (the C API has errors only).
void tileShimEmitWarning(MlirLocation loc, const char *message);
/// Rewrites the ops under `root` named in `seeds` (comma-separated op names) and the ops those
/// rewrites create with upstream's math patterns: the expansions of the `expand` mnemonics
/// (`math::populateExpansionPatterns`) and the polynomial approximations of the `approximate` op
/// names (`populateMathPolynomialApproximationPatterns`). Ops outside that worklist are left alone.
/// Returns false when the rewrite did not converge.
bool tileShimRewriteMath(MlirOperation root, MlirStringRef seeds, MlirStringRef expand,
                         MlirStringRef approximate);
/// Receives bytes (an object file, or an error message).
typedef void (*TileByteSink)(void *userData, const char *bytes, size_t count);
/// Assembles AMDGCN `assembly` for `chip` (amdgcn-amd-amdhsa) into an ELF object with LLVM's MC
/// layer and hands it to `sink`; on failure hands the error's text to `sink` and returns false.
/// Safe to call from several threads at once.
bool tileShimAssembleAmdgcn(MlirStringRef assembly, MlirStringRef chip, TileByteSink sink,
                            void *userData);
/// Replaces the `gpu.module` `op` by a `gpu.binary` of its targets' assembly through their own
/// serialization interfaces, as `gpu-module-to-binary{format=isa}` does (the targets the LLVM stage
/// in Rust does not take). Returns false, with the error emitted, when it fails, and when `op` is
/// no `gpu.module` (nothing emitted).
bool tileShimSerializeGpuModuleToAssembly(MlirOperation op);
/// Replaces the `gpu.module` `op` by a `gpu.binary` of its name, offloading handler (the default
/// where it has none) and `objects` (an array of `#gpu.object`s), as the serializers do.
void tileShimReplaceGpuModuleByBinary(MlirOperation op, MlirAttribute objects);
/// Where `attribute` is a `#rocdl.target`, sets its triple, chip, features, code-object ABI
/// version (views of strings the context owns) and optimization level and returns true; returns
/// false otherwise.
bool tileShimRocdlTarget(MlirAttribute attribute, MlirStringRef *triple, MlirStringRef *chip,
                         MlirStringRef *features, int *optLevel, MlirStringRef *abi);
/// Where `attribute` is an `#nvvm.target`, sets its triple, chip, features (views of strings the
/// context owns) and optimization level and returns true; returns false otherwise.
bool tileShimNvvmTarget(MlirAttribute attribute, MlirStringRef *triple, MlirStringRef *chip,
                        MlirStringRef *features, int *optLevel);
/// Applies `convert-vector-to-scf`'s patterns (default options) to `op` when it holds a vector
/// transfer or `vector.print`; leaves it untouched otherwise (see TileVectorToScf.cpp).
void tileShimVectorTransfersToScf(MlirOperation op);
/// Links the ELF object at path `object` into an HSA code object at path `output`, as
/// `ld.lld -shared OBJECT -o OUTPUT` does, with lld's ELF driver in process; on failure hands the
/// linker's message to `sink` and returns false. Safe to call from several threads (one link runs
/// at a time).
bool tileShimLinkAmdgcn(const char *object, const char *output, TileByteSink sink, void *userData);
/// Checks source text before MLIR's parser sees it: returns true when it may be parsed; otherwise
/// stores the byte offset of the problem in `*offset`, calls `sink` once with the message and
/// returns false.
typedef bool (*TileSourceCheck)(MlirStringRef source, size_t *offset, TileMessageSink sink,
                                void *userData);
/// Runs MlirOptMain with every upstream dialect, extension and pass plus the tile dialect; the
/// input is first handed to `check`, whose refusal is printed as a located error (exit code 1).
int tileShimOptMain(int argc, char **argv, TileSourceCheck check);

#ifdef __cplusplus
}
#endif

#endif // TILE_SHIM_H
