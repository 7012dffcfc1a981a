// Every tile op round-trips in custom form, and through the generic form back to custom form.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s
// RUN: tile-opt %s -split-input-file -mlir-print-op-generic | tile-opt -split-input-file | FileCheck %s

// The region ops with their implicit terminators, and the allocations inside a kernel.
// CHECK-LABEL: func.func @regions
func.func @regions(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[BX:.*]], %[[BY:.*]]) {
  tile.kernel grid(%c32, %n) threads(128) (%bx, %by) {
    // CHECK-NEXT: tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK-NEXT: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // CHECK-NEXT: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} stages(3) {
    tile.pipelined %k = %c0 to %n stages(3) {
      // CHECK-NEXT: arith.addi %[[K]], %[[BX]] : index
      %x = arith.addi %k, %bx : index
    // CHECK-NEXT: }
    }
    // CHECK-NEXT: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages(1) {
    tile.pipelined %k = %c0 to %n step %c32 stages(1) {
    }
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (128, 128) {
    tile.parallel (%i, %j) in (128, 128) {
      // CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<128x128xf32, #tile.fragment>
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      memref.store %v, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Grids of one and three dimensions; discardable attributes survive on region ops.
// CHECK-LABEL: func.func @grids
func.func @grids(%n: index) {
  // CHECK: tile.kernel grid(%{{.*}}) threads(32) (%{{.*}}) attributes {tag = "one"} {
  tile.kernel grid(%n) threads(32) (%bx) attributes {tag = "one"} {
  }
  // CHECK: tile.kernel grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(1024) (%{{.*}}, %{{.*}}, %{{.*}}) {
  tile.kernel grid(%n, %n, %n) threads(1024) (%bx, %by, %bz) {
    // CHECK: tile.parallel (%{{.*}}) in (64) attributes {unroll} {
    tile.parallel (%i) in (64) attributes {unroll} {
    }
  }
  return
}

// -----

// Copies between every pair of levels, with offsets on either side, converting element types.
// CHECK-LABEL: func.func @copies
func.func @copies(%A: memref<4096x4096xf16>, %C: memref<?x?xbf16>, %i: index, %j: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %T = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<128x32xf32, #tile.fragment>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%i, %j], %S : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK-NEXT: tile.copy %{{.*}}, %{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %S, %T : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK-NEXT: tile.copy %{{.*}}, %{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf32, #tile.fragment>
    tile.copy %T, %F : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf32, #tile.fragment>
    // CHECK-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x32xf32, #tile.fragment>, memref<?x?xbf16>
    tile.copy %F, %C[%i, %j] : memref<128x32xf32, #tile.fragment>, memref<?x?xbf16>
    // CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x?xbf16>, memref<128x32xf32, #tile.fragment>
    tile.copy %C[%i, %j], %F : memref<?x?xbf16>, memref<128x32xf32, #tile.fragment>
  }
  return
}

// -----

// The op reference's N-D example: 2-D tiles in the trailing dimensions of a 4-D (batch, head,
// sequence, head dim) tensor, the leading offsets picking the batch and the head.
// CHECK-LABEL: func.func @nd_copies
func.func @nd_copies(%Q: memref<4x16x1000x64xf16>, %O: memref<4x16x1000x64xf16>, %b: index, %h: index, %s0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Of = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<4x16x1000x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Q[%b, %h, %s0, %c0], %Qs : memref<4x16x1000x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    // CHECK-NEXT: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.fragment>, memref<4x16x1000x64xf16>
    tile.copy %Of, %O[%b, %h, %s0, %c0] : memref<64x64xf32, #tile.fragment>, memref<4x16x1000x64xf16>
  }
  return
}

// -----

// GEMMs: the transpose flags, A in a fragment, and every input type with its accumulator.
// CHECK-LABEL: func.func @gemms
func.func @gemms() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) (%bx) {
    %A = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bt = tile.alloc_shared : memref<256x32xf16, #gpu.address_space<workgroup>>
    %At = tile.alloc_shared : memref<32x128xbf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x256xbf16, #gpu.address_space<workgroup>>
    %Af = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    %A8 = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %B8 = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %C8 = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<256x32xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    tile.gemm %A, %Bt, %C {transpose_b} : memref<128x32xf16, #gpu.address_space<workgroup>>,
        memref<256x32xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_a} : memref<32x128xbf16, #gpu.address_space<workgroup>>
    tile.gemm %At, %B, %C {transpose_a} : memref<32x128xbf16, #gpu.address_space<workgroup>>,
        memref<32x256xbf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : memref<128x32xf16, #tile.fragment>
    tile.gemm %Af, %Bt, %C {transpose_b} : memref<128x32xf16, #tile.fragment>,
        memref<256x32xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    // CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.gemm %A8, %B8, %C8 : memref<64x64xi8, #gpu.address_space<workgroup>>,
        memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
  }
  return
}


// -----

// Matmuls in host code, sizes static or known at run time, B as KxN or NxK.
// CHECK-LABEL: func.func @matmuls
func.func @matmuls(%A: memref<?x4096xf16>, %W: memref<11008x4096xf16>, %C: memref<?x11008xf16>,
                   %X: memref<?x?xbf16>, %Y: memref<?x?xbf16>, %Z: memref<?x?xf32>) {
  // CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : memref<?x4096xf16>, memref<11008x4096xf16>, memref<?x11008xf16>
  tile.matmul %A, %W, %C {transpose_b} : memref<?x4096xf16>, memref<11008x4096xf16>, memref<?x11008xf16>
  // CHECK-NEXT: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>
  tile.matmul %X, %Y, %Z : memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>
  return
}
// -----

// Fill and every reduction kind; clear defaults to true and is printed only when false.
// CHECK-LABEL: func.func @fill_reduce
func.func @fill_reduce() {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<f32, #tile.fragment>
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<64x64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    // CHECK-NEXT: tile.reduce <max> %{{.*}}, %{{.*}} dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) {clear = true} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    // CHECK-NEXT: tile.reduce <sum> %{{.*}}, %{{.*}} dim(0) {clear = false}
    tile.reduce <sum> %S, %m dim(0) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    // CHECK-NEXT: tile.reduce <min>
    tile.reduce <min> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    // CHECK-NEXT: tile.reduce <abssum>
    tile.reduce <abssum> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    // CHECK-NEXT: tile.reduce <absmax> %{{.*}}, %{{.*}} dim(0) : memref<64xf32, #tile.fragment>, memref<f32, #tile.fragment>
    tile.reduce <absmax> %m, %s dim(0) : memref<64xf32, #tile.fragment>, memref<f32, #tile.fragment>
  }
  return
}

// -----

// The explicit terminator is accepted and elided when printed.
// CHECK-LABEL: func.func @explicit_yield
func.func @explicit_yield(%n: index) {
  // CHECK: tile.kernel
  // CHECK-NOT: tile.yield
  // CHECK: return
  tile.kernel grid(%n) threads(64) (%bx) {
    tile.yield
  }
  return
}
