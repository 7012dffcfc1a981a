// Invalid input for tile-infer-layouts: a tile two ops want laid out in two ways is an error that
// names both; so is a module without a target.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layouts

// A shared tile read with each dimension as K (B transposed, then B) laid out by hand in TMA's
// 64-byte swizzled box, which serves K along its columns only: the first gemm says what serves
// both readings (the threads' column slabs).
module attributes {tile.target = "sm_90a"} {
func.func @narrow_roles(%Q: memref<64x32xf16>, %KV: memref<256x32xf16>, %O: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    // expected-error-re @+1 {{'tile.alloc_shared' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as #tile.smem<swizzle = 64, box = [64, 32]>, 'tile.gemm' at loc({{.*}}:28:7) wants #tile.smem<box = [64, 8], boxes = 4>; TMA fills a swizzled tile only from the rings of tile-plan-pipelines and tile-expand-pipelines, in boxes that serve every gemm reading it (run them before the lowering, as the tile-to-nvvm pipeline does, or drop the attribute)}}
    %KVs = tile.alloc_shared {tile.layout = #tile.smem<swizzle = 64, box = [64, 32]>} : memref<64x32xf16, #gpu.address_space<workgroup>>
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

// No target: the pass says how to name one.
// expected-error @+1 {{tile-infer-layouts failed: needs the target: set tile.target = "sm_90a" (or "sm_80", "gfx942", "spirv", "spirv-coopmat") on the module, or run the tile-to-nvvm, tile-to-rocdl or tile-to-spirv pipeline}}
module {
func.func @no_target() {
  return
}
}

// -----

// A reduction's destination laid out by hand where the reduction does not leave its rows: the rows
// of the accumulator lie in lane quads, the hand-written layout puts each row on one thread.
module attributes {tile.target = "sm_90a"} {
func.func @reduced_elsewhere(%A: memref<64x16xf16>, %B: memref<16x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error-re @+1 {{'tile.alloc_fragment' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as the rows layout, 'tile.reduce' at loc({{.*}}:{{[0-9]+}}:5) wants the slice(wgmma.acc.m64n64) layout; give each use a tile of its own (copy it, through shared memory where the threads differ)}}
    %m = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 128, thread = (d0) -> (d0), slot = (d0) -> (0), origin = "rows">} : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x16xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<16x64xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %S : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}
}

// -----

// An elementwise loop that writes two fragments whose elements lie on different threads: the
// accumulator's layout and a hand-written blocked one. The loop takes one written fragment's
// layout and the other does not follow; a fragment the loop writes cannot be a converted copy, so
// the error names the store that writes it. (A loop that only reads it gets a copy:
// tile-infer-layouts-propagation.mlir.)
module attributes {tile.target = "sm_90a"} {
func.func @two_layouts(%A: memref<64x16xf16>, %B: memref<16x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error-re @+1 {{'tile.alloc_fragment' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as the blocked layout, 'memref.store' at loc({{.*}}) wants the wgmma.acc.m64n64 layout; give each use a tile of its own (copy it, through shared memory where the threads differ)}}
    %T = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, thread = (d0, d1) -> ((d0 * 64 + d1) mod 128), slot = (d0, d1) -> ((d0 * 64 + d1) floordiv 128), origin = "blocked">} : memref<64x64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %T, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x16xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<16x64xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %S : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %t = memref.load %T[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.addf %s, %t : f32
      memref.store %r, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      memref.store %r, %T[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}
}
