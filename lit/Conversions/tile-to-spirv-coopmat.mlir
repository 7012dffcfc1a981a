// convert-tile-to-spirv-coopmat: every kernel op by op (no GEMM template), in the target environment
// of KHR cooperative matrices (16x16x16, 32-wide subgroups). Copies from global tensors into shared
// tiles go in runs of vector<4xf16> loaded from a vector view of the tensor (an argument aliasing
// its binding), a main loop's copies prefetched a step ahead. An accumulator that only its fill
// and gemms touch before the epilogue is held in cooperative matrices: each subgroup's matrices
// are loop values across the main loop, and they are staged into registers once before the
// epilogue (the parallel rule's, per register). Row reductions shuffle within a subgroup.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv-coopmat | FileCheck %s
// The registered pipeline takes it to spirv.modules in the Vulkan memory model.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-to-spirv{chip=spirv-coopmat})' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: func.func @gemm
// CHECK: gpu.module @gemm_0_module [#spirv.target_env<#spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR, VulkanMemoryModel, GroupNonUniform, GroupNonUniformShuffle]
// CHECK-SAME: cooperative_matrix_properties_khr = [#spirv.coop_matrix_props_khr<m_size = 16, n_size = 16, k_size = 16, a_type = f16, b_type = f16, c_type = f32
// CHECK-SAME: \22target\22: \22spirv-coopmat\22, \22strategy\22: \22registers\22, \22workgroup_size\22: [128, 1, 1], \22subgroup_size\22: 32, \22grid\22: [2, 2, 1]
// The tensors with their bindings, then the vector views of A and B on the same bindings.
// CHECK: gpu.func @gemm_0_kernel(%{{.*}}: memref<128x48xf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %{{.*}}: memref<48x96xf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}, %[[C:.*]]: memref<128x96xf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2)>}, %[[AV:.*]]: memref<128x12xvector<4xf16>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %[[BV:.*]]: memref<48x24xvector<4xf16>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>})
// The staging area (4 subgroups, 4 matrices each), the A and B tiles with rows padded by 8
// elements, the accumulator's 4 zero matrices.
// CHECK: %[[STAGING:.*]] = memref.alloc() : memref<4096xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[AS:.*]] = memref.alloc() : memref<64x24xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[BS:.*]] = memref.alloc() : memref<16x72xf16, #spirv.storage_class<Workgroup>>
// CHECK: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// Step 0's runs before the loop: one test for the whole A tile (inside the tensor, starting at a
// whole vector), under which its two runs a thread load with no test each; the run-by-run path
// only where the tile is not whole.
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[INSIDE:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-NOT: scf.if
// CHECK: memref.load %[[AV]][%{{.*}}, %{{.*}}] : memref<128x12xvector<4xf16>>
// CHECK-NOT: scf.if
// CHECK: memref.load %[[AV]][
// CHECK: arith.xori %[[INSIDE]]
// The main loop carries the subgroup's 2x2 accumulator matrices.
// CHECK: %[[ACC:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %c3 step %{{.*}} iter_args(%[[C0:.*]] = %[[ZERO]], %[[C1:.*]] = %[[ZERO]], %[[C2:.*]] = %[[ZERO]], %[[C3:.*]] = %[[ZERO]]) -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
// This step's runs into the tiles, lane by lane; one barrier; the next step's runs loaded.
// CHECK: memref.store %{{.*}}, %[[AS]][
// CHECK: memref.store %{{.*}}, %[[BS]][
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %[[AV]][
// CHECK: memref.load %[[BV]][
// K = 16: one slice, 2 A and 2 B matrices, 4 products; no staging in the loop.
// CHECK-NOT: memref.store %{{.*}}, %[[STAGING]][
// CHECK: %[[A0:.*]] = gpu.subgroup_mma_load_matrix %[[AS]][%{{.*}}, %{{.*}}] {leadDimension = 24 : index} : memref<64x24xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: %[[A1:.*]] = gpu.subgroup_mma_load_matrix %[[AS]][
// CHECK: %[[B0:.*]] = gpu.subgroup_mma_load_matrix %[[BS]][%{{.*}}, %{{.*}}] {leadDimension = 72 : index} : memref<16x72xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: %[[B1:.*]] = gpu.subgroup_mma_load_matrix %[[BS]][
// CHECK-NEXT: %[[D0:.*]] = gpu.subgroup_mma_compute %[[A0]], %[[B0]], %[[C0]]
// CHECK-NEXT: %[[D1:.*]] = gpu.subgroup_mma_compute %[[A0]], %[[B1]], %[[C1]]
// CHECK-NEXT: %[[D2:.*]] = gpu.subgroup_mma_compute %[[A1]], %[[B0]], %[[C2]]
// CHECK-NEXT: %[[D3:.*]] = gpu.subgroup_mma_compute %[[A1]], %[[B1]], %[[C3]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %[[D0]], %[[D1]], %[[D2]], %[[D3]]
// After the loop, once: the matrices to the subgroup's part of the staging area, a barrier, each
// lane's 8 elements of each into its registers, a barrier.
// CHECK: gpu.subgroup_mma_store_matrix %[[ACC]]#0, %[[STAGING]][%{{.*}}] {leadDimension = 16 : index}
// CHECK: gpu.subgroup_mma_store_matrix %[[ACC]]#3, %[[STAGING]][
// CHECK: gpu.barrier
// CHECK: memref.load %[[STAGING]][
// CHECK: gpu.barrier
// CHECK-NOT: gpu.subgroup_mma
// The epilogue, per register: ReLU, f16, stores clipped at C's end.
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[C]]
// SPIRV: spirv.module @__spv__gemm_0_module Logical Vulkan requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR, VulkanMemoryModel
// SPIRV-DAG: spirv.GlobalVariable @gemm_0_kernel_arg_0 bind(0, 0)
// SPIRV-DAG: spirv.GlobalVariable @gemm_0_kernel_arg_2 bind(0, 2)
// SPIRV: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd
// SPIRV: spirv.KHR.CooperativeMatrixStore
func.func @gemm(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<128x96xf16>
  }
  return
}

// -----

// B given as NxK is read column-major by the matrix loads (both tiles' rows padded: 24 elements).
// Rows of 70 elements are no whole vectors: the copies are the plain strategy's (no vector views).
// CHECK-LABEL: func.func @narrow_transposed
// CHECK: gpu.func @narrow_transposed_0_kernel(%{{.*}}: memref<100x70xf16>, %{{.*}}: memref<90x70xf16>, %{{.*}}: memref<100x90xf32>)
// CHECK: memref.alloc() : memref<64x24xf16, #spirv.storage_class<Workgroup>>
// CHECK-NEXT: %[[BS:.*]] = memref.alloc() : memref<64x24xf16, #spirv.storage_class<Workgroup>>
// CHECK: gpu.subgroup_mma_load_matrix %[[BS]][%{{.*}}, %{{.*}}] {leadDimension = 24 : index, transpose} : memref<64x24xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NOT: arith.truncf
// SPIRV: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <ColumnMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
func.func @narrow_transposed(%A: memref<100x70xf16>, %B: memref<90x70xf16>, %C: memref<100x90xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c5 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<100x70xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<90x70xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<64x16xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<100x90xf32>
  }
  return
}

// -----

// No gemm: the same rules (fragments in registers), in the cooperative-matrix target environment.
// CHECK-LABEL: func.func @scale
// CHECK: gpu.module @scale_0_module [#spirv.target_env<#spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR
// CHECK-SAME: \22target\22: \22spirv-coopmat\22, \22strategy\22: \22registers\22
// CHECK-NOT: gpu.subgroup_mma
// CHECK: math.exp
// SPIRV: spirv.module @__spv__scale_0_module Logical Vulkan
func.func @scale(%X: memref<32x16xf32>, %Y: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c2) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.copy %X[%r0, %c0], %F : memref<32x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %v = memref.load %F[%i, %j] : memref<16x16xf32, #tile.fragment>
      %e = math.exp %v : f32
      memref.store %e, %F[%i, %j] : memref<16x16xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : memref<16x16xf32, #tile.fragment>, memref<32x16xf32>
  }
  return
}

// -----

// Row reductions on the held accumulator once it is staged into registers (a row lies on 16 lanes
// of each of the two subgroups along N): each thread's slots of a row, then a butterfly over those
// lanes (gpu.shuffle xor 1, 2, 4, 8, width 32), then the two subgroups' partials through a small
// workgroup scratch.
// CHECK-LABEL: func.func @gemm_row_softmax
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}#3
// CHECK-NOT: gpu.subgroup_mma
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %{{.*}} : f32
// CHECK: math.exp
// CHECK: arith.divf
// SPIRV: spirv.GroupNonUniformShuffleXor <Subgroup>
func.func @gemm_row_softmax(%A: memref<200x256xf16>, %B: memref<256x192xf16>, %C: memref<200x192xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0625 : f32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x192xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %e = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<200x192xf32>
  }
  return
}
