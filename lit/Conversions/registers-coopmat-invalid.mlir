// A gemm with a fragment accumulator that the cooperative-matrix rule of the register rules cannot
// take on spirv-coopmat keeps the scalar rule (one loop over K per accumulator element), with a
// warning at the gemm naming what is missing; the kernel's other gemms still run on cooperative
// matrices.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv-coopmat -verify-diagnostics | FileCheck %s

// K = 8 is not a multiple of the cooperative matrices' 16: the first gemm multiplies element by
// element; the second (K = 64) runs on cooperative matrices.
// CHECK-LABEL: gpu.func @shallow_0_kernel
// CHECK-NOT: gpu.subgroup_mma
// CHECK: arith.mulf
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: gpu.return
func.func @shallow(%X: memref<64x8xf16>, %W1: memref<8x64xf16>, %W2: memref<64x64xf16>, %Y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x8xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<8x64xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X, %Xs : memref<64x8xf16>, memref<64x8xf16, #gpu.address_space<workgroup>>
    tile.copy %W1, %W1s : memref<8x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op is a 64x64x8 gemm; cooperative matrices on spirv-coopmat need M, N and K to be multiples of 16; it runs without cooperative matrices on spirv-coopmat (one loop over K per accumulator element)}}
    tile.gemm %Xs, %W1s, %H : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
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

// No room for the staging area: 48 KiB of shared tiles leave nothing of the 48 KiB, so both gemms
// keep the scalar rule (the kernel still fits without cooperative matrices).
// CHECK-LABEL: gpu.func @full_0_kernel
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.return
func.func @full(%A: memref<64x128xf16>, %B: memref<128x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc2 = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %A, %As : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %B, %Bs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %A, %Ws : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc2, %zero : memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op needs 1024 bytes of workgroup memory to stage its accumulator for cooperative matrices, but the kernel's shared tiles and scratch leave 0 of spirv-coopmat's 49152; use smaller tiles; it runs without cooperative matrices on spirv-coopmat}}
    tile.gemm %As, %Bs, %Acc : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op needs 1024 bytes of workgroup memory}}
    tile.gemm %Ws, %Bs, %Acc2 : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %C : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
