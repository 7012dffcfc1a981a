// convert-tile-to-amdgpu on programs gfx942 cannot run fast: every kernel is lowered op by op, so
// nothing here is refused; an op that keeps a gemm off mfma, or the fragments out of registers, gets
// one located warning naming the op, the chip and what would work. Kernels the template once
// refused or sent to the plain strategy (a computed fill, a column reduction, an epilogue reading a
// bias vector) now run on mfma with no diagnostic.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-amdgpu | FileCheck %s

// Wavefronts are 64 lanes: 96 threads are no whole number of waves, and the gemm loops over K.
// CHECK-LABEL: gpu.func @threads_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @threads(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(96) (%bx) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op runs in a block of 96 threads; mfma on gfx942 needs whole 64-lane waves: use a multiple of 64 threads up to 1024; it runs without matrix instructions on gfx942 (one loop over K per accumulator element)}}
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// A 256x256 f32 accumulator on 128 threads: 512 registers a thread in the mfma layout, more than a
// thread has, so the fragments go to LDS (which holds them: 64 KiB) and the gemm loops over K.
// CHECK-LABEL: gpu.func @lds_overflow_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @lds_overflow(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{'tile.alloc_fragment' op needs 256 registers a thread in its mfma.32x32 layout, more than 255, so on gfx942 the kernel's fragments live in workgroup memory and its gemms run without matrix instructions (correct, far from tensor-core speed)}}
    %Cf = tile.alloc_fragment : memref<256x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<256x256xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<256x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<256x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<256x256xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// mfma is lowered for f16 and bf16 so far: an i8 gemm loops over K, with a warning at it.
// CHECK-LABEL: gpu.func @integers_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: arith.muli
// CHECK: gpu.return
func.func @integers(%A: memref<256x256xi8>, %B: memref<256x256xi8>, %C: memref<256x256xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op multiplies i8 by i8 into i32; mfma on gfx942 takes f16, bf16, f8E4M3FN or f8E5M2 inputs (both alike; 8-bit floats widened to f16 in registers) with an f32 accumulator; it runs without matrix instructions on gfx942 (one loop over K per accumulator element)}}
      tile.gemm %As, %Bs, %Cf : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xi32, #tile.fragment>, memref<256x256xi32>
  }
  return
}

// -----

// A 48x48 tile that 4 waves cannot split into mfma tiles: no mfma layout, and the blocked layout of
// 48x48 on 256 threads is none a thread offset gives, so the fragments go to LDS.
// CHECK-LABEL: gpu.func @tile_split_0_kernel
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @tile_split(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<48x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x48xf16, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{'tile.alloc_fragment' op has a layout registers cannot hold: thread 12 holds [1, 0] in slot 0, not the [0, 48] a per-thread offset gives, so on gfx942 the kernel's fragments live in workgroup memory and its gemms run without matrix instructions (correct, far from tensor-core speed)}}
    %Cf = tile.alloc_fragment : memref<48x48xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<48x48xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xf16>, memref<48x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xf16>, memref<32x48xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<48x32xf16, #gpu.address_space<workgroup>>, memref<32x48xf16, #gpu.address_space<workgroup>>, memref<48x48xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<48x48xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// A fill that is not a constant (the template took constant fills only) is the fill rule's: one
// store to each accumulator register, then mfma.
// CHECK-LABEL: gpu.func @computed_fill_0_kernel
// CHECK: arith.sitofp
// CHECK: amdgpu.mfma 32x32x8
func.func @computed_fill(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 1.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %bi = arith.index_cast %bx : index to i32
    %start = arith.sitofp %bi : i32 to f32
    tile.fill %Cf, %start : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}


// -----

// A column reduction (dim 0) of the mfma accumulator: per thread, then over the lanes and waves its
// columns span (an LDS exchange); the gemm on mfma.
// CHECK-LABEL: gpu.func @column_sum_0_kernel
// CHECK: amdgpu.mfma 32x32x8
func.func @column_sum(%A: memref<256x128xf16>, %B: memref<128x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(256) (%bx, %by) {
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

// -----

// An epilogue that reads a bias vector from global memory: the loads are the parallel rule's, at
// each accumulator register's column; the gemm on mfma.
// CHECK-LABEL: gpu.func @bias_epilogue_0_kernel
// CHECK: amdgpu.mfma 32x32x8
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<256xf32>
func.func @bias_epilogue(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %bias: memref<256xf32>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %n = arith.addi %n0, %j : index
      %b = memref.load %bias[%n] : memref<256xf32>
      %r = arith.addf %v, %b : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// Layouts recorded for another target fit that target's instructions: the lowering refuses them.
module attributes {tile.target = "sm_90a"} {
func.func @other_target(%x: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has layouts tile-infer-layouts recorded for sm_90a, but is lowered for gfx942: set tile.target = "gfx942" on the module before tile-infer-layouts}}
  tile.kernel grid(%c1) threads(256) (%bx) attributes {tile.strategy = "per-op"} {
    %v = tile.alloc_fragment {tile.layout = #tile.frag<shape = [256], threads = 256, thread = (d0) -> (d0), slot = (d0) -> (0), origin = "blocked">} : memref<256xf32, #tile.fragment>
    tile.copy %x, %v : memref<256xf32>, memref<256xf32, #tile.fragment>
  }
  return
}
}

// -----

// Once tile-infer-layouts has run on a kernel, a tile without a layout (one a pass added after
// it) is an error at the tile: the lowering reads layouts, it does not infer them.
module attributes {tile.target = "gfx942"} {
func.func @unlaid(%x: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) (%bx) attributes {tile.strategy = "per-op"} {
    // expected-error @+1 {{has no tile.layout, which tile-infer-layouts records on every tile and loop of a kernel before the passes that read it}}
    %v = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.copy %x, %v : memref<256xf32>, memref<256xf32, #tile.fragment>
  }
  return
}
}

// -----

// gfx942 kernels cannot print (tile.print): refused, saying where printing works.
func.func @prints(%n: index) {
  tile.kernel grid(%n) threads(64) (%b) {
    // expected-error @+1 {{'tile.print' op cannot print in a gfx942 kernel: its printf runs through the ROCm device library's hostcalls (__ockl_printf_*), which tile-compile does not link; print on sm_90a or sm_80, or run the program with tile-run (the interpreter or the CPU reference print too)}}
    tile.print "block", %b : index
  }
  return
}
