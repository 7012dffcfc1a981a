// tile-canonicalize: the tile ops' Rust rewrite patterns, and nothing of other dialects'.
// RUN: tile-opt %s -split-input-file -tile-canonicalize | FileCheck %s
// The same patterns are the ops' canonicalizers, so upstream -canonicalize applies them too.
// RUN: tile-opt %s -split-input-file -canonicalize | FileCheck %s

// A fill overwritten by a second fill before anything reads it is dead.
// CHECK-LABEL: func.func @fill_then_fill
// CHECK: tile.alloc_fragment
// CHECK-NEXT: tile.fill %{{.*}}, %[[ONE:.*]] : memref<64x64xf32, #tile.fragment>
// CHECK-NOT: tile.fill
func.func @fill_then_fill(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    %one = arith.constant 1.0 : f32
    tile.fill %F, %one : memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// A whole-tile copy into the filled tile overwrites it too.
// CHECK-LABEL: func.func @fill_then_copy
// CHECK: tile.alloc_fragment
// CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<256x256xf32>, memref<64x64xf32, #tile.fragment>
func.func @fill_then_copy(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %C[%i, %i], %F : memref<256x256xf32>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// Negative: the gemm accumulates into the filled tile, so it reads it and the fill stays.
// CHECK-LABEL: func.func @fill_then_gemm
// CHECK: tile.fill
// CHECK-NEXT: tile.gemm
func.func @fill_then_gemm(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %A, %B, %F : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// Negative: a copy into part of the tile (offsets on the destination) does not overwrite all of it.
// CHECK-LABEL: func.func @fill_then_partial_copy
// CHECK: tile.fill
// CHECK-NEXT: tile.copy
func.func @fill_then_partial_copy(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    %G = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %G, %F[%i, %i] : memref<32x32xf32, #tile.fragment>, memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<256x256xf32>
  }
  return
}

// -----

// Negative: a copy of the tile into itself reads it.
// CHECK-LABEL: func.func @fill_then_self_copy
// CHECK: tile.fill
// CHECK-NEXT: tile.copy
func.func @fill_then_self_copy(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %F, %F : memref<64x64xf32, #tile.fragment>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// A pipelined loop with constant bounds and no iteration is erased with its body (and then the
// kernel, left without effects, is dead too).
// CHECK-LABEL: func.func @zero_trip
// CHECK-NOT: tile.pipelined
// CHECK-NOT: tile.copy
// CHECK: return
func.func @zero_trip(%A: memref<256x256xf16>, %i: index) {
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c4 to %c4 stages(3) {
      tile.copy %A[%k, %k], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
    tile.pipelined %k = %c4 to %c2 stages(2) {
      tile.copy %A[%k, %k], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Negative: one iteration, or bounds unknown at compile time, and the loop stays.
// CHECK-LABEL: func.func @loops_that_run
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(3)
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(2)
func.func @loops_that_run(%A: memref<256x256xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c1 stages(3) {
      tile.copy %A[%k, %k], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
    tile.pipelined %k = %c0 to %n stages(2) {
      tile.copy %A[%k, %k], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
