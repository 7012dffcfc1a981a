// A gemm the plain strategy lowers as loops, on lavapipe: each thread's loop over its 25 elements
// of O has the trip count of its private array, which Mesa's NIR unrolls whole; with the K loop
// (64 = 8 chunks of 8) inside it, that was 1,600 multiply-adds in one block, and lavapipe's LLVM 15
// did not finish compiling the shader in minutes (seed 16161, case 2671: a two-gemm chain with
// every 32 mutated to 49). The chunks loop now encloses the elements' loop (lit
// Conversions/tile-to-spirv.mlir, @gemm_k_outside); the shader compiles in seconds. `timeout` keeps
// a regression from hanging the suite.
// RUN: timeout 120 tile-run %s --target vulkan --check | FileCheck %s

// CHECK: @gemm_k_outside ran on {{.*}} (Vulkan) in
// CHECK: check %arg1: match
func.func @gemm_k_outside(%W: memref<64x49xf16>, %Y: memref<64x49xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f16
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Ws = tile.alloc_shared : memref<64x49xf16, #gpu.address_space<workgroup>>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x49xf32, #tile.fragment>
    tile.fill %P, %one : memref<64x64xf16, #tile.fragment>
    tile.copy %W, %Ws : memref<64x49xf16>, memref<64x49xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x49xf32, #tile.fragment>
    tile.gemm %P, %Ws, %O : memref<64x64xf16, #tile.fragment>, memref<64x49xf16, #gpu.address_space<workgroup>>, memref<64x49xf32, #tile.fragment>
    tile.copy %O, %Y[%c0, %c0] : memref<64x49xf32, #tile.fragment>, memref<64x49xf32>
  }
  return
}
