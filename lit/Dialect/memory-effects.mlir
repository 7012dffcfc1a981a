// The declared memory effects keep upstream CSE, DCE and canonicalization sound around tile ops.
// RUN: tile-opt %s -split-input-file -cse | FileCheck %s --check-prefix=CSE
// RUN: tile-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// Two allocations of one type are two tiles: CSE must not merge them.
// CSE-LABEL: func.func @allocations_are_distinct
// CSE: tile.alloc_shared
// CSE-NEXT: tile.alloc_shared
func.func @allocations_are_distinct(%A: memref<256x256xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %T = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%i, %i], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %T, %A[%i, %i] : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<256x256xf16>
  }
  return
}

// -----

// A load of the accumulator before a gemm and one after it read different values.
// CSE-LABEL: func.func @gemm_writes_c
// CSE: %[[BEFORE:.*]] = memref.load
// CSE: tile.gemm
// CSE: %[[AFTER:.*]] = memref.load
// CSE: arith.addf %[[BEFORE]], %[[AFTER]]
func.func @gemm_writes_c(%i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %v0 = memref.load %C[%i, %i] : memref<64x64xf32, #tile.fragment>
    tile.gemm %A, %B, %C : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    %v1 = memref.load %C[%i, %i] : memref<64x64xf32, #tile.fragment>
    %sum = arith.addf %v0, %v1 : f32
    memref.store %sum, %C[%i, %i] : memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// An unused allocation is dead and goes; a copy into global memory stays, and so does the
// allocation it reads.
// CANON-LABEL: func.func @dead_allocation
// CANON: tile.kernel
// CANON-NEXT: %[[F:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CANON-NEXT: tile.copy %[[F]], %{{.*}}[%{{.*}}, %{{.*}}]
// CANON-NOT: tile.alloc
func.func @dead_allocation(%C: memref<256x256xf32>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %unused = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// A kernel that writes global memory is kept even though it has no results.
// CANON-LABEL: func.func @kernel_with_effects_stays
// CANON: tile.kernel
// CANON: tile.fill
// CANON: tile.copy
func.func @kernel_with_effects_stays(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// A matmul writes C (a load after it reads another value than the load before it) and stays
// under canonicalization although it has no results.
// CSE-LABEL: func.func @matmul_writes_c
// CSE: %[[BEFORE:.*]] = memref.load
// CSE: tile.matmul
// CSE: %[[AFTER:.*]] = memref.load
// CSE: arith.addf %[[BEFORE]], %[[AFTER]]
// CANON-LABEL: func.func @matmul_writes_c
// CANON: tile.matmul
func.func @matmul_writes_c(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %i: index) -> f32 {
  %v0 = memref.load %C[%i, %i] : memref<?x?xf32>
  tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>
  %v1 = memref.load %C[%i, %i] : memref<?x?xf32>
  %sum = arith.addf %v0, %v1 : f32
  return %sum : f32
}
