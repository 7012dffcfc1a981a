// convert-tile-to-nvgpu: tile GEMM kernels become sm_90a kernels (TMA ring on mbarriers, wgmma).
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s

// The contract's example: K tiles of 32 (64-byte rows: 64-byte swizzle for A), B as KxN (N-major,
// two 32x64 boxes with the 128-byte swizzle), one warpgroup, 3 stages, a ReLU epilogue.
// CHECK-LABEL: func.func @gemm_relu
// CHECK-NOT: tile.
// The tile.kernel becomes a call of the host launch function.
// CHECK: call @gemm_relu_0_launch(%arg0, %arg1, %arg2, %{{.*}}, %{{.*}})
// CHECK: return
// CHECK: gpu.module @gemm_relu_0_module attributes {tile.manifest = "{{.*}}\22grid\22: [32, 32, 1]{{.*}}\22dynamic_shared_bytes\22: 50176{{.*}}"}
// The tile program's index arithmetic and epilogue are recomputed inside the kernel: no calls.
// CHECK-NOT: func.call
// CHECK-NOT: func.func
// CHECK: gpu.func @gemm_relu_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.tma.async.load {{.*}} : <tensor = memref<128x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b
// CHECK: nvgpu.tma.async.load {{.*}} : <tensor = memref<32x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.load {{.*}} : <tensor = memref<32x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The thread's accumulator elements, then the epilogue on each, then the conversions.
// CHECK: %[[ACC:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[ACC]], %[[ZERO]] : f32
// The result is staged as two 128x64 boxes with the 128-byte swizzle (the 16-byte chunk of each
// row XORed with the row mod 8), one TMA store each.
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK: %[[LINE:.*]] = arith.divui %[[ROW]], %c128{{.*}} : index
// CHECK: %[[PHASE:.*]] = arith.remui %[[LINE]], %c8{{.*}} : index
// CHECK: %[[XOR:.*]] = arith.muli %[[PHASE]], %c16{{.*}} : index
// The staging tile overlaps the ring: every warpgroup's last MMAs retire before it is written.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: arith.truncf %[[RELU]] : f32 to f16
// CHECK: arith.xori %{{.*}}, %[[XOR]] : index
// CHECK: vector.store %{{.*}} : memref<16384xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-COUNT-2: nvgpu.tma.async.store {{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// The host side: the three tensor maps, then the launch with the ring's dynamic shared memory.
// CHECK: func.func private @gemm_relu_0_launch(%{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %[[GX:.*]]: index, %[[GY:.*]]: index)
// CHECK-COUNT-3: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func  @gemm_relu_0_module::@gemm_relu_0_kernel blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})  dynamic_shared_memory_size %{{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
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

// -----

// Two warpgroups (256 threads) on a 128x256 tile, B given as NxK (K-major: the 128-byte swizzle
// of 64-element K rows, read with the `col` layout), bf16 in, f32 out (no conversion), 4 stages.
// One block fills a multiprocessor's shared memory, so the launch is persistent: 32 blocks (one
// per tile here; 132 at most) walk the tiles, the ring running on from one tile into the next, and
// the result is staged beside the ring, two 128x32 f32 boxes at a time (four rounds).
// CHECK-LABEL: func.func @bf16_transpose_b
// CHECK: gpu.module @bf16_transpose_b_0_module attributes {tile.manifest = "{{.*}}\22grid\22: [32, 1, 1]{{.*}}\22dynamic_shared_bytes\22: 230400{{.*}}\22persistent\22: {\22tiles\22: [4, 8]}
// CHECK: known_block_size = array<i32: 256, 1, 1>
// CHECK: num_barriers = 4
// CHECK: %[[STRIDE:.*]] = gpu.grid_dim x
// CHECK: %[[TOTAL:.*]] = arith.muli %c4{{.*}}, %c8{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[TOTAL]], %{{.*}} : index
// CHECK: %[[SHARE:.*]] = arith.ceildivui %[[LEFT]], %[[STRIDE]] : index
// CHECK: %[[HAS:.*]] = arith.cmpi ult, %{{.*}}, %[[TOTAL]] : index
// CHECK: %[[MINE:.*]] = arith.select %[[HAS]], %[[SHARE]], %{{.*}} : index
// CHECK: %[[STEPS:.*]] = arith.muli %[[MINE]], %c8{{.*}} : index
// CHECK: nvgpu.tma.async.load {{.*}} <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.load {{.*}} <tensor = memref<256x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[MINE]] step
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %{{.*}} iter_args
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: arith.cmpi ult, %{{.*}}, %[[STEPS]] : index
// CHECK-NOT: arith.truncf
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.async.store {{.*}} : memref<128x32xf32, #gpu.address_space<workgroup>> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvgpu.tma.async.store
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
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

// -----

// Negative: a host function without tile kernels is left alone.
// CHECK-LABEL: func.func @no_kernel
// CHECK-NEXT: return
// CHECK-NOT: gpu.module
func.func @no_kernel() {
  return
}

// -----

// Dynamic sizes: the trip count is a host value, so it arrives as an i64 kernel parameter, the
// prologue is guarded by it, and the grid is read from gpu.grid_dim.
// CHECK-LABEL: func.func @dynamic
// CHECK: gpu.func @dynamic_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[P:.*]]: i64) kernel
// CHECK: %[[K:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK: %[[SPAN:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK: %[[T:.*]] = arith.ceildivsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[TRIPS:.*]] = arith.maxsi %[[T]], %{{.*}} : index
// CHECK: gpu.grid_dim x
// CHECK: arith.cmpi ult, %{{.*}}, %[[TRIPS]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TRIPS]] step
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

// -----

// A nonzero fill: the kernel accumulates from zero and adds the start in the epilogue, before the
// conversion to f16.
// CHECK-LABEL: func.func @bias_fill
// CHECK: gpu.func @bias_fill_0_kernel
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[BIASED:.*]] = arith.addf %{{.*}}, %[[HALF]] : f32
// CHECK: arith.truncf %[[BIASED]] : f32 to f16
func.func @bias_fill(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %half : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// Row reductions on the wgmma accumulator: each thread reduces its own elements of a row, then the
// quad of lanes that shares the row (shuffle xor 1 and 2); later epilogue loops read the row value.
// CHECK-LABEL: func.func @gemm_row_softmax
// CHECK: gpu.func @gemm_row_softmax_0_kernel
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle  xor %[[LOCAL:.*]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[M1:.*]] = arith.maximumf %[[LOCAL]], %[[S1]] : f32
// CHECK: %[[S2:.*]], %{{.*}} = gpu.shuffle  xor %[[M1]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[M1]], %[[S2]] : f32
// CHECK: arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK: math.exp
// CHECK: gpu.shuffle  xor
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: nvgpu.tma.async.store
func.func @gemm_row_softmax(%A: memref<200x256xf16>, %B: memref<256x192xf16>, %C: memref<200x192xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0625 : f32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x192xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %e = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<200x192xf32>
  }
  return
}

// -----

// A given as KxM (transpose_a): M-major shared tiles in 64-column boxes with the 128-byte swizzle,
// one TMA load per box, and wgmma reading A column-major.
// CHECK-LABEL: func.func @transpose_a
// CHECK: \22box\22: [64, 64], \22swizzle\22: 128
// CHECK: \22transpose_a\22: true
// CHECK: gpu.func @transpose_a_0_kernel
// CHECK-COUNT-2: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] to %{{.*}} : <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
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

// -----

// A column reduction of the accumulator (dim 0): each thread combines its rows of each column, a
// butterfly over the 8 quads of the warp (shuffle xor 4, 8, 16) completes the warp's rows, and the
// 4 warps exchange their partial columns in shared memory (4x64 f32 after the ring and the staging
// tile), between two barriers. The epilogue after it reads the column value at j.
// CHECK-LABEL: func.func @column_sum
// CHECK: gpu.func @column_sum_0_kernel
// CHECK: %[[EXCHANGE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32{{.*}} : index
// CHECK: %[[P:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle  xor %[[P]], %[[C4]], %{{.*}} : f32
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C8]], %{{.*}} : f32
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C16]], %{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[EXCHANGE]][%[[WARP]], %{{.*}}] : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[EXCHANGE]]
// CHECK: gpu.barrier
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[HALF]] : f32
// CHECK-NEXT: arith.subf %{{.*}}, %[[SCALED]] : f32
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

// -----

// A dynamic grid on a persistent kernel (128x256x64 tiles, 4 stages fill a multiprocessor): the host
// launches min(tiles, 132) blocks and passes the tile grid as the last two parameters; a refill
// picks this tile's or the next one's coordinates when a tile has at least S-1 steps (known at run
// time only: a uniform branch).
// CHECK-LABEL: func.func @gemm_dynamic
// CHECK: call @gemm_dynamic_0_launch(%arg0, %arg1, %arg2, %[[GX:.*]], %[[GY:.*]], %[[KT:.*]], %[[GX]], %[[GY]])
// CHECK: gpu.func @gemm_dynamic_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %[[TX:.*]]: i64, %[[TY:.*]]: i64) kernel
// CHECK: arith.index_cast %[[TX]] : i64 to index
// CHECK: arith.index_cast %[[TY]] : i64 to index
// CHECK: %[[FITS:.*]] = arith.cmpi uge, %{{.*}}, %c3{{.*}} : index
// CHECK: scf.if %[[FITS]] -> (index, index, index)
// CHECK: func.func private @gemm_dynamic_0_launch(
// CHECK: %[[TILES:.*]] = arith.muli %arg3, %arg4 : index
// CHECK: %[[MOST:.*]] = arith.constant 132 : index
// CHECK: %[[BLOCKS:.*]] = arith.minui %[[TILES]], %[[MOST]] : index
// CHECK: gpu.launch_func  @gemm_dynamic_0_module::@gemm_dynamic_0_kernel blocks in (%[[BLOCKS]], %{{.*}}, %{{.*}})
func.func @gemm_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %ktiles stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
