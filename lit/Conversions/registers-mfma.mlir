// The mfma rule of the register rules (gfx942): a tile.gemm whose accumulator has the mfma layout
// becomes amdgpu.mfma over the accumulator's slots, one mfma per instruction tile of its wave, the
// accumulators carried through the loop over K. The LDS tiles are stored as tile-infer-layouts
// lays them out (rows padded by 4 elements, a B given as KxN stored transposed), so that K runs
// along every operand's stored rows: each lane reads its A row's and B column's elements of K as
// vectors, 8 of them (16 bytes) for a pair of K steps where both operands allow, 4 (8 bytes) a
// step otherwise; a fragment A operand is staged row-major in a workgroup scratch first. These
// kernels take the register rules because the GEMM template does not take them (two gemms, A
// given as KxM).
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>/dev/null | FileCheck %s

// Attention: S = Q K^T (K given as NxK: both operands K-contiguous), then O += P V with P a
// fragment (staged) and V given as KxN, stored transposed. The accumulators split M over the two
// waves: each wave has two 32x32 tiles, one mfma each per K step of 8, two steps an iteration.
// CHECK-LABEL: gpu.func @attention_0_kernel
// CHECK-SAME: workgroup(%[[SCRATCH:arg[0-9]+]] : memref<4096xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %[[QS:arg[0-9]+]] : memref<64x68xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %[[KS:arg[0-9]+]] : memref<64x68xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %[[VS:arg[0-9]+]] : memref<64x68xf16
// CHECK: memref.reinterpret_cast %[[VS]] to offset: [0], sizes: [64, 64], strides: [1, 68]
// CHECK: %[[QL:.*]] = memref.memory_space_cast %[[QS]] : memref<64x68xf16, #gpu.address_space<workgroup>> to memref<64x68xf16, 3>
// CHECK: %[[KL:.*]] = memref.memory_space_cast %[[KS]] : memref<64x68xf16, #gpu.address_space<workgroup>> to memref<64x68xf16, 3>
// CHECK: %[[S:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args(%[[S0:.*]] = %{{.*}}, %[[S1:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: %[[Q:.*]] = vector.load %[[QL]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x68xf16, 3>, vector<8xf16>
// CHECK: %[[K0:.*]] = vector.load %[[KL]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x68xf16, 3>, vector<8xf16>
// CHECK: %[[K1:.*]] = vector.load %[[KL]]
// CHECK-NEXT: %[[QA:.*]] = vector.extract_strided_slice %[[Q]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
// CHECK-NEXT: %[[KA:.*]] = vector.extract_strided_slice %[[K0]] {offsets = [0], sizes = [4], strides = [1]}
// CHECK-NEXT: %[[KB:.*]] = vector.extract_strided_slice %[[K1]] {offsets = [0], sizes = [4], strides = [1]}
// CHECK-NEXT: %[[D0:.*]] = amdgpu.mfma 32x32x8 %[[QA]] * %[[KA]] + %[[S0]] blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NEXT: %[[D1:.*]] = amdgpu.mfma 32x32x8 %[[QA]] * %[[KB]] + %[[S1]] blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NEXT: vector.extract_strided_slice %[[Q]] {offsets = [4], sizes = [4], strides = [1]}
// CHECK: %[[E0:.*]] = amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %[[D0]]
// CHECK-NEXT: %[[E1:.*]] = amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %[[D1]]
// CHECK-NEXT: scf.yield %[[E0]], %[[E1]] : vector<16xf32>, vector<16xf32>
// CHECK: vector.extract %[[S]]#1[15] : f32 from vector<16xf32>
// CHECK: gpu.barrier
// P goes to the scratch, row-major, between barriers; its rows and V's stored rows are read 8
// elements of K at a time (16-byte aligned in the unpadded scratch).
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[PL:.*]] = memref.memory_space_cast %[[SCRATCH]]
// CHECK: %[[VL:.*]] = memref.memory_space_cast %[[VS]]
// Nothing but the gemm touches the output's accumulator in the loop: its slots go to the loop and
// back as one vector per instruction tile, through the array in the private memory space's number.
// (S is filled and rescaled in the loop: its slots move one by one, as above.)
// CHECK: %[[ACC:.*]] = memref.memory_space_cast %{{.*}} : memref<32xf32, #gpu.address_space<private>> to memref<32xf32, 5>
// CHECK: vector.load %[[ACC]][%{{.*}}] : memref<32xf32, 5>, vector<16xf32>
// CHECK: %[[O:.*]]:2 = scf.for {{.*}} step %c16{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %[[PL]][%{{.*}}] {alignment = 16 : i64} : memref<4096xf16, 3>, vector<8xf16>
// CHECK: vector.load %[[VL]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x68xf16, 3>, vector<8xf16>
// CHECK-COUNT-4: amdgpu.mfma 32x32x8
// CHECK-NEXT: scf.yield
// CHECK: vector.store %[[O]]#0, %[[ACC]][%{{.*}}] : memref<32xf32, 5>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @attention(%Q: memref<256x64xf16>, %K: memref<256x64xf16>, %V: memref<256x64xf16>, %O: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bq) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %q0 = arith.muli %bq, %c64 : index
    tile.copy %Q[%q0, %c0], %Qs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %j = %c0 to %c4 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%k0, %c0], %Ks : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, %c0], %Vs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
      tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      tile.parallel (%i, %k) in (64, 64) {
        %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
        %e = math.exp2 %s : f32
        memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      }
      tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf16, #tile.fragment>
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %O[%q0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x64xf16>
  }
  return
}

// -----

// An MLP block in bf16: H = relu(X W1) on 32x32x8 (two tiles a wave, K = 32: four steps), then
// O = H W2 with H a fragment (staged) and 16 output columns: 16x16x16, one f32x4 accumulator a
// tile, two tiles a wave.
// CHECK-LABEL: gpu.func @mlp_0_kernel
// CHECK: scf.for {{.*}} to %c32{{.*}} step %c16{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-3: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x36xbf16, 3>, vector<8xbf16>
// CHECK-COUNT-4: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NEXT: scf.yield
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4096xbf16, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} to %c64{{.*}} step %c32{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-2: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16, 3>, vector<8xbf16>
// CHECK: %[[B:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x68xbf16, 3>, vector<8xbf16>
// CHECK-NEXT: %[[A0:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]}
// CHECK-NEXT: %[[A1:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]}
// CHECK-NEXT: %[[B0:.*]] = vector.extract_strided_slice %[[B]] {offsets = [0], sizes = [4], strides = [1]}
// CHECK-NEXT: amdgpu.mfma 16x16x16 %[[A0]] * %[[B0]] + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-NEXT: amdgpu.mfma 16x16x16 %[[A1]] * %[[B0]] + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-COUNT-2: amdgpu.mfma 16x16x16
// CHECK-NEXT: scf.yield
func.func @mlp(%X: memref<128x32xbf16>, %W1: memref<32x64xbf16>, %W2: memref<64x16xbf16>, %Y: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<64x16xbf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x64xbf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %r0 = arith.muli %b, %c64 : index
    tile.copy %X[%r0, %c0], %Xs : memref<128x32xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
    tile.copy %W1, %W1s : memref<32x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.fill %H, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Xs, %W1s, %H : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %h = memref.load %H[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %h, %zero : f32
      memref.store %r, %H[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %H, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xbf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<64x16xbf16>, memref<64x16xbf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x16xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x64xbf16, #tile.fragment>, memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
    tile.copy %O, %Y[%r0, %c0] : memref<64x16xf32, #tile.fragment>, memref<128x16xf32>
  }
  return
}

// -----

// One gemm with A given as KxM (transpose_a) and a bias read in the epilogue, on four waves split
// 2x2: each wave a 64x32 tile of two 32x32 mfma tiles along M. A is stored transposed (MxK) and B
// too (NxK): both are read 8 elements of K a lane.
// CHECK-LABEL: gpu.func @gemm_bias_0_kernel
// CHECK: scf.for {{.*}} to %c64{{.*}} step %c16{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-2: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x68xf16, 3>, vector<8xf16>
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x68xf16, 3>, vector<8xf16>
// CHECK-COUNT-4: amdgpu.mfma 32x32x8
// CHECK-NEXT: scf.yield
func.func @gemm_bias(%At: memref<64x128xf16>, %B: memref<64x64xf16>, %bias: memref<64xf32>, %C: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(256) (%b) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x64xf32, #tile.fragment>
    tile.copy %At[%c0, %c0], %As : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf {transpose_a} : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 64) {
      %c = memref.load %Cf[%i, %j] : memref<128x64xf32, #tile.fragment>
      %v = memref.load %bias[%j] : memref<64xf32>
      %s = arith.addf %c, %v : f32
      memref.store %s, %Cf[%i, %j] : memref<128x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x64xf32, #tile.fragment>, memref<128x64xf32>
  }
  return
}

// -----

// A fragment A operand already in the mfma A-operand layout (written here by hand: a layout in
// the input is kept) is read from its registers: no scratch, the four K steps unrolled (registers
// are indexed by constants), each lane's 4 elements of a step its slots. Two waves split N: each
// holds all of A (replicated), a 64x32 wave tile of two 32x32 tiles.
// CHECK-LABEL: gpu.func @register_a_0_kernel
// CHECK-NOT: memref<2048xf16
// CHECK: %[[A:.*]] = memref.alloca() : memref<32xf16, #gpu.address_space<private>>
// CHECK-NOT: scf.for {{.*}} iter_args
// CHECK: %[[A0:.*]] = memref.load %[[A]][%c0{{.*}}] : memref<32xf16, #gpu.address_space<private>>
// CHECK: vector.from_elements %[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK-COUNT-8: amdgpu.mfma 32x32x8
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
func.func @register_a(%X: memref<64x32xf16>, %W: memref<32x64xf16>, %Y: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Ws = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %A = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 32], threads = 128, replicate = 2, thread = (d0, d1)[s0] -> (s0 * 64 + d0 mod 32 + ((d1 mod 8) floordiv 4) * 32), slot = (d0, d1) -> (((d0 floordiv 32) * 4 + d1 floordiv 8) * 4 + d1 mod 4), origin = "mfma.a.32x32x8">} : memref<64x32xf16, #tile.fragment>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X, %A : memref<64x32xf16>, memref<64x32xf16, #tile.fragment>
    tile.copy %W, %Ws : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.fill %C, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %A, %Ws, %C : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %C, %Y : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// -----

// K = 8: a single K step of 32x32x8, no pair to read at once: each lane reads its 4 elements of K
// of A and of B as one 8-byte vector (rows of 8 + 4 elements, B stored transposed).
// CHECK-LABEL: gpu.func @one_step_0_kernel
// CHECK-SAME: workgroup(%{{.*}} : memref<64x12xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %{{.*}} : memref<64x12xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: scf.for {{.*}} to %c8{{.*}} step %c8{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-3: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x12xf16, 3>, vector<4xf16>
// CHECK-NOT: vector.extract_strided_slice
// CHECK-COUNT-2: amdgpu.mfma 32x32x8
// CHECK-NEXT: scf.yield
func.func @one_step(%A: memref<256x8xf16>, %B: memref<8x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<8x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<256x8xf16>, memref<64x8xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<8x256xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// Both LDS tiles are read after the accumulator's copy: none is free to stage it through, so each
// slot is stored on its own (behind its bounds check).
// CHECK-LABEL: gpu.func @tiles_kept_0_kernel
// CHECK: amdgpu.mfma 32x32x8
// CHECK-NOT: vector.store %{{.*}} : memref<256x256xf32>, vector<4xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<256x256xf32>
// CHECK-NOT: vector.store %{{.*}} : memref<256x256xf32>, vector<4xf32>
// CHECK: gpu.return
func.func @tiles_kept(%A: memref<256x8xf16>, %B: memref<8x256xf16>, %C: memref<256x256xf32>, %A2: memref<64x8xf16>, %B2: memref<8x64xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x8xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<8x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<256x8xf16>, memref<64x8xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<8x256xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
    tile.copy %As, %A2[%c0, %c0] : memref<64x8xf16, #gpu.address_space<workgroup>>, memref<64x8xf16>
    tile.copy %Bs, %B2[%c0, %c0] : memref<8x64xf16, #gpu.address_space<workgroup>>, memref<8x64xf16>
  }
  return
}

// -----

// f8E4M3FN operands run on the f16 instruction: each lane reads 8 of its elements of K (8 bytes)
// for a pair of steps from the unpadded LDS tiles and widens each step's 4 to f16 (exactly) as
// they enter the mfma.
// CHECK-LABEL: gpu.func @f8_pair_0_kernel
// CHECK-SAME: workgroup(%{{.*}} : memref<64x16xf8E4M3FN, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %{{.*}} : memref<64x16xf8E4M3FN, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x16xf8E4M3FN, 3>, vector<8xf8E4M3FN>
// CHECK: %[[LOW:.*]] = vector.extract_strided_slice %[[A]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf8E4M3FN> to vector<4xf8E4M3FN>
// CHECK: %[[WIDE:.*]] = arith.extf %[[LOW]] : vector<4xf8E4M3FN> to vector<4xf16>
// CHECK: amdgpu.mfma 32x32x8 %[[WIDE]] * %{{.*}} + %{{.*}} blgp =  none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-COUNT-3: amdgpu.mfma 32x32x8
// CHECK-NEXT: scf.yield
func.func @f8_pair(%A: memref<256x16xf8E4M3FN>, %B: memref<16x256xf8E4M3FN>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x16xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<256x16xf8E4M3FN>, memref<64x16xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<16x256xf8E4M3FN>, memref<16x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x16xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// f8E5M2 operands alike: widened to f16 as they enter the mfma.
// CHECK-LABEL: gpu.func @e5m2_pair_0_kernel
// CHECK-SAME: workgroup(%{{.*}} : memref<64x16xf8E5M2, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %{{.*}} : memref<64x16xf8E5M2, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x16xf8E5M2, 3>, vector<8xf8E5M2>
// CHECK: %[[LOW:.*]] = vector.extract_strided_slice %[[A]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf8E5M2> to vector<4xf8E5M2>
// CHECK: %[[WIDE:.*]] = arith.extf %[[LOW]] : vector<4xf8E5M2> to vector<4xf16>
// CHECK: amdgpu.mfma 32x32x8 %[[WIDE]] * %{{.*}} + %{{.*}} blgp =  none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-COUNT-3: amdgpu.mfma 32x32x8
// CHECK-NEXT: scf.yield
func.func @e5m2_pair(%A: memref<256x16xf8E5M2>, %B: memref<16x256xf8E5M2>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x16xf8E5M2, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf8E5M2, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<256x16xf8E5M2>, memref<64x16xf8E5M2, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<16x256xf8E5M2>, memref<16x64xf8E5M2, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x16xf8E5M2, #gpu.address_space<workgroup>>, memref<16x64xf8E5M2, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}
