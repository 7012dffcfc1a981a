// The interpreter's definedness check: every tile (and every other allocation) knows which of its
// elements were written since it was allocated, and a read of one nothing wrote is undefined
// behaviour, reported at the reading op with the tile's type, its allocation and the index; the run
// stops with status 1 and prints no result. Host buffers are defined.
// RUN: not tile-run %S/Inputs/interp-undefined-read.mlir --target interp 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not tile-run %S/Inputs/interp-undefined-gemm.mlir --target interp 2>&1 | FileCheck %s --check-prefix=GEMM
// RUN: not tile-run %S/Inputs/interp-undefined-partial.mlir --target interp 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not tile-run %S/Inputs/interp-undefined-reduce.mlir --target interp 2>&1 | FileCheck %s --check-prefix=REDUCE
// Races: the iterations of a tile.parallel and the blocks of a tile.kernel are unordered, so one
// reading or overwriting what another changed makes the result depend on an order no target keeps.
// RUN: not tile-run %S/Inputs/interp-race-parallel.mlir --target interp 2>&1 | FileCheck %s --check-prefix=RACE-PARALLEL
// RUN: not tile-run %S/Inputs/interp-race-blocks.mlir --target interp 2>&1 | FileCheck %s --check-prefix=RACE-BLOCKS
// A tile read only where it was written is defined: the interpreter runs it, and Vulkan (lavapipe)
// and the CPU reference agree with it.
// RUN: tile-run %S/Inputs/interp-partly-written.mlir --target interp 2>&1 | FileCheck %s --check-prefix=PARTLY
// RUN: tile-run %S/Inputs/interp-partly-written.mlir --target cpu --check 2>&1 | FileCheck %s --check-prefix=PARTLY-CPU
// RUN: tile-run %S/Inputs/interp-partly-written.mlir --target vulkan --check --against interp 2>&1 | FileCheck %s --check-prefix=PARTLY-VULKAN

// An accumulator fragment nothing filled, copied out (the fuzzer's most common Vulkan/CPU
// difference): the copy reads element [0, 0] of it.
// COPY: interp-undefined-read.mlir:9:5: error: 'tile.copy' op reads undefined element [0, 0] of its source memref<16x16xf32, #tile.fragment>: nothing wrote it since 'tile.alloc_fragment' at {{.*}}interp-undefined-read.mlir:8:11 allocated it (in block [0])
// COPY-NEXT: error: the interpreter stopped: the program's behaviour is undefined (see the error above)
// COPY-NOT: output

// A gemm reads its accumulator.
// GEMM: interp-undefined-gemm.mlir:12:5: error: 'tile.gemm' op reads undefined element [0, 0] of its accumulator memref<16x16xf32, #tile.fragment>: nothing wrote it since 'tile.alloc_fragment' at {{.*}}interp-undefined-gemm.mlir:9:11 allocated it (in block [0])
// GEMM-NEXT: error: the interpreter stopped: the program's behaviour is undefined (see the error above)

// Rows 0..7 written, row 8 read: only the element read matters.
// PARTIAL: interp-undefined-partial.mlir:18:12: error: 'memref.load' op reads undefined element [8, 0] of memref<16x16xf32, #tile.fragment>: nothing wrote it since 'tile.alloc_fragment' at {{.*}}interp-undefined-partial.mlir:9:10 allocated it (in block [0])

// A reduction without clear reads its result.
// REDUCE: interp-undefined-reduce.mlir:10:5: error: 'tile.reduce' op reads undefined element [0] of its result (clear = false) memref<16xf32, #tile.fragment>: nothing wrote it since 'tile.alloc_fragment' at {{.*}}interp-undefined-reduce.mlir:8:10 allocated it (in block [0])

// PARTLY: @partly ran on the interpreter in
// PARTLY-NOT: error
// PARTLY-CPU: @partly ran on the CPU reference in
// PARTLY-CPU: check %arg1: match
// PARTLY-CPU: check %arg2: match
// PARTLY-VULKAN: @partly ran on {{.*}} (Vulkan) in
// PARTLY-VULKAN: check %arg1: match
// PARTLY-VULKAN: check %arg2: match

// A tile.parallel whose iterations read an element another one overwrites (a row divided in
// place by its first element).
// RACE-PARALLEL: interp-race-parallel.mlir:16:12: error: 'memref.load' op races: iteration [0, 1] of a tile.parallel reads element [0, 0] of memref<8x64xf32, #tile.fragment>, which iteration [0, 0] changed (the iterations of a tile.parallel are unordered) (in block [0])
// RACE-PARALLEL-NEXT: error: the interpreter stopped: the program's behaviour is undefined (see the error above)

// RACE-BLOCKS: interp-race-blocks.mlir:12:5: error: 'tile.copy' op races: block [1] of a tile.kernel writes element [0, 0] of memref<16x16xf32>, which block [0] changed (the blocks of a tile.kernel are unordered)
