// Ring copies into wgmma operand tiles that TMA cannot fill, on sm_90a: the threads fill them by
// cp.async (correct, slower, and without a producer warpgroup), and the lowering says so once at
// each copy, naming the row width that keeps TMA's boxes out.
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu -verify-diagnostics | FileCheck %s

// B tiles of 24 f16 columns (N-major: wgmma's N of 24): 48-byte rows are no whole boxes of 128,
// 64 or 32 bytes.
// CHECK-LABEL: gpu.func @n_rows_of_48_bytes_0_kernel
// CHECK: nvvm.cp.async.mbarrier.arrive
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
  func.func @n_rows_of_48_bytes(%A: memref<64x128xf16>, %B: memref<128x24xf16>, %C: memref<64x24xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1) threads(128) (%bx) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x24xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x24xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x24xf32, #tile.fragment>
      tile.pipelined %k = %c0 to %c2 stages(2) {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        // expected-warning @+1 {{'tile.copy' op fills its 64x24 wgmma operand tile by the threads' cp.async, not TMA: its rows of 48 bytes are no whole boxes of 128, 64 or 32 bytes (the swizzles wgmma reads), and a ring the threads fill gets no producer warpgroup; rows of a multiple of 32 bytes are filled by TMA}}
        tile.copy %B[%k0, %c0], %Bs : memref<128x24xf16>, memref<64x24xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x24xf16, #gpu.address_space<workgroup>>, memref<64x24xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x24xf32, #tile.fragment>, memref<64x24xf32>
    }
    return
  }
}
