// convert-tile-to-spirv: the plain strategy. The kernel body moves into a gpu.func with the Vulkan
// target environment; shared tiles live in workgroup memory; each fragment op is lowered by its
// layout with the fragment in a Function-storage array of the thread's slots, indexed by constants
// (tile-to-registers.mlir has the rules), with a barrier only where shared memory is touched.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv | FileCheck %s
// The result converts with upstream convert-gpu-to-spirv.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-spirv, canonicalize, cse, gpu.module(convert-math-to-spirv), convert-gpu-to-spirv, spirv.module(spirv-lower-abi-attrs, spirv-update-vce))' | FileCheck %s --check-prefix=SPIRV

// A 16x16 block on 64 threads: 4 consecutive columns a thread, slot k column 4 (tid mod 4) + k.
// CHECK-LABEL: func.func @scale
// CHECK-NEXT: arith.constant
// CHECK: return
// CHECK: gpu.module @scale_0_module [#spirv.target_env<
// CHECK-SAME: tile.manifest = "{{.*}}\22strategy\22: \22registers\22, \22workgroup_size\22: [64, 1, 1], \22grid\22: [2, 1, 1]
// CHECK: gpu.func @scale_0_kernel(%[[X:.*]]: memref<32x16xf32>, %[[Y:.*]]: memref<32x16xf32>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[P:.*]] = memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// CHECK-NOT: memref.alloc()
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[P]][%c3{{.*}}]
// CHECK-NOT: gpu.barrier
// CHECK: %[[V:.*]] = memref.load %[[P]][%c0{{.*}}]
// CHECK-NEXT: math.exp %[[V]] : f32
// CHECK: memref.store %{{.*}}, %[[Y]]
// SPIRV: spirv.module @__spv__scale_0_module Logical GLSL450
// SPIRV-NOT: Workgroup>
// SPIRV: spirv.func @scale_0_kernel
// SPIRV: spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x f32>)>, Function>
// SPIRV-NOT: spirv.ControlBarrier
// SPIRV: spirv.GL.Exp
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

// A row max: the blocked layout puts a 16-column row in 4 threads (bits 0, 1 of the thread index),
// 2 rows a thread; each thread folds its 4 columns of each row, then the 4 threads exchange
// partials through a workgroup scratch (2 rows x 32 threads), two rounds of barrier, store,
// barrier, load the partner's: tid xor 1, then, with bit 0 combined, the threads that share a
// partial share a place (tid >> 1 squeezed: 16 places a row) and the partner is place xor 1.
// CHECK-LABEL: func.func @row_max
// CHECK: gpu.func @row_max_0_kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.alloca() : memref<8xf32, #spirv.storage_class<Function>>
// CHECK: %[[M:.*]] = memref.alloca() : memref<2xf32, #spirv.storage_class<Function>>
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
// CHECK-COUNT-3: arith.maximumf
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: arith.xori %[[TID]], %c1{{.*}} : index
// CHECK: memref.load %[[SCRATCH]]
// CHECK: arith.maximumf
// CHECK: %[[PLACE:.*]] = arith.shrui %[[TID]], %c1
// CHECK: %[[SQUEEZED:.*]] = arith.andi %[[PLACE]], %c15
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: arith.xori %[[SQUEEZED]], %c1{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[M]][%c1{{.*}}]
func.func @row_max(%X: memref<16x16xf32>, %Y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %S = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %M = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %S : memref<16x16xf32>, memref<16x16xf32, #tile.fragment>
    tile.reduce <max> %S, %M dim(1) : memref<16x16xf32, #tile.fragment>, memref<16xf32, #tile.fragment>
    tile.copy %M, %Y[%c0] : memref<16xf32, #tile.fragment>, memref<16xf32>
  }
  return
}

// -----

// A gemm off the register rules (N = 49) as loops: K's chunks (8 of 8) enclose each thread's loop
// over its 25 private elements of O, the chunk inside that, one barrier after them all. The
// elements' loop, whose trip count is the private array's length, is what backends unroll whole;
// with K inside it lavapipe's LLVM did not finish compiling (lit Targets/spirv-run-unrolled-slots.mlir).
// CHECK-LABEL: func.func @gemm_k_outside
// CHECK: memref.alloca() : memref<25xf32, #spirv.storage_class<Function>>
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[SLOT:.*]] = %{{.*}} to %c25{{.*}} step
// CHECK: scf.if
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK-NOT: gpu.barrier
// CHECK: arith.muli %[[CHUNK]], %c8
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[SLOT]]] : memref<25xf32, #spirv.storage_class<Function>>
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
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

// -----

// Tensors of dynamic shape: each is bound as a runtime array of its elements (memref<?xf32>), and
// every integer the host computes for the kernel (the trip count from the sizes, and each dynamic
// size of a tensor) comes in a storage buffer of its own after the tensors' bindings, the manifest
// saying how the launcher computes it. A load indexes the array at the row-major offset of its
// indices (row times the row's size, plus column); sizes the kernel asks for read the scalars.
// CHECK-LABEL: func.func @rows_dynamic
// CHECK: memref.dim %arg0, %c1
// CHECK: memref.dim %arg0, %c0
// CHECK: gpu.module @rows_dynamic_0_module
// CHECK-SAME: \22grid\22: [{\22op\22: \22arith.ceildivui\22, \22args\22: [{\22dim\22: [0, 0]}, 16]}, 1, 1]
// CHECK-SAME: {\22set\22: 0, \22binding\22: 0, \22host_argument\22: 0, \22shape\22: [null, null], \22element\22: \22f32\22, \22written\22: false}
// CHECK-SAME: {\22set\22: 0, \22binding\22: 2, \22host_argument\22: -1, \22shape\22: [], \22element\22: \22i32\22, \22written\22: false, \22value\22: {\22op\22: \22arith.ceildivui\22, \22args\22: [{\22dim\22: [0, 1]}, 16]}}
// CHECK-SAME: {\22set\22: 0, \22binding\22: 4, \22host_argument\22: -1, \22shape\22: [], \22element\22: \22i32\22, \22written\22: false, \22value\22: {\22dim\22: [0, 1]}}
// CHECK: gpu.func @rows_dynamic_0_kernel(%[[X:[a-z0-9]+]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %[[Y:[a-z0-9]+]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}, %[[TRIPS:[a-z0-9]+]]: index {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2), StorageBuffer>}, %{{[a-z0-9]+}}: index {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 3), StorageBuffer>}, %[[C:[a-z0-9]+]]: index {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 4), StorageBuffer>}
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TRIPS]]
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %[[C]] : index
// CHECK: %[[AT:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: memref.load %[[X]][%[[AT]]] : memref<?xf32>
// CHECK-NOT: memref.dim
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}] : memref<?xf32>
// SPIRV-LABEL: spirv.module @__spv__rows_dynamic_0_module
// SPIRV: spirv.GlobalVariable @{{.*}} bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// SPIRV: spirv.GlobalVariable @{{.*}} bind(0, 4) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
func.func @rows_dynamic(%X: memref<?x?xf32>, %Y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %blocks = arith.ceildivui %rows, %c16 : index
  %trips = arith.ceildivui %n, %c16 : index
  tile.kernel grid(%blocks) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %S = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c16 : index
    tile.fill %S, %zero : memref<16xf32, #tile.fragment>
    scf.for %t = %c0 to %trips step %c1 {
      %k0 = arith.muli %t, %c16 : index
      tile.copy %X[%r0, %k0], %F : memref<?x?xf32>, memref<16x16xf32, #tile.fragment>
      tile.reduce <sum> %F, %S dim(1) {clear = false} : memref<16x16xf32, #tile.fragment>, memref<16xf32, #tile.fragment>
    }
    tile.copy %S, %Y[%r0] : memref<16xf32, #tile.fragment>, memref<?xf32>
  }
  return
}
