// Fragments in registers: the plain strategy of every GPU target lowers each fragment op by its
// layout (tile-infer-layouts' decisions): a fragment becomes a per-thread array of its layout's
// slots indexed by constants, a reduction combines a thread's slots and then the lanes its rows
// span. Kernels with an op no rule takes keep the old plain lowering (the manifest says which).
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s --check-prefix=NV
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv | FileCheck %s --check-prefix=VK

// A 4x32 row maximum on 32 threads: the blocked layout puts 4 consecutive columns in each of a
// thread's 4 slots and a row in 8 threads (thread-index bits 0..2). NVIDIA combines them with warp
// shuffles; SPIR-V (whose subgroup width lavapipe does not fix) through a 32-element scratch.
// NV-LABEL: gpu.func @row_max_0_kernel
// NV: %[[X:.*]] = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// NV: %[[M:.*]] = memref.alloca() : memref<1xf32, #gpu.address_space<private>>
// NV-COUNT-3: arith.maximumf
// NV: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// NV: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// NV: gpu.shuffle  xor %{{.*}}, %c4_i32{{.*}}, %c32_i32{{.*}} : f32
// NV-NOT: gpu.shuffle
// NV: memref.store %{{.*}}, %[[M]][%{{.*}}] : memref<1xf32, #gpu.address_space<private>>
// VK-LABEL: gpu.func @row_max_0_kernel
// VK: memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// VK: %[[SCRATCH:.*]] = memref.alloc() : memref<32xf32, #spirv.storage_class<Workgroup>>
// VK-COUNT-3: arith.maximumf
// VK: gpu.barrier
// VK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}]
// VK: gpu.barrier
// VK: arith.xori %thread_id_x, %c1{{.*}} : index
// VK-NOT: gpu.shuffle
func.func @row_max(%X: memref<4x32xf32>, %Y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %x = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %x : memref<4x32xf32>, memref<4x32xf32, #tile.fragment>
    tile.reduce <max> %x, %m dim(1) : memref<4x32xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.copy %m, %Y[%c0] : memref<4xf32, #tile.fragment>, memref<4xf32>
  }
  return
}

// -----

// An elementwise loop runs its body once per slot of its loop layout, at the slot's element; the
// fragment accesses become constant slots. 48 elements on 32 threads: the blocked layout's second
// slot is empty on threads 16..31, so that copy is guarded.
// NV-LABEL: gpu.func @scale_0_kernel
// NV: %[[F:.*]] = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
// NV: %[[V0:.*]] = memref.load %[[F]][%c0{{.*}}] : memref<2xf32, #gpu.address_space<private>>
// NV-NEXT: %[[S0:.*]] = arith.mulf %[[V0]], %{{.*}} : f32
// NV: memref.store %[[S0]], %[[F]][%c0{{.*}}] : memref<2xf32, #gpu.address_space<private>>
// NV: %[[FITS:.*]] = arith.cmpi ult, %{{.*}}, %c48{{.*}} : index
// NV-NEXT: scf.if %[[FITS]] {
// NV: memref.load %[[F]][%c1{{.*}}] : memref<2xf32, #gpu.address_space<private>>
// VK-LABEL: gpu.func @scale_0_kernel
// VK: memref.alloca() : memref<2xf32, #spirv.storage_class<Function>>
func.func @scale(%X: memref<48xf32>, %Y: memref<48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<48xf32, #tile.fragment>
    tile.copy %X[%c0], %f : memref<48xf32>, memref<48xf32, #tile.fragment>
    tile.parallel (%i) in (48) {
      %v = memref.load %f[%i] : memref<48xf32, #tile.fragment>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %f[%i] : memref<48xf32, #tile.fragment>
    }
    tile.copy %f, %Y[%c0] : memref<48xf32, #tile.fragment>, memref<48xf32>
  }
  return
}

// -----

// Negative: a fragment read at a computed index has no register (the slot would depend on data),
// so the kernel keeps the old plain lowering; its manifest says so.
// NV-LABEL: gpu.module @shift_0_module
// NV-SAME: \22strategy\22: \22plain\22
// NV-NOT: memref.alloca() : memref<1xf32
// VK-LABEL: gpu.module @shift_0_module
// VK-SAME: \22strategy\22: \22plain\22
func.func @shift(%X: memref<32xf32>, %Y: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %g = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.copy %X[%c0], %f : memref<32xf32>, memref<32xf32, #tile.fragment>
    tile.parallel (%i) in (32) {
      %j = arith.subi %c31, %i : index
      %v = memref.load %f[%j] : memref<32xf32, #tile.fragment>
      memref.store %v, %g[%i] : memref<32xf32, #tile.fragment>
    }
    tile.copy %g, %Y[%c0] : memref<32xf32, #tile.fragment>, memref<32xf32>
  }
  return
}

// -----

// A gemm whose A operand is a fragment (P V in attention) on two warps, which wgmma cannot take
// (no warpgroup): on sm_90a it runs on mma.sync (m16n8k16), the warps splitting M (16x32 each:
// four 16x8 instruction tiles, two K steps), A read from the fragment's registers (the copy from
// global memory wrote them in the mma A-operand layout: no scratch, no staging barrier), B's
// registers from the shared tile by ldmatrix (KxN: transposed), two instruction tiles a load; no
// barrier after it (nothing writes the tile again).
// NV-LABEL: gpu.module @chain_0_module
// NV-SAME: \22strategy\22: \22registers\22
// NV: gpu.func @chain_0_kernel(
// NV: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// NV: %[[W:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x32xf16, #gpu.address_space<workgroup>>
// NV-NOT: memref<1024xf16
// NV: gpu.barrier
// NV-NOT: gpu.barrier
// NV: %[[B:.*]] = nvgpu.ldmatrix %[[W]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// NV: vector.extract %[[B]][0] : vector<2xf16> from vector<4x2xf16>
// NV-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// NV-NOT: nvvm.mma.sync
// NV-NOT: gpu.barrier
// NV: gpu.return
// VK-LABEL: gpu.module @chain_0_module
// VK-SAME: \22strategy\22: \22registers\22
func.func @chain(%X: memref<32x32xf16>, %W: memref<32x32xf16>, %Y: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(64) (%bx) {
    %Ws = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %P = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %P : memref<32x32xf16>, memref<32x32xf16, #tile.fragment>
    tile.copy %W[%c0, %c0], %Ws : memref<32x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<32x32xf32, #tile.fragment>
    tile.gemm %P, %Ws, %O : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %O, %Y[%c0, %c0] : memref<32x32xf32, #tile.fragment>, memref<32x32xf32>
  }
  return
}

// -----

// On sm_90a, a gemm whose accumulator has the wgmma layout runs on wgmma even in a kernel the
// tensor-core template does not take (two gemms): its shared operands are written by the copies as
// the instruction's core matrices (no swizzle; A K-major, the KxN B MN-major with the transpose-B
// layout: descriptors with leading byte offset 128 and stride byte offset K / 8 * 128 = 1024 for
// K = 64), with the async-proxy fence between the generic
// stores and the instruction's reads, and the accumulator's slots packed into the instruction's
// struct and back: four m64n64k16 steps. The second gemm's A operand is a fragment in the wgmma A
// layout (P = H as f16): it is read from registers, two f16 of its slots packed per 32-bit
// register, by the register-A form through llvm.inline_asm (MLIR 22 has no op for it).
// The copies from global memory move 16-byte pieces (a core-matrix row) with cp.async when the
// tensor's base and the tile's column offset allow it, element by element otherwise.
// NV-LABEL: gpu.func @chain_wgmma_0_kernel
// NV: %[[ALIGNED:.*]] = arith.cmpi eq
// NV-NEXT: scf.if %[[ALIGNED]] {
// NV: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// NV: nvvm.cp.async.commit.group
// NV-NEXT: nvvm.cp.async.wait.group 0
// NV: nvvm.fence.proxy
// NV: gpu.barrier
// NV: arith.constant 274878431232 : i64
// NV: nvvm.wgmma.fence.aligned
// The accumulator was just filled with zeros: the first instruction writes D = A B.
// NV: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// NV: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// NV: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// NV: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// NV: nvvm.wgmma.commit.group.sync.aligned
// NV-NOT: nvvm.wgmma.wait.group
// NV: llvm.extractvalue
// The group is waited for where an op first touches the accumulator (the copy to P), not at once;
// the accumulator is pinned right after the wait (an empty asm takes its registers and gives them
// back), so that LLVM moves no read of it above the wait.
// NV: nvvm.wgmma.wait.group.sync.aligned 0
// NV-NEXT: memref.load %{{.*}} : memref<32xf32, #gpu.address_space<private>>
// NV: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// NV: memref.load
// NV-NEXT: arith.truncf
// The A registers are packed before the second gemm's fence (a register written between the fence
// and the instruction makes ptxas fence again).
// NV: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// NV-NEXT: llvm.bitcast %[[PAIR]] : vector<2xf16> to i32
// NV: nvvm.wgmma.fence.aligned
// NV-NOT: vector.from_elements
// NV: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}"
// NV-NOT: nvvm.wgmma.mma_async
// VK-LABEL: gpu.func @chain_wgmma_0_kernel
// VK-NOT: nvvm.wgmma
func.func @chain_wgmma(%X: memref<64x64xf16>, %W1: memref<64x64xf16>, %W2: memref<64x64xf16>, %Y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Xs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %Xs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %W1[%c0, %c0], %W1s : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %W2[%c0, %c0], %W2s : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Xs, %W1s, %H : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
    tile.fill %O, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %O, %Y[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// -----

// A wgmma accumulator stored into a 16-bit global tensor that TMA cannot address (rows of 68
// elements, 136 bytes, where TMA wants 16-byte multiples; a TMA tensor's accumulator is staged
// for TMA, `tile-to-nvgpu.mlir`): the four lanes of a quad hold one row's
// 8-column block, two columns each; they trade packed pairs (three xor shuffles) so that each lane
// holds a whole block of four neighbouring blocks, and writes it with one 16-byte store where it is
// aligned and inside the tensor (element by element otherwise).
// NV-LABEL: gpu.func @wide_stores_0_kernel
// NV: nvvm.wgmma.wait.group.sync.aligned 0
// NV: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// NV-NEXT: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// NV: gpu.shuffle  xor %{{.*}}, %c1_i32
// NV: gpu.shuffle  xor %{{.*}}, %c2_i32
// NV: gpu.shuffle  xor %{{.*}}, %c3_i32
// NV: %[[WORDS:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
// NV-NEXT: %[[VALUES:.*]] = vector.bitcast %[[WORDS]] : vector<4xi32> to vector<8xf16>
// NV: scf.if
// NV-NEXT: vector.store %[[VALUES]], %{{.*}} {alignment = 16 : i64} : memref<64x68xf16>, vector<8xf16>
// NV-NEXT: } else {
// NV: vector.extract %[[VALUES]][0] : f16 from vector<8xf16>
// VK-LABEL: gpu.func @wide_stores_0_kernel
// VK-NOT: gpu.shuffle
func.func @wide_stores(%A: memref<64x128xf16>, %B: memref<128x64xf16>, %C: memref<64x68xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %As, %Bs, %Cf : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x68xf16>
  }
  return
}

// -----

// A maximum of a replicated fragment: the row statistic %l, laid out as the loop reads it (each
// row on the 8 threads of that row), reduced to one value. Maxima may meet their own copies, so
// the butterfly runs over every thread-index bit and the kernel keeps its registers.
// NV-LABEL: gpu.module @replicated_max_0_module
// NV-SAME: \22strategy\22: \22registers\22
// NV: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// NV-NEXT: arith.maximumf
// NV: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f32
// NV-NEXT: arith.maximumf
// VK-LABEL: gpu.module @replicated_max_0_module
// VK-SAME: \22strategy\22: \22registers\22
func.func @replicated_max(%X: memref<4x32xf32>, %L: memref<4xf32>, %Y: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %x = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %top = tile.alloc_fragment : memref<f32, #tile.fragment>
    tile.copy %X[%c0, %c0], %x : memref<4x32xf32>, memref<4x32xf32, #tile.fragment>
    tile.copy %L[%c0], %l : memref<4xf32>, memref<4xf32, #tile.fragment>
    tile.reduce <max> %l, %top dim(0) : memref<4xf32, #tile.fragment>, memref<f32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 32) {
      %v = memref.load %x[%i, %j] : memref<4x32xf32, #tile.fragment>
      %w = memref.load %l[%i] : memref<4xf32, #tile.fragment>
      %t = memref.load %top[] : memref<f32, #tile.fragment>
      %d = arith.subf %w, %t : f32
      %r = arith.mulf %v, %d : f32
      memref.store %r, %x[%i, %j] : memref<4x32xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0, %c0] : memref<4x32xf32, #tile.fragment>, memref<4x32xf32>
  }
  return
}

// -----

// Negative: the sum of the same replicated fragment would count each row 8 times; the kernel
// keeps the old plain lowering (with a warning at the reduction).
// NV-LABEL: gpu.module @replicated_sum_0_module
// NV-SAME: \22strategy\22: \22plain\22
// VK-LABEL: gpu.module @replicated_sum_0_module
// VK-SAME: \22strategy\22: \22plain\22
func.func @replicated_sum(%X: memref<4x32xf32>, %L: memref<4xf32>, %Y: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %x = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %total = tile.alloc_fragment : memref<f32, #tile.fragment>
    tile.copy %X[%c0, %c0], %x : memref<4x32xf32>, memref<4x32xf32, #tile.fragment>
    tile.copy %L[%c0], %l : memref<4xf32>, memref<4xf32, #tile.fragment>
    tile.reduce <sum> %l, %total dim(0) : memref<4xf32, #tile.fragment>, memref<f32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 32) {
      %v = memref.load %x[%i, %j] : memref<4x32xf32, #tile.fragment>
      %w = memref.load %l[%i] : memref<4xf32, #tile.fragment>
      %t = memref.load %total[] : memref<f32, #tile.fragment>
      %d = arith.subf %w, %t : f32
      %r = arith.mulf %v, %d : f32
      memref.store %r, %x[%i, %j] : memref<4x32xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0, %c0] : memref<4x32xf32, #tile.fragment>, memref<4x32xf32>
  }
  return
}

// -----

// A loop body's fast-math flags go with each slot's copy of its op: rows divided by their sums
// with `arcp` (FlashAttention's epilogue) leave each division so marked, so that LLVM takes a
// row's reciprocal once and multiplies (sm_90a's PTX: one rcp.rn.f32 a row instead of a
// div.rn.f32 an element).
// NV-LABEL: gpu.func @normalize_rows_0_kernel
// NV-COUNT-4: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f32
// NV-NOT: arith.divf
// VK-LABEL: gpu.func @normalize_rows_0_kernel
// VK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f32
func.func @normalize_rows(%X: memref<4x32xf32>, %L: memref<4xf32>, %Y: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %x = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %x : memref<4x32xf32>, memref<4x32xf32, #tile.fragment>
    tile.reduce <sum> %x, %l dim(1) : memref<4x32xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 32) {
      %o = memref.load %x[%i, %j] : memref<4x32xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<4xf32, #tile.fragment>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %x[%i, %j] : memref<4x32xf32, #tile.fragment>
    }
    tile.copy %x, %Y[%c0, %c0] : memref<4x32xf32, #tile.fragment>, memref<4x32xf32>
  }
  return
}

// -----

// A blocked fragment stored into a global tensor: each thread's 4 consecutive columns go out as
// one 16-byte vector where the run lies inside the tensor and starts aligned (the tensor's base
// and the tile's first column), element by element otherwise; SPIR-V, which casts no pointer to a
// vector, stores the elements.
// NV-LABEL: gpu.func @rows_out_0_kernel
// NV: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg1
// NV: arith.remui %[[BASE]], %c16
// NV: scf.if %{{.*}} {
// NV-NEXT: %[[VEC:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// NV-NEXT: vector.store %[[VEC]], %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x128xf32>, vector<4xf32>
// NV: scf.if
// NV-COUNT-4: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<?x128xf32>
// VK-LABEL: gpu.func @rows_out_0_kernel
// VK-NOT: vector.store
// VK: gpu.return
func.func @rows_out(%X: memref<?x128xf32>, %Y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %rows = memref.dim %X, %c0 : memref<?x128xf32>
  %blocks = arith.ceildivui %rows, %c4 : index
  tile.kernel grid(%blocks) threads(128) (%b) {
    %row = arith.muli %b, %c4 : index
    %S = tile.alloc_fragment : memref<4x128xf32, #tile.fragment>
    tile.copy %X[%row, %c0], %S : memref<?x128xf32>, memref<4x128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 128) {
      %v = memref.load %S[%i, %j] : memref<4x128xf32, #tile.fragment>
      %d = arith.addf %v, %v : f32
      memref.store %d, %S[%i, %j] : memref<4x128xf32, #tile.fragment>
    }
    tile.copy %S, %Y[%row, %c0] : memref<4x128xf32, #tile.fragment>, memref<?x128xf32>
  }
  return
}

// -----

// Under a launch condition that proves both tensors 16-byte aligned (what
// tile-specialize-alignment writes, or the program), a blocked fragment's runs are loaded and
// stored as single 16-byte vectors where they lie inside the tensor, with no test of the base
// address in the kernel; the manifest launches the kernel where the condition holds.
// NV: gpu.module @rows_aligned_0_module attributes {tile.manifest = {{.*}}\22when\22: {\22op\22: \22arith.cmpi eq\22, \22args\22: [{\22op\22: \22arith.ori\22, \22args\22: [{\22op\22: \22arith.remui\22, \22args\22: [{\22address\22: 0}, 16]}, {\22op\22: \22arith.remui\22, \22args\22: [{\22address\22: 1}, 16]}]}, 0]}
// NV-LABEL: gpu.func @rows_aligned_0_kernel
// NV-NOT: memref.extract_aligned_pointer_as_index
// NV: scf.if %{{.*}} {
// NV-NEXT: %[[LOADED:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x128xf32>, vector<4xf32>
// NV-COUNT-4: vector.extract %[[LOADED]]
// NV: } else {
// NV-NOT: memref.extract_aligned_pointer_as_index
// NV: vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x128xf32>, vector<4xf32>
// NV: gpu.return
// VK-LABEL: gpu.func @rows_aligned_0_kernel
// VK-NOT: vector.load
// VK: gpu.return
func.func @rows_aligned(%X: memref<?x128xf32>, %Y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x128xf32>
  %blocks = arith.ceildivui %rows, %c4 : index
  %x = memref.extract_aligned_pointer_as_index %X : memref<?x128xf32> -> index
  %y = memref.extract_aligned_pointer_as_index %Y : memref<?x128xf32> -> index
  %xr = arith.remui %x, %c16 : index
  %yr = arith.remui %y, %c16 : index
  %r = arith.ori %xr, %yr : index
  %aligned = arith.cmpi eq, %r, %c0 : index
  scf.if %aligned {
    tile.kernel grid(%blocks) threads(128) (%b) {
      %row = arith.muli %b, %c4 : index
      %S = tile.alloc_fragment : memref<4x128xf32, #tile.fragment>
      tile.copy %X[%row, %c0], %S : memref<?x128xf32>, memref<4x128xf32, #tile.fragment>
      tile.copy %S, %Y[%row, %c0] : memref<4x128xf32, #tile.fragment>, memref<?x128xf32>
    }
  }
  return
}

// -----

// A store limited to the tile's first rows: each thread's 4-element run goes out as one vector
// where its row is below the limit (signed: a negative limit writes nothing) and the run's last
// column below the column limit, else element by element under the same comparisons.
// NV-LABEL: gpu.func @limited_rows_plain_0_kernel
// NV: arith.cmpi slt, %{{.*}}, %arg1 : index
// NV: scf.if
// NV: vector.store %{{.*}}, %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// NV: arith.cmpi slt, %{{.*}}, %arg1 : index
// NV: scf.if
// NV-NEXT: memref.store %{{.*}}, %arg0[%{{.*}}, %{{.*}}] : memref<?x?xf32>
func.func @limited_rows_plain(%C: memref<?x?xf32>, %rows: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    tile.fill %F, %one : memref<4x32xf32, #tile.fragment>
    tile.copy %F, %C[%c0, %c0] limits [%rows, %c32] : memref<4x32xf32, #tile.fragment>, memref<?x?xf32>
  }
  return
}
