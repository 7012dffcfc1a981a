// tile-plan-pipelines: how each kernel's tile.pipelined main loop runs on the module's
// tile.target, as tile.schedule on the loop: buffers in the ring, how a stage is filled and awaited,
// how far ahead the copies run. The target pipelines run it before their lowering, which builds it.
// RUN: tile-opt %s -split-input-file -tile-plan-pipelines | FileCheck %s

// sm_90a: the GEMM's main loop as a ring of its 3 stages, filled by asynchronous copies issued 2
// steps ahead (tile-expand-pipelines writes them as TMA where a box serves the tile, cp.async
// otherwise) and awaited on mbarriers; its one gemm accumulates across iterations, so an
// iteration releases the previous one's slot after issuing its own gemm.
// CHECK-LABEL: func.func @gemm_relu
// CHECK: tile.pipelined {{.*}} stages(3) attributes {tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "previous", wait = "mbarrier"}}
// CHECK: tile.copy {{.*}} {tile.ahead}
// CHECK: tile.copy {{.*}} {tile.ahead}
module attributes {tile.target = "sm_90a"} {
func.func @gemm_relu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// sm_90a: a ring of 12 stages (193 KiB); the program asks for one output tile a block, which the
// schedule records (tile-persistent-kernels leaves such a loop alone). The ring fills the
// multiprocessor's shared memory (one block each): a producer warpgroup fills it.
// CHECK-LABEL: func.func @asked_tilewise
// CHECK: tile.schedule = {buffers = 12 : i64, fill = "async", persistent = false, prefetch = 11 : i64, producer = "warpgroup", release = "previous", wait = "mbarrier"}
module attributes {tile.target = "sm_90a"} {
func.func @asked_tilewise(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(12) attributes {tile.schedule = {persistent = false}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}


// -----

// sm_90a: a ring of 2 (48 KiB with its tiles) would leave room for a second block, but a 128x256
// f32 accumulator on two warpgroups (128 registers a thread, beside addresses and indices) does
// not: two blocks would have 128 registers a thread in all. The block runs alone, and a producer
// warpgroup fills its ring. Asked for two blocks a multiprocessor, the kernel gets none (and the
// block meets before a slot's refill, as in every ring of 2 on the kernel's own threads).
// CHECK-LABEL: func.func @alone_by_registers
// CHECK: tile.schedule = {buffers = 2 : i64, fill = "async", persistent = false, prefetch = 1 : i64, producer = "warpgroup", release = "previous", wait = "mbarrier"}
// CHECK-LABEL: func.func @two_blocks_asked
// CHECK: tile.schedule = {buffers = 2 : i64, fill = "async", persistent = false, prefetch = 1 : i64, release = "barrier", wait = "mbarrier"}
module attributes {tile.target = "sm_90a"} {
func.func @alone_by_registers(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c128 stages(2) attributes {tile.schedule = {persistent = false}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
func.func @two_blocks_asked(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) attributes {min_blocks_per_multiprocessor = 2 : i64} {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c128 stages(2) attributes {tile.schedule = {persistent = false}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// gfx942 lowers every kernel op by op, with no GEMM template: its loops are not pipelined yet, so a
// GEMM's main loop gets the plain schedule (the threads copy, a barrier between steps).
// CHECK-LABEL: func.func @gemm_relu
// CHECK: attributes {tile.schedule = {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}}
module attributes {tile.target = "gfx942"} {
func.func @gemm_relu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// gfx942, a ragged GEMM whose two LDS copies would not fit in 64 KiB: the same plain schedule.
// CHECK-LABEL: func.func @gemm_ragged_relu
// CHECK: attributes {tile.schedule = {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}}
module attributes {tile.target = "gfx942"} {
func.func @gemm_ragged_relu(%A: memref<1000x704xf16>, %B: memref<704x1504xf16>, %C: memref<1000x1504xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 64 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %ktiles = arith.constant 11 : index
  %gx = arith.constant 12 : index
  %gy = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<1000x704xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<704x1504xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<1000x1504xf16>
  }
  return
}
}

// -----

// spirv-coopmat lowers every kernel op by op too: the plain schedule.
// CHECK-LABEL: func.func @gemm_relu
// CHECK: attributes {tile.schedule = {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}}
module attributes {tile.target = "spirv-coopmat"} {
func.func @gemm_relu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// sm_90a, a loop without a gemm: the copy into the shared tile that the loop only reads afterwards runs
// ahead on a ring as deep as the loop's stages; tile-expand-pipelines writes it out.
// CHECK-LABEL: func.func @column_sums
// CHECK: tile.pipelined {{.*}} stages(3) attributes {tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "mbarrier", wait = "mbarrier"}}
// CHECK: tile.copy {{.*}} {tile.ahead}
module attributes {tile.target = "sm_90a"} {
func.func @column_sums(%A: memref<256x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// A copy whose tile is read before it in the iteration (the previous iteration's data) cannot run
// ahead: the loop keeps the plain schedule.
// CHECK-LABEL: func.func @read_before_copy
// CHECK: tile.schedule = {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}
// CHECK-NOT: tile.ahead
module attributes {tile.target = "sm_90a"} {
func.func @read_before_copy(%A: memref<256x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 stages(3) {
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// gfx942 and SPIR-V have no asynchronous copies in their lowerings yet: plain loops.
// CHECK-LABEL: func.func @column_sums_gfx942
// CHECK: tile.schedule = {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}
// CHECK-NOT: tile.ahead
module attributes {tile.target = "gfx942"} {
func.func @column_sums_gfx942(%A: memref<256x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.reduce <sum> %s, %acc dim(0) {clear = false} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}

// -----

// FlashMLA decode's tiles: 152 KiB beside a step's 72 KiB of copies. A ring of two buffers leaves
// 2 KiB of the 227 for scratch and barriers (deeper rings keep 4 KiB, for staged stores), so the
// step's copies still run a step ahead of the gemms.
// CHECK-LABEL: func.func @mla_two_buffers
// CHECK: tile.pipelined {{.*}} stages(2) attributes {tile.schedule = {buffers = 2 : i64, fill = "async", {{.*}}wait = "mbarrier"}}
module attributes {tile.target = "sm_90a"} {
func.func @mla_two_buffers(%Q: memref<1x64x512xbf16>, %Qpe: memref<1x64x64xbf16>, %KV: memref<1x128x512xbf16>, %Kpe: memref<1x128x64xbf16>, %O: memref<1x64x512xbf16>) {
  %c0 = arith.constant 0 : index
  %cbh = arith.constant 64 : index
  %cbn = arith.constant 64 : index
  %csteps = arith.constant 2 : index
  %cheads = arith.constant 1 : index
  %cbatch = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.06011229337037347 : f32
  %nscale = arith.constant -0.06011229337037347 : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x512xbf16, #gpu.address_space<workgroup>>
    %Qpes = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x512xbf16, #gpu.address_space<workgroup>>
    %Kpes = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x512xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %h0 = arith.muli %bh, %cbh : index
    tile.copy %Q[%bb, %h0, %c0], %Qs : memref<1x64x512xbf16>, memref<64x512xbf16, #gpu.address_space<workgroup>>
    tile.copy %Qpe[%bb, %h0, %c0], %Qpes : memref<1x64x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x512xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %csteps stages(2) {
      %t0 = arith.muli %j, %cbn : index
      tile.copy %KV[%bb, %t0, %c0], %KVs : memref<1x128x512xbf16>, memref<64x512xbf16, #gpu.address_space<workgroup>>
      tile.copy %Kpe[%bb, %t0, %c0], %Kpes : memref<1x128x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.gemm %Qpes, %Kpes, %S {transpose_b} : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %v = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %v, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 512) {
        %o = memref.load %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x512xbf16, #gpu.address_space<workgroup>>, memref<64x512xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 512) {
      %o = memref.load %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x512xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %h0, %c0] : memref<64x512xf32, #tile.fragment>, memref<1x64x512xbf16>
  }
  return
}
}

// -----

// A paged operand (a block table names each step's page): the table's load is read for the next
// step as the induction variable's arithmetic is, since nothing in the kernel writes the table,
// so the copy still runs a step ahead in a ring.
// CHECK-LABEL: func.func @paged_gemm
// CHECK: tile.pipelined {{.*}} stages(2) attributes {tile.schedule = {buffers = 2 : i64, fill = "async", {{.*}}wait = "mbarrier"}}
// CHECK: memref.load
// CHECK: tile.copy {{.*}} {tile.ahead}
module attributes {tile.target = "sm_90a"} {
func.func @paged_gemm(%A: memref<64x64xf16>, %B: memref<8x64x64xf16>, %Table: memref<4xi32>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %entry = memref.load %Table[%j] : memref<4xi32>
      %page = arith.index_cast %entry : i32 to index
      tile.copy %B[%page, %c0, %c0], %Bs : memref<8x64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// Weights widened by the threads into register tiles that two gemms read as A (one tile a gemm,
// so that one is widened while the other's gemm runs): the gemms accumulate into one fragment and
// the widening loops write only those register tiles, so an iteration releases the previous
// one's slot after issuing its gemms (the wgmma waits then wait for a register tile's gemm where
// the next iteration writes the tile again). A widening loop that also reads the accumulator
// makes every iteration wait for its gemms: its slot is released at its end.
// CHECK-LABEL: func.func @register_weights
// CHECK: tile.pipelined {{.*}} stages(3) attributes {tile.schedule = {{{.*}}release = "previous"
// CHECK-LABEL: func.func @register_weights_reading_accumulator
// CHECK: tile.pipelined {{.*}} stages(3) attributes {tile.schedule = {{{.*}}release = "mbarrier"
module attributes {tile.target = "sm_90a"} {
func.func @register_weights(%A: memref<256x4096xf16>, %W: memref<128x4096xi8>, %C: memref<128x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c1) threads(256) (%bx, %by) {
    %As0 = tile.alloc_shared : memref<256x32xf16, #gpu.address_space<workgroup>>
    %As1 = tile.alloc_shared : memref<256x32xf16, #gpu.address_space<workgroup>>
    %Wq = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
    %Wd0 = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    %Wd1 = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Ct, %zero : memref<128x256xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c64 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      %k1 = arith.addi %k0, %c32 : index
      tile.copy %A[%c0, %k0], %As0 : memref<256x4096xf16>, memref<256x32xf16, #gpu.address_space<workgroup>>
      tile.copy %A[%c0, %k1], %As1 : memref<256x4096xf16>, memref<256x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%c0, %k0], %Wq : memref<128x4096xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = memref.load %Wq[%i, %j] : memref<128x64xi8, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i8 to f16
        memref.store %w, %Wd0[%i, %j] : memref<128x32xf16, #tile.fragment>
      }
      tile.gemm %Wd0, %As0, %Ct {transpose_b} : memref<128x32xf16, #tile.fragment>, memref<256x32xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
      tile.parallel (%i, %j) in (128, 32) {
        %jj = arith.addi %j, %c32 : index
        %q = memref.load %Wq[%i, %jj] : memref<128x64xi8, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i8 to f16
        memref.store %w, %Wd1[%i, %j] : memref<128x32xf16, #tile.fragment>
      }
      tile.gemm %Wd1, %As1, %Ct {transpose_b} : memref<128x32xf16, #tile.fragment>, memref<256x32xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Ct, %C[%c0, %c0] : memref<128x256xf32, #tile.fragment>, memref<128x256xf32>
  }
  return
}

func.func @register_weights_reading_accumulator(%A: memref<256x4096xf16>, %W: memref<128x4096xi8>, %C: memref<128x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c1) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
    %Wq = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
    %Wd = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Ct, %zero : memref<128x256xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c64 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0], %As : memref<256x4096xf16>, memref<256x64xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%c0, %k0], %Wq : memref<128x4096xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 64) {
        %q = memref.load %Wq[%i, %j] : memref<128x64xi8, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i8 to f16
        %c = memref.load %Ct[%i, %j] : memref<128x256xf32, #tile.fragment>
        %h = arith.truncf %c : f32 to f16
        %s = arith.addf %w, %h : f16
        memref.store %s, %Wd[%i, %j] : memref<128x64xf16, #tile.fragment>
      }
      tile.gemm %Wd, %As, %Ct {transpose_b} : memref<128x64xf16, #tile.fragment>, memref<256x64xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Ct, %C[%c0, %c0] : memref<128x256xf32, #tile.fragment>, memref<128x256xf32>
  }
  return
}
}

// -----

// sm_90a, a producer beside two consumer warpgroups leaves them 232 registers a thread: in a loop
// that is not a GEMM's main loop (a second fragment written each step), fragments of 200 registers
// a thread (a 128x256 and a 128x144 f32 fragment, as in head-dim-256 attention's 64x256
// accumulator, scores and P a warpgroup) fit with room for addresses and indices, and a producer
// warpgroup fills the ring; with 208 (a 128x160 fragment) they do not, and the threads fill it.
// A GEMM's main loop (one accumulator, here 256x192: 192 registers a thread) keeps more room
// beside its fragments, and gets none (its 256x192 tiles ran slower with one).
// CHECK-LABEL: func.func @producer_beside_200_registers
// CHECK: tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, producer = "warpgroup", release = "mbarrier", wait = "mbarrier"}
// CHECK-LABEL: func.func @no_producer_beside_208_registers
// CHECK: tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "mbarrier", wait = "mbarrier"}
// CHECK-LABEL: func.func @gemm_loop_beside_192_registers
// CHECK: tile.schedule = {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "previous", wait = "mbarrier"}
module attributes {tile.target = "sm_90a"} {
func.func @producer_beside_200_registers(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>, %D: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %Ef = tile.alloc_fragment : memref<128x144xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    tile.fill %Ef, %zero : memref<128x144xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
      tile.parallel (%i, %j) in (128, 144) {
        %e = memref.load %Ef[%i, %j] : memref<128x144xf32, #tile.fragment>
        %f = arith.addf %e, %e : f32
        memref.store %f, %Ef[%i, %j] : memref<128x144xf32, #tile.fragment>
      }
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
    tile.copy %Ef, %D[%m0, %n0] : memref<128x144xf32, #tile.fragment>, memref<4096x4096xf32>
  }
  return
}
func.func @no_producer_beside_208_registers(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>, %D: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %Ef = tile.alloc_fragment : memref<128x160xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    tile.fill %Ef, %zero : memref<128x160xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
      tile.parallel (%i, %j) in (128, 160) {
        %e = memref.load %Ef[%i, %j] : memref<128x160xf32, #tile.fragment>
        %f = arith.addf %e, %e : f32
        memref.store %f, %Ef[%i, %j] : memref<128x160xf32, #tile.fragment>
      }
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
    tile.copy %Ef, %D[%m0, %n0] : memref<128x160xf32, #tile.fragment>, memref<4096x4096xf32>
  }
  return
}
func.func @gemm_loop_beside_192_registers(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c16) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x192xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<256x192xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<256x192xf32, #tile.fragment>
    %m0 = arith.muli %by, %c256 : index
    %n0 = arith.muli %bx, %c192 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<256x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x192xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #gpu.address_space<workgroup>>,
          memref<64x192xf16, #gpu.address_space<workgroup>>, memref<256x192xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<256x192xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}
