// tile.copy: every pair of levels, tiles of rank 1 to 3, offsets on either side, global tiles that
// reach past the end of the buffer (legal: they are clipped), and tiles of lower rank than their
// global tensor (they lie in its trailing dimensions, or in those `dims` names).
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// A 128x128 tile at any offset in a 100x100 global buffer: clipped, so legal.
// CHECK-LABEL: func.func @clipped_global_tiles
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<100x100xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<100x100xf16>
func.func @clipped_global_tiles(%A: memref<100x100xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.copy %A[%i, %i], %S : memref<100x100xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
    tile.copy %F, %A[%i, %i] : memref<128x128xf32, #tile.fragment>, memref<100x100xf16>
  }
  return
}

// -----

// Rank 1 and rank 3 tiles, and a sub-tile of a larger shared buffer.
// CHECK-LABEL: func.func @ranks
// CHECK: tile.copy %{{.*}}[%{{.*}}], %{{.*}} : memref<?xf32>, memref<256xf32, #tile.fragment>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x?xbf16>, memref<2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.fragment>, memref<64x64xf32, #gpu.address_space<workgroup>>
func.func @ranks(%v: memref<?xf32>, %t: memref<?x?x?xbf16>, %i: index) {
  tile.kernel grid(%i) threads(256) (%bx) {
    %F = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %S = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
    %G = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %W = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %v[%i], %F : memref<?xf32>, memref<256xf32, #tile.fragment>
    tile.copy %t[%i, %i, %i], %S : memref<?x?x?xbf16>, memref<2x64x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %G, %W[%i, %i] : memref<32x32xf32, #tile.fragment>, memref<64x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// fp8 and integer tiles move like any other.
// CHECK-LABEL: func.func @narrow_types
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x?xf8E4M3FN>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xi32, #tile.fragment>, memref<?x?xi32>
func.func @narrow_types(%A: memref<?x?xf8E4M3FN>, %C: memref<?x?xi32>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.copy %A[%i, %i], %S : memref<?x?xf8E4M3FN>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %F, %C[%i, %i] : memref<64x64xi32, #tile.fragment>, memref<?x?xi32>
  }
  return
}

// -----

// #gpu.address_space<global> is the same level as no memory space.
// CHECK-LABEL: func.func @explicit_global
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<64x64xf16, #gpu.address_space<global>>, memref<16x16xf16, #gpu.address_space<workgroup>>
func.func @explicit_global(%A: memref<64x64xf16, #gpu.address_space<global>>, %i: index) {
  tile.kernel grid(%i) threads(32) (%bx) {
    %S = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%i, %i], %S : memref<64x64xf16, #gpu.address_space<global>>, memref<16x16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A 2-D tile in the trailing dimensions of a 4-D (batch, head, sequence, head dim) tensor, both
// directions, shared and fragment; and a 1-D tile of a 5-D tensor, the highest rank allowed.
// CHECK-LABEL: func.func @lower_rank_tiles
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<2x8x?x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<2x8x?x64xf16>, memref<64x64xf32, #tile.fragment>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment>, memref<2x8x?x64xf16>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<2x8x?x64xf16>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<2x2x2x2x128xf32>, memref<128xf32, #tile.fragment>
func.func @lower_rank_tiles(%Q: memref<2x8x?x64xf16>, %V: memref<2x2x2x2x128xf32>, %b: index, %h: index, %s: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%b) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.copy %Q[%b, %h, %s, %c0], %S : memref<2x8x?x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Q[%b, %h, %s, %c0], %F : memref<2x8x?x64xf16>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Q[%b, %h, %s, %c0] : memref<64x64xf32, #tile.fragment>, memref<2x8x?x64xf16>
    tile.copy %S, %Q[%b, %h, %s, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<2x8x?x64xf16>
    tile.copy %V[%b, %b, %h, %h, %c0], %G : memref<2x2x2x2x128xf32>, memref<128xf32, #tile.fragment>
  }
  return
}

// -----

// Atomic copies from a fragment into a global tensor: sums, maxima and minima.
// CHECK-LABEL: func.func @atomic_copies
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] atomic <sum> : memref<64x64xf32, #tile.fragment>, memref<100x100xf32>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] atomic <max> : memref<64x64xf32, #tile.fragment>, memref<100x100xbf16>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}] atomic <min> : memref<64xi32, #tile.fragment>, memref<?xi32>
func.func @atomic_copies(%C: memref<100x100xf32>, %D: memref<100x100xbf16>, %N: memref<?xi32>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<64xi32, #tile.fragment>
    tile.copy %F, %C[%i, %i] atomic <sum> : memref<64x64xf32, #tile.fragment>, memref<100x100xf32>
    tile.copy %F, %D[%i, %i] atomic <max> : memref<64x64xf32, #tile.fragment>, memref<100x100xbf16>
    tile.copy %G, %N[%i] atomic <min> : memref<64xi32, #tile.fragment>, memref<?xi32>
  }
  return
}

// -----

// A tile across the middle of a (batch, sequence, head, channel) tensor: `dims` names the
// dimensions it spans, in both directions and in a ring's asynchronous copy.
// CHECK-LABEL: func.func @spanned_dimensions
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] dims [1, 3] : memref<32x64xf32, #tile.fragment>, memref<2x80x3x64xf16>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} dims [0, 2] : memref<80x3x64xf16>, memref<32x64xf32, #tile.fragment>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
func.func @spanned_dimensions(%X: memref<2x80x3x64xf16>, %T: memref<80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    %B = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.copy %X[%i, %i, %i, %i], %S dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.copy %F, %X[%i, %i, %i, %i] dims [1, 3] : memref<32x64xf32, #tile.fragment>, memref<2x80x3x64xf16>
    tile.copy %T[%i, %i, %i], %F dims [0, 2] : memref<80x3x64xf16>, memref<32x64xf32, #tile.fragment>
    tile.copy_async %X[%i, %i, %i, %i], %S, %B[%i] dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A store limited to the tile's first rows and columns (a grouped GEMM's last row tile): the
// limits follow the destination's offsets, one per tile dimension.
// CHECK-LABEL: func.func @limited_store
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] limits [%{{.*}}, %{{.*}}] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
// CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] limits [%{{.*}}] dims [2] : memref<128xf32, #tile.fragment>, memref<4x?x?xf32>
func.func @limited_store(%C: memref<?x?xf16>, %D: memref<4x?x?xf32>, %i: index, %rows: index) {
  %c128 = arith.constant 128 : index
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] limits [%rows, %c128] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    tile.copy %G, %D[%bx, %i, %i] limits [%rows] dims [2] : memref<128xf32, #tile.fragment>, memref<4x?x?xf32>
  }
  return
}
