#!/bin/bash
# Compile time for many kernels (issue 11, item 6): N copies of examples/gemm_relu.mlir, each its
# own host function, compiled by tile-compile for each target; prints wall and CPU (user + sys)
# seconds and the load average before each run (the machine may be shared: CPU time is the figure
# that does not depend on it).
#
#   bench/many_kernels.sh [TILE_COMPILE] [COUNTS] [TARGETS]
#   bench/many_kernels.sh target/release/tile-compile "1 20 200" "sm_90a gfx942 spirv spirv-coopmat"
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-target/release/tile-compile}
counts=${2:-1 20 200}
targets=${3:-sm_90a gfx942 spirv spirv-coopmat}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for count in $counts; do
  for index in $(seq 0 $((count - 1))); do
    sed "s/@gemm_relu/@gemm_relu_$index/" examples/gemm_relu.mlir
  done > "$scratch/many$count.mlir"
done
printf '%-14s %7s %9s %9s %s\n' target kernels wall_s cpu_s load
for target in $targets; do
  for count in $counts; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S' -o "$scratch/time" "$tool" "$scratch/many$count.mlir" \
      --target "$target" -o "$scratch/out" > /dev/null
    read -r wall user sys < "$scratch/time"
    printf '%-14s %7s %9s %9.2f %s\n' "$target" "$count" "$wall" "$(echo "$user + $sys" | bc)" "$load"
  done
done
