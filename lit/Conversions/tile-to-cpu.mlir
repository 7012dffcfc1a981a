// convert-tile-to-cpu: the reference semantics as loops. Tiles become buffers of one block, each tile
// op a loop nest, the kernel a loop over the grid.
// RUN: tile-opt %s -split-input-file -convert-tile-to-cpu | FileCheck %s

// A copy from a global tile: reads past the end give zero (two guarded branches), then the kernel is
// a loop over its grid with fresh tiles per block.
// CHECK-LABEL: func.func @copy_in
// CHECK-NOT: tile.
// CHECK: scf.for %[[BX:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[T:.*]] = memref.alloc() : memref<16x8xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x?xf16>
// CHECK: arith.cmpi ult, %[[R]]
// CHECK: scf.if %[[IN:.*]] {
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[R]], %{{.*}}] : memref<?x?xf16>
// CHECK: %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK: memref.store %[[W]], %[[T]][%[[I]], %[[J]]] : memref<16x8xf32>
// CHECK: arith.xori %[[IN]]
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: memref.dealloc %[[T]] : memref<16x8xf32>
func.func @copy_in(%A: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
    tile.copy %A[%bx, %bx], %F : memref<?x?xf16>, memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// gemm: C[m, n] += A[m, k] * B^T[n, k] in the accumulator's type; the epilogue loop nest keeps its
// body; the pipelined loop becomes the plain loop.
// CHECK-LABEL: func.func @gemm_epilogue
// CHECK-NOT: tile.
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg0 step
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[M:.*]] =
// CHECK: scf.for %[[N:.*]] =
// The K loop runs in chunks of 8, the chunk innermost: k = chunk * 8 + step.
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %[[C8:.*]] step
// CHECK: %[[FIRST:.*]] = arith.muli %[[CHUNK]], %[[C8]] : index
// CHECK: %[[KK:.*]] = arith.addi %[[FIRST]], %[[STEP]] : index
// CHECK: memref.load %{{.*}}[%[[M]], %[[KK]]] : memref<32x16xbf16>
// CHECK: memref.load %{{.*}}[%[[N]], %[[KK]]] : memref<64x16xbf16>
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.exp
func.func @gemm_epilogue(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<64x16xbf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.gemm %A, %B, %C {transpose_b} : memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (32, 64) {
      %v = memref.load %C[%i, %j] : memref<32x64xf32, #tile.fragment>
      %e = math.exp %v : f32
      memref.store %e, %C[%i, %j] : memref<32x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// reduce <absmax> with clear: the identity 0, then max of |x| along dim 1.
// CHECK-LABEL: func.func @reduce_absmax
// CHECK: memref.store %{{.*}}, %[[D:.*]][%{{.*}}] : memref<8xf32>
// CHECK: scf.for
// CHECK: math.absf
// CHECK: arith.maximumf
func.func @reduce_absmax(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    %S = tile.alloc_fragment : memref<8x16xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    tile.reduce <absmax> %S, %m dim(1) : memref<8x16xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
  }
  return
}

// -----

// N-D copies: a 2-D tile in the trailing dimensions of a 4-D tensor. The leading offsets (batch, head)
// index their dimensions directly; every dimension is checked against its size (clipping per
// dimension), in both directions.
// CHECK-LABEL: func.func @copy_nd
// CHECK-SAME: (%[[Q:.*]]: memref<2x8x?x64xf16>, %[[O:.*]]: memref<2x8x?x64xf16>, %[[B:.*]]: index, %[[H:.*]]: index)
// CHECK: scf.for %[[BX:.*]] = %{{.*}} to %[[B]] step
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[D0:.*]] = memref.dim %[[Q]], %{{.*}} : memref<2x8x?x64xf16>
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi ult, %[[B]], %[[D0]] : index
// CHECK: %[[D1:.*]] = memref.dim %[[Q]], %{{.*}} : memref<2x8x?x64xf16>
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[H]], %[[D1]] : index
// CHECK: %[[S:.*]] = arith.addi %[[BX]], %[[I]] : index
// CHECK: arith.cmpi ult, %[[S]]
// CHECK: %[[D:.*]] = arith.addi %[[BX]], %[[J]] : index
// CHECK: arith.cmpi ult, %[[D]]
// CHECK: %[[IN:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: memref.load %[[Q]][%[[B]], %[[H]], %[[S]], %[[D]]] : memref<2x8x?x64xf16>
// CHECK: memref.store %{{.*}}, %[[O]][%[[B]], %[[H]], %{{.*}}, %{{.*}}] : memref<2x8x?x64xf16>
func.func @copy_nd(%Q: memref<2x8x?x64xf16>, %O: memref<2x8x?x64xf16>, %b: index, %h: index) {
  tile.kernel grid(%b) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
    tile.copy %Q[%b, %h, %bx, %bx], %F : memref<2x8x?x64xf16>, memref<16x64xf32, #tile.fragment>
    tile.copy %F, %O[%b, %h, %bx, %bx] : memref<16x64xf32, #tile.fragment>, memref<2x8x?x64xf16>
  }
  return
}

// -----

// tile.scan, exclusive and in place: a loop a line carrying the running sum from 0, which each
// step stores at its index before adding the element it read there.
// CHECK-LABEL: func.func @scan
// CHECK: %[[T:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[T]][%[[ROW]], %[[I]]] : memref<8x16xf32>
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %[[T]][%[[ROW]], %[[I]]] : memref<8x16xf32>
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
func.func @scan(%n: index) {
  tile.kernel grid(%n) threads(32) (%b) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.fragment>
    tile.scan <sum> %F, %F dim(1) {exclusive} : memref<8x16xf32, #tile.fragment>, memref<8x16xf32, #tile.fragment>
  }
  return
}

// -----

// tile.matmul in host code, in place: a loop nest over i, j with a K loop carrying the f32 sum from
// 0 (f16 inputs extended, B read transposed), rounded once to C's f16; the dynamic M read at run time.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: tile.
// CHECK: %[[M:.*]] = memref.dim %[[A:.*]], %{{.*}} : memref<?x64xf16>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[M]] step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]] : memref<?x64xf16>
// CHECK-NEXT: %[[Y:.*]] = memref.load %{{.*}}[%[[J]], %[[K]]] : memref<32x64xf16>
// CHECK-NEXT: %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YF:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XF]], %[[YF]] : f32
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT: memref.store %[[R]], %{{.*}}[%[[I]], %[[J]]] : memref<?x32xf16>
func.func @matmul(%A: memref<?x64xf16>, %W: memref<32x64xf16>, %C: memref<?x32xf16>) {
  tile.matmul %A, %W, %C {transpose_b} : memref<?x64xf16>, memref<32x64xf16>, memref<?x32xf16>
  return
}

// -----

// A batched tile.matmul with one B for every batch: an outer loop over the batch (its dynamic size
// read from A at run time) around the i, j nest; A and C indexed with the batch first, the 2-D B
// without it; the f32 sum rounded once to C's bf16.
// CHECK-LABEL: func.func @batched_matmul
// CHECK-NOT: tile.
// CHECK: %[[BATCH:.*]] = memref.dim %[[A:.*]], %{{.*}} : memref<?x8x16xbf16>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %[[BATCH]] step
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][%[[B]], %[[I]], %[[K]]] : memref<?x8x16xbf16>
// CHECK-NEXT: %[[Y:.*]] = memref.load %{{.*}}[%[[K]], %[[J]]] : memref<16x4xbf16>
// CHECK-NEXT: %[[XF:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[YF:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XF]], %[[YF]] : f32
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT: memref.store %[[R]], %{{.*}}[%[[B]], %[[I]], %[[J]]] : memref<?x8x4xbf16>
func.func @batched_matmul(%A: memref<?x8x16xbf16>, %W: memref<16x4xbf16>, %C: memref<?x8x4xbf16>) {
  tile.matmul %A, %W, %C : memref<?x8x16xbf16>, memref<16x4xbf16>, memref<?x8x4xbf16>
  return
}
