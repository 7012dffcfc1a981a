// A gemm whose accumulator has the mma layout (written by hand) that the mma.sync rule of sm_90a
// cannot take keeps the scalar rule (one loop over K per accumulator element), with a warning at
// the gemm naming what is missing.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu -verify-diagnostics | FileCheck %s

// i8 inputs with K = 16 (the mma layout written by hand): mma.sync's i8 form takes K steps of 32.
// CHECK-LABEL: gpu.func @i8_inputs_0_kernel
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.muli
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
func.func @i8_inputs(%X: memref<32x16xi8>, %W: memref<16x32xi8>, %Y: memref<32x32xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(64) (%b) {
    %Xs = tile.alloc_shared : memref<32x16xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<16x32xi8, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment {tile.layout = #tile.frag<shape = [32, 32], threads = 64, thread = (d0, d1) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), slot = (d0, d1) -> ((d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), origin = "mma.m16n8k16">} : memref<32x32xi32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<32x16xi8>, memref<32x16xi8, #gpu.address_space<workgroup>>
    tile.copy %W[%c0, %c0], %Ws : memref<16x32xi8>, memref<16x32xi8, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<32x32xi32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op has K = 16, not a multiple of the m16n8k32 instruction's 32; use a K tile that is a multiple of 32; it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
    tile.gemm %Xs, %Ws, %H : memref<32x16xi8, #gpu.address_space<workgroup>>, memref<16x32xi8, #gpu.address_space<workgroup>>, memref<32x32xi32, #tile.fragment>
    tile.copy %H, %Y[%c0, %c0] : memref<32x32xi32, #tile.fragment>, memref<32x32xi32>
  }
  return
}
}

// -----

// K = 8 with the mma layout written by hand: not a multiple of the m16n8k16 instruction's 16.
// CHECK-LABEL: gpu.func @shallow_0_kernel
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.mulf
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
func.func @shallow(%X: memref<32x8xf16>, %W: memref<8x32xf16>, %Y: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(64) (%b) {
    %Xs = tile.alloc_shared : memref<32x8xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<8x32xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment {tile.layout = #tile.frag<shape = [32, 32], threads = 64, thread = (d0, d1) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), slot = (d0, d1) -> ((d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), origin = "mma.m16n8k16">} : memref<32x32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<32x8xf16>, memref<32x8xf16, #gpu.address_space<workgroup>>
    tile.copy %W[%c0, %c0], %Ws : memref<8x32xf16>, memref<8x32xf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<32x32xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op has K = 8, not a multiple of the m16n8k16 instruction's 16; use a K tile that is a multiple of 16; it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
    tile.gemm %Xs, %Ws, %H : memref<32x8xf16, #gpu.address_space<workgroup>>, memref<8x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %H, %Y[%c0, %c0] : memref<32x32xf32, #tile.fragment>, memref<32x32xf32>
  }
  return
}
}

// -----

// A layout named for mma.sync with maps of its own (the rows of an instruction tile spread over
// two warps) on an accumulator whose gemm anchors the mma layout: a conflict, named with both ops
// and told apart from the instruction's layout of the same name.
module attributes {tile.target = "sm_90a"} {
func.func @not_a_split(%X: memref<32x16xf16>, %W: memref<16x32xf16>, %Y: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(64) (%b) {
    %Xs = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    // expected-error-re @+1 {{'tile.alloc_fragment' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as the mma.m16n8k16 layout, 'tile.gemm' at loc({{.*}}) wants another mma.m16n8k16 layout (other thread or slot maps); give each use a tile of its own (copy it, through shared memory where the threads differ)}}
    %H = tile.alloc_fragment {tile.layout = #tile.frag<shape = [32, 32], threads = 64, thread = (d0, d1) -> ((d0 floordiv 8) mod 2 * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), slot = (d0, d1) -> ((d0 floordiv 16) * 16 + (d1 floordiv 8) * 4 + (d1 mod 2)), origin = "mma.m16n8k16">} : memref<32x32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<32x16xf16>, memref<32x16xf16, #gpu.address_space<workgroup>>
    tile.copy %W[%c0, %c0], %Ws : memref<16x32xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<32x32xf32, #tile.fragment>
    tile.gemm %Xs, %Ws, %H : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %H, %Y[%c0, %c0] : memref<32x32xf32, #tile.fragment>, memref<32x32xf32>
  }
  return
}
}
