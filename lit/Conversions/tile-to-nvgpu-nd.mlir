// convert-tile-to-nvgpu on kernels over N-D global tensors: the copies' leading offsets select the
// batch or head, clipping works per dimension; a TMA box has a size of 1 in each dimension the tile
// does not span.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s

// A batched GEMM with shared weights: a 3-D A (block z picks the batch), a 2-D B, a 3-D result.
// B's 32x64 tiles arrive by TMA (a rank-2 map, 128-byte swizzle), A's 64x32 tiles too (a rank-3
// map, one 64-byte swizzled box of K = 32); the result leaves by TMA at the batch the block picks
// (a rank-3 map, box 1x64x64; the rows past 100 are dropped by the copy engine).
// CHECK-LABEL: func.func @batched
// CHECK: gpu.module @batched_0_module attributes {tile.manifest = "{{.*}}\22grid\22: [1, 2, 3]{{.*}}\22shape\22: [3, 100, 64], \22element\22: \22f16\22, \22box\22: [1, 64, 32]{{.*}}\22box\22: [32, 64]{{.*}}\22host_argument\22: 2, \22shape\22: [3, 100, 48], \22element\22: \22f16\22, \22box\22: [1, 64, 64]
// CHECK: gpu.func @batched_0_kernel(%{{.*}}: memref<3x100x64xf16>, %{{.*}}: memref<64x48xf16>, %[[Y:.*]]: memref<3x100x48xf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[YMAP:.*]]: !llvm.ptr)
// CHECK: %[[BATCH:.*]] = gpu.block_id  z
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[YMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}]
module attributes {tile.target = "sm_90a"} {
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
}

// -----

// Attention scores S = Q K^T on 4-D tensors (batch, head, sequence, head dim): the block's z index
// is batch x heads; rows past the sequence's end (104 = 64 + 40) read zeros and are not stored
// (the TMA store drops them).
// CHECK-LABEL: func.func @scores
// CHECK: gpu.module @scores_0_module attributes {tile.manifest = "{{.*}}\22grid\22: [2, 2, 6]
// CHECK: gpu.func @scores_0_kernel(%{{.*}}: memref<2x3x104x64xf16>, %{{.*}}: memref<2x3x104x64xf16>, %{{.*}}: memref<2x3x104x104xf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: nvvm.wgmma.mma_async {{.*}} B[<f16>, <one>, <col>]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
module attributes {tile.target = "sm_90a"} {
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
}

// -----

// Tiles across the middle of (batch, sequence, head, channel) tensors (`dims [1, 3]`): the boxes
// have the tile's extents in the sequence and channel dimensions and 1 in the batch and head
// (1x32x1x64 loads, a 1x64x1x64 store), and the loads' coordinates, innermost first, are the
// column, the head, the row and the batch.
// CHECK-LABEL: func.func @head_tiles
// CHECK: gpu.module @head_tiles_0_module attributes {tile.manifest = "{{.*}}\22host_argument\22: 0, \22shape\22: [2, 3, 80, 80], \22element\22: \22f16\22, \22box\22: [1, 1, 64, 32]{{.*}}\22host_argument\22: 1, \22shape\22: [2, 80, 3, 64], \22element\22: \22f16\22, \22box\22: [1, 32, 1, 64]{{.*}}\22host_argument\22: 2, \22shape\22: [2, 80, 3, 64], \22element\22: \22f16\22, \22box\22: [1, 64, 1, 64]
// CHECK: gpu.func @head_tiles_0_kernel(%{{.*}}: memref<2x3x80x80xf16>, %{{.*}}: memref<2x80x3x64xf16>, %{{.*}}: memref<2x80x3x64xf16>, %[[WMAP:.*]]: !llvm.ptr, %[[XMAP:.*]]: !llvm.ptr, %[[YMAP:.*]]: !llvm.ptr)
// CHECK: %[[HEAD:.*]] = gpu.block_id  y
// CHECK: %[[BATCH:.*]] = gpu.block_id  z
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[WMAP]], %{{.*}}, box[
// CHECK: %[[H:.*]] = arith.index_cast %[[HEAD]] : index to i32
// CHECK: %[[B:.*]] = arith.index_cast %[[BATCH]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[XMAP]], %{{.*}}, box[%{{.*}}, %[[H]], %{{.*}}, %[[B]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[YMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
module attributes {tile.target = "sm_90a"} {
func.func @head_tiles(%W: memref<2x3x80x80xf16>, %X: memref<2x80x3x64xf16>, %Y: memref<2x80x3x64xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c3, %c2) threads(128) (%bx, %bh, %bb) {
    %Ws = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Xs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %W[%bb, %bh, %m0, %k0], %Ws : memref<2x3x80x80xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %X[%bb, %k0, %bh, %c0], %Xs dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ws, %Xs, %Acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %Y[%bb, %m0, %bh, %c0] dims [1, 3] : memref<64x64xf32, #tile.fragment>, memref<2x80x3x64xf16>
  }
  return
}
}
