// f8E4M3FN where the target has no instructions for it: the CPU reference and the plain SPIR-V
// target hold it as bytes (tile-emulate-small-floats), as the NVIDIA and AMD targets do outside
// their matrix instructions' operands (this file also runs on the H200: RESULTS run 149). An f8E4M3FN gemm with an f32 and an f8
// output, and f32 values rounded to f8E4M3FN across its range (subnormals, ties, overflow to NaN)
// and widened back, each checked element by element against the interpreter.
// RUN: tile-run %s --check --against interp 2>&1 | FileCheck %s
// RUN: tile-run %s --target vulkan --check --against interp 2>&1 | FileCheck %s

// CHECK: @f8_gemm ran on
// CHECK: check %arg2: match
// CHECK: check %arg3: match
// CHECK: @f8_rounding ran on
// CHECK: check %arg1: match
// CHECK: check %arg2: match
// CHECK-NOT: MISMATCH

func.func @f8_gemm(%A: memref<64x64xf8E4M3FN>, %B: memref<64x64xf8E4M3FN>, %C: memref<64x64xf32>, %D: memref<64x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    tile.copy %Cf, %D[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN>
  }
  return
}

func.func @f8_rounding(%X: memref<64x64xf32>, %D: memref<4x64x64xf8E4M3FN>, %E: memref<4x64x64xf32>) {
  %c1 = arith.constant 1 : index
  %s0 = arith.constant 0.03 : f32
  %s1 = arith.constant 3.0 : f32
  %s2 = arith.constant 470.0 : f32
  %s3 = arith.constant 0.002 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %X[%i, %j] : memref<64x64xf32>
      %c0 = arith.constant 0 : index
      %c1i = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %a = arith.mulf %x, %s0 : f32
      %bb = arith.mulf %x, %s1 : f32
      %c = arith.mulf %x, %s2 : f32
      %d = arith.mulf %x, %s3 : f32
      %ta = arith.truncf %a : f32 to f8E4M3FN
      %tb = arith.truncf %bb : f32 to f8E4M3FN
      %tc = arith.truncf %c : f32 to f8E4M3FN
      %td = arith.truncf %d : f32 to f8E4M3FN
      memref.store %ta, %D[%c0, %i, %j] : memref<4x64x64xf8E4M3FN>
      memref.store %tb, %D[%c1i, %i, %j] : memref<4x64x64xf8E4M3FN>
      memref.store %tc, %D[%c2, %i, %j] : memref<4x64x64xf8E4M3FN>
      memref.store %td, %D[%c3, %i, %j] : memref<4x64x64xf8E4M3FN>
      %ea = arith.extf %ta : f8E4M3FN to f32
      %eb = arith.extf %tb : f8E4M3FN to f32
      %ec = arith.extf %tc : f8E4M3FN to f32
      %ed = arith.extf %td : f8E4M3FN to f32
      memref.store %ea, %E[%c0, %i, %j] : memref<4x64x64xf32>
      memref.store %eb, %E[%c1i, %i, %j] : memref<4x64x64xf32>
      memref.store %ec, %E[%c2, %i, %j] : memref<4x64x64xf32>
      memref.store %ed, %E[%c3, %i, %j] : memref<4x64x64xf32>
    }
  }
  return
}
