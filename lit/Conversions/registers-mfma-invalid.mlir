// A gemm whose accumulator has an mfma layout that the mfma rule of the register rules cannot take
// keeps the scalar rule (one loop over K per accumulator element), with a warning at the gemm
// naming what is missing; a gemm that reads an operand the slow way says so too.
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu -verify-diagnostics | FileCheck %s

// K = 4 is not a multiple of the 32x32x8 instruction's K: the first gemm multiplies element by
// element; the second (K = 64) runs on mfma (two tiles a wave, two K steps an iteration).
// CHECK-LABEL: gpu.func @shallow_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: arith.mulf
// CHECK-COUNT-4: amdgpu.mfma 32x32x8
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @shallow(%X: memref<64x4xf16>, %W1: memref<4x64xf16>, %W2: memref<64x64xf16>, %Y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x4xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<4x64xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X, %Xs : memref<64x4xf16>, memref<64x4xf16, #gpu.address_space<workgroup>>
    tile.copy %W1, %W1s : memref<4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op has K = 4, not a multiple of the 32x32x8 instruction's 8; use a K tile that is a multiple of 8; it runs without matrix instructions on gfx942}}
    tile.gemm %Xs, %W1s, %H : memref<64x4xf16, #gpu.address_space<workgroup>>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x64xf32, #tile.fragment>
    // A kernel of two gemms is the per-op rules' own: no word about the GEMM template.
    tile.gemm %P, %W2s, %O : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %O, %Y : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// -----

// i8 inputs with the mfma layout written by hand: the rule takes f16 and bf16 only.
// CHECK-LABEL: gpu.func @i8_inputs_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: arith.muli
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @i8_inputs(%X: memref<64x32xi8>, %W: memref<32x64xi8>, %Y: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, thread = (d0, d1) -> ((d0 floordiv 32) * 64 + ((d0 mod 8) floordiv 4) * 32 + d1 mod 32), slot = (d0, d1) -> ((d1 floordiv 32) * 16 + ((d0 mod 32) floordiv 8) * 4 + d0 mod 4), origin = "mfma.32x32">} : memref<64x64xi32, #tile.fragment>
    tile.copy %X, %Xs : memref<64x32xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
    tile.copy %W, %Ws : memref<32x64xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xi32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op multiplies i8 by i8 into i32; mfma on gfx942 takes f16, bf16, f8E4M3FN or f8E5M2 inputs (both alike; 8-bit floats widened to f16 in registers) with an f32 accumulator; it runs without matrix instructions on gfx942}}
    tile.gemm %Xs, %Ws, %H : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.copy %H, %Y : memref<64x64xi32, #tile.fragment>, memref<64x64xi32>
  }
  return
}

// -----

// A layout named mfma.32x32 that is not the instruction's (a blocked layout, renamed).
// CHECK-LABEL: gpu.func @misnamed_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @misnamed(%X: memref<64x32xi8>, %W: memref<32x64xi8>, %Y: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, thread = (d0, d1) -> ((d0 * 64 + d1) mod 128), slot = (d0, d1) -> ((d0 * 64 + d1) floordiv 128), origin = "mfma.32x32">} : memref<64x64xi32, #tile.fragment>
    tile.copy %X, %Xs : memref<64x32xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
    tile.copy %W, %Ws : memref<32x64xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xi32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op has an accumulator layout named 'mfma.32x32' that is not the mfma.32x32 layout of any split of its 2 waves over the 64x64 tile}}
    tile.gemm %Xs, %Ws, %H : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.copy %H, %Y : memref<64x64xi32, #tile.fragment>, memref<64x64xi32>
  }
  return
}

// -----

// One LDS tile in two gemm roles (MLA decode's KV tile): stored as the first gemm prefers (rows
// padded, K along them for B given NxK), it is read as vectors there; the second gemm, B given
// KxN, reads K across the stored rows, element by element (a slower path, so a warning), and
// both run on mfma.
// CHECK-LABEL: gpu.func @shared_kv_0_kernel
// CHECK: vector.load
// CHECK: amdgpu.mfma 32x32x8
// CHECK: memref.load {{.*}} : memref<64x64xf16, strided<[68, 1]>, #gpu.address_space<workgroup>>
// CHECK: amdgpu.mfma 32x32x8
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
      // expected-warning @+1 {{'tile.gemm' op reads its B operand element by element on gfx942, not as vectors along K: its shared tile is stored with K across its rows (as another gemm reads it, or as its tile.layout says); a tile of its own would be stored K-major}}
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
