// Clusters that multicast on sm_90a (a loop asking for multicast = 2, made persistent in pairs of
// grid rows by tile-persistent-kernels): the kernel function asks for clusters of 2; the barriers
// are set up, fenced (fence.mbarrier_init) and seen across the cluster (one cluster barrier after
// the last setup) before any block uses them;
// the copy of the tile both rows share (tile.cluster_shared: B) issues this block's half of its
// TMA boxes (by its rank in the cluster), multicast into both blocks' shared memory (mask 0b11);
// each warp releases a slot in both blocks (mapa, then an arrival with the block's release, never
// the cluster's: that is a fence of the GPU's memory at every arrival), and a slot is free after
// 2 x 4 arrivals; the blocks meet at a cluster barrier before they leave, so that no arrival
// reaches a block that has gone.
// RUN: tile-opt %s -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s
// RUN: rm -rf %t && tile-compile %s --target sm_90a -o %t && FileCheck %s --check-prefix=PTX < %t/gemm_multicast_0_kernel.ptx

// CHECK-LABEL: gpu.func @gemm_multicast_0_kernel
// CHECK-SAME: known_cluster_size = array<i32: 2, 1, 1>
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[ONE:.*]] : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[C8]] : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// A's copy: its own box, no mask.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// B's: the block's rank picks its box, multicast to both blocks.
// CHECK: %[[MASK:.*]] = arith.constant 3 : i16
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}} multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// The release of a slot: in block 0 and block 1 of the cluster.
// CHECK: %[[HERE:.*]] = nvvm.mapa %[[SLOT:.*]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[HERE]] : !llvm.ptr<7>
// CHECK: %[[THERE:.*]] = nvvm.mapa %[[SLOT]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[THERE]] : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return

// PTX: .reqnctapercluster 2, 1, 1
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX-NOT: release.cluster.shared::cluster
// PTX: mapa.shared::cluster.u64
// PTX-NEXT: mov.b32
// PTX-NEXT: mbarrier.arrive.shared::cluster.b64 _,
// PTX-NOT: release.cluster.shared::cluster
// PTX: barrier.cluster.wait;
// PTX-NEXT: ret;

module attributes {tile.target = "sm_90a"} {
func.func @gemm_multicast(%A: memref<2048x1024xf16>, %B: memref<1024x2048xf16>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 128 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %ktiles = arith.constant 8 : index
  %gx = arith.constant 16 : index
  %gy = arith.constant 15 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {multicast = 2}} {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<2048x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x2048xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<2048x2048xf16>
  }
  return
}
}
