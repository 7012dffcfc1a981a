// convert-tile-to-amdgpu: tile kernels become gfx942 kernels op by op (no GEMM template): the
// copies from global tensors into LDS tiles move 16-byte runs (one vector load and one vector store
// a run, element by element only at a tensor's end), a main loop that begins with such copies is
// prefetched a step ahead through registers (this step's runs stored into LDS, one barrier, the next
// step's loads issued before the gemm), gemms run on amdgpu.mfma in the accumulator layout
// tile-infer-layouts gives, and the epilogue is the parallel rule's, per accumulator register.
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s

// The contract's example: 2 waves split N (wave tile 128x64, 4x2 mfma 32x32x8 tiles a K step).
// CHECK-LABEL: func.func @gemm_relu
// CHECK: call @gemm_relu_0_launch(
// CHECK: gpu.module @gemm_relu_0_module attributes {tile.manifest = "{{.*}}\22target\22: \22gfx942\22, \22strategy\22: \22registers\22
// The LDS tiles as their layouts say (tile-infer-layouts: rows padded by 4 elements, B stored
// transposed so that K runs along its rows): allocations of the stored shape, used through views
// of the tiles' own shapes.
// CHECK: gpu.func @gemm_relu_0_kernel(%[[A:.*]]: memref<4096x4096xf16>, %[[B:.*]]: memref<4096x4096xf16>, %[[C:.*]]: memref<4096x4096xf16>) workgroup(%[[LA:.*]] : memref<128x36xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %[[LB:.*]] : memref<128x36xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// A thread's runs of a step, held in registers (private arrays indexed by constants): 4 runs of
// 8 f16 of A and of B.
// CHECK: memref.alloca() : memref<32xf16, #gpu.address_space<private>>
// CHECK: memref.alloca() : memref<32xf16, #gpu.address_space<private>>
// CHECK: %[[VA:.*]] = memref.reinterpret_cast %[[LA]] to offset: [0], sizes: [128, 32], strides: [36, 1] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<128x32xf16, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK: memref.reinterpret_cast %[[LB]] to offset: [0], sizes: [32, 128], strides: [1, 36] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<32x128xf16, strided<[1, 36]>, #gpu.address_space<workgroup>>
// Step 0's loads before the loop: a vector load where the run lies inside A.
// CHECK: vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<4096x4096xf16>, vector<8xf16>
// CHECK: scf.for %[[K:.*]] = %c0 to %c128 step
// This step's runs into the LDS tiles, one barrier, then the next step's loads (while there is one),
// kept ahead of the gemm by a scheduling barrier. A's runs go along its padded rows; each thread
// holds 4 rows of 8 columns of B (4 runs) and writes each column's 4 elements of K into B's stored
// row of that column, 8 bytes at a time.
// CHECK: %[[CA:.*]] = memref.memory_space_cast %[[VA]] : memref<128x32xf16, strided<[36, 1]>, #gpu.address_space<workgroup>> to memref<128x32xf16, strided<[36, 1]>, 3>
// CHECK-COUNT-4: vector.store %{{.*}}, %[[CA]][%{{.*}}, %{{.*}}] : memref<128x32xf16, strided<[36, 1]>, 3>, vector<8xf16>
// CHECK: %[[CB:.*]] = memref.memory_space_cast %[[LB]] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<128x36xf16, 3>
// CHECK-COUNT-8: vector.store %{{.*}}, %[[CB]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x36xf16, 3>, vector<4xf16>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %c128 : index
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK: vector.load %[[A]]
// CHECK: vector.load %[[B]]
// CHECK: amdgpu.sched_barrier allow = <none>
// The gemm: a loop over K in pairs of steps of 8; each lane reads 8 elements of K of each A and B
// operand at once (8-byte aligned: the stored rows are 72 bytes), the first 4 for the first step.
// CHECK: %[[SA:.*]] = memref.memory_space_cast %[[LA]] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<128x36xf16, 3>
// CHECK: %[[SB:.*]] = memref.memory_space_cast %[[LB]] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<128x36xf16, 3>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-COUNT-4: vector.load %[[SA]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x36xf16, 3>, vector<8xf16>
// CHECK-COUNT-2: vector.load %[[SB]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x36xf16, 3>, vector<8xf16>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
// CHECK-COUNT-8: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
// CHECK-COUNT-8: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// The step ends with a barrier: the next step's stores wait for every wave's reads.
// CHECK: gpu.barrier
// CHECK-NEXT: }
// The epilogue: the ReLU per accumulator register; then the accumulator goes to C through A's LDS
// (nothing reads A after the copy), in 4 rounds of 32 rows of each wave's 128x64 tile: the slots'
// f16 values into the wave's region, a barrier, a loop of 16-byte runs read back and stored with
// one vector store where the run lies inside C (element by element otherwise), a barrier.
// CHECK: arith.maximumf
// CHECK: %[[STAGE:.*]] = memref.reinterpret_cast %[[LA]] to offset: [0], sizes: [4608], strides: [1] : memref<128x36xf16, #gpu.address_space<workgroup>> to memref<4608xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[SL:.*]] = memref.memory_space_cast %[[STAGE]] : memref<4608xf16, #gpu.address_space<workgroup>> to memref<4608xf16, 3>
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.store %{{.*}}, %[[SL]][%{{.*}}] : memref<4608xf16, 3>
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: vector.load %[[SL]][%{{.*}}] {alignment = 16 : i64} : memref<4608xf16, 3>, vector<8xf16>
// CHECK: scf.if
// CHECK-NEXT: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<4096x4096xf16>, vector<8xf16>
// CHECK: vector.extract %{{.*}}[7] : f16 from vector<8xf16>
// CHECK-NEXT: memref.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<4096x4096xf16>
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.store %{{.*}}, %[[SL]][%{{.*}}] : memref<4608xf16, 3>
// CHECK-NOT: memref.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<4096x4096xf16>
// CHECK: gpu.barrier
// CHECK: scf.for
// The host side: the launch, with the host tensors as they are.
// CHECK: func.func private @gemm_relu_0_launch(%[[HA:.*]]: memref<4096x4096xf16>, %[[HB:.*]]: memref<4096x4096xf16>, %[[HC:.*]]: memref<4096x4096xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK: gpu.launch_func  @gemm_relu_0_module::@gemm_relu_0_kernel blocks in ({{.*}}) threads in ({{.*}})  args(%[[HA]] : memref<4096x4096xf16>, %[[HB]] : memref<4096x4096xf16>, %[[HC]] : memref<4096x4096xf16>)
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

// A 64x64 tile on 4 waves: each wave gets 32x32, still the 32x32x8 instruction; B given as NxK is
// copied to LDS as it is (K already runs along its rows, which are padded), in whole runs (one a
// thread a step: 64x32 bf16 is 256 runs).
// CHECK-LABEL: func.func @small_tile
// CHECK: gpu.func @small_tile_0_kernel
// CHECK: scf.for
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xbf16, strided<[36, 1]>, 3>, vector<8xbf16>
// CHECK: vector.from_elements
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xbf16, strided<[36, 1]>, 3>, vector<8xbf16>
// CHECK-NEXT: gpu.barrier
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// C is f32, the LDS tiles bf16: each f32 goes through A's LDS as two bf16 (a 4-byte store), and
// back as 4 f32 a run (16 bytes), in rounds of 8 rows of each wave's 32x32 tile.
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2304], strides: [1] : memref<64x36xbf16, #gpu.address_space<workgroup>> to memref<2304xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[STAGE:.*]] = memref.memory_space_cast %[[FLAT]]
// CHECK: vector.bitcast %{{.*}} : vector<1xf32> to vector<2xbf16>
// CHECK: vector.store %{{.*}}, %[[STAGE]][%{{.*}}] {alignment = 4 : i64} : memref<2304xbf16, 3>, vector<2xbf16>
// CHECK: gpu.barrier
// CHECK: %[[LOADED:.*]] = vector.load %[[STAGE]][%{{.*}}] {alignment = 16 : i64} : memref<2304xbf16, 3>, vector<8xbf16>
// CHECK-NEXT: %[[F32:.*]] = vector.bitcast %[[LOADED]] : vector<8xbf16> to vector<4xf32>
// CHECK: vector.store %[[F32]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<256x256xf32>, vector<4xf32>
// CHECK: gpu.return
func.func @small_tile(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<256x256xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x32xbf16, #gpu.address_space<workgroup>>,
          memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// Asked for: one LDS buffer on gfx942, which is what the lowering builds (one copy of each tile,
// the next step held in registers): two barriers a step, none else in the loop.
// CHECK-LABEL: func.func @asked
// CHECK: workgroup(%{{.*}} : memref<128x36xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %{{.*}} : memref<128x36xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: scf.for %{{.*}} = %c0 to %c128
// CHECK-COUNT-2: gpu.barrier
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: arith.maximumf
func.func @asked(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
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
    tile.pipelined %k = %c0 to %c128 stages(3) attributes {tile.schedule = {buffers = 1 : i64}} {
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
