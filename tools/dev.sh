#!/usr/bin/env bash
# One entry point for set-up, the main job and the tests. Each command installs what is missing first
# (Debian 12, as root), so on a fresh machine it is the only command to type.
#
#   tools/dev.sh examples   build (release) and run tile-opt on every example kernel, show the result
#   tools/dev.sh test       build and run every test: Rust unit/integration tests and the lit suite
#   tools/dev.sh setup      only install the packages
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

# LLVM/MLIR 22 and what linking against it needs (see ../shared/design/platform-facts.md).
packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 libclang-22-dev
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
  if ! command -v cargo >/dev/null; then
    echo "error: cargo not found: install a Rust toolchain (1.85 or newer, edition 2024) with rustup" >&2
    exit 1
  fi
}

examples() {
  cargo build --release --quiet
  local opt="$repo/target/release/tile-opt"
  for example in examples/*.mlir; do
    echo "==> $example: parse, verify, tile-canonicalize, print"
    "$opt" "$example" --tile-canonicalize
  done
}

run_tests() {
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

case "${1:-}" in
  setup) setup ;;
  examples) setup; examples ;;
  test) setup; run_tests ;;
  *) echo "usage: tools/dev.sh setup|examples|test" >&2; exit 2 ;;
esac
