// The asynchronous-copy ops on sm_90a (after tile-plan-pipelines and tile-expand-pipelines): the
// barriers are mbarriers that thread 0 initializes for one arrival per thread; a copy into a tile
// that wgmma reads as core matrices becomes TMA boxes that thread 0 issues after adding their bytes
// to the barrier (16-byte cp.async copies where TMA cannot read the tensor), left running;
// tile.arrive tracks cp.async copies with cp.async.mbarrier.arrive and arrives; tile.wait polls the phase's
// parity and, where threads wrote slots (cp.async), fences the async proxy before wgmma reads;
// rings are views of dynamic shared memory.
// RUN: tile-opt %s -split-input-file -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// CHECK-LABEL: gpu.module @chain_0_module
// CHECK-SAME: \22dynamic_shared_bytes\22: 38016
// The ring's copies read X and W1 by TMA: a tensor map each (boxes of the tile's rows by 64
// elements, 128-byte swizzled), parameters after the tensors' descriptors.
// CHECK-SAME: \22params\22: [{\22role\22: \22tma\22, \22kind\22: \22tensor_map\22, \22host_argument\22: 0, \22shape\22: [256, 128], \22element\22: \22f16\22, \22box\22: [64, 64], \22swizzle\22: 128, \22oob_fill\22: \22zero\22}, {\22role\22: \22tma\22, \22kind\22: \22tensor_map\22, \22host_argument\22: 1, \22shape\22: [128, 64], \22element\22: \22f16\22, \22box\22: [64, 64], \22swizzle\22: 128
// CHECK: gpu.func @chain_0_kernel(%{{.*}}: memref<256x128xf16>, %{{.*}}: memref<128x64xf16>, %{{.*}}: memref<64x32xf16>, %{{.*}}: memref<256x32xf16>, %[[XMAP:.*]]: !llvm.ptr, %[[WMAP:.*]]: !llvm.ptr)
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// The rings TMA fills start on 1024 bytes (the swizzle's period): the views from the first such
// boundary of the dynamic shared memory.
// CHECK: memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK: arith.andi %{{.*}}, %c-1024
// CHECK: memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// Prologue: thread 0 adds the slot's bytes to its barrier and copies the slot by TMA, one box per
// 64 columns (X's and W1's 64x64 tiles: one each), then every thread arrives.
// CHECK: scf.if
// CHECK: scf.if
// CHECK: nvvm.mbarrier.expect_tx %[[BAR:.*]], %c8192_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[XMAP]], %[[BAR]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.expect_tx %[[BAR2:.*]], %c8192_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[WMAP]], %[[BAR2]]
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
// The loop: wait, wgmma (TMA writes through the async proxy, as wgmma reads: no fence); the
// refill after a barrier.
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: nvvm.mbarrier.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The host encodes the maps and passes them after the tensors.
// CHECK: func.func private @chain_0_launch
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.launch_func
module attributes {tile.target = "sm_90a"} {
func.func @chain(%X: memref<256x128xf16>, %W1: memref<128x64xf16>, %W2: memref<64x32xf16>, %Y: memref<256x32xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %rows = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %r0 = arith.muli %b, %rows : index
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %X[%r0, %k0], %Xs : memref<256x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %W1[%k0, %c0], %W1s : memref<128x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %W1s, %H : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x32xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
    tile.copy %O, %Y[%r0, %c0] : memref<64x32xf32, #tile.fragment>, memref<256x32xf16>
  }
  return
}
}

// -----

// A ring of 3: each thread releases its slot on a free barrier (a plain arrival: those barriers
// count no copies) and waits on it before the refill of the previous iteration's slot; no barrier
// of the block in the loop.
// CHECK-LABEL: gpu.module @chain3_0_module
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// Its 32-column K-major tiles arrive as TMA boxes with the 64-byte swizzle: no proxy fence after
// the wait (only the threads' own cp.async writes would need one).
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.cp.async.mbarrier.arrive
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// X's 64x32 tile (K-major, K = 32) is one TMA box of 64-byte rows, W1's 32x64 one of 128-byte
// rows: both by TMA, thread 0's one arrival a slot.
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.mbarrier.arrive
// CHECK: nvvm.mbarrier.arrive
module attributes {tile.target = "sm_90a"} {
func.func @chain3(%X: memref<256x128xf16>, %W1: memref<128x64xf16>, %W2: memref<64x32xf16>, %Y: memref<256x32xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %rows = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %r0 = arith.muli %b, %rows : index
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%r0, %k0], %Xs : memref<256x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W1[%k0, %c0], %W1s : memref<128x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %W1s, %H : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x32xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
    tile.copy %O, %Y[%r0, %c0] : memref<64x32xf32, #tile.fragment>, memref<256x32xf16>
  }
  return
}
}

// -----

// Found by the fuzzer: a 64x96 B tile does not split into a per-thread formula over 128 threads,
// so its copy into core matrices deals the elements out in a loop (it used to panic). The second
// copy into B keeps the kernel off the template; B is not a ring (two writers), A is.
// CHECK-LABEL: gpu.module @wide_0_module
// CHECK: gpu.func @wide_0_kernel
// CHECK: nvvm.wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
func.func @wide(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x96xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x96xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x96xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x96xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x96xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x96xf16, #gpu.address_space<workgroup>>, memref<128x96xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x96xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}
}

// -----

// FlashAttention-3's order: an iteration issues the next key block's S = Q K^T and this block's
// O += P V, then works on S while the second group runs. Each group is waited for where an op first
// touches its fragments: the scaling of S waits for all but the most recent group (1), the scaling
// of O for every group (0). The Q tile feeds the gemm before the loop and the one in it: both run on
// wgmma (a tile kept as core matrices may have several gemm readers that agree on K).
// CHECK-LABEL: gpu.module @overlap_0_module
// CHECK: gpu.func @overlap_0_kernel
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: llvm.inline_asm has_side_effects
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// The accumulator the wait completes is pinned right after it (an empty asm takes its registers and
// gives them back): LLVM moves no read of it above the wait.
// CHECK-NEXT: memref.load %{{.*}} : memref<16xf32, #gpu.address_space<private>>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
// CHECK-NOT: nvvm.wgmma
// CHECK: memref.load
// CHECK-NEXT: arith.mulf
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: memref.load %{{.*}} : memref<16xf32, #gpu.address_space<private>>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
// CHECK-NOT: nvvm.wgmma
// CHECK: memref.load
// CHECK-NEXT: arith.mulf
module attributes {tile.target = "sm_90a"} {
func.func @overlap(%Q: memref<64x32xf16>, %K: memref<128x32xf16>, %V: memref<128x32xf16>, %O: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %K0s = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x32xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    tile.copy %Q, %Qs : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %K0s : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x32xf32, #tile.fragment>
    tile.gemm %Qs, %K0s, %S {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
    tile.copy %S, %P : memref<64x32xf32, #tile.fragment>, memref<64x32xf16, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x32xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c3 stages(3) {
      %k0 = arith.muli %j, %c32 : index
      %k1 = arith.addi %k0, %c32 : index
      tile.copy %K[%k1, %c0], %Ks : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0], %Vs : memref<128x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x32xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 32) {
        %s = memref.load %S[%i, %k] : memref<64x32xf32, #tile.fragment>
        %t = arith.mulf %s, %two : f32
        memref.store %t, %S[%i, %k] : memref<64x32xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 32) {
        %o = memref.load %Acc[%i, %d] : memref<64x32xf32, #tile.fragment>
        %r = arith.mulf %o, %half : f32
        memref.store %r, %Acc[%i, %d] : memref<64x32xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<64x32xf32, #tile.fragment>, memref<64x32xf16, #tile.fragment>
    }
    tile.copy %Acc, %O : memref<64x32xf32, #tile.fragment>, memref<64x32xf16>
  }
  return
}
}

// -----

// A tile whose 16-byte pieces do not split evenly over the threads (64x64 f16: 512 pieces, 384
// threads): each thread copies its pieces with cp.async, the last one under a guard, and the copy
// waits for the thread's own group (no token has to leave the guard's branch).
// CHECK-LABEL: gpu.func @uneven_0_kernel
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
module attributes {tile.target = "sm_90a"} {
func.func @uneven(%Q: memref<192x64xf16>, %K: memref<128x64xf16>, %O: memref<192x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(384) (%b) {
    %Qs = tile.alloc_shared : memref<192x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<192x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<192x64xf16, #tile.fragment>
    %S2 = tile.alloc_fragment : memref<192x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<192x64xf16>, memref<192x64xf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<128x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Vs : memref<128x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<192x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<192x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<192x64xf32, #tile.fragment>
    tile.copy %S, %P : memref<192x64xf32, #tile.fragment>, memref<192x64xf16, #tile.fragment>
    tile.fill %S2, %zero : memref<192x64xf32, #tile.fragment>
    tile.gemm %P, %Vs, %S2 : memref<192x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<192x64xf32, #tile.fragment>
    tile.copy %S2, %O : memref<192x64xf32, #tile.fragment>, memref<192x64xf16>
  }
  return
}
}

// -----

// A GEMM's main loop on the per-op rules (the template leaves the kernel for its epilogue's bias
// read): one gemm accumulating across iterations, so each iteration releases the slot the previous
// one read after issuing its own gemm. The wait before that release keeps this iteration's group
// running (1), the back edge carries it into the next iteration (whose gemm accumulates after
// it), and the op after the loop waits for every group.
// CHECK-LABEL: gpu.module @gemm_bias_0_module
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: scf.if
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: } {tile.carries_gemm}
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// The accumulator goes out 16 bytes at a time (neighbouring lanes trade f32 pairs) where the run
// is aligned and inside the tensor, element by element otherwise: rows of 254 f32 (1016 bytes)
// are no TMA tensor, so it is not staged for TMA.
// CHECK: gpu.shuffle  xor
// CHECK: %[[VALUES:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: vector.store %[[VALUES]], %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x254xf32>, vector<4xf32>
// CHECK: memref.store
module attributes {tile.target = "sm_90a"} {
func.func @gemm_bias(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %Bias: memref<256xf32>, %C: memref<256x254xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %bias = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.fill %Acc, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Bias[%n0], %bias : memref<256xf32>, memref<128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
      %b = memref.load %bias[%j] : memref<128xf32, #tile.fragment>
      %s = arith.addf %v, %b : f32
      memref.store %s, %Acc[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Acc, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x254xf32>
  }
  return
}
}

// -----

// A ring's copy into a plain tile the threads read (no gemm reads it) from a tensor whose sizes are
// known at run time only (no tensor map to encode): 16-byte cp.async pieces left running, two a thread (32 rows of 128 bytes over 128 threads), counted on the ring's
// mbarriers (one arrival a thread, after cp.async.mbarrier.arrive), no wait group; elements one
// by one only where the source is misaligned.
// CHECK-LABEL: gpu.func @ring_rows_0_kernel
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %{{.*}} {bypassL1} : memref<?x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %{{.*}} {bypassL1} : memref<?x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<?x64xf16>
// CHECK: nvvm.cp.async.mbarrier.arrive
// CHECK-NEXT: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvvm.mbarrier.try_wait.parity
module attributes {tile.target = "sm_90a"} {
func.func @ring_rows(%X: memref<?x64xf16>, %Y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %steps = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %T = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<32x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps stages(3) {
      %row = arith.muli %k, %c32 : index
      tile.copy %X[%row, %c0], %T : memref<?x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %x = memref.load %T[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %x : f16 to f32
        %a = memref.load %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
        %s = arith.addf %a, %w : f32
        memref.store %s, %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
    }
    tile.copy %acc, %Y[%c0, %c0] : memref<32x64xf32, #tile.fragment>, memref<32x64xf32>
  }
  return
}
}

// -----

// The same from a tensor of static sizes: one unswizzled TMA box of the whole tile (32 rows of 128
// bytes) a step, issued by thread 0 and counted on the ring's mbarriers in bytes (one arrival).
// CHECK-LABEL: gpu.func @ring_rows_tma_0_kernel
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.mbarrier.expect_tx %{{.*}}, %c4096_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.mbarrier.try_wait.parity
module attributes {tile.target = "sm_90a"} {
func.func @ring_rows_tma(%X: memref<1024x64xf16>, %Y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %steps = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %T = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<32x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps stages(3) {
      %row = arith.muli %k, %c32 : index
      tile.copy %X[%row, %c0], %T : memref<1024x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %x = memref.load %T[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %x : f16 to f32
        %a = memref.load %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
        %s = arith.addf %a, %w : f32
        memref.store %s, %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
    }
    tile.copy %acc, %Y[%c0, %c0] : memref<32x64xf32, #tile.fragment>, memref<32x64xf32>
  }
  return
}
}

// -----

// A ring whose copies are not all TMA's (a row of 64 scales beside a 32x64 tile: a 1-D tile takes
// no box here) keeps the threads' cp.async for its plain 2-D tile too: one box among the threads'
// pieces measured slower (the Mamba-2 chunk scan, RESULTS run 243), and such a ring has no
// producer to issue it.
// CHECK-LABEL: gpu.func @ring_rows_mixed_0_kernel
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %{{.*}} {bypassL1} : memref<1024x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.try_wait.parity
module attributes {tile.target = "sm_90a"} {
func.func @ring_rows_mixed(%X: memref<1024x64xf16>, %S: memref<2048xf16>, %Y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %steps = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %T = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %V = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<32x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps stages(3) {
      %row = arith.muli %k, %c32 : index
      %col = arith.muli %k, %c64 : index
      tile.copy %X[%row, %c0], %T : memref<1024x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %S[%col], %V : memref<2048xf16>, memref<64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %x = memref.load %T[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
        %v = memref.load %V[%j] : memref<64xf16, #gpu.address_space<workgroup>>
        %p = arith.mulf %x, %v : f16
        %w = arith.extf %p : f16 to f32
        %a = memref.load %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
        %s = arith.addf %a, %w : f32
        memref.store %s, %acc[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
    }
    tile.copy %acc, %Y[%c0, %c0] : memref<32x64xf32, #tile.fragment>, memref<32x64xf32>
  }
  return
}
}

// -----

// A ring's copy that neither TMA nor cp.async can move (a column of 2-byte scales: rows of 2
// bytes) is made synchronous, the threads copying it element by element every step: a warning at
// the copy, once (the ring's prologue issues it too), names the condition and what would serve.
// WARN: pipeline-to-nvgpu.mlir:[[# @LINE + 18]]:7: warning: 'tile.copy' op is copied by the threads element by element, synchronously, in its pipelined loop on sm_90a: its tile's rows are 2 bytes, and TMA and cp.async move whole 16-byte pieces of a row: store the tensor so that the tile's rows are a multiple of 16 bytes (a column of scales as a row of the transposed tensor)
// WARN-NOT: warning
// CHECK-LABEL: gpu.func @scale_column_0_kernel
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: memref.load %{{.*}} : memref<1024x8xf16>
module attributes {tile.target = "sm_90a"} {
func.func @scale_column(%S: memref<1024x8xf16>, %Y: memref<32x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %steps = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %T = tile.alloc_shared : memref<32x1xf16, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<32x8xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<32x8xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %steps stages(3) {
      %row = arith.muli %k, %c32 : index
      tile.copy %S[%row, %c0], %T : memref<1024x8xf16>, memref<32x1xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 8) {
        %x = memref.load %T[%i, %c0] : memref<32x1xf16, #gpu.address_space<workgroup>>
        %w = arith.extf %x : f16 to f32
        %a = memref.load %acc[%i, %j] : memref<32x8xf32, #tile.fragment>
        %s = arith.addf %a, %w : f32
        memref.store %s, %acc[%i, %j] : memref<32x8xf32, #tile.fragment>
      }
    }
    tile.copy %acc, %Y[%c0, %c0] : memref<32x8xf32, #tile.fragment>, memref<32x8xf32>
  }
  return
}
}
