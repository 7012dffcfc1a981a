// convert-tile-to-nvgpu on epilogues that load other global tensors (a bias vector at the column, a
// residual tile at (row, column)): the kernel takes each such tensor as a memref after the tensor
// maps, the epilogue reads it in registers at the index the program computes (from the tile's block
// coordinates and the element's row and column), clipped: an index past the end of its dimension
// is clamped to 0 and the value replaced by zero.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s

// C = A B + bias[n] + R[m, n] with ragged sizes (200 rows, 192 columns on 128x128 tiles).
// CHECK-LABEL: func.func @bias_and_residual
// CHECK: call @bias_and_residual_0_launch(%arg0, %arg1, %arg4, %arg2, %arg3, %{{.*}}, %{{.*}})
// CHECK: gpu.module @bias_and_residual_0_module attributes {tile.manifest = "{{.*}}{\22role\22: \22epilogue\22, \22kind\22: \22memref\22, \22host_argument\22: 2, \22shape\22: [192], \22element\22: \22f32\22}, {\22role\22: \22epilogue\22, \22kind\22: \22memref\22, \22host_argument\22: 3, \22shape\22: [200, 192], \22element\22: \22f16\22}]
// CHECK: gpu.func @bias_and_residual_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[BIAS:.*]]: memref<192xf32>, %[[R:.*]]: memref<200x192xf16>)
// The bias at n = n0 + j, clipped.
// CHECK: %[[SIZE:.*]] = memref.dim %[[BIAS]], %{{.*}} : memref<192xf32>
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[N:.*]], %[[SIZE]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.select %[[IN]], %[[N]], %{{.*}} : index
// CHECK-NEXT: %[[B:.*]] = memref.load %[[BIAS]][%[[AT]]] : memref<192xf32>
// CHECK: %[[B0:.*]] = arith.select %[[IN]], %[[B]], %{{.*}} : f32
// CHECK-NEXT: arith.addf %{{.*}}, %[[B0]] : f32
// The residual at (m0 + i, n0 + j), clipped in both dimensions.
// CHECK: memref.dim %[[R]], %{{.*}} : memref<200x192xf16>
// CHECK: memref.dim %[[R]], %{{.*}} : memref<200x192xf16>
// CHECK: %[[BOTH:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[V:.*]] = memref.load %[[R]][%{{.*}}, %{{.*}}] : memref<200x192xf16>
// CHECK: arith.select %[[BOTH]], %[[V]], %{{.*}} : f16
// The result still leaves through TMA.
// CHECK: nvgpu.tma.async.store
// CHECK: func.func private @bias_and_residual_0_launch(%{{.*}}: memref<200x64xf16>, %{{.*}}: memref<64x192xf16>, %{{.*}}: memref<200x192xf16>, %[[HB:.*]]: memref<192xf32>, %[[HR:.*]]: memref<200x192xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK: gpu.launch_func @bias_and_residual_0_module::@bias_and_residual_0_kernel {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[HB]] : memref<192xf32>, %[[HR]] : memref<200x192xf16>)
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

// -----

// Negative: an epilogue that reads only the accumulator keeps the kernel's signature (no memref
// parameters after the tensor maps).
// CHECK-LABEL: func.func @accumulator_only
// CHECK: gpu.func @accumulator_only_0_kernel(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr) kernel
// CHECK-NOT: memref.load %arg
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
