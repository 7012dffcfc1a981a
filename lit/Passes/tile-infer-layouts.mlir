// tile-infer-layouts: the layout of every tile for the module's tile.target, as a typed tile.layout
// on the op that allocates it (#tile.smem for shared tiles, #tile.frag for fragments), the layout of
// every tile.parallel's iterations (tile.loop_layout), and on the kernel (tile.strategy) how it is
// lowered: "per-op" on sm_90a, gfx942 and spirv-coopmat, "plain" on spirv.
// tile-infer-layouts-propagation.mlir follows layouts through whole kernels.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts | FileCheck %s

// sm_90a: K tiles of 16 f16 (32-byte rows: 32-byte swizzle, K-major A), B as KxN (N-major, 128-byte
// swizzle), one warpgroup, two 64-row wgmma tiles.
// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel {{.*}} attributes {tile.strategy = "per-op"}
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<swizzle = 32, box = [64, 16]>}
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [16, 64]>}
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128,
// CHECK-SAME: thread = (d0, d1) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2),
// CHECK-SAME: slot = (d0, d1) -> ((d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), origin = "wgmma.acc.m64n64">}
// The epilogue runs each element on the thread that holds it.
// CHECK: tile.parallel {{.*}} attributes {tile.loop_layout = #tile.frag<shape = [64, 64], threads = 128, {{.*}} origin = "wgmma.acc.m64n64">}
module attributes {tile.target = "sm_90a"} {
func.func @gemm(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<128x96xf16>
  }
  return
}
}

// -----

// gfx942: the same program on mfma: padded LDS rows, two LDS buffers, B transposed into K-major rows.
// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel {{.*}} attributes {tile.strategy = "per-op"}
// (The ring depth of the LDS tiles is the schedule's: tile-plan-pipelines.)
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<padding = 4>}
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<padding = 4, transposed = true>}
// Waves (1, 2), each a 64x32 wave tile of one 32x32 mfma: lane l holds column l mod 32, rows
// 8 (v / 4) + 4 (l / 32) + v mod 4 for accumulator v.
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128,
// CHECK-SAME: thread = (d0, d1) -> ((d1 floordiv 32) * 64 + ((d0 mod 8) floordiv 4) * 32 + d1 mod 32),
// CHECK-SAME: slot = (d0, d1) -> ((d0 floordiv 32) * 16 + ((d0 mod 32) floordiv 8) * 4 + d0 mod 4), origin = "mfma.32x32">}
module attributes {tile.target = "gfx942"} {
func.func @gemm(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<128x96xf16>
  }
  return
}
}

// -----

// spirv-coopmat: an accumulator that only a fill and the main loop's gemm touch before its
// epilogue is held in cooperative matrices, 16x16 matrices split over the 4 subgroups as 2x2; its
// slots say where each element lands when the matrices are staged into registers (element e of a
// matrix on lane e mod 32, slot 8 t + e / 32). The row statistics take its row slice: a row on 16
// lanes of each of the two subgroups along N. The gemm's A and B tiles get rows padded by 16
// bytes, so that the rows a matrix load reads fall in different banks.
// CHECK-LABEL: func.func @gemm_row_softmax
// CHECK: tile.kernel {{.*}} attributes {tile.strategy = "per-op"}
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<padding = 8>} : memref<64x32xf16
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<padding = 8>} : memref<32x64xf16
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, thread = (d0, d1) -> (((d0 floordiv 32) * 2 + d1 floordiv 32) * 32 + (d0 mod 2) * 16 + d1 mod 16), slot = (d0, d1) -> ((((d0 mod 32) floordiv 16) * 2 + (d1 mod 32) floordiv 16) * 8 + (d0 mod 16) floordiv 2), origin = "coopmat.16x16x16">}
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 128, replicate = 64, {{.*}} origin = "slice(coopmat.16x16x16)">}
module attributes {tile.target = "spirv-coopmat"} {
func.func @gemm_row_softmax(%A: memref<200x256xf16>, %B: memref<256x192xf16>, %C: memref<200x192xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0625 : f32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x192xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %e = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<200x192xf32>
  }
  return
}
}

// -----

// Outside the GEMM family: nothing anchors the loops, so the first takes the blocked layout
// (chunks of 4 columns, 16 threads a row), and the reductions
// and the second loop follow it: a row's statistics are held by the row's 16 threads.
// CHECK-LABEL: func.func @row_softmax
// CHECK: tile.kernel {{.*}} attributes {tile.strategy = "per-op"}
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [8, 64], threads = 64, thread = (d0, d1) -> ((d0 * 16 + d1 floordiv 4) mod 64), slot = (d0, d1) -> (((d0 * 16 + d1 floordiv 4) floordiv 64) * 4 + d1 mod 4), origin = "blocked">}
// CHECK-COUNT-2: tile.alloc_fragment {tile.layout = #tile.frag<shape = [8], threads = 64, replicate = 64, thread = (d0)[s0] -> ((d0 * 16 + s0 floordiv 4) mod 64), slot = (d0) -> (((d0 * 16) floordiv 64) * 4), origin = "slice(blocked)">}
// CHECK: tile.parallel {{.*}} attributes {tile.loop_layout = #tile.frag<shape = [8, 64], {{.*}}, origin = "blocked">}
module attributes {tile.target = "sm_90a"} {
func.func @row_softmax(%X: memref<24x64xf32>, %Y: memref<24x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c3) threads(64) (%bx) {
    %S = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c8 : index
    tile.copy %X[%r0, %c0], %S : memref<24x64xf32>, memref<8x64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) : memref<8x64xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 64) {
      %x = memref.load %S[%i, %j] : memref<8x64xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<8xf32, #tile.fragment>
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<8x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<8x64xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 64) {
      %e = memref.load %S[%i, %j] : memref<8x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<8xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<8x64xf32, #tile.fragment>
    }
    tile.copy %S, %Y[%r0, %c0] : memref<8x64xf32, #tile.fragment>, memref<24x64xf32>
  }
  return
}
}

// -----

// The blocked layout: chunks of 4 consecutive elements of a row, chunk c on thread c mod 64.
// CHECK-LABEL: func.func @scale
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [16, 16], threads = 64, thread = (d0, d1) -> (d0 * 4 + d1 floordiv 4), slot = (d0, d1) -> (d1 mod 4), origin = "blocked">}
module attributes {tile.target = "spirv"} {
func.func @scale(%X: memref<32x16xf32>, %Y: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c2) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.copy %X[%r0, %c0], %F : memref<32x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %v = memref.load %F[%i, %j] : memref<16x16xf32, #tile.fragment>
      %e = math.exp %v : f32
      memref.store %e, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : memref<16x16xf32, #tile.fragment>, memref<32x16xf32>
  }
  return
}
}

// -----

// sm_90a: a column reduction of the wgmma accumulator: a column spans the 8 quads of a warp, then
// the warps, which exchange partial columns in shared memory.
// CHECK-LABEL: func.func @column_sum
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, {{.*}} origin = "wgmma.acc.m64n64">}
// A column is held by lane quad (j mod 8) / 2 of every row group of every warp: 64 replicas.
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 128, replicate = 64,
// CHECK-SAME: thread = (d0)[s0] -> ((d0 mod 8) floordiv 2 + (s0 floordiv 16) * 32 + (s0 mod 8) * 4),
// CHECK-SAME: slot = (d0) -> ((d0 floordiv 8) * 4 + d0 mod 2), origin = "slice(wgmma.acc.m64n64)">}
module attributes {tile.target = "sm_90a"} {
func.func @column_sum(%A: memref<256x128xf16>, %B: memref<128x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<128x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %sum dim(0) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %sum[%j] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %s : f32
      memref.store %d, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
}

// -----

// spirv-coopmat: an accumulator read inside the loop that accumulates it (here a rescale before
// each gemm) cannot stay in cooperative matrices between its gemms: it keeps the blocked layout and
// its gemm stages it through workgroup memory each time (its tiles are not padded).
// CHECK-LABEL: func.func @rescaled_in_loop
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<>}
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<>}
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, {{.*}} origin = "blocked">}
// CHECK-NOT: coopmat.16x16x16
module attributes {tile.target = "spirv-coopmat"} {
func.func @rescaled_in_loop(%A: memref<64x128xf16>, %B: memref<128x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %k0], %As : memref<64x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %c0], %Bs : memref<128x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 64) {
        %v = memref.load %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
        %s = arith.mulf %v, %half : f32
        memref.store %s, %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      }
      tile.gemm %As, %Bs, %Acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %C : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// sm_90a: a wgmma operand tile is laid out the way it is filled. A, copied ahead into the loop's
// ring (tile-plan-pipelines will issue it as TMA boxes), with K = 128: two 64-column boxes along K,
// each with the 128-byte swizzle. B, copied once by the threads before the loop: column slabs of 8
// elements (core matrices, no swizzle).
// CHECK-LABEL: func.func @operands_as_filled
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [64, 64], boxes = 2>} : memref<64x128xf16
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<box = [128, 8], boxes = 8>} : memref<128x64xf16
module attributes {tile.target = "sm_90a"} {
func.func @operands_as_filled(%A: memref<256x512xf16>, %B: memref<128x64xf16>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %B[%c0, %c0], %Bs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0], %As : memref<256x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x64xf32>
  }
  return
}
}

// -----

// sm_90a, i8 x i8 -> i32 with B given as NxK (both K-major, what wgmma reads 8-bit operands as):
// A, copied ahead into the loop's ring, K = 256 i8: two boxes of 128-byte rows (128 i8 columns),
// the 128-byte swizzle; B, copied once by the threads: column slabs of 16 bytes (16 i8 elements).
// The accumulator has the wgmma layout.
// CHECK-LABEL: func.func @i8_operands_as_filled
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [64, 128], boxes = 2>} : memref<64x256xi8
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<box = [64, 16], boxes = 16>} : memref<64x256xi8
// CHECK-NEXT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, {{.*}}origin = "wgmma.acc.m64n64">} : memref<64x64xi32
module attributes {tile.target = "sm_90a"} {
func.func @i8_operands_as_filled(%A: memref<256x1024xi8>, %B: memref<64x256xi8>, %C: memref<256x64xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x256xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %B[%c0, %c0], %Bs : memref<64x256xi8>, memref<64x256xi8, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c256 : index
      tile.copy %A[%m0, %k0], %As : memref<256x1024xi8>, memref<64x256xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x256xi8, #gpu.address_space<workgroup>>, memref<64x256xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %c0] : memref<64x64xi32, #tile.fragment>, memref<256x64xi32>
  }
  return
}
}

// -----

// One shared tile in two gemm roles (MLA decode's KV tile: B transposed for the scores, B for the
// output). sm_90a: one layout serves both descriptors; copied ahead into the loop's ring, whole
// 128-byte rows, the KV tile takes TMA's swizzled boxes (the Q tile, copied once by the threads,
// column slabs).
// CHECK-LABEL: func.func @shared_kv
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<box = [64, 8], boxes = 8>} : memref<64x64xf16
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [64, 64]>} : memref<64x64xf16
module attributes {tile.target = "sm_90a"} {
func.func @shared_kv(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// The same with 64-byte rows: TMA's 64-byte swizzled box serves K along the columns only, so the
// tile read with each dimension as K takes the threads' column slabs (cp.async).
// CHECK-LABEL: func.func @narrow_roles
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<box = [64, 8], boxes = 4>} : memref<64x32xf16
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<box = [64, 8], boxes = 4>} : memref<64x32xf16
module attributes {tile.target = "sm_90a"} {
func.func @narrow_roles(%Q: memref<64x32xf16>, %KV: memref<256x32xf16>, %O: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x32xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x32xf32, #tile.fragment>, memref<64x32xf32>
  }
  return
}
}

// -----

// gfx942: mfma reads an LDS tile stored either way and prefers B stored K-major; a tile two gemms
// prefer differently keeps the first gemm's layout (B given as NxK: rows padded, not transposed).
// CHECK-LABEL: func.func @shared_kv_gfx942
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<padding = 4>} : memref<64x64xf16
// CHECK-NEXT: tile.alloc_shared {tile.layout = #tile.smem<padding = 4>} : memref<64x64xf16
module attributes {tile.target = "gfx942"} {
func.func @shared_kv_gfx942(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// Two warpgroups and 64-row accumulators: the warpgroups split N (each a 64x32 tile, its
// instruction m64n32), the warpgroup's column block in the thread map.
// CHECK-LABEL: func.func @split_n_attention
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 256, thread = (d0, d1) -> ((d1 floordiv 32) * 128 + (d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), slot = (d0, d1) -> (((d1 mod 32) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), origin = "wgmma.acc.m64n32">}
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 256, {{.*}}origin = "wgmma.acc.m64n32">}
module attributes {tile.target = "sm_90a"} {
func.func @split_n_attention(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688011112042 : f32
  %nscale = arith.constant -0.18033688011112042 : f32
  tile.kernel grid(%c1) threads(256) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 64) {
      %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// A reduction to a scalar records the scalar's layout too (an empty shape: every thread that
// reduced holds the result), so no later pass infers it again.
// CHECK-LABEL: func.func @to_scalar
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [256], threads = 256, thread = (d0) -> (d0), slot = (d0) -> (0), origin = "blocked">}
// CHECK: tile.alloc_fragment {tile.layout = #tile.frag<shape = [], threads = 256, replicate = 256, thread = ()[s0] -> (s0), slot = () -> (0), origin = "slice(blocked)">} : memref<f32, #tile.fragment>
module attributes {tile.target = "sm_90a"} {
func.func @to_scalar(%n: index, %x: memref<256xf32>) {
  tile.kernel grid(%n) threads(256) (%bx) {
    %v = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<f32, #tile.fragment>
    tile.copy %x, %v : memref<256xf32>, memref<256xf32, #tile.fragment>
    tile.reduce <absmax> %v, %s dim(0) : memref<256xf32, #tile.fragment>, memref<f32, #tile.fragment>
  }
  return
}
}

// -----

// A loop that stores every element of a wgmma operand the threads write (in 8-column slabs of core
// matrices) at its own indices takes a slab row a thread: 8 consecutive columns of one row, eight
// neighbouring threads the eight rows of one core matrix.
// CHECK-LABEL: func.func @thread_written_operand
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<box = [64, 8], boxes = 8>} : memref<64x64xf16
// CHECK: tile.loop_layout = #tile.frag<shape = [64, 64], threads = 128, thread = (d0, d1) -> ((((d0 floordiv 8) * 8 + d1 floordiv 8) * 8 + d0 mod 8) mod 128)
module attributes {tile.target = "sm_90a"} {
func.func @thread_written_operand(%A: memref<64x64xf16>, %B: memref<64x64xi8>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%n, %k) in (64, 64) {
      %q = memref.load %B[%n, %k] : memref<64x64xi8>
      %w = arith.sitofp %q : i8 to f16
      memref.store %w, %Bd[%n, %k] : memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.gemm %As, %Bd, %Cf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}
