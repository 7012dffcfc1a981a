// tile-expand-matmuls: each tile.matmul becomes the GEMM kernels the module's target tiles it
// into: one where the sizes are static, one per size class under an scf.if on the sizes where they
// are known at run time (narrow rows, few tiles, many tiles; on sm_90a few tiles and a long K get
// a twin split across a cluster, and many tiles whose last wave would idle a balanced tiling).
// RUN: tile-opt %s -split-input-file -tile-expand-matmuls 2>&1 | FileCheck %s

// Static sizes with many tiles: sm_90a's wide tiling, 128x256 in 4 stages on two warpgroups.
// CHECK-LABEL: func.func @wide
// CHECK-NOT: tile.matmul
// CHECK-DAG: %[[GX:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[STEPS:.*]] = arith.constant 64 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(256) (%[[BX:.*]], %[[BY:.*]]) {
// CHECK: %[[AS:.*]] = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK: %[[CF:.*]] = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK: tile.fill %[[CF]], %{{.*}} : memref<128x256xf32, #tile.fragment>
// CHECK: %[[M0:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK: %[[N0:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: tile.pipelined %[[KT:.*]] = %{{.*}} to %[[STEPS]] stages(4) {
// CHECK: %[[K0:.*]] = arith.muli %[[KT]], %{{.*}} : index
// CHECK: tile.copy %{{.*}}[%[[M0]], %[[K0]]], %[[AS]]
// CHECK: tile.copy %{{.*}}[%[[K0]], %[[N0]]], %[[BS]]
// CHECK: tile.gemm %[[AS]], %[[BS]], %[[CF]] :
// CHECK: }
// CHECK: tile.copy %[[CF]], %{{.*}}[%[[M0]], %[[N0]]] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @wide(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
    tile.matmul %A, %B, %C : memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096x4096xf16>
    return
  }
}

// -----

// Ragged static sizes whose rows are not whole 128-byte lines (1544 and 2056 f16: 16 bytes off):
// TMA's boxes over such rows cost about twice the L2 traffic, so the larger tilings compete by the
// bytes their waves load: 132 tiles of 256x192 fill one wave (1 x 448), where 128x192 takes 2
// (2 x 320), 128x256 2 (2 x 384) and 192x256 2 (2 x 448); on clusters of two blocks sharing their
// B tiles, 66 pairs of 256x192 fill the 66 clusters of one wave (1 x (256 + 96)): 256x192 on two
// warpgroups, a ring of 3, its loop asking for multicast = 2.
// CHECK-LABEL: func.func @ragged
// CHECK-DAG: %[[GX:.*]] = arith.constant 11 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 12 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(256)
// CHECK: tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_shared : memref<64x192xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_fragment : memref<256x192xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) attributes {tile.schedule = {multicast = 2 : i64}} {
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @ragged(%A: memref<3001x1544xf16>, %B: memref<1544x2056xf16>, %C: memref<3001x2056xf16>) {
    tile.matmul %A, %B, %C : memref<3001x1544xf16>, memref<1544x2056xf16>, memref<3001x2056xf16>
    return
  }
}

// -----

// 5000^3 (rows 16 bytes off 128-byte lines): 540 tiles of 192x256 take 5 waves (5 x 448), 800 of
// 128x256 7 (7 x 384), 1080 of 128x192 9 (9 x 320); on clusters of two sharing B, 280 pairs of
// 192x256 take 5 waves of 66 (5 x (192 + 128)), 270 of 256x192 5 (5 x 352), 400 of 128x256 7
// (7 x 256): 192x256 on three warpgroups in pairs. Its last row of tiles holds 8 rows (5000 =
// 26 x 192 + 8) and pushes 20 tiles into a fifth wave (260 pairs of 26 rows take 4): the 4992
// rows of whole tiles are one kernel, the last 8 rows the narrow tiling's (64x128 on one
// warpgroup, a ring of 8: 40 tiles), from row 4992 on.
// CHECK-LABEL: func.func @rows_off_lines
// CHECK-DAG: %[[GX:.*]] = arith.constant 20 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 26 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(384)
// CHECK: tile.alloc_fragment : memref<192x256xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) attributes {tile.schedule = {multicast = 2 : i64}} {
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<192x256xf32, #tile.fragment>, memref<5000x5000xf16>
// CHECK: }
// CHECK-DAG: %[[TX:.*]] = arith.constant 40 : index
// CHECK-DAG: %[[TY:.*]] = arith.constant 1 : index
// CHECK: tile.kernel grid(%[[TX]], %[[TY]]) threads(128) (%{{.*}}, %[[BY:.*]]) {
// CHECK: tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.constant 4992 : index
// CHECK: %[[M0:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) {
// CHECK: tile.copy %{{.*}}[%[[M0]], %{{.*}}], %{{.*}} : memref<5000x5000xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%[[M0]], %{{.*}}] : memref<64x128xf32, #tile.fragment>, memref<5000x5000xf16>
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @rows_off_lines(%A: memref<5000x5000xf16>, %B: memref<5000x5000xf16>, %C: memref<5000x5000xf16>) {
    tile.matmul %A, %B, %C : memref<5000x5000xf16>, memref<5000x5000xf16>, memref<5000x5000xf16>
    return
  }
}

// -----

// 4992^3 (rows of whole 128-byte lines): the wide and the balanced tiling by their waves' cost in
// tile area: 780 tiles of 128x256 take 6 waves, 1014 of 128x192 8 (the same cost, above the 0.9
// of the wide tiling's that would choose them): the wide tiling.
// CHECK-LABEL: func.func @near_tie
// CHECK: tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @near_tie(%A: memref<4992x4992xf16>, %B: memref<4992x4992xf16>, %C: memref<4992x4992xf16>) {
    tile.matmul %A, %B, %C : memref<4992x4992xf16>, memref<4992x4992xf16>, memref<4992x4992xf16>
    return
  }
}

// -----

// Static sizes with few tiles (4 of 128x256): 128x128 tiles, which tile-split-k may split later.
// The weight as N x K: B's tile is columns x depth, and the gemm reads it transposed.
// CHECK-LABEL: func.func @few_tiles_transposed
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(256)
// CHECK: tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
// CHECK: tile.pipelined
// CHECK: tile.copy %{{.*}}[%[[N0:.*]], %[[K0:.*]]], %[[BS]] : memref<512x4096xbf16>
// CHECK: tile.gemm %{{.*}}, %[[BS]], %{{.*}} {transpose_b}
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_90a"} {
  func.func @few_tiles_transposed(%X: memref<256x4096xbf16>, %W: memref<512x4096xbf16>, %Y: memref<256x512xf32>) {
    tile.matmul %X, %W, %Y {transpose_b} : memref<256x4096xbf16>, memref<512x4096xbf16>, memref<256x512xf32>
    return
  }
}

// -----

// 128 tiles of 128x256 fill 97% of the 132 multiprocessors: not few (fewer than three quarters,
// 99), so the wide tiling, one tile a block (not more tiles than multiprocessors).
// CHECK-LABEL: func.func @nearly_a_wave
// CHECK-DAG: %[[GX:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 16 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(256)
// CHECK: tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(4) {
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_90a"} {
  func.func @nearly_a_wave(%A: memref<2048x8192xf16>, %B: memref<8192x2048xf16>, %C: memref<2048x2048xf16>) {
    tile.matmul %A, %B, %C : memref<2048x8192xf16>, memref<8192x2048xf16>, memref<2048x2048xf16>
    return
  }
}

// -----

// Decode rows: the narrow tiling on one warpgroup with a ring of 8, its 64 tiles of 64x64 filling
// less than a wave of 132 multiprocessors (sm_90a's 64x128 where they would not: below).
// CHECK-LABEL: func.func @narrow
// CHECK-DAG: %[[GX:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 1 : index
// CHECK: tile.kernel grid(%[[GX]], %[[GY]]) threads(128)
// CHECK: tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) {
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_90a"} {
  func.func @narrow(%A: memref<16x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<16x4096xf16>) {
    tile.matmul %A, %B, %C : memref<16x4096xf16>, memref<4096x4096xf16>, memref<16x4096xf16>
    return
  }
}

// -----

// 128 rows whose wide tiles are few (16 of 128x256): the narrow tiling on two row tiles, not the
// few-tiles one (128 tiles of 64x64: one wave).
// CHECK-LABEL: func.func @narrow_twice
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) {
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_90a"} {
  func.func @narrow_twice(%A: memref<128x14336xf16>, %B: memref<14336x4096xf16>, %C: memref<128x4096xf16>) {
    tile.matmul %A, %B, %C : memref<128x14336xf16>, memref<14336x4096xf16>, memref<128x4096xf16>
    return
  }
}

// -----

// Decode rows of a wide weight: 256 tiles of 64x64 would take two waves, 128 of 64x128 take one.
// CHECK-LABEL: func.func @narrow_many
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) {
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_90a"} {
  func.func @narrow_many(%A: memref<16x4096xf16>, %B: memref<4096x16384xf16>, %C: memref<16x16384xf16>) {
    tile.matmul %A, %B, %C : memref<16x4096xf16>, memref<4096x16384xf16>, memref<16x16384xf16>
    return
  }
}

// -----

// Run-time rows (a token count) and a static weight: narrow rows first (up to 64, or up to 128
// where the wide tiling's tiles are fewer than 99: at most 128 tiles of 64x64, one wave), then few
// tiles, then the
// balanced or the wide tiling by their waves' cost, whose loops ask for persistent kernels; each
// class of few tiles with a long K has its split twin. Six kernels, each under the conditions
// the launcher evaluates.
// CHECK-LABEL: func.func @tokens
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x4096xf16>
// CHECK: %[[DECODE:.*]] = arith.cmpi ule, %[[M]], %{{.*}} : index
// CHECK: %[[TWICE:.*]] = arith.cmpi ule, %[[M]], %{{.*}} : index
// CHECK: %[[WIDE_TILES:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[FEW_ROWS:.*]] = arith.andi %[[TWICE]], %[[WIDE_TILES]] : i1
// CHECK: %[[NARROW:.*]] = arith.ori %[[DECODE]], %[[FEW_ROWS]] : i1
// CHECK: scf.if %[[NARROW]] {
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[FEW]] {
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) attributes {tile.schedule = {split = 2 : i64}} {
// CHECK: } else {
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(8) {
// CHECK: } else {
// CHECK: %[[TILES:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[UNDER:.*]] = arith.cmpi ult, %[[TILES]], %{{.*}} : index
// CHECK: scf.if %[[UNDER]] {
// CHECK: scf.if %{{.*}} {
// CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
// CHECK: stages(4) attributes {tile.schedule = {split = 2 : i64}} {
// CHECK: } else {
// CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
// CHECK: } else {
// CHECK: %[[BALANCED:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[BALANCED]] {
// CHECK: tile.alloc_fragment : memref<128x192xf32, #tile.fragment>
// CHECK: stages(4) attributes {tile.schedule = {persistent = true}} {
// CHECK: } else {
// CHECK: tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK: stages(4) attributes {tile.schedule = {persistent = true}} {
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @tokens(%X: memref<?x4096xf16>, %W: memref<4096x4096xf16>, %Y: memref<?x4096xf16>) {
    tile.matmul %X, %W, %Y : memref<?x4096xf16>, memref<4096x4096xf16>, memref<?x4096xf16>
    return
  }
}

// -----

// Every size known at run time: where A's rows (K f16) or B's (N f16) are not whole 128-byte
// lines (the launcher computes the rows' bytes modulo 128), the larger 256x192 tiling one tile a
// block on two warpgroups, a ring of 3; else the balanced or the wide tiling as before (after
// the narrow and few-tile classes and their split twins: seven kernels).
// CHECK-LABEL: func.func @run_time_rows
// CHECK: %[[KB:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: %[[KREST:.*]] = arith.remui %[[KB]], %c128{{.*}} : index
// CHECK: %[[KOFF:.*]] = arith.cmpi ne, %[[KREST]], %c0{{.*}} : index
// CHECK: %[[NREST:.*]] = arith.remui %{{.*}}, %c128{{.*}} : index
// CHECK: %[[NOFF:.*]] = arith.cmpi ne, %[[NREST]], %c0{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.ori %[[KOFF]], %[[NOFF]] : i1
// CHECK: scf.if %[[OFF]] {
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(256)
// CHECK: tile.alloc_fragment : memref<256x192xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) {
// CHECK: } else {
// CHECK: tile.alloc_fragment : memref<128x192xf32, #tile.fragment>
// CHECK: tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @run_time_rows(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
    tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>
    return
  }
}

// -----

// A K too short to split (256 steps' worth is not there: 8 steps of 64): no split twins.
// CHECK-LABEL: func.func @short_k
// CHECK-NOT: split
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @short_k(%X: memref<?x512xf16>, %W: memref<512x1024xf16>, %Y: memref<?x1024xf16>) {
    tile.matmul %X, %W, %Y : memref<?x512xf16>, memref<512x1024xf16>, memref<?x1024xf16>
    return
  }
}

// -----

// A weight of 11008 columns has 86 tiles of 128 columns at any row count, more than half of the
// 132 multiprocessors: no split twins; four kernels (narrow, few tiles, balanced, wide).
// CHECK-LABEL: func.func @wide_weight
// CHECK-NOT: split
// CHECK-COUNT-4: tile.kernel
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @wide_weight(%X: memref<?x4096xf16>, %W: memref<11008x4096xf16>, %Y: memref<?x11008xf16>) {
    tile.matmul %X, %W, %Y {transpose_b} : memref<?x4096xf16>, memref<11008x4096xf16>, memref<?x11008xf16>
    return
  }
}

// -----

// A batched product: a grid plane a batch, the batch index first in A's and C's copies, and in B's
// where B has a batch of its own (here one weight for every batch: B's copy has none).
// CHECK-LABEL: func.func @batched
// CHECK: %[[BATCH:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?x1024xf16>
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}, %[[BATCH]]) threads(128) (%{{.*}}, %{{.*}}, %[[BZ:.*]]) {
// CHECK: tile.copy %{{.*}}[%[[BZ]], %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x1024xf16>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<1024x512xf16>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%[[BZ]], %{{.*}}, %{{.*}}] : memref<64x128xf32, #tile.fragment>, memref<?x?x512xf16>
// The balanced and wide classes' loops do not ask for persistent kernels (which walk 2-D grids).
// CHECK: tile.alloc_fragment : memref<128x192xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(4) {
// CHECK: tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(4) {
module attributes {tile.target = "sm_90a"} {
  func.func @batched(%X: memref<?x?x1024xf16>, %W: memref<1024x512xf16>, %Y: memref<?x?x512xf16>) {
    tile.matmul %X, %W, %Y : memref<?x?x1024xf16>, memref<1024x512xf16>, memref<?x?x512xf16>
    return
  }
}

// -----

// 8-bit inputs: K steps of 128 elements (the same 128-byte rows as 64 f16 ones), B as N x K.
// CHECK-LABEL: func.func @fp8
// CHECK: tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_shared : memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
module attributes {tile.target = "sm_90a"} {
  func.func @fp8(%A: memref<4096x4096xf8E4M3FN>, %B: memref<4096x4096xf8E4M3FN>, %C: memref<4096x4096xbf16>) {
    tile.matmul %A, %B, %C {transpose_b} : memref<4096x4096xf8E4M3FN>, memref<4096x4096xf8E4M3FN>, memref<4096x4096xbf16>
    return
  }
}

// -----

// sm_80: mma.sync tilings, K steps of 32 in rings of 3; no multiprocessor count, no clusters: run-
// time rows give two kernels, narrow and wide.
// CHECK-LABEL: func.func @ampere
// CHECK: scf.if
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3) {
// CHECK: } else {
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128)
// CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
// CHECK-NOT: tile.kernel
module attributes {tile.target = "sm_80"} {
  func.func @ampere(%X: memref<?x1024xf16>, %W: memref<1024x1024xf16>, %Y: memref<?x1024xf16>) {
    tile.matmul %X, %W, %Y : memref<?x1024xf16>, memref<1024x1024xf16>, memref<?x1024xf16>
    return
  }
}

// -----

// Plain SPIR-V: one tiling for every size, 64x64 tiles that fit lavapipe's 32 KiB.
// CHECK-LABEL: func.func @vulkan
// CHECK-NOT: scf.if
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(256)
// CHECK: tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(2) {
// CHECK-NOT: tile.kernel
module attributes {tile.target = "spirv"} {
  func.func @vulkan(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
    tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>
    return
  }
}
