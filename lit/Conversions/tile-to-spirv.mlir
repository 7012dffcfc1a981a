// convert-tile-to-spirv: the plain strategy. The kernel body moves into a gpu.func with the Vulkan
// target environment; each tile op's iterations are dealt out to the workgroup's threads with a
// barrier after; shared tiles live in workgroup memory, and so do fragments the threads share. A
// fragment each thread only touches at its own elements (e = k * threads + tid) is kept privately, at
// slot k (the loop's trip, no division) of a Function-storage array.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv | FileCheck %s
// The result converts with upstream convert-gpu-to-spirv.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-spirv, canonicalize, cse, gpu.module(convert-math-to-spirv), convert-gpu-to-spirv, spirv.module(spirv-lower-abi-attrs, spirv-update-vce))' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: func.func @scale
// CHECK-NEXT: arith.constant
// CHECK: return
// CHECK: gpu.module @scale_0_module [#spirv.target_env<
// CHECK-SAME: tile.manifest = "{{.*}}\22workgroup_size\22: [64, 1, 1], \22grid\22: [2, 1, 1]
// CHECK: gpu.func @scale_0_kernel(%[[X:.*]]: memref<32x16xf32>, %[[Y:.*]]: memref<32x16xf32>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
// CHECK: %[[P:.*]] = memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK-NOT: memref.alloc()
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %[[TRIP:.*]] = %{{.*}} to %[[TRIPS:.*]] step %{{.*}} {
// CHECK: %[[START:.*]] = arith.muli %[[TRIP]], %[[THREADS:.*]] : index
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[START]], %[[TID]] : index
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[P]][%[[TRIP]]]
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[Y]]
// SPIRV: spirv.module @__spv__scale_0_module Logical GLSL450
// SPIRV-NOT: Workgroup>
// SPIRV: spirv.func @scale_0_kernel
// SPIRV: spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x f32>)>, Function>
// SPIRV: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
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

// A row max reads the fragment along the reduced dimension, across threads: the fragment stays in
// workgroup memory; the row maxima, written and read at their own indices, are private. 32 threads
// for 16 rows: 2 threads share each row, folding alternate elements into a scratch tile, then
// thread r folds row r's two partial maxima.
// CHECK-LABEL: func.func @row_max
// CHECK: gpu.func @row_max_0_kernel
// CHECK: %[[M:.*]] = memref.alloca() : memref<1xf32, #spirv.storage_class<Function>>
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<32xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[S:.*]] = memref.alloc() : memref<16x16xf32, #spirv.storage_class<Workgroup>>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %[[TWO:.*]] : index
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %[[TWO]] : index
// CHECK: scf.for %[[COL:.*]] = %[[LANE]] to %{{.*}} step %[[TWO]] {
// CHECK: memref.load %[[S]][%[[ROW]], %[[COL]]]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%[[TID]]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SCRATCH]]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK: gpu.barrier
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
