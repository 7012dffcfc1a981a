// Invalid input for tile-infer-layouts: a tile two ops want laid out in two ways is an error that
// names both; so is a module without a target.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layouts

// One shared tile, A of one gemm and B of the other: TMA and wgmma cannot agree on one swizzle.
module attributes {tile.target = "sm_90a"} {
func.func @two_roles(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    // expected-error-re @+1 {{'tile.alloc_shared' op has no consistent layout on sm_90a: 'tile.gemm' at loc({{.*}}:23:7) uses it as B, 'tile.gemm' at loc({{.*}}:24:7) as A; give each use a tile of its own (copy it)}}
    %T = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0], %S : memref<256x256xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %c0], %T : memref<256x256xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %S, %T, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.gemm %T, %S, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}
}

// -----

// No target: the pass says how to name one.
// expected-error @+1 {{tile-infer-layouts failed: needs the target: set tile.target = "sm_90a" (or "gfx942", "spirv", "spirv-coopmat") on the module, or run the tile-to-nvvm, tile-to-rocdl or tile-to-spirv pipeline}}
module {
func.func @no_target() {
  return
}
}
