// Invalid input for tile-plan-pipelines: a schedule the program asks for that the target
// does not build is an error naming the loop, the chip and what it builds or would fit.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-plan-pipelines

// sm_90a builds one buffer per stage: stages(3) with 2 buffers asked for.
module attributes {tile.target = "sm_90a"} {
func.func @fewer_buffers(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op has tile.schedule {buffers = 2 : i64}, but the sm_90a lowering builds {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "previous", wait = "mbarrier"}; drop the attribute or run tile-plan-pipelines for sm_90a}}
    tile.pipelined %k = %c0 to %c128 stages(3) attributes {tile.schedule = {buffers = 2 : i64}} {
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

// A persistent kernel is tile-persistent-kernels' rewrite: the planner alone does not make one.
module attributes {tile.target = "sm_90a"} {
func.func @persistent_unplanned(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op has tile.schedule {persistent = true}, but the sm_90a lowering builds {buffers = 3 : i64, fill = "async", persistent = false, prefetch = 2 : i64, release = "previous", wait = "mbarrier"}; tile-persistent-kernels writes a persistent kernel: run it before tile-plan-pipelines (the tile-to-nvvm pipeline does), or drop the entry}}
    tile.pipelined %k = %c0 to %c128 stages(3) attributes {tile.schedule = {persistent = true}} {
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

// gfx942: its loops are not pipelined yet (every kernel is lowered op by op), so a request for two
// LDS buffers is refused at the loop, naming the schedule that would be built.
module attributes {tile.target = "gfx942"} {
func.func @too_many_buffers(%A: memref<1000x704xf16>, %B: memref<704x1504xf16>, %C: memref<1000x1504xf16>) {
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
    // expected-error @+1 {{'tile.pipelined' op has tile.schedule {buffers = 2 : i64}, but the gfx942 lowering builds {buffers = 1 : i64, fill = "threads", prefetch = 0 : i64, wait = "barrier"}; drop the attribute or run tile-plan-pipelines for gfx942}}
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {tile.schedule = {buffers = 2 : i64}} {
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

// A producer warpgroup asked for where two blocks share a multiprocessor (a ring of 2 of these
// tiles): the error says why there is none and what would give one.
module attributes {tile.target = "sm_90a"} {
func.func @producer_beside_another_block(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
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
    // expected-error @+1 {{no producer warpgroup: a ring of 2 leaves room for a second block on a multiprocessor, whose registers a producer warpgroup would take; a deeper ring (more stages) or larger tiles make the block run alone; or drop the entry}}
    tile.pipelined %k = %c0 to %c128 stages(2) attributes {tile.schedule = {producer = "warpgroup"}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// Stages whose tiles do not fit twice in a block's shared memory: the loop runs without a ring,
// each step waiting for its own copies, and the planner says so (two 64 KiB tiles a step: a
// ring of two needs 256 KiB on sm_90a, where a block has 225 KiB).
module attributes {tile.target = "sm_90a"} {
func.func @ring_does_not_fit(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x256xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    // expected-warning @+1 {{'tile.pipelined' op runs without a ring on sm_90a (each step waits for its own copies): a ring of two needs}}
    tile.pipelined %k = %c0 to %c16 stages(2) {
      %k0 = arith.muli %k, %c256 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x256xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<256x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x256xf16, #gpu.address_space<workgroup>>,
          memref<256x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// Four stages of 64 KiB: a ring of three is the deepest that fits (a fourth slot would need 256
// KiB), and the planner says the ring is shallower than asked.
module attributes {tile.target = "sm_90a"} {
func.func @shallower_ring(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    // expected-warning @+1 {{'tile.pipelined' op asks for 4 stages, but its ring on sm_90a holds 3: a ring of 4 needs}}
    tile.pipelined %k = %c0 to %c32 stages(4) {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>,
          memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}
