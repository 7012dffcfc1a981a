/* Compiled against launch/include/tile-c/TileLaunch.h and linked with libtile_launch.so by
 * launch/tests/c_header.rs, which compares what it prints. Dry-run kernels (no GPU needed): every
 * check and the prepared launches, with the driver calls skipped. */
#include "tile-c/TileLaunch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static char manifest[4096];
static char error[512];

/* A plain-strategy kernel (memref descriptors): two f32 24x64 tensors. */
static const char *plain_format =
    "{\"version\": 1, \"compiler\": \"%s\", \"entry\": \"softmax_0_kernel\", \"host_function\": \"softmax\", "
    "\"target\": \"%s\", \"strategy\": \"registers\", \"workgroup_size\": [64, 1, 1], \"grid\": [3, 1, 1], "
    "\"shared_bytes\": 0, \"bindings\": [{\"set\": 0, \"binding\": 0, \"host_argument\": 0, \"shape\": [24, 64], "
    "\"element\": \"f32\", \"written\": false}, {\"set\": 0, \"binding\": 1, \"host_argument\": 1, \"shape\": [24, 64], "
    "\"element\": \"f32\", \"written\": true}]}";

/* A tensor-core GEMM with a dynamic M (tensor maps) and an i64 scalar. */
static const char *gemm_format =
    "{\"version\": 1, \"compiler\": \"%s\", \"entry\": \"gemm_0_kernel\", \"target\": \"sm_90a\", \"chip\": \"sm_90a\", "
    "\"block\": [128, 1, 1], \"grid\": [{\"op\": \"arith.ceildivui\", \"args\": [{\"dim\": [1, 1]}, 128]}, "
    "{\"op\": \"arith.ceildivui\", \"args\": [{\"dim\": [0, 0]}, 128]}, 1], \"dynamic_shared_bytes\": 50176, "
    "\"params\": [{\"role\": \"A\", \"kind\": \"tensor_map\", \"host_argument\": 0, \"shape\": [null, 256], "
    "\"element\": \"f16\", \"box\": [128, 32], \"swizzle\": 64, \"oob_fill\": \"zero\"}, {\"role\": \"B\", "
    "\"kind\": \"tensor_map\", \"host_argument\": 1, \"shape\": [256, 512], \"element\": \"f16\", \"box\": [32, 64], "
    "\"swizzle\": 128, \"oob_fill\": \"zero\"}, {\"role\": \"C\", \"kind\": \"tensor_map\", \"host_argument\": 2, "
    "\"shape\": [null, 512], \"element\": \"f32\", \"box\": [128, 32], \"swizzle\": 128, \"oob_fill\": \"zero\"}, "
    "{\"role\": \"size\", \"kind\": \"scalar\", \"type\": \"i64\", \"value\": {\"dim\": [0, 0]}}]}";

static TileLaunchArg tensor(const char *element, uint64_t address, int32_t rank, const int64_t *shape,
                            const int64_t *strides) {
  TileLaunchArg arg;
  memset(&arg, 0, sizeof arg);
  arg.kind = TILE_LAUNCH_TENSOR;
  arg.element = element;
  arg.address = address;
  arg.rank = rank;
  arg.shape = shape;
  arg.strides = strides;
  return arg;
}

int main(void) {
  const char *version = tileLaunchCompilerVersion();
  printf("layout: %zu %zu %zu %zu %zu %zu %zu %zu\n", sizeof(TileLaunchArg), offsetof(TileLaunchArg, kind),
         offsetof(TileLaunchArg, element), offsetof(TileLaunchArg, address), offsetof(TileLaunchArg, rank),
         offsetof(TileLaunchArg, shape), offsetof(TileLaunchArg, strides), offsetof(TileLaunchArg, value));

  /* Refused before the driver is touched. */
  snprintf(manifest, sizeof manifest, plain_format, version, "spirv");
  TileLaunchKernel *refused = tileLaunchLoad((const uint8_t *)"", 0, manifest, error, sizeof error);
  printf("load spirv: %s, %s\n", refused ? "loaded" : "refused", error);
  snprintf(manifest, sizeof manifest, plain_format, "0.0.0", "sm_90a");
  refused = tileLaunchLoadDryRun(manifest, 0, error, sizeof error);
  printf("another compiler: %s, %s\n", refused ? "loaded" : "refused", error);

  /* The plain kernel. */
  snprintf(manifest, sizeof manifest, plain_format, version, "sm_90a");
  int64_t shape[2] = {24, 64}, strides[2] = {64, 1}, short_shape[2] = {24, 32};
  TileLaunchArg args[2] = {tensor("f32", 0x10000, 2, shape, strides), tensor("f32", 0x20000, 2, shape, strides)};
  printf("check: %d\n", tileLaunchCheck(manifest, args, 2, error, sizeof error));
  args[1].element = "f16";
  printf("check f16: %d, %s\n", tileLaunchCheck(manifest, args, 2, error, sizeof error), error);
  args[1].element = "f32";

  TileLaunchKernel *kernel = tileLaunchLoadDryRun(manifest, 0, error, sizeof error);
  printf("dry run: %s, device %d\n", kernel ? "loaded" : error, kernel ? tileLaunchGetDevice(kernel) : -1);
  printf("run: %d\n", tileLaunchRun(kernel, args, 2, NULL, error, sizeof error));
  TileLaunchPrepared *prepared = tileLaunchPrepare(kernel, args, 2, error, sizeof error);
  uint64_t addresses[2] = {0x30000, 0x40000};
  printf("prepared run: %d\n", tileLaunchPreparedRun(prepared, addresses, NULL));
  args[0].shape = short_shape;
  TileLaunchPrepared *wrong = tileLaunchPrepare(kernel, args, 2, error, sizeof error);
  printf("prepare 24x32: %s, %s\n", wrong ? "prepared" : "refused", error);
  printf("run 24x32: %d, %s\n", tileLaunchRun(kernel, args, 2, NULL, error, sizeof error), error);
  /* A prepared launch outlives its kernel. */
  tileLaunchDestroy(kernel);
  printf("prepared run after destroy: %d\n", tileLaunchPreparedRun(prepared, addresses, NULL));
  tileLaunchPreparedDestroy(prepared);
  tileLaunchPreparedDestroy(NULL);
  tileLaunchDestroy(NULL);

  /* The tensor-map kernel: M = 300 (an integer argument after the tensors is ignored by it). */
  snprintf(manifest, sizeof manifest, gemm_format, version);
  kernel = tileLaunchLoadDryRun(manifest, 1, error, sizeof error);
  int64_t a_shape[2] = {300, 256}, a_strides[2] = {256, 1}, b_shape[2] = {256, 512}, b_strides[2] = {512, 1},
          c_shape[2] = {300, 512}, c_strides[2] = {512, 1};
  TileLaunchArg gemm[3] = {tensor("f16", 0x100000, 2, a_shape, a_strides),
                           tensor("f16", 0x200000, 2, b_shape, b_strides),
                           tensor("f32", 0x300000, 2, c_shape, c_strides)};
  prepared = tileLaunchPrepare(kernel, gemm, 3, error, sizeof error);
  printf("gemm: device %d, %s\n", tileLaunchGetDevice(kernel), prepared ? "prepared" : error);
  uint64_t gemm_addresses[3] = {0x500000, 0x600000, 0x700000};
  int status = tileLaunchPreparedRun(prepared, gemm_addresses, NULL);
  printf("gemm run: %d, last error \"%s\"\n", status, tileLaunchLastError());
  gemm_addresses[1] += 8;
  status = tileLaunchPreparedRun(prepared, gemm_addresses, NULL);
  printf("gemm run unaligned: %d, %s\n", status, tileLaunchLastError());
  tileLaunchPreparedDestroy(prepared);
  tileLaunchDestroy(kernel);
  return 0;
}
