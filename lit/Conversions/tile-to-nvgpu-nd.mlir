// convert-tile-to-nvgpu on GEMMs over N-D global tensors: each tensor map has the tensor's rank, a
// box of 1 in the leading dimensions, and the copies' leading offsets as its outer coordinates (TMA
// coordinates run innermost first). TMA clips every dimension on its own.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s

// A batched GEMM with shared weights: a 3-D A (block z picks the batch), a 2-D B, a 3-D result. The
// manifest's boxes have one size per dimension; the host makes a rank-3 map for A and C, rank 2 for
// B; the loads and the store give the batch as the last coordinate.
// CHECK-LABEL: func.func @batched
// CHECK: gpu.module @batched_0_module attributes {tile.manifest = "{{.*}}\22shape\22: [3, 100, 64], \22element\22: \22f16\22, \22box\22: [1, 64, 32]{{.*}}\22shape\22: [64, 48], \22element\22: \22f16\22, \22box\22: [32, 64]{{.*}}\22shape\22: [3, 100, 48], \22element\22: \22f16\22, \22box\22: [1, 64, 64]
// CHECK: %[[MAP_A:.*]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[MAP_B:.*]] = builtin.unrealized_conversion_cast %arg1 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[MAP_C:.*]] = builtin.unrealized_conversion_cast %arg2 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[BZ:.*]] = gpu.block_id z
// CHECK: %[[M0:.*]] = arith.muli %block_id_y, %{{.*}} : index
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[A_VIEW:.*]] = memref.view %{{.*}} to memref<1x64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvgpu.tma.async.load %[[MAP_A]][%[[K0]], %[[M0]], %[[BZ]]], %{{.*}} to %[[A_VIEW]]
// CHECK: %[[B_VIEW:.*]] = memref.view %{{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load %[[MAP_B]][%{{.*}}, %[[K0]]], %{{.*}} to %[[B_VIEW]]
// CHECK: %[[C_VIEW:.*]] = memref.view %{{.*}} to memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.store %[[C_VIEW]] to %[[MAP_C]][%{{.*}}, %{{.*}}, %[[BZ]]]
// CHECK: func.func private @batched_0_launch
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%[[ONE:.*]], %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x64x32xf16
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{[^,]*}}, %{{[^,]*}}] : memref<*xf16> -> <tensor = memref<32x64xf16
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x64x64xf16
func.func @batched(%X: memref<3x100x64xf16>, %W: memref<64x48xf16>, %Y: memref<3x100x48xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c2, %c3) threads(128) (%bx, %by, %bz) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Yf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Yf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%bz, %m0, %k0], %Xs : memref<3x100x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%k0, %c0], %Ws : memref<64x48xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %Ws, %Yf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Yf, %Y[%bz, %m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<3x100x48xf16>
  }
  return
}

// -----

// Attention scores on 4-D (batch, head, sequence, head dim) tensors, B as NxK: rank-4 maps, the
// coordinates (head dim, sequence, head, batch) with the batch and head computed from block z.
// CHECK-LABEL: func.func @scores
// CHECK: \22grid\22: [2, 2, 6]
// CHECK-SAME: \22box\22: [1, 1, 64, 32]
// CHECK-SAME: \22box\22: [1, 1, 64, 32]
// CHECK-SAME: \22box\22: [1, 1, 64, 64]
// CHECK: %[[B:.*]] = arith.divui %block_id_z, %{{.*}} : index
// CHECK-NEXT: %[[H:.*]] = arith.remui %block_id_z, %{{.*}} : index
// CHECK: %[[M0:.*]] = arith.muli %block_id_y, %{{.*}} : index
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[N0:.*]] = arith.muli %block_id_x, %{{.*}} : index
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[K0]], %[[M0]], %[[H]], %[[B]]], %{{.*}} -> memref<1x1x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[K0]], %[[N0]], %[[H]], %[[B]]], %{{.*}} -> memref<1x1x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x1x64x32xf16
func.func @scores(%Q: memref<2x3x104x64xf16>, %K: memref<2x3x104x64xf16>, %S: memref<2x3x104x104xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2, %c6) threads(128) (%bx, %by, %bz) {
    %Qs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Sf, %zero : memref<64x64xf32, #tile.fragment>
    %b = arith.divui %bz, %c3 : index
    %h = arith.remui %bz, %c3 : index
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %Q[%b, %h, %m0, %k0], %Qs : memref<2x3x104x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %K[%b, %h, %n0, %k0], %Ks : memref<2x3x104x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks, %Sf {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Sf, %S[%b, %h, %m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<2x3x104x104xf16>
  }
  return
}
