// Decisions written as the passes write them verify and print back unchanged.
// RUN: tile-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @planned_loop
// CHECK: tile.kernel {{.*}} attributes {tile.strategy = "per-op"}
// CHECK: tile.pipelined {{.*}} attributes {tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, producer = "warpgroup", release = "previous", wait = "mbarrier"}}
// CHECK: tile.copy {{.*}} {tile.ahead}
func.func @planned_loop(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) (%b) attributes {tile.strategy = "per-op"} {
    %t = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c4 stages(2) attributes {tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, producer = "warpgroup", release = "previous", wait = "mbarrier"}} {
      tile.copy %A[%k, %c0], %t {tile.ahead} : memref<256x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}
