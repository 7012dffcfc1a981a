/* The C API of the tile launcher, libtile_launch.so (crate tile-launch, launch/src/capi.rs): loads a
 * kernel from its PTX and launch manifest (tile-compile writes both), checks every argument against
 * the manifest, and launches it on a CUDA stream through the CUDA driver (loaded at run time). No
 * MLIR and no CUDA headers are needed to build against it:
 *
 *   cc app.c -I<repo>/launch/include -L<dir of libtile_launch.so> -ltile_launch
 *
 * Kept in sync with launch/src/capi.rs by hand; launch/tests/c_header.rs compiles and runs a C
 * program against this header and checks that it declares exactly the functions the library
 * exports.
 *
 * Errors: functions that can fail return NULL or non-zero and write a NUL-terminated message into
 * `error` (at most `capacity` bytes, truncated), except tileLaunchPreparedRun, whose message
 * tileLaunchLastError returns. Messages name the argument, e.g. "argument 1 (B of
 * gemm_relu_0_kernel): expects element type f16, but got f32". */
#ifndef TILE_C_TILELAUNCH_H
#define TILE_C_TILELAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded kernel (tileLaunchLoad, tileLaunchLoadDryRun); free it with tileLaunchDestroy. */
typedef struct TileLaunchKernel TileLaunchKernel;
/* A launch prepared for one argument signature (tileLaunchPrepare); free it with
 * tileLaunchPreparedDestroy. */
typedef struct TileLaunchPrepared TileLaunchPrepared;

/* TileLaunchArg.kind */
enum { TILE_LAUNCH_TENSOR = 0, TILE_LAUNCH_INTEGER = 1 };

/* One argument of the tile program's host function, in order. */
typedef struct {
  int32_t kind;           /* TILE_LAUNCH_TENSOR or TILE_LAUNCH_INTEGER */
  const char *element;    /* tensors: "f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64" */
  uint64_t address;       /* tensors: device address */
  int32_t rank;           /* tensors: number of dimensions */
  const int64_t *shape;   /* tensors: rank sizes, outermost first */
  const int64_t *strides; /* tensors: rank strides in elements, outermost first */
  int64_t value;          /* integers: the value */
} TileLaunchArg;

/* The compiler version whose manifests this launcher takes ("0.1.0"); static storage. */
const char *tileLaunchCompilerVersion(void);

/* Loads a kernel from its PTX (`length` bytes, no NUL needed) and manifest JSON into the current
 * CUDA context (device 0's primary context if none is current). NULL with a message for a manifest
 * of another schema, compiler version or chip, a missing driver, or PTX the driver refuses. */
TileLaunchKernel *tileLaunchLoad(const uint8_t *code, size_t length, const char *manifest, char *error,
                                 size_t capacity);

/* A kernel that checks, plans and prepares its launches as one loaded on CUDA device `device`
 * would, but calls no driver function: nothing is loaded or launched. For tests and host-side
 * measurements on machines without a GPU. */
TileLaunchKernel *tileLaunchLoadDryRun(const char *manifest, int32_t device, char *error, size_t capacity);

/* The ordinal of the CUDA device the kernel was loaded on: its tensors must live there. */
int32_t tileLaunchGetDevice(const TileLaunchKernel *kernel);

/* Checks `count` arguments against the kernel's manifest, then launches it on `stream` (a CUstream;
 * NULL: the default stream). 0 once the launch is queued; non-zero with a message otherwise (nothing
 * was launched if an argument was refused). */
int tileLaunchRun(TileLaunchKernel *kernel, const TileLaunchArg *args, size_t count, void *stream, char *error,
                  size_t capacity);

/* The fast path for repeated launches: checks `count` arguments once and returns a launch prepared
 * for their signature (element types, sizes, strides, integer values): grid, block and every kernel
 * parameter but the tensors' addresses. NULL with a message if an argument is refused. It stays
 * valid after tileLaunchDestroy(kernel). */
TileLaunchPrepared *tileLaunchPrepare(const TileLaunchKernel *kernel, const TileLaunchArg *args, size_t count,
                                      char *error, size_t capacity);

/* Launches `prepared` on `stream` with addresses[i] the device address of argument i (one entry per
 * prepared argument; integers' entries are ignored). The caller guarantees the arguments have the
 * signature the launch was prepared with (compare it before calling); tensor-map addresses are
 * checked (16-byte alignment). 0 once queued; otherwise non-zero and tileLaunchLastError says why. */
int tileLaunchPreparedRun(const TileLaunchPrepared *prepared, const uint64_t *addresses, void *stream);

/* The message of this thread's last failed tileLaunchPreparedRun ("" if none), valid until its
 * next failure. */
const char *tileLaunchLastError(void);

/* Checks `count` arguments against a manifest as a launch would, with no GPU and no kernel: 0 when
 * they match, non-zero with a message otherwise. */
int tileLaunchCheck(const char *manifest, const TileLaunchArg *args, size_t count, char *error, size_t capacity);

/* Frees a prepared launch (NULL is ignored). */
void tileLaunchPreparedDestroy(TileLaunchPrepared *prepared);

/* Frees a kernel (NULL is ignored); its module is unloaded once its prepared launches are freed. */
void tileLaunchDestroy(TileLaunchKernel *kernel);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_TILELAUNCH_H */
