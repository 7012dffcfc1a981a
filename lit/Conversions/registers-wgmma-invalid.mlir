// A gemm of a kernel the per-op register rules lower on sm_90a that wgmma cannot take keeps the
// scalar rule (one loop over K per accumulator element), with a warning at that gemm saying what
// wgmma takes; the kernel's other gemms still run on wgmma, and a kernel of several gemms gets no
// word about the GEMM template (it is the per-op rules' own).
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu -verify-diagnostics | FileCheck %s

// K = 8 is not a multiple of wgmma's 16: the first gemm multiplies element by element; the second
// (K = 64, its A operand in registers) runs on wgmma.
// CHECK-LABEL: gpu.func @shallow_0_kernel
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: arith.mulf
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16
// CHECK: gpu.return
func.func @shallow(%X: memref<64x8xf16>, %W1: memref<8x64xf16>, %W2: memref<64x64xf16>, %Y: memref<64x64xf32>) {
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
    // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (K = 8 is not a multiple of 16) nor mma.sync (K = 8 is not a multiple of 16); it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
    tile.gemm %Xs, %W1s, %H : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %O, %Y : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// -----

// A B tile the threads rewrite in place (a dequantization, written by a tile.parallel): wgmma reads
// only tiles that copies from global memory or of a whole fragment write, so the gemm multiplies
// element by element.
// CHECK-LABEL: gpu.func @rewritten_operand_0_kernel
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: arith.mulf
// CHECK: gpu.return
func.func @rewritten_operand(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f16
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (64, 64) {
      %w = memref.load %Bs[%i, %j] : memref<64x64xf16, #gpu.address_space<workgroup>>
      %d = arith.mulf %w, %half : f16
      memref.store %d, %Bs[%i, %j] : memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.gemm' op reads a shared tile that wgmma cannot read as core matrices (something other than copies from global memory, copies of a whole fragment or element stores in a tile.parallel writes it, or something other than gemms wgmma takes reads it); it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
    tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
