// convert-tile-to-nvgpu: tile kernels become sm_90a kernels op by op, after the decisions the
// tile-to-nvvm pipeline takes first (layouts, persistent kernels, pipeline plans and rings): gemms
// on wgmma reading their shared operands through descriptors, copies into the rings by TMA where
// boxes of 128-byte rows with the 128-byte swizzle serve the tile (16-byte cp.async otherwise), awaited
// on mbarriers, and accumulators into 16-bit tensors staged in shared memory (128-byte swizzled TMA
// boxes) and stored by TMA, others stored 16 bytes a lane. The tile.kernel becomes a call of a host
// function that makes the tensor maps and launches the kernel.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-persistent-kernels -tile-plan-pipelines -tile-expand-pipelines -convert-tile-to-nvgpu | FileCheck %s

// The contract's example on 4096^3: 1024 tiles, a block each (four share a multiprocessor, so it is
// not made persistent). Its 128x32 A tiles arrive
// by TMA as one box of 64-byte rows (the 64-byte swizzle), its 32x128 B tiles as two 32x64 boxes
// (the 128-byte swizzle). The accumulator leaves by TMA through the A ring, drained after the loop
// (24 KiB: one 128x64 box a round, two rounds); thread 0 waits for the stores at the end.
// CHECK-LABEL: func.func @gemm_relu
// The 32x32 tiles launch as 1024 blocks that take them in groups of 8 grid rows.
// CHECK: call @gemm_relu_0_launch(%arg0, %arg1, %arg2, %c1024, %c1)
// CHECK: gpu.module @gemm_relu_0_module attributes {tile.manifest = "{{.*}}\22strategy\22: \22registers\22{{.*}}\22grid\22: [1024, 1, 1]{{.*}}\22params\22: [{\22role\22: \22tma\22, \22kind\22: \22tensor_map\22, \22host_argument\22: 0, \22shape\22: [4096, 4096], \22element\22: \22f16\22, \22box\22: [128, 32], \22swizzle\22: 64, \22oob_fill\22: \22zero\22}, {\22role\22: \22tma\22, \22kind\22: \22tensor_map\22, \22host_argument\22: 1, \22shape\22: [4096, 4096], \22element\22: \22f16\22, \22box\22: [32, 64], \22swizzle\22: 128{{.*}}\22host_argument\22: 2, \22shape\22: [4096, 4096], \22element\22: \22f16\22, \22box\22: [128, 64], \22swizzle\22: 128
// CHECK: gpu.func @gemm_relu_0_kernel(%{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[CMAP:.*]]: !llvm.ptr) kernel
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-DAG: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: arith.maximumf
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: gpu.barrier
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: gpu.barrier
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[CMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr, <3>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: gpu.barrier
// CHECK-COUNT-32: llvm.store
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[CMAP]]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: vector.store
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: read
// CHECK: gpu.return
// CHECK: func.func private @gemm_relu_0_launch(%{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %[[GX:.*]]: index, %[[GY:.*]]: index)
// CHECK-COUNT-3: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func  @gemm_relu_0_module::@gemm_relu_0_kernel blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})  dynamic_shared_memory_size
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

// Two warpgroups on a 128x256 tile, B given as NxK (K-major, read with the `col` layout), bf16 in,
// f32 out: both operands by TMA (64-element K rows, 128-byte swizzle); the f32 accumulator staged
// as 128x32 boxes (128-byte rows of 32 f32, 8 bytes a pair) in the drained B ring (128 KiB: all
// eight boxes in one round), stored by TMA. Its ring fills the multiprocessor (one block each): a
// producer warpgroup (the block is 384 threads), whose registers move to the two warpgroups: the
// kernel declares one block a multiprocessor, the count its threads start from.
// CHECK-LABEL: func.func @bf16_transpose_b
// CHECK: \22box\22: [128, 32], \22swizzle\22: 128
// CHECK: gpu.func @bf16_transpose_b_0_kernel({{.*}}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK-DAG: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT: gpu.shuffle
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: vector.store
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
func.func @bf16_transpose_b(%A: memref<1024x512xbf16>, %B: memref<1024x512xbf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c8) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x64xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c8 stages(4) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x512xbf16>, memref<128x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<1024x512xbf16>, memref<256x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x64xbf16, #gpu.address_space<workgroup>>,
          memref<256x64xbf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<1024x1024xf32>
  }
  return
}
}

// -----

// A function without kernels is left alone.
// CHECK-LABEL: func.func @no_kernel
// CHECK-NEXT: return
module attributes {tile.target = "sm_90a"} {
func.func @no_kernel() {
  return
}
}

// -----

// Dynamic shapes: the grid is computed on the host from the tensors' sizes, and the kernel computes
// the sizes it needs again from the memref descriptors. Both tiles arrive by TMA: the maps are
// encoded at launch from the tensors' sizes (the manifest's shapes are null).
// CHECK-LABEL: func.func @dynamic
// CHECK: gpu.module @dynamic_0_module attributes {tile.manifest = "{{.*}}\22grid\22: [{\22op\22: \22arith.muli\22, \22args\22: [{\22op\22: \22arith.ceildivui\22{{.*}}\22kind\22: \22tensor_map\22, \22host_argument\22: 0, \22shape\22: [null, null]
// CHECK: gpu.func @dynamic_0_kernel(%[[A:.*]]: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-DAG: memref.dim %[[A]]
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The loop's gemm finds the fill's zeros in its accumulator on entry: each 64-row tile's registers
// go through an empty asm that ties them, before the fence (LLVM would materialize the zeros after
// it, where ptxas serializes every wgmma of the kernel).
// The loop carries its gemm's group across its back edge and runs a number of steps known at run
// time: it is in an scf.if on its running a step, whose branch waits for the last group before
// it ends (after a merge with the path of no step, the merge's copies read registers of a wgmma
// in flight, and ptxas serializes every wgmma: C7514).
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %[[K:.*]] : index
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[K]] step
// CHECK: %[[HELD0:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,{{.*}},0,1,2,
// CHECK: %[[HELD1:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[HELD0]], <m = 64, n = 128, k = 16>
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[HELD1]], <m = 64, n = 128, k = 16>
// CHECK: } {tile.carries_gemm}
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: }
module attributes {tile.target = "sm_90a"} {
func.func @dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k0 = %c0 to %k step %c64 stages(3) {
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
}

// -----

// A transposed A (KxM in global memory and in its tile) is read MN-major: the `col` layout for A.
// CHECK-LABEL: func.func @transpose_a
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
module attributes {tile.target = "sm_90a"} {
func.func @transpose_a(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_a} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}
}

// -----

// A column reduction of the accumulator: in-warp shuffles over the lanes that share a column, then
// the warps exchange partial columns through a scratch with one place per warp.
// CHECK-LABEL: func.func @column_sum
// CHECK: nvvm.wgmma.mma_async
// CHECK: gpu.shuffle  xor
// CHECK: gpu.barrier
module attributes {tile.target = "sm_90a"} {
func.func @column_sum(%A: memref<256x128xf16>, %B: memref<128x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<128x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %sum dim(0) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %sum[%j] : memref<64xf32, #tile.fragment>
      %h = arith.mulf %s, %half : f32
      %d = arith.subf %v, %h : f32
      memref.store %d, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
}

// -----

// A persistent kernel (one block fills a multiprocessor): its epilogue runs while the next tile's
// loads fill the ring, so the accumulator is staged in an area of its own (32 KiB on the swizzle's
// alignment, both 128x64 boxes in one round), stored into the bf16 tensor by TMA. Each tile's first
// step writes D = A B (the fill's zeros are never read: no registers to hold before a fence).
// CHECK-LABEL: func.func @persistent_staged
// CHECK: \22grid\22: [132, 1, 1], \22dynamic_shared_bytes\22: 165120{{.*}}\22element\22: \22bf16\22, \22box\22: [128, 64]
// CHECK-NOT: llvm.inline_asm has_side_effects asm_dialect = att ""
// CHECK: memref.view %{{.*}} to memref<16384xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async {{.*}}, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.mma_async {{.*}}, D[<f32>, <one>],
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-64: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: }
module attributes {tile.target = "sm_90a"} {
func.func @persistent_staged(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xbf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 stages(4) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xbf16>
  }
  return
}
}

// -----

// Rows of 4100 f16 (not 16-byte multiples) are no TMA tensor: the accumulator is stored from
// registers, 16 bytes a lane where a run is aligned and inside the tensor (quad lanes trade their
// column pairs first), element by element elsewhere.
// CHECK-LABEL: func.func @unaligned_rows
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<4096x4100xf16>, vector<8xf16>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
func.func @unaligned_rows(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4100xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 stages(4) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4100xf16>
  }
  return
}
}

// -----

// A persistent 128x256 GEMM on two warpgroups (and the producer's): each warpgroup stages its
// 64-row slab of the accumulator alone, in its half of the kernel's own 32 KiB area (boxes of 64
// rows, two a round), between barriers of its own 128 threads (named barrier 2 + warpgroup), and
// its first thread waits for and issues its boxes, at the slab's first row; so one warpgroup's
// epilogue never waits for the other's. At the end each warpgroup's first thread waits for its
// stores.
// CHECK-LABEL: func.func @warpgroup_staged
// CHECK: \22host_argument\22: 2, {{.*}}\22box\22: [64, 64]
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The accumulators are pinned after the wait (empty asms that take and give back their registers).
// CHECK-NEXT: memref.load %{{.*}} : memref<128xf32, #gpu.address_space<private>>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK-NOT: nvvm.wgmma
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[WG:.*]] = arith.divui %thread_id_x, %[[C128]] : index
// CHECK-NEXT: %[[PART_BYTES:.*]] = arith.constant 16384 : index
// CHECK-NEXT: %[[PART:.*]] = arith.muli %[[WG]], %[[PART_BYTES]] : index
// CHECK-NEXT: %[[SLAB_ROWS:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SLAB:.*]] = arith.muli %[[WG]], %[[SLAB_ROWS]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[ID:.*]] = arith.addi %[[WG]], %[[C2]] : index
// CHECK-NEXT: %[[ID32:.*]] = arith.index_cast %[[ID]] : index to i32
// CHECK-NEXT: %[[C128T:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[THREADS:.*]] = arith.index_cast %[[C128T]] : index to i32
// CHECK-NEXT: %[[C128B:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %thread_id_x, %[[C128B]] : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %[[ID32]] number_of_threads = %[[THREADS]]
// CHECK-COUNT-64: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier id = %[[ID32]] number_of_threads = %[[THREADS]]
// CHECK: scf.if
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: %[[ISSUER:.*]] = arith.remui %thread_id_x, %c128{{.*}} : index
// CHECK: arith.cmpi eq, %[[ISSUER]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: }
module attributes {tile.target = "sm_90a"} {
func.func @warpgroup_staged(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c16, %c32) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c64 stages(4) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// A persistent GEMM with a producer (tile-plan-pipelines' producer = "warpgroup"): the block is its
// 128 threads and the producer's warpgroup (256, in the manifest and the launch). The barriers'
// initialization meets the whole block; then
// thread 128 alone walks the ring, each step's TMA boxes issued and its arrival made without a
// thread-0 guard (the full barriers count that one arrival, the free ones one a warp of the 128
// threads: each warp's first lane after bar.warp.sync). The
// kernel's threads meet at named barrier 1 of 128 threads, never at the block's barrier. No
// registers move: 128 threads beside the producer start with 255 a thread, all they can address.
// CHECK-LABEL: func.func @producer_gemm
// CHECK: \22workgroup_size\22: [256, 1, 1]
// CHECK: gpu.func @producer_gemm_0_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32 : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[KERNEL:.*]] = arith.cmpi ult, %[[TID]], %[[C128:.*]] : index
// CHECK: %[[OTHER:.*]] = arith.cmpi uge, %[[TID]], %[[C128]] : index
// CHECK: scf.if %[[OTHER]] {
// CHECK-NEXT: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %[[C128]] : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.thread_id
// CHECK: nvvm.mbarrier.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.if %[[KERNEL]] {
// CHECK-NOT: nvvm.setmaxregister
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module attributes {tile.target = "sm_90a"} {
func.func @producer_gemm(%A: memref<4096x512xf16>, %B: memref<512x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c8 stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x512xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<512x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
}

// -----

// i8 x i8 -> i32, B given as NxK: wgmma m64n256k32 with s8 operands and s32 sums, each operand
// from TMA boxes of 128 i8 columns (128-byte rows, the 128-byte swizzle; 16 KiB of A and 32 KiB of
// B a stage, expected on the stage's barrier), filled by a producer warpgroup (384 threads); the
// i32 accumulator leaves by TMA in 128x32 boxes.
// CHECK-LABEL: func.func @i8_wgmma
// CHECK: gpu.module @i8_wgmma_0_module attributes {tile.manifest = "{{.*}}\22workgroup_size\22: [384, 1, 1]{{.*}}\22element\22: \22i8\22, \22box\22: [128, 128], \22swizzle\22: 128{{.*}}\22element\22: \22i8\22, \22box\22: [256, 128], \22swizzle\22: 128{{.*}}\22element\22: \22i32\22, \22box\22: [128, 32], \22swizzle\22: 128
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.mbarrier.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.expect_tx %{{.*}}, %c32768_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {tile.target = "sm_90a"} {
func.func @i8_wgmma(%A: memref<1024x1024xi8>, %B: memref<1024x1024xi8>, %C: memref<1024x1024xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4, %c8) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x128xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xi32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x1024xi8>, memref<128x128xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<1024x1024xi8>, memref<256x128xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x128xi8, #gpu.address_space<workgroup>>, memref<256x128xi8, #gpu.address_space<workgroup>>, memref<128x256xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xi32, #tile.fragment>, memref<1024x1024xi32>
  }
  return
}
}

// -----

// i8, B as NxK, copied by the threads outside any pipelined loop: the tiles are kept in column
// slabs of 16 i8 (one core matrix row), written by 16-byte cp.async pieces of 16 elements, and
// read by wgmma m64n64k32 through unswizzled descriptors. The accumulator's fill of the integer
// zero starts the first instruction from zero (D scaled by 0: nothing read from the fill, whose
// constants ptxas would otherwise serialize every wgmma of the kernel for, C7520), the second
// adds to it.
// CHECK-LABEL: func.func @i8_slabs
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 16, %{{.*}} {bypassL1} : memref<64x64xi8> to memref<64x64xi8, #gpu.address_space<workgroup>>
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<s32>, <zero>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<s32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
func.func @i8_slabs(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<64x64xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xi32, #tile.fragment>, memref<64x64xi32>
  }
  return
}
}

// -----

// f8E4M3FN K tiles of 192 columns: 192-byte rows are no whole 128-byte boxes, so TMA fills each
// tile as three boxes of 64 bytes with the 64-byte swizzle, which the descriptors of the six k32
// steps read.
// CHECK-LABEL: func.func @f8_k_rows_of_192_bytes
// CHECK: gpu.module @f8_k_rows_of_192_bytes_0_module attributes {tile.manifest = "{{.*}}\22element\22: \22f8E4M3FN\22, \22box\22: [64, 64], \22swizzle\22: 64{{.*}}\22element\22: \22f8E4M3FN\22, \22box\22: [64, 64], \22swizzle\22: 64
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
  func.func @f8_k_rows_of_192_bytes(%A: memref<64x384xf8E4M3FN>, %B: memref<64x384xf8E4M3FN>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c192 = arith.constant 192 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1) threads(128) (%bx) {
      %As = tile.alloc_shared : memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
      tile.pipelined %k = %c0 to %c2 stages(2) {
        %k0 = arith.muli %k, %c192 : index
        tile.copy %A[%c0, %k0], %As : memref<64x384xf8E4M3FN>, memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>
        tile.copy %B[%c0, %k0], %Bs : memref<64x384xf8E4M3FN>, memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x192xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    }
    return
  }
}

// -----

// f8E4M3FN x f8E4M3FN -> f32, B given as NxK: wgmma m64n256k32 with e4m3 operands, from TMA boxes
// of 128 f8 columns (128-byte rows, the 128-byte swizzle), the copies moving the bytes as they are;
// the f32 accumulator leaves by TMA.
// CHECK-LABEL: func.func @f8_wgmma
// CHECK: gpu.module @f8_wgmma_0_module attributes {tile.manifest = "{{.*}}\22element\22: \22f8E4M3FN\22, \22box\22: [128, 128], \22swizzle\22: 128{{.*}}\22element\22: \22f8E4M3FN\22, \22box\22: [256, 128], \22swizzle\22: 128{{.*}}\22element\22: \22f32\22, \22box\22: [128, 32], \22swizzle\22: 128
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !llvm.struct<(f32,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {tile.target = "sm_90a"} {
func.func @f8_wgmma(%A: memref<1024x1024xf8E4M3FN>, %B: memref<1024x1024xf8E4M3FN>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c8) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x1024xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<1024x1024xf8E4M3FN>, memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<1024x1024xf32>
  }
  return
}
}

// -----

// A fragment whose values stay inside f8E4M3FN's range where it is copied into an f8 tile (the
// loop that writes it last clamps them: exp2 of at most 0) is rounded under the mark
// tile.in_range, so tile-emulate-small-floats leaves out the check for values past the largest
// finite one; the same copy of unclamped exponentials is not marked.
// CHECK-LABEL: func.func @f8_p_in_range
// CHECK-COUNT-16: arith.truncf %{{.*}} {tile.in_range} : vector<2xf32> to vector<2xf8E4M3FN>
// CHECK-NOT: arith.truncf
module attributes {tile.target = "sm_90a"} {
func.func @f8_p_in_range(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %d = arith.minimumf %s, %zero : f32
      %e = math.exp2 %d : f32
      memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %Ps, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// The same P kept in registers as an 8-bit fragment: no shared tile, async-proxy fence or barrier
// for it. Each half of a 32-column k-step: the thread's accumulator pairs of rows r and r + 8
// rounded (in range) and packed into a word a row, the halves its quad reader needs sent by a
// byte permute through two index shuffles, and each row's register put in column order; the gemm
// reads four registers a k-step (k32, e4m3, no transpose operand).
// CHECK-LABEL: func.func @f8_p_in_registers
// CHECK-COUNT-3: memref.view {{.*}} to memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK-NOT: memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
// CHECK: %[[P:.*]] = memref.alloca() : memref<32xf8E4M3FN, #gpu.address_space<private>>
// CHECK-COUNT-4: arith.truncf %{{.*}} {tile.in_range} : vector<2xf32> to vector<2xf8E4M3FN>
// CHECK: %[[SENT:.*]] = nvvm.prmt <default> %{{.*}}, %[[UPPER:.*]], %[[LOWER:.*]] : i32
// CHECK-NEXT: %[[SENT2:.*]] = nvvm.prmt <default> %{{.*}}, %[[UPPER]], %[[LOWER]] : i32
// CHECK: %[[FIRST:.*]], %{{.*}} = gpu.shuffle  idx %[[SENT]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[SECOND:.*]], %{{.*}} = gpu.shuffle  idx %[[SENT2]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: nvvm.prmt <default> %{{.*}}, %[[FIRST]], %[[SECOND]] : i32
// CHECK-COUNT-4: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<32xf8E4M3FN, #gpu.address_space<private>>
// CHECK: nvvm.prmt <default> %{{.*}}, %[[FIRST]], %[[SECOND]] : i32
// CHECK-COUNT-6: gpu.shuffle  idx
// CHECK-NOT: gpu.shuffle
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
module attributes {tile.target = "sm_90a"} {
func.func @f8_p_in_registers(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %P = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %d = arith.minimumf %s, %zero : f32
      %e = math.exp2 %d : f32
      memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #tile.fragment>
    tile.gemm %P, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @f8_p_unbounded
// CHECK-NOT: tile.in_range
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf8E4M3FN>
// CHECK-NOT: tile.in_range
module attributes {tile.target = "sm_90a"} {
func.func @f8_p_unbounded(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %e = math.exp2 %s : f32
      memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %Ps, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// A fill of a constant inside the range (448, f8E4M3FN's largest finite value) bounds the tile too.
// CHECK-LABEL: func.func @f8_filled_in_range
// CHECK: arith.truncf %{{.*}} {tile.in_range} : vector<2xf32> to vector<2xf8E4M3FN>
module attributes {tile.target = "sm_90a"} {
func.func @f8_filled_in_range(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    %top = arith.constant 448.0 : f32
    tile.fill %S, %top : memref<64x64xf32, #tile.fragment>
    tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %Ps, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// A loop that stores the clamped values under a condition leaves the other elements as they were:
// no bound, no mark.
// CHECK-LABEL: func.func @f8_p_clamped_under_a_condition
// CHECK-NOT: tile.in_range
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf8E4M3FN>
// CHECK-NOT: tile.in_range
module attributes {tile.target = "sm_90a"} {
func.func @f8_p_clamped_under_a_condition(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ps = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %d = arith.minimumf %s, %zero : f32
      %e = math.exp2 %d : f32
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
    }
    tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %Ps, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// f8E5M2 alike: the same boxes and copies, wgmma's e5m2 operands.
// CHECK-LABEL: func.func @e5m2_wgmma
// CHECK: gpu.module @e5m2_wgmma_0_module attributes {tile.manifest = "{{.*}}\22element\22: \22f8E5M2\22, \22box\22: [128, 128], \22swizzle\22: 128{{.*}}\22element\22: \22f8E5M2\22, \22box\22: [256, 128], \22swizzle\22: 128{{.*}}\22element\22: \22f32\22, \22box\22: [128, 32], \22swizzle\22: 128
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>, D[<f32>, <one>], A[<e5m2>, <one>, <row>], B[<e5m2>, <one>, <col>] : !llvm.struct<(f32,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {tile.target = "sm_90a"} {
func.func @e5m2_wgmma(%A: memref<1024x1024xf8E5M2>, %B: memref<1024x1024xf8E5M2>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c8) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x128xf8E5M2, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<256x128xf8E5M2, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x1024xf8E5M2>, memref<128x128xf8E5M2, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<1024x1024xf8E5M2>, memref<256x128xf8E5M2, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x128xf8E5M2, #gpu.address_space<workgroup>>, memref<256x128xf8E5M2, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<1024x1024xf32>
  }
  return
}
}

// -----

// One shared tile in two gemm roles (MLA decode's KV tile): its ring is filled by TMA boxes once,
// and each gemm reads it through its own descriptor: K-major for the scores (B given NxK), with
// wgmma's transpose bit for the output (B given KxN, the register-A form's last immediate).
// CHECK-LABEL: func.func @shared_kv
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
module attributes {tile.target = "sm_90a"} {
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

// A fragment copied into a shared tile that wgmma reads (attention's P stored by the threads):
// each thread converts its slots and stores them at their core-matrix places, a row's two
// neighbouring columns rounded together and stored as one aligned pair (through the tile's view
// in memory space 3, which the vector conversion knows), then the async-proxy
// fence and a barrier, and the gemm reads the tile as its A through a descriptor (and the KV
// tile, given KxN, MN-major).
// CHECK-LABEL: func.func @shared_p_attention
// CHECK: %[[VIEW:.*]] = memref.memory_space_cast %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, 3>
// CHECK: %[[WIDE:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[PAIR:.*]] = arith.truncf %[[WIDE]] : vector<2xf32> to vector<2xf16>
// CHECK: vector.store %[[PAIR]], %[[VIEW]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x64xf16, 3>, vector<2xf16>
// CHECK-NOT: memref.store %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
module attributes {tile.target = "sm_90a"} {
func.func @shared_p_attention(%Q: memref<64x64xf16>, %KV: memref<256x64xf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688011112042 : f32
  %nscale = arith.constant -0.18033688011112042 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Ps = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 64) {
      %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// Two warpgroups splitting M: each stores and reads only its own 64 rows of P, so its threads
// meet at their warpgroup's named barrier (2 + warpgroup, 128 threads) before the stores (its gemm
// that read the rows last is done) and after the fence, and the gemm reading P ends with no
// barrier of the block's: the warpgroups drift apart, one's softmax beside the other's gemms.
// CHECK-LABEL: func.func @shared_p_rows_per_warpgroup
// CHECK: scf.for
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[WG:.*]] = arith.divui %thread_id_x, %c128{{.*}} : index
// CHECK-NEXT: %[[WG32:.*]] = arith.index_cast %[[WG]] : index to i32
// CHECK-NEXT: %[[ID:.*]] = arith.addi %c2_i32{{.*}}, %[[WG32]] : i32
// CHECK-NEXT: %c128_i32 = arith.constant 128 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK: vector.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant 2 : i32
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: gpu.barrier
// CHECK-NOT: number_of_threads = %c256
// CHECK: nvvm.mbarrier.arrive
module attributes {tile.target = "sm_90a"} {
func.func @shared_p_rows_per_warpgroup(%Q: memref<128x64xf16>, %KV: memref<256x64xf16>, %O: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688011112042 : f32
  %nscale = arith.constant -0.18033688011112042 : f32
  tile.kernel grid(%c1) threads(256) (%b) {
    %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    %Ps = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<128x64xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
    tile.fill %l, %zero : memref<128xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<128x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.parallel (%i, %k) in (128, 64) {
        %s = memref.load %S[%i, %k] : memref<128x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %k] : memref<128x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
      tile.parallel (%i) in (128) {
        %old = memref.load %mp[%i] : memref<128xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d : f32
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<128xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<128xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (128, 64) {
        %o = memref.load %Acc[%i, %d] : memref<128x64xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<128xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (128, 64) {
      %o = memref.load %Acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<128x64xf32, #tile.fragment>, memref<128x64xf32>
  }
  return
}
}

// -----

// Warpgroups splitting N (two, 64-row accumulators): each issues m64n32 over its 32 columns, its
// B operand's descriptor starting at its column block (warpgroup mod 2). Each reads every row of
// P, which both store: the stores end at the block's barrier, not a warpgroup's.
// CHECK-LABEL: func.func @split_n_attention
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: vector.store %{{.*}} : memref<64x64xbf16, 3>, vector<2xbf16>
// CHECK-NOT: number_of_threads = %c128
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
module attributes {tile.target = "sm_90a"} {
func.func @split_n_attention(%Q: memref<64x64xbf16>, %KV: memref<256x64xbf16>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.18033688011112042 : f32
  %nscale = arith.constant -0.18033688011112042 : f32
  tile.kernel grid(%c1) threads(256) (%b) {
    %Qs = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %KVs = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Ps = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %mp = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %rs = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %m, %ninf : memref<64xf32, #tile.fragment>
    tile.fill %l, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %t = arith.muli %j, %c64 : index
      tile.copy %KV[%t, %c0], %KVs : memref<256x64xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %KVs, %S {transpose_b} : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %m, %mp : memref<64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.reduce <max> %S, %m dim(1) {clear = false} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %S, %rs dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %old = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %new = memref.load %m[%i] : memref<64xf32, #tile.fragment>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d : f32
        %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
        %r = memref.load %rs[%i] : memref<64xf32, #tile.fragment>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<64xf32, #tile.fragment>
        memref.store %c, %mp[%i] : memref<64xf32, #tile.fragment>
      }
      tile.parallel (%i, %d) in (64, 64) {
        %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
        %c = memref.load %mp[%i] : memref<64xf32, #tile.fragment>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %Ps : memref<64x64xf32, #tile.fragment>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %Ps, %KVs, %Acc : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (64, 64) {
      %o = memref.load %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// A shared operand the threads write in a tile.parallel (a dequantized weight tile): each element
// store goes to its core-matrix place, then the async-proxy fence and a barrier, and the gemm runs
// on wgmma reading the tile through descriptors. A thread holds four runs of 8 consecutive
// elements of a row (a core-matrix row each): one 16-byte store a run, after its last element.
// CHECK-LABEL: func.func @thread_written_operand
// CHECK: gpu.func
// CHECK: arith.sitofp %{{.*}} : i8 to f16
// CHECK-NOT: memref.store %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements %{{.*}} : vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf16, 3>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf16, 3>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf16, 3>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf16, 3>, vector<8xf16>
// CHECK-NOT: memref.store %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
module attributes {tile.target = "sm_90a"} {
func.func @thread_written_operand(%A: memref<64x64xf16>, %B: memref<64x32xi8>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%n, %k) in (64, 64) {
      %h = arith.remui %k, %c32 : index
      %q = memref.load %B[%n, %h] : memref<64x32xi8>
      %w = arith.sitofp %q : i8 to f16
      memref.store %w, %Bd[%n, %k] : memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.gemm %As, %Bd, %Cf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// The same tile written with each pair of columns swapped: the stores stay element stores (a
// thread's run of slots does not write 16 consecutive bytes), each at its core-matrix place.
// CHECK-LABEL: func.func @thread_written_permuted
// CHECK: gpu.func
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.store
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
func.func @thread_written_permuted(%A: memref<64x64xf16>, %B: memref<64x32xi8>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%n, %k) in (64, 64) {
      %h = arith.remui %k, %c32 : index
      %q = memref.load %B[%n, %h] : memref<64x32xi8>
      %w = arith.sitofp %q : i8 to f16
      %c1x = arith.constant 1 : index
      %swapped = arith.xori %k, %c1x : index
      memref.store %w, %Bd[%n, %swapped] : memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.gemm %As, %Bd, %Cf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
}

// -----

// Weights widened from a ring slot into a register tile, wgmma's A: the loop that widens them
// only reads the slot, which the ring refills once every warp has released it, so no block
// barrier follows it: the main loop waits for its slot, for the previous gemm (it writes that
// gemm's registers again), widens and issues its gemm.
// CHECK-LABEL: func.func @register_weights_from_slots
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {tile.target = "sm_90a"} {
  func.func @register_weights_from_slots(%A: memref<64x4096xf16>, %W: memref<64x4096xi8>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x64xf32, #tile.fragment>
      tile.pipelined %k = %c0 to %c64 stages(3) {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Wq : memref<64x4096xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
        tile.parallel (%i, %j) in (64, 64) {
          %q = memref.load %Wq[%i, %j] : memref<64x64xi8, #gpu.address_space<workgroup>>
          %w = arith.sitofp %q : i8 to f16
          memref.store %w, %Wd[%i, %j] : memref<64x64xf16, #tile.fragment>
        }
        tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
      tile.copy %Ct, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    }
    return
  }
}

// -----

// Packed 4-bit weights (the bytes tile-pack-narrow-types leaves, each byte load marked with the
// loop index its element's column is) widened into wgmma's A: the lanes of a quad hold
// neighbouring column pairs, so lane t needs byte t of each word of a row, and each byte comes
// from the 16-byte line of the row that holds it (the lines of a row equal once LLVM folds their
// addresses, one load each) and a shift of its word: no byte is loaded by itself, and no mark
// is left. The byte is put in both halves of a word by one prmt, masked and flipped by one lop3.
// CHECK-LABEL: func.func @packed_weights_lines
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: memref.load %{{.*}} : memref<64x32xi8
// CHECK: %[[LINE:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<64x32xi8, 3>, vector<16xi8>
// CHECK: %[[WORDS:.*]] = vector.bitcast %[[LINE]] : vector<16xi8> to vector<4xi32>
// CHECK: %[[WORD:.*]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK: %[[BOTH:.*]] = nvvm.prmt <default> %{{.*}}, %[[WORD]], %{{.*}} : i32
// CHECK: %[[CODES:.*]] = llvm.inline_asm {{.*}}"lop3.b32 $0, $1, 0xf0000f, 0x54806408, 0x6a;", "=r,r" %[[BOTH]] : (i32) -> i32
// CHECK-NOT: arith.xori %[[CODES]]
// CHECK: vector.extract %{{.*}}[1] : i32 from vector<4xi32>
// CHECK-NOT: memref.load %{{.*}} : memref<64x32xi8
// CHECK-NOT: tile.packed_byte
// CHECK: wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
  func.func @packed_weights_lines(%A: memref<64x4096xf16>, %W: memref<64x2048xi8>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c65537_i32 = arith.constant 65537 : i32
    %c15728655_i32 = arith.constant 15728655 : i32
    %c1417700360_i32 = arith.constant 1417700360 : i32
    %magic = arith.constant dense<[1032.0, 72.0]> : vector<2xf16>
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x64xf32, #tile.fragment>
      tile.pipelined %k = %c0 to %c64 stages(3) {
        %k0 = arith.muli %k, %c64 : index
        %k0_bytes = arith.muli %k, %c32 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0_bytes], %Wq : memref<64x2048xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
        tile.parallel (%i, %j) in (64, 64) {
          %odd = arith.andi %j, %c1 : index
          %even = arith.subi %j, %odd : index
          %column = arith.shrui %even, %c1 : index
          %byte = memref.load %Wq[%i, %column] {tile.packed_byte = 1 : i64} : memref<64x32xi8, #gpu.address_space<workgroup>>
          %word = arith.extui %byte : i8 to i32
          %both = arith.muli %word, %c65537_i32 : i32
          %codes = arith.andi %both, %c15728655_i32 : i32
          %bits = arith.xori %codes, %c1417700360_i32 : i32
          %one = vector.from_elements %bits : vector<1xi32>
          %pair = vector.bitcast %one : vector<1xi32> to vector<2xf16>
          %floats = arith.subf %pair, %magic : vector<2xf16>
          %high = arith.cmpi ne, %odd, %c0 : index
          %high_float = vector.extract %floats[1] : f16 from vector<2xf16>
          %low_float = vector.extract %floats[0] : f16 from vector<2xf16>
          %w = arith.select %high, %high_float, %low_float : f16
          memref.store %w, %Wd[%i, %j] : memref<64x64xf16, #tile.fragment>
        }
        tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
      tile.copy %Ct, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    }
    return
  }
}

// -----

// The same widening from rows of 8 bytes (16 packed elements), which are not whole 16-byte lines:
// each byte keeps its own load, and the mark goes.
// CHECK-LABEL: func.func @packed_weights_short_rows
// CHECK: memref.load %{{.*}} : memref<64x8xi8
// CHECK-NOT: vector.load %{{.*}} vector<16xi8>
// CHECK-NOT: tile.packed_byte
// CHECK: wgmma.mma_async
module attributes {tile.target = "sm_90a"} {
  func.func @packed_weights_short_rows(%A: memref<64x16xf16>, %W: memref<64x8xi8>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c15_i8 = arith.constant 15 : i8
    %c2_i8 = arith.constant 2 : i8
    %c25608_i16 = arith.constant 25608 : i16
    %magic = arith.constant 1032.0 : f16
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x8xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x16xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x64xf32, #tile.fragment>
      tile.copy %A[%c0, %c0], %As : memref<64x16xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%c0, %c0], %Wq : memref<64x8xi8>, memref<64x8xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 16) {
        %odd = arith.andi %j, %c1 : index
        %even = arith.subi %j, %odd : index
        %column = arith.shrui %even, %c1 : index
        %byte = memref.load %Wq[%i, %column] {tile.packed_byte = 1 : i64} : memref<64x8xi8, #gpu.address_space<workgroup>>
        %odd8 = arith.index_cast %odd : index to i8
        %shift = arith.shli %odd8, %c2_i8 : i8
        %half = arith.shrui %byte, %shift : i8
        %code = arith.andi %half, %c15_i8 : i8
        %wide = arith.extui %code : i8 to i16
        %bits = arith.xori %wide, %c25608_i16 : i16
        %float = arith.bitcast %bits : i16 to f16
        %w = arith.subf %float, %magic : f16
        memref.store %w, %Wd[%i, %j] : memref<64x16xf16, #tile.fragment>
      }
      tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x16xf16, #tile.fragment>, memref<64x16xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.copy %Ct, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    }
    return
  }
}

// -----

// A saturating copy into 8-bit floats: each of its roundings carries `tile.saturate`, which
// tile-emulate-small-floats reads (sm_90a's cvt saturates: no check for values past 448).
// CHECK-LABEL: func.func @saturating_copies
// CHECK-COUNT-32: arith.truncf {{.*}} {tile.saturate} : f32 to f8E4M3FN
// CHECK-NOT: arith.truncf
module attributes {tile.target = "sm_90a"} {
  func.func @saturating_copies(%X: memref<64x64xf32>, %D: memref<64x64xf8E4M3FN>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.kernel grid(%c1) threads(128) (%b) {
      %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      %G = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
      tile.copy %X[%c0, %c0], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
      tile.copy %F, %G saturate : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #tile.fragment>
      tile.copy %G, %D[%c0, %c0] : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x64xf8E4M3FN>
    }
    return
  }
}

// -----

// A store limited to the group's rows (a grouped GEMM's last row tile) stays on the copy engine:
// staged as any accumulator store, each 128x64 box handed over whole where the limit reaches past
// its rows, else as boxes of 8 rows and then of 1 up to the limit (three maps of C: 128, 8 and 1
// rows).
// CHECK-LABEL: func.func @limited_rows
// CHECK: nvvm.fence.proxy
// CHECK: %[[WHOLE:.*]] = arith.cmpi uge, %{{.*}}, %c128
// CHECK: scf.if %[[WHOLE]] {
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP128:[^,]*]],
// CHECK-NEXT: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP8:[^,]*]],
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP1:[^,]*]],
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<8x64xf16
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x64xf16
module attributes {tile.target = "sm_90a"} {
func.func @limited_rows(%A: memref<1024x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<1024x4096xf16>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c128 : index
    %left = arith.subi %rows, %m0 : index
    tile.pipelined %k = %c0 to %c64 stages(3) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %c0], %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %c0] limits [%left, %c128] : memref<128x128xf32, #tile.fragment>, memref<1024x4096xf16>
  }
  return
}
}
