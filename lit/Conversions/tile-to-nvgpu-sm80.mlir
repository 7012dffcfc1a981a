// sm_80 (Ampere): tile-infer-layouts gives every gemm the mma.sync layouts (no wgmma) and its
// shared operand tiles rows padded by 16 bytes, the pipelines stay plain (no TMA: the threads copy
// the tiles, in 16-byte runs where a tile lies inside its tensor and its runs start aligned), and
// the lowering reads the operands with ldmatrix and issues one nvvm.mma.sync per instruction tile
// and K step: m16n8k16 for f16 and bf16, m16n8k32 for i8.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-plan-pipelines | FileCheck %s --check-prefix=PLAN
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu-sm80 | FileCheck %s

// A 64x128 f16 tile on four warps (2 x 2, each 32x64: 2 x 8 instruction tiles) over 32-deep K
// tiles: 32 instructions a loop trip. A schedule that asks for no persistent launch and no
// producer warpgroup asks for what sm_80 does: the cp.async ring of its two stages replaces it.
// PLAN-LABEL: func.func @gemm_64x128
// PLAN: tile.alloc_shared {tile.layout = #tile.smem<padding = 8>} : memref<64x32xf16
// PLAN: tile.alloc_shared {tile.layout = #tile.smem<padding = 8>} : memref<32x128xf16
// PLAN: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 128], threads = 128, {{.*}}origin = "mma.m16n8k16">}
// PLAN: tile.schedule = {buffers = 2 : i64, fill = "async", prefetch = 1 : i64, wait = "group"}
// PLAN: tile.copy {{.*}} {tile.ahead}
// PLAN: tile.copy {{.*}} {tile.ahead}
// Each slot of the two rings is stored in rows of 40 and 136 elements, reached through a view of
// the tile's own shape. The 64x32 A tile is 256 runs of 8 f16, two a thread; the 32x128 B tile
// four a thread. Where the whole tile lies inside the tensor with its runs 16-byte aligned, each
// run is one cp.async (L1 bypassed); elsewhere the runs load element by element at the tensor's
// ends and are stored as vectors. The prologue issues iteration 0 and commits its group.
// CHECK-LABEL: gpu.func @gemm_64x128_0_kernel
// CHECK: %[[A0:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [64, 32], strides: [40, 1]
// CHECK: scf.if
// CHECK-COUNT-2: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[A0]][%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK: vector.store {{.*}} : memref<64x32xf16, strided<[40, 1]>, 3>, vector<8xf16>
// CHECK: %[[B0:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [32, 128], strides: [136, 1]
// CHECK-COUNT-4: nvgpu.device_async_copy %arg1[%{{.*}}, %{{.*}}], %[[B0]][%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK: vector.store {{.*}} : memref<32x128xf16, strided<[136, 1]>, 3>, vector<8xf16>
// CHECK: nvvm.cp.async.commit.group
// A step waits until no group is pending (a ring of 2: none may be), meets the block, issues the
// next iteration's copies into the other slot and commits them, then reads its own slot: per K
// step a warp (32x64) reads A with two x4 ldmatrix loads (one per 16-row tile), B (KxN, so
// transposed) with four (two 8-column tiles each): 12 loads and 32 instructions a loop trip, and
// no barrier after them (the slot is refilled after the next step's).
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: nvvm.mbarrier
// CHECK-COUNT-2: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, strided<[40, 1]>
// CHECK-COUNT-4: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x128xf16, strided<[136, 1]>
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-COUNT-6: nvgpu.ldmatrix
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module attributes {tile.target = "sm_80"} {
func.func @gemm_64x128(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 stages(2) attributes {tile.schedule = {persistent = false, producer = "none"}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %k0], %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %c0], %Bs : memref<256x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
}

// -----

// i8 into i32: m16n8k32, 64x64 on four warps (2 x 4 instruction tiles each) over K = 64: 16
// instructions. No warning: mma.sync is sm_80's integer tensor-core instruction. Both operands
// store K along their rows (A as MxK, B as NxK), so ldmatrix reads them untransposed, 16 i8 a
// row of a matrix; rows padded by 16 bytes.
// PLAN-LABEL: func.func @gemm_i8
// PLAN: tile.alloc_shared {tile.layout = #tile.smem<padding = 16>} : memref<64x64xi8
// PLAN: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 128, {{.*}}origin = "mma.m16n8k16">}
// CHECK-LABEL: gpu.func @gemm_i8_0_kernel
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x64xi8, strided<[80, 1]>, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 32>
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
module attributes {tile.target = "sm_80"} {
func.func @gemm_i8(%X: memref<64x64xi8>, %W: memref<64x64xi8>, %Y: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<64x64xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %W[%c0, %c0], %Ws : memref<64x64xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xi32, #tile.fragment>
    tile.gemm %Xs, %Ws, %Acc {transpose_b} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.copy %Acc, %Y[%c0, %c0] : memref<64x64xi32, #tile.fragment>, memref<64x64xi32>
  }
  return
}
}

// -----

// One shared tile in two gemm roles (MLA decode's KV tile, B given NxK and then KxN): ldmatrix
// reads it untransposed for the first gemm and transposed for the second. Four warps split M (a
// kernel of two gemms): each gemm 8 instruction tiles x 4 K steps a warp.
// CHECK-LABEL: gpu.func @shared_kv_0_kernel
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
module attributes {tile.target = "sm_80"} {
func.func @shared_kv(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %KVs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// A kernel of several gemms whose 64-row accumulators have too few 16-row tiles for 8 warps (MLA
// decode's 64 heads on 256 threads): 4 warps along M, as many as its tiles, and 2 along N, alike
// for both gemms, so that the scores' and the output's rows lie on the same warps.
// PLAN-LABEL: func.func @mla_decode_small
// PLAN: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 256, thread = (d0, d1) -> (((d0 floordiv 16) * 2 + d1 floordiv 32) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), {{.*}}origin = "mma.m16n8k16">}
// PLAN: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 128], threads = 256, thread = (d0, d1) -> (((d0 floordiv 16) * 2 + d1 floordiv 64) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), {{.*}}origin = "mma.m16n8k16">}
// CHECK-LABEL: gpu.func @mla_decode_small_0_kernel
// CHECK: nvvm.mma.sync
module attributes {tile.target = "sm_80"} {
func.func @mla_decode_small(%Q: memref<2x128x128xbf16>, %Qpe: memref<2x128x32xbf16>, %KV: memref<2x256x128xbf16>, %Kpe: memref<2x256x32xbf16>, %O: memref<2x128x128xbf16>) {
  %c0 = arith.constant 0 : index
  %cbh = arith.constant 64 : index
  %cbn = arith.constant 64 : index
  %csteps = arith.constant 4 : index
  %cheads = arith.constant 2 : index
  %cbatch = arith.constant 2 : index
  %cpages = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.11405505745597189 : f32
  %nscale = arith.constant -0.11405505745597189 : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {
    %Qs = tile.alloc_shared : memref<64x128xbf16, #gpu.address_space<workgroup>>
    %Qpes = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x128xbf16, #gpu.address_space<workgroup>>
    %Kpes = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %h0 = arith.muli %bh, %cbh : index
    tile.copy %Q[%bb, %h0, %c0], %Qs : memref<2x128x128xbf16>, memref<64x128xbf16, #gpu.address_space<workgroup>>
    tile.copy %Qpe[%bb, %h0, %c0], %Qpes : memref<2x128x32xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x128xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %csteps stages(2) {
      %t0 = arith.muli %j, %cbn : index
      tile.copy %KV[%bb, %t0, %c0], %KVs : memref<2x256x128xbf16>, memref<64x128xbf16, #gpu.address_space<workgroup>>
      tile.copy %Kpe[%bb, %t0, %c0], %Kpes : memref<2x256x32xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x128xbf16, #gpu.address_space<workgroup>>, memref<64x128xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.gemm %Qpes, %Kpes, %S {transpose_b} : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
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
      tile.parallel (%i, %d) in (64, 128) {
        %o = memref.load %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x128xbf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 128) {
      %o = memref.load %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%bb, %h0, %c0] : memref<64x128xf32, #tile.fragment>, memref<2x128x128xbf16>
  }
  return
}
}

// -----

// The scores of attention: Q is copied once before the loop, K comes through the ring. No op
// writes Q again, and the K slot is refilled after the next step's barrier, so the gemm ends with
// no barrier of its own.
// CHECK-LABEL: gpu.func @scores_settled_0_kernel
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}}, %arg2[
module attributes {tile.target = "sm_80"} {
func.func @scores_settled(%Q: memref<64x64xf16>, %K: memref<512x64xf16>, %S: memref<64x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.pipelined %j = %c0 to %c8 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0], %Ks : memref<512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Sf, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %Sf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %Sf, %S[%c0, %k0] : memref<64x64xf32, #tile.fragment>, memref<64x512xf32>
    }
  }
  return
}
}

// -----

// The same with Q copied again in each round of an outer loop: the next round's copy may reach
// the Q tile while a warp still reads it, so the gemm ends with a barrier.
// CHECK-LABEL: gpu.func @scores_rewritten_0_kernel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mma.sync
// CHECK-NOT: memref.store {{.*}}, %arg2[
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}}, %arg2[
module attributes {tile.target = "sm_80"} {
func.func @scores_rewritten(%Q: memref<128x64xf16>, %K: memref<512x64xf16>, %S: memref<128x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    scf.for %r = %c0 to %c2 step %c1 {
      %q0 = arith.muli %r, %c64 : index
      tile.copy %Q[%q0, %c0], %Qs : memref<128x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.pipelined %j = %c0 to %c8 stages(2) {
        %k0 = arith.muli %j, %c64 : index
        tile.copy %K[%k0, %c0], %Ks : memref<512x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.fill %Sf, %zero : memref<64x64xf32, #tile.fragment>
        tile.gemm %Qs, %Ks, %Sf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
        tile.copy %Sf, %S[%q0, %k0] : memref<64x64xf32, #tile.fragment>, memref<128x512xf32>
      }
    }
  }
  return
}
}
