// The cooperative-matrix rules of the register rules (spirv-coopmat): an f16 x f16 -> f32
// tile.gemm becomes gpu.subgroup_mma_* (KHR cooperative matrices after convert-gpu-to-spirv).
// An accumulator that only fills and gemms touch before its epilogue is held in matrices: each
// subgroup keeps its matrices as values from the fill to the one staging before the epilogue.
// Any other accumulator (two gemms in a kernel, attention's rescaled output, a fragment A operand)
// goes through a workgroup staging area (one matrix per 32-wide subgroup) in rounds at each gemm:
// every thread writes its slots of the round's matrices, subgroup s loads matrix s, multiplies it
// over K with A and B loaded from the shared tiles (a fragment A staged row-major in a scratch
// first), stores it back, and every thread reads its slots again.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv-coopmat 2>/dev/null | FileCheck %s

// Attention: S = Q K^T (K given as NxK: B read transposed), then O += P V with P a fragment
// (staged in a 64x64 f16 scratch). 16 output matrices, 4 subgroups: 4 rounds through a staging
// area of 4 matrices.
// CHECK-LABEL: gpu.func @attention_0_kernel
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<4096xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[STAGING:.*]] = memref.alloc() : memref<1024xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[QS:.*]] = memref.alloc() : memref<64x64xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[KS:.*]] = memref.alloc() : memref<64x64xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[VS:.*]] = memref.alloc() : memref<64x64xf16, #spirv.storage_class<Workgroup>>
// The rounds; in each, the slots of this round's matrices go to the staging area.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[STAGING]][%{{.*}}] : memref<1024xf32, #spirv.storage_class<Workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[SUBGROUP:.*]] = arith.divui %thread_id_x{{.*}}, %c32
// CHECK: %[[AT:.*]] = arith.muli %[[SUBGROUP]], %c256
// CHECK: %[[C:.*]] = gpu.subgroup_mma_load_matrix %[[STAGING]][%[[AT]]] {leadDimension = 16 : index} : memref<1024xf32, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: %[[S:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
// CHECK-NEXT: %[[A:.*]] = gpu.subgroup_mma_load_matrix %[[QS]][%{{.*}}, %[[K]]] {leadDimension = 64 : index} : memref<64x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: %[[B:.*]] = gpu.subgroup_mma_load_matrix %[[KS]][%{{.*}}, %[[K]]] {leadDimension = 64 : index, transpose} : memref<64x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: %[[D:.*]] = gpu.subgroup_mma_compute %[[A]], %[[B]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[D]] : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_store_matrix %[[S]], %[[STAGING]][%[[AT]]] {leadDimension = 16 : index}
// CHECK-NEXT: gpu.barrier
// Back into the slots of this round.
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: memref.load %[[STAGING]][%{{.*}}] : memref<1024xf32, #spirv.storage_class<Workgroup>>
// CHECK: gpu.barrier
// P goes to its scratch, row-major; then the second gemm reads A from there.
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<4096xf16, #spirv.storage_class<Workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGING]]
// CHECK: scf.for %[[K2:.*]] = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args
// CHECK: arith.muli
// CHECK-NEXT: arith.addi %{{.*}}, %[[K2]]
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[SCRATCH]][%{{.*}}] {leadDimension = 64 : index} : memref<4096xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[VS]][%[[K2]], %{{.*}}] {leadDimension = 64 : index} : memref<64x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.return
func.func @attention(%Q: memref<256x64xf16>, %K: memref<256x64xf16>, %V: memref<256x64xf16>, %O: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bq) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%q0, %c0], %Qs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0], %Ks : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0], %Vs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %e = math.exp2 %s : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x64xf16>
  }
  return
}

// -----

// A two-gemm MLP block on 256 threads (8 subgroups): H = X W1 in a pipelined loop, relu, P = H as
// f16, O = P W2. The shared tiles (28 KiB) and P's scratch (16 KiB) leave 4 KiB of the 48 KiB:
// the staging area holds 4 matrices, subgroups 4..7 idle in the multiplications.
// CHECK-LABEL: gpu.func @mlp_0_kernel
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<8192xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[STAGING:.*]] = memref.alloc() : memref<1024xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[XS:.*]] = memref.alloc() : memref<64x32xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[W1S:.*]] = memref.alloc() : memref<32x128xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[W2S:.*]] = memref.alloc() : memref<128x64xf16, #spirv.storage_class<Workgroup>>
// 32 matrices of H: 8 rounds of 4.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %c1
// CHECK: %[[SUBGROUP:.*]] = arith.divui %thread_id_x{{.*}}, %c32
// CHECK: %[[WORKS:.*]] = arith.cmpi ult, %[[SUBGROUP]], %c4{{.*}} : index
// CHECK-NEXT: scf.if %[[WORKS]] {
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGING]]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c32{{.*}} step %c16{{.*}} iter_args
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[XS]][%{{.*}}, %[[K]]] {leadDimension = 32 : index} : memref<64x32xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[W1S]][%[[K]], %{{.*}}] {leadDimension = 128 : index} : memref<32x128xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[STAGING]]
// 16 matrices of O: 4 rounds of 4, A from P's scratch (rows of 128).
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}} step %c16{{.*}} iter_args
// CHECK: gpu.subgroup_mma_load_matrix %[[SCRATCH]][%{{.*}}] {leadDimension = 128 : index} : memref<8192xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[W2S]][%{{.*}}, %{{.*}}] {leadDimension = 64 : index} : memref<128x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: gpu.return
func.func @mlp(%X: memref<256x64xf16>, %W1: memref<64x128xf16>, %W2: memref<128x64xf16>, %Y: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %r0 = arith.muli %b, %c64 : index
    tile.fill %H, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%r0, %k0], %Xs : memref<256x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W1[%k0, %c0], %W1s : memref<64x128xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %W1s, %H : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 128) {
      %h = memref.load %H[%i, %j] : memref<64x128xf32, #tile.fragment>
      %r = arith.maximumf %h, %zero : f32
      memref.store %r, %H[%i, %j] : memref<64x128xf32, #tile.fragment>
    }
    tile.copy %H, %P : memref<64x128xf32, #tile.fragment>, memref<64x128xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x128xf16, #tile.fragment>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %O, %Y[%r0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x64xf32>
  }
  return
}

// -----

// A given as KxM: A's matrices are read transposed; the A and B tiles' rows are padded by 8
// elements (rows of 40 and 72). The accumulator is held: 8 subgroups split the
// 32x64 tile as 2x4, one matrix each; K = 64 is 4 slices, unrolled, the matrix a value from the
// zero matrix through the four products; one barrier after the gemm; then staged once (store,
// barrier, each lane's 8 elements, barrier) for the copy out.
// CHECK-LABEL: gpu.func @transposed_a_0_kernel
// CHECK: %[[STAGING:.*]] = memref.alloc() : memref<2048xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[AS:.*]] = memref.alloc() : memref<64x40xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: %[[A0:.*]] = gpu.subgroup_mma_load_matrix %[[AS]][%c0{{.*}}, %{{.*}}] {leadDimension = 40 : index, transpose} : memref<64x40xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: %[[B0:.*]] = gpu.subgroup_mma_load_matrix %{{.*}}[%c0{{.*}}, %{{.*}}] {leadDimension = 72 : index} : memref<64x72xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: %[[D0:.*]] = gpu.subgroup_mma_compute %[[A0]], %[[B0]], %[[ZERO]]
// CHECK: gpu.subgroup_mma_load_matrix %[[AS]][%c16{{.*}}, %{{.*}}] {leadDimension = 40 : index, transpose}
// CHECK: %[[D1:.*]] = gpu.subgroup_mma_compute %{{.*}}, %{{.*}}, %[[D0]]
// CHECK: %[[D2:.*]] = gpu.subgroup_mma_compute %{{.*}}, %{{.*}}, %[[D1]]
// CHECK: %[[D3:.*]] = gpu.subgroup_mma_compute %{{.*}}, %{{.*}}, %[[D2]]
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %[[D3]], %[[STAGING]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[STAGING]][
// CHECK: gpu.barrier
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.return
func.func @transposed_a(%A: memref<64x32xf16>, %B: memref<64x64xf16>, %C: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(256) (%b) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.copy %A, %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B, %Bs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<32x64xf32, #tile.fragment>
    tile.gemm %As, %Bs, %Acc {transpose_a} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
    tile.copy %Acc, %C : memref<32x64xf32, #tile.fragment>, memref<32x64xf32>
  }
  return
}

// -----

// One shared tile in two gemm roles (MLA decode's KV tile): each gemm loads it as its B operand
// its own way, transposed for the scores (B given NxK) and as it is for the output (B given KxN).
// CHECK-LABEL: gpu.func @shared_kv_0_kernel
// CHECK: gpu.subgroup_mma_load_matrix [[KV:%[a-z0-9_]+]][{{.*}}] {leadDimension = 64 : index, transpose} : memref<64x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix [[KV]][{{.*}}] {leadDimension = 64 : index} : memref<64x64xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
func.func @shared_kv(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
