// mma.sync (m16n8k16) on sm_90a: the rule of the gemms wgmma cannot take (accumulators of fewer
// than 64 rows a warpgroup, blocks of warps that are no whole warpgroups). tile-infer-layouts gives
// the accumulator the mma layout (warps split it into 16x8 instruction tiles); the rule unrolls
// the K steps and issues one nvvm.mma.sync per instruction tile and step, each lane's A and B
// elements read two at a time into 32-bit registers.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layouts | FileCheck %s --check-prefix=LAYOUT

// Attention's two products on two warps (a kernel of several gemms: the warps split M alone). S =
// Q K^T: each warp a 16x32 tile, four instruction tiles, two K steps. P = S as f16 keeps S's
// layout, which is the mma A-operand layout: P V reads A from P's registers (no scratch).
// CHECK-LABEL: gpu.func @scores_and_output_0_kernel
// CHECK-NOT: memref<1024xf16
// CHECK: %[[S:.*]] = memref.alloca() : memref<16xf32, #gpu.address_space<private>>
// CHECK: %[[P:.*]] = memref.alloca() : memref<16xf16, #gpu.address_space<private>>
// CHECK-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// Q, K and V are filled once, before the gemms: no op writes them afterwards, so neither gemm
// ends with a barrier.
// CHECK-NOT: gpu.barrier
// P V: A's registers come from P's slots, two f16 a register.
// CHECK: %[[P0:.*]] = memref.load %[[P]][%{{.*}}] : memref<16xf16, #gpu.address_space<private>>
// CHECK: %[[P1:.*]] = memref.load %[[P]][%{{.*}}] : memref<16xf16, #gpu.address_space<private>>
// CHECK: %[[A0:.*]] = vector.from_elements %[[P0]], %[[P1]] : vector<2xf16>
// CHECK: nvvm.mma.sync A[%[[A0]], {{.*}}] B[{{.*}}] C[{{.*}}]
// CHECK-COUNT-7: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// LAYOUT-LABEL: func.func @scores_and_output
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [32, 32], threads = 64, thread = (d0, d1) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), slot = (d0, d1) -> ((d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), origin = "mma.m16n8k16">} : memref<32x32xf32, #tile.fragment>
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<{{.*}}origin = "mma.a.m16k32">} : memref<32x32xf16, #tile.fragment>
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<{{.*}}origin = "mma.m16n8k16">} : memref<32x32xf32, #tile.fragment>
module attributes {tile.target = "sm_90a"} {
func.func @scores_and_output(%Q: memref<32x32xf16>, %K: memref<32x32xf16>, %V: memref<32x32xf16>, %O: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(64) (%bx) {
    %Qs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<32x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<32x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<32x32xf16>, memref<32x32xf16, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<32x32xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %S, %P : memref<32x32xf32, #tile.fragment>, memref<32x32xf16, #tile.fragment>
    tile.fill %Acc, %zero : memref<32x32xf32, #tile.fragment>
    tile.gemm %P, %Vs, %Acc : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<32x32xf32, #tile.fragment>, memref<32x32xf32>
  }
  return
}
}

// -----

// bf16 on one warp, A stored KxM (transpose_a): a 16x16 accumulator is two instruction tiles; the
// bf16 pairs go to the instruction as i32 registers (its bf16 form takes them so).
// CHECK-LABEL: gpu.func @bf16_transposed_a_0_kernel
// CHECK: %[[AS:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xbf16, #gpu.address_space<workgroup>>
// A as KxM: ldmatrix reads its four 8x8 matrices transposed (K along the stored rows), each
// lane's pair of bf16 one i32 register of the instruction.
// CHECK: %[[AM:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: %[[PAIR:.*]] = vector.extract %[[AM]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[REG:.*]] = llvm.bitcast %[[PAIR]] : vector<2xbf16> to i32
// B as KxN: one transposed x4 load holds both instruction tiles' two registers.
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync A[%[[REG]], {{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-3: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// LAYOUT-LABEL: func.func @bf16_transposed_a
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [16, 16], threads = 32, {{.*}}origin = "mma.m16n8k16">}
module attributes {tile.target = "sm_90a"} {
func.func @bf16_transposed_a(%A: memref<32x16xbf16>, %B: memref<32x16xbf16>, %C: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(32) (%bx) {
    %As = tile.alloc_shared : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<32x16xbf16>, memref<32x16xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<32x16xbf16>, memref<32x16xbf16, #gpu.address_space<workgroup>>
    tile.fill %Cf, %zero : memref<16x16xf32, #tile.fragment>
    tile.gemm %As, %Bs, %Cf {transpose_a} : memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<16x16xf32, #tile.fragment>, memref<16x16xf32>
  }
  return
}
}

// -----

// A fragment A with the warps split along N (a 16x64 accumulator on two warps: 16x32 each): the
// warps need the same rows of A, which no register layout gives both, so A is staged in a
// workgroup scratch (row-major, between two barriers) and read from there.
// CHECK-LABEL: gpu.func @staged_a_0_kernel
// CHECK: %[[STAGE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[STAGE]][%{{.*}}] : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[STAGE]][%{{.*}}] : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// LAYOUT-LABEL: func.func @staged_a
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [16, 64], threads = 64, thread = (d0, d1) -> ((d1 floordiv 32) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2), {{.*}}origin = "mma.m16n8k16">}
module attributes {tile.target = "sm_90a"} {
func.func @staged_a(%A: memref<16x32xf16>, %B: memref<32x64xf16>, %C: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(64) (%bx) {
    %Af = tile.alloc_fragment : memref<16x32xf16, #tile.fragment>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %Af : memref<16x32xf16>, memref<16x32xf16, #tile.fragment>
    tile.copy %B[%c0, %c0], %Bs : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Cf, %zero : memref<16x64xf32, #tile.fragment>
    tile.gemm %Af, %Bs, %Cf : memref<16x32xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<16x64xf32, #tile.fragment>, memref<16x64xf32>
  }
  return
}
}

// -----

// i8 times i8 into i32 (B given N x K) on two warps (no warpgroup, so no wgmma): m16n8k32, four i8
// a register (a vector<4xi8> as i32), the i32 sums wrapping; the accumulator has the same mma
// layout as an f32 one.
// CHECK-LABEL: gpu.func @integer_inputs_0_kernel
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-31: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// LAYOUT-LABEL: func.func @integer_inputs
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 64], threads = 64, {{.*}}origin = "mma.m16n8k16">} : memref<64x64xi32, #tile.fragment>
module attributes {tile.target = "sm_90a"} {
func.func @integer_inputs(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(64) (%bx) {
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
