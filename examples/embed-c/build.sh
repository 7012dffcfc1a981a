#!/usr/bin/env bash
# Builds compile.c against tile's C API (tools/tile-plugin/include/tile-c/Tile.h) into OUTPUT
# (default ./tile-compile-c). TILE_ROOT is a checkout of the repository (default: the one this
# folder is in) and TILE_LIB the folder with its libtile_plugin.so and libMLIR-C.so (default
# $TILE_ROOT/target/release, what `cargo build --release` makes); the binary finds them, and
# Debian's libMLIR.so.22, through its rpath.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${TILE_ROOT:-$(cd "$here/../.." && pwd)}
lib=${TILE_LIB:-$root/target/release}
"${CC:-/usr/lib/llvm-22/bin/clang}" "$here/compile.c" -o "${1:-tile-compile-c}" \
  -I"$root/tools/tile-plugin/include" -I/usr/lib/llvm-22/include \
  -L"$lib" -ltile_plugin -lMLIR-C -Wl,-rpath,"$lib" -Wl,-rpath,/usr/lib/llvm-22/lib
