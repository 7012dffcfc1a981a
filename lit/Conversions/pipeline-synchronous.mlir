// The asynchronous-copy ops where the target's lowering keeps copies synchronous (gfx942 here, and
// the CPU reference): tile.copy_async is the tile.copy it describes, arrivals and barriers go, and
// a tile.wait is a barrier of the block (every thread arrived before it waits); the ring is a tile
// of bytes whose slots are views.
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s
// RUN: tile-opt %s -split-input-file -convert-tile-to-cpu | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: gpu.func @ring_0_kernel
// CHECK-SAME: workgroup(%[[BYTES:.*]] : memref<16384xi8, #gpu.address_space<workgroup>>
// CHECK-NOT: mbarrier
// CHECK: %[[SLOT:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<32x64xf32, #gpu.address_space<workgroup>>
// The copy into the slot is gfx942's, 16 bytes a run: loads, then stores into the slot's view.
// CHECK: vector.load %{{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK: %[[LDS:.*]] = memref.memory_space_cast %[[SLOT]] : memref<32x64xf32, #gpu.address_space<workgroup>> to memref<32x64xf32, 3>
// CHECK: vector.store %{{.*}}, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.view %[[BYTES]]
// CPU-LABEL: func.func @ring
// CPU: %[[BYTES:.*]] = memref.alloc() : memref<16384xi8>
// CPU: memref.view %[[BYTES]][%{{.*}}][] : memref<16384xi8> to memref<32x64xf32>
// CPU-NOT: tile.
// CPU-NOT: gpu.barrier
func.func @ring(%A: memref<64x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf32, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %s0 = tile.slot %ring[%c0] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy_async %A[%c0, %c0], %s0, %full[%c0] : memref<64x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    tile.arrive %full[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
    tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    %t0 = tile.slot %ring[%c0] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.reduce <sum> %t0, %acc dim(0) : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
