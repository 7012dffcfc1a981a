// convert-tile-to-nvgpu on epilogues that load other global tensors (a bias vector at the column, a
// residual tile at (row, column)): the kernel takes each as a memref binding and the epilogue reads
// it in registers at the index the program computes, clipped at the tensor's end.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s

// C = A B + bias[n] + R[m, n] with ragged sizes (200 rows, 192 columns on 128x128 tiles).
// CHECK-LABEL: func.func @bias_and_residual
// CHECK: call @bias_and_residual_0_launch(%arg0, %arg1, %arg2, %arg3, %arg4, %{{.*}}, %{{.*}})
// CHECK: gpu.module @bias_and_residual_0_module attributes {tile.manifest = "{{.*}}\22host_argument\22: 2, \22shape\22: [192], \22element\22: \22f32\22, \22written\22: false}, {{.*}}\22host_argument\22: 3, \22shape\22: [200, 192], \22element\22: \22f16\22, \22written\22: false}
// CHECK: gpu.func @bias_and_residual_0_kernel(%{{.*}}: memref<200x64xf16>, %{{.*}}: memref<64x192xf16>, %[[BIAS:.*]]: memref<192xf32>, %[[R:.*]]: memref<200x192xf16>, %{{.*}}: memref<200x192xf16>, %{{.*}}: !llvm.ptr)
// CHECK: nvvm.wgmma.mma_async
// CHECK: memref.load %[[BIAS]]
// CHECK: memref.load %[[R]]
module attributes {tile.target = "sm_90a"} {
func.func @bias_and_residual(%A: memref<200x64xf16>, %B: memref<64x192xf16>, %bias: memref<192xf32>, %R: memref<200x192xf16>, %C: memref<200x192xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
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
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<64x192xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %m = arith.addi %m0, %i : index
      %n = arith.addi %n0, %j : index
      %b = memref.load %bias[%n] : memref<192xf32>
      %s = arith.addf %v, %b : f32
      %r16 = memref.load %R[%m, %n] : memref<200x192xf16>
      %r = arith.extf %r16 : f16 to f32
      %o = arith.addf %s, %r : f32
      memref.store %o, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<200x192xf16>
  }
  return
}
}

// -----

// An epilogue of the accumulator alone reads no other tensor.
// CHECK-LABEL: func.func @accumulator_only
// CHECK: gpu.func @accumulator_only_0_kernel(%{{.*}}: memref<256x64xf16>, %{{.*}}: memref<64x256xf16>, %{{.*}}: memref<256x256xf16>, %{{.*}}: !llvm.ptr)
// CHECK-NOT: memref<192xf32>
module attributes {tile.target = "sm_90a"} {
func.func @accumulator_only(%A: memref<256x64xf16>, %B: memref<64x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
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
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<64x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}
}
