#!/bin/sh
# Prepares target/gpu-check/ on the build machine for python/tests/gpu_check.py on the GPU machine:
# the launcher library (no MLIR: libc and, at run time, libcuda) and the kernels it runs.
set -e
cd "$(dirname "$0")/../.."
cargo build --release -p tile-launch -p tile-compile -p tile-plugin
out=target/gpu-check
rm -rf "$out" && mkdir -p "$out"
cp target/release/libtile_launch.so "$out/"
for program in examples/gemm_relu.mlir examples/gemm_transpose_b.mlir examples/gemm_dynamic.mlir examples/softmax.mlir \
    test/programs/gemm_epilogue_reads.mlir test/programs/multi_head_scores.mlir test/programs/tiny_scale.mlir; do
  target/release/tile-compile "$program" --target sm_90a -o "$out"
done
# The autotuning variants, compiled into the cache the GPU run reads (a cache hit needs no MLIR).
TILE_LIB_DIR=target/release PYTHONPATH=python/tests python3 -c '
import sys; sys.path.insert(0, "python")
import tile
from gpu_check_variants import TEMPLATE, CONFIGS
for config in CONFIGS:
    tile.compile(tile._instantiate(TEMPLATE, config), "sm_90a", sys.argv[1])
' "$out/cache"
ls -l "$out"
