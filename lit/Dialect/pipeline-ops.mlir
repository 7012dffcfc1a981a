// The asynchronous-copy ops (what tile-expand-pipelines writes) print and parse back.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @ring
// CHECK: %[[RING:.*]] = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[FULL:.*]] = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: %[[SLOT:.*]] = tile.slot %[[RING]][%{{.*}}] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}], %[[SLOT]], %[[FULL]][%{{.*}}] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: tile.arrive %[[FULL]][%{{.*}}] : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: tile.wait %[[FULL]][%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
func.func @ring(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %s = tile.slot %ring[%c1] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.copy_async %K[%c0, %c0], %s, %full[%c1] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    tile.arrive %full[%c1] : memref<2xi64, #gpu.address_space<workgroup>>
    tile.wait %full[%c1], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// N-D tensors as tile.copy takes them: the tile in the trailing dimensions.
// CHECK-LABEL: func.func @heads
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] : memref<2x4x1000x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
func.func @heads(%K: memref<2x4x1000x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<3x64x64xbf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<3xi64, #gpu.address_space<workgroup>>
    %s = tile.slot %ring[%c0] : memref<3x64x64xbf16, #gpu.address_space<workgroup>> -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    tile.copy_async %K[%c1, %c0, %c0, %c0], %s, %full[%c0] : memref<2x4x1000x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A producer: its loop issues the copies of each iteration into its slot once the kernel's threads
// have released the slot's previous round.
// CHECK-LABEL: func.func @producer
// CHECK: tile.producer {
// CHECK: scf.for
// CHECK: tile.wait %[[EMPTY:.*]][%{{.*}}], %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: tile.copy_async
// CHECK: tile.arrive %[[FULL:.*]][%{{.*}}] : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: }
// CHECK-NEXT: }
// CHECK: tile.wait %[[FULL]]
// CHECK: tile.arrive %[[EMPTY]]
func.func @producer(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %empty = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.producer {
      scf.for %k = %c0 to %c8 step %c1 {
        %s = arith.remui %k, %c2 : index
        %r = arith.divui %k, %c2 : index
        %released = arith.subi %r, %c1 : index
        tile.wait %empty[%s], %released : memref<2xi64, #gpu.address_space<workgroup>>
        %tile = tile.slot %ring[%s] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
        tile.copy_async %K[%c0, %c0], %tile, %full[%s] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%s] : memref<2xi64, #gpu.address_space<workgroup>>
      }
    }
    tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    tile.arrive %empty[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A producer whose copies read their rows from a global table (a paged cache's block table).
// CHECK-LABEL: func.func @paged_producer
// CHECK: tile.producer {
// CHECK: scf.for
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<8xi32>
// CHECK: tile.copy_async
func.func @paged_producer(%K: memref<256x64xf16>, %Table: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %empty = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.producer {
      scf.for %k = %c0 to %c8 step %c1 {
        %s = arith.remui %k, %c2 : index
        %r = arith.divui %k, %c2 : index
        %released = arith.subi %r, %c1 : index
        tile.wait %empty[%s], %released : memref<2xi64, #gpu.address_space<workgroup>>
        %entry = memref.load %Table[%k] : memref<8xi32>
        %row = arith.index_cast %entry : i32 to index
        %tile = tile.slot %ring[%s] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
        tile.copy_async %K[%row, %c0], %tile, %full[%s] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%s] : memref<2xi64, #gpu.address_space<workgroup>>
      }
    }
    tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    tile.arrive %empty[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @split_sum
// CHECK: tile.kernel grid(%{{.*}}) threads(128) (%{{.*}}) attributes {tile.splits = 4 : i64} {
// CHECK: tile.split_sum %{{.*}}, %{{.*}}, %{{.*}} splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
func.func @split_sum(%r: index) {
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c4) threads(128) (%b) attributes {tile.splits = 4} {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
    tile.split_sum %Cf, %s, %r splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
  }
  return
}
