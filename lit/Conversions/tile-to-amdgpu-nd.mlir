// convert-tile-to-amdgpu on GEMMs over N-D global tensors: the runs copied into LDS and the guarded
// stores index the leading dimensions at the tile origin's leading offsets, each checked against
// its dimension; a run is one vector load only where every index is inside, else each element is
// loaded where it is inside and zero elsewhere (a leading or row index outside reads nothing).
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s

// A batched GEMM with shared weights: a 3-D A (block z picks the batch), a 2-D B, a 3-D result.
// CHECK-LABEL: func.func @batched
// CHECK: gpu.func @batched_0_kernel(%[[X:.*]]: memref<3x100x64xf16>, %[[W:.*]]: memref<64x48xf16>, %[[Y:.*]]: memref<3x100x48xf16>)
// CHECK: %[[BZ:.*]] = gpu.block_id z
// The batch is X's dimension 0, the rows and columns its dimensions 1 and 2.
// CHECK: %[[BATCHES:.*]] = memref.dim %[[X]], %{{.*}} : memref<3x100x64xf16>
// CHECK: %[[LEAD_IN:.*]] = arith.cmpi ult, %[[BZ]], %[[BATCHES]] : index
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}} : memref<3x100x64xf16>
// CHECK: %[[ROW_IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK: %[[LEADING_IN:.*]] = arith.andi %[[LEAD_IN]], %[[ROW_IN]] : i1
// CHECK: %[[COLUMN:.*]] = arith.addi
// CHECK: %[[COLUMNS:.*]] = memref.dim %[[X]], %{{.*}} : memref<3x100x64xf16>
// CHECK: %[[FIRST_IN:.*]] = arith.cmpi ult, %[[COLUMN]], %[[COLUMNS]] : index
// CHECK: %[[END:.*]] = arith.addi %[[COLUMN]], %{{.*}} : index
// CHECK: %[[END_IN:.*]] = arith.cmpi ule, %[[END]], %[[COLUMNS]] : index
// CHECK: %[[RUN_IN:.*]] = arith.andi %[[FIRST_IN]], %[[END_IN]] : i1
// CHECK: %[[WHOLE:.*]] = arith.andi %[[RUN_IN]], %[[LEADING_IN]] : i1
// CHECK: scf.if %[[WHOLE]] {
// CHECK-NEXT: vector.load %[[X]][%[[BZ]], %[[ROW]], %[[COLUMN]]] : memref<3x100x64xf16>, vector<8xf16>
// At an end: each lane loads at its indices where inside, at X's first element otherwise (a
// tensor without elements loads nothing), and keeps zero outside.
// CHECK: %[[PARTIAL:.*]] = arith.xori %[[WHOLE]], %{{.*}} : i1
// CHECK: scf.if %[[PARTIAL]] {
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: arith.constant 0.000000e+00 : f16
// CHECK: %[[LANE_IN:.*]] = arith.cmpi ult, %{{.*}}, %[[COLUMNS]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[LANE_IN]], %[[LEADING_IN]] : i1
// CHECK: %[[SAFE_BATCH:.*]] = arith.select %[[IN]], %[[BZ]], %[[ZERO:.*]] : index
// CHECK: %[[SAFE_ROW:.*]] = arith.select %[[IN]], %[[ROW]], %[[ZERO]] : index
// CHECK: %[[SAFE_COLUMN:.*]] = arith.select %[[IN]], %{{.*}}, %[[ZERO]] : index
// CHECK: %[[LOADED:.*]] = memref.load %[[X]][%[[SAFE_BATCH]], %[[SAFE_ROW]], %[[SAFE_COLUMN]]] : memref<3x100x64xf16>
// CHECK: arith.select %[[IN]], %[[LOADED]], %{{.*}} : f16
// B is a matrix: its runs are the 2-D ones.
// CHECK: vector.load %[[W]][%{{[^,]*}}, %{{[^,]*}}] : memref<64x48xf16>, vector<8xf16>
// CHECK: amdgpu.mfma
// The stores: each element guarded by its row, its column and the batch.
// CHECK: %[[YBATCHES:.*]] = memref.dim %[[Y]], %{{.*}} : memref<3x100x48xf16>
// CHECK: arith.cmpi ult, %[[BZ]], %[[YBATCHES]] : index
// CHECK: memref.store %{{.*}}, %[[Y]][%[[BZ]], %{{.*}}, %{{.*}}] : memref<3x100x48xf16>
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

// Attention scores on 4-D tensors, B as NxK: two leading offsets (batch, head) on every access.
// CHECK-LABEL: func.func @scores
// CHECK: %[[B:.*]] = arith.divui %block_id_z, %{{.*}} : index
// CHECK-NEXT: %[[H:.*]] = arith.remui %block_id_z, %{{.*}} : index
// CHECK: vector.load %{{.*}}[%[[B]], %[[H]], %{{.*}}, %{{.*}}] : memref<2x3x104x64xf16>, vector<8xf16>
// CHECK: amdgpu.mfma
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x3x104x104xf16>
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

// -----

// A tile across the middle of a (batch, sequence, head, channel) tensor (`dims [1, 3]`): the batch
// and head are indexed at their offsets alone, the rows and columns at offset + index, in the
// runs loaded into LDS and in the fragment's stores.
// CHECK-LABEL: func.func @head_rows
// CHECK: gpu.func @head_rows_0_kernel(%[[X:.*]]: memref<2x80x3x64xf16>, %[[Y:.*]]: memref<2x80x3x64xf32>)
// CHECK: %[[BH:.*]] = gpu.block_id  y
// CHECK: %[[BB:.*]] = gpu.block_id  z
// Each dimension checked: the batch, the rows, the head, the columns.
// CHECK: %[[BATCHES:.*]] = memref.dim %[[X]], %{{.*}} : memref<2x80x3x64xf16>
// CHECK: arith.cmpi ult, %[[BB]], %[[BATCHES]] : index
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}} : memref<2x80x3x64xf16>
// CHECK: arith.cmpi ult, %{{.*}}, %[[ROWS]] : index
// CHECK: %[[HEADS:.*]] = memref.dim %[[X]], %{{.*}} : memref<2x80x3x64xf16>
// CHECK: arith.cmpi ult, %[[BH]], %[[HEADS]] : index
// CHECK: vector.load %[[X]][%[[BB]], %{{.*}}, %[[BH]], %{{.*}}] : memref<2x80x3x64xf16>, vector<8xf16>
// CHECK: memref.store %{{.*}}, %[[Y]][%[[BB]], %{{.*}}, %[[BH]], %{{.*}}] : memref<2x80x3x64xf32>
module attributes {tile.target = "gfx942"} {
func.func @head_rows(%X: memref<2x80x3x64xf16>, %Y: memref<2x80x3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c2, %c3, %c2) threads(256) (%bx, %bh, %bb) {
    %Xs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %X[%bb, %m0, %bh, %c0], %Xs dims [1, 3] : memref<2x80x3x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Xs, %F : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Y[%bb, %m0, %bh, %c0] dims [1, 3] : memref<64x64xf32, #tile.fragment>, memref<2x80x3x64xf32>
  }
  return
}
}
