// tile.split_sum on sm_90a: the kernel asks for its cluster (known_cluster_size), the blocks past
// the first store their accumulators into their own shared memory 16 bytes at a time, a cluster
// barrier, the first block adds the others' through distributed shared memory (mapa, loads of
// vectors from the cluster window), a second cluster barrier. Elsewhere it is refused at the op.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-split-k -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s
// RUN: not tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s -split-input-file -convert-tile-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: gpu.func @split_0_kernel
// CHECK-SAME: known_cluster_size = array<i32: 2, 1, 1>
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: scf.if
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK: arith.addf
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// AMD: error: 'tile.split_sum' op adds up the fragments of a thread block cluster's blocks, which only sm_90a has, not gfx942; compile for sm_90a, or run the program before tile-split-k split it
// CPU: error: 'tile.split_sum' op adds up the fragments of a thread block cluster's blocks, which only sm_90a has, not the CPU reference
module attributes {tile.target = "sm_90a"} {
  func.func @split(%A: memref<64x2048xf16>, %B: memref<2048x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %c32 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x2048xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<2048x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

// Written by hand: the kernel's clusters and the sum as tile-split-k writes them.
// CHECK-LABEL: gpu.func @by_hand_0_kernel
// CHECK-SAME: known_cluster_size = array<i32: 4, 1, 1>
// CHECK: nvvm.mapa
// CHECK: nvvm.mapa
// CHECK: nvvm.mapa
// CHECK-NOT: nvvm.mapa
module attributes {tile.target = "sm_90a"} {
  func.func @by_hand(%C: memref<64x512xf32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    tile.kernel grid(%c16) threads(128) (%b) attributes {tile.splits = 4} {
      %bx = arith.divui %b, %c4 : index
      %rank = arith.remui %b, %c4 : index
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      %scratch = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
      tile.fill %Cf, %one : memref<64x128xf32, #tile.fragment>
      tile.split_sum %Cf, %scratch, %rank splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
      %n0 = arith.muli %bx, %c128 : index
      %first = arith.cmpi eq, %rank, %c0 : index
      scf.if %first {
        tile.copy %Cf, %C[%c0, %n0] : memref<64x128xf32, #tile.fragment>, memref<64x512xf32>
      }
    }
    return
  }
}
