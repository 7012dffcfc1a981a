#!/usr/bin/env bash
# Build machine: writes the sm_90a cases of generated tile programs for bench/generated_check.py on
# the GPU machine (issue 11: the interpreter against every executable target). Per program: its
# kernels (PTX + manifest), seeded inputs and the interpreter's outputs, and the CPU reference's
# outputs, which a dry run of the checker compares with the interpreter's here, element by element.
#   usage: bench/generated_prepare.sh [PROGRAMS=500] [SEED=2026] [DIR=bench/kernels/generated]
# DIR is ignored by git: carry it to the GPU machine (`carry: ["bench/kernels/generated"]`) and run
#   python3 bench/generated_check.py bench/kernels/generated
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-500}
seed=${2:-2026}
dir=${3:-bench/kernels/generated}
cargo build --quiet -p tile-tests --bin tile-fuzz
target/debug/tile-fuzz --generate "$programs" --seed "$seed" --gpu-cases "$dir" --with-cpu
python3 bench/generated_check.py "$dir" --dry-run cpu --quiet
echo "$(du -sh "$dir" | cut -f1) in $dir"
