// tile-split-k (sm_90a): a GEMM kernel with few output tiles and a long K runs each tile's loop
// on the blocks of a thread block cluster, a contiguous part each; tile.split_sum adds the
// accumulators up in the cluster's first block, which alone runs the epilogue.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-split-k 2>&1 | FileCheck %s

// Four 64x128 tiles of 64 steps: 4 clusters of 4 blocks (one wave), 16 steps each.
// CHECK-LABEL: func.func @automatic
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: tile.kernel grid(%[[C16]], %{{.*}}) threads(128) (%[[B:.*]], %[[BY:.*]]) attributes {tile.splits = 4 : i64
// CHECK: %[[S:.*]] = arith.constant 4 : index
// CHECK: %[[BX:.*]] = arith.divui %[[B]], %[[S]]
// CHECK: %[[RANK:.*]] = arith.remui %[[B]], %[[S]]
// CHECK: tile.fill %[[ACC:.*]], %{{.*}} : memref<64x128xf32, #tile.fragment>
// CHECK: arith.muli %[[BX]], %{{.*}}
// CHECK: %[[SCRATCH:.*]] = tile.alloc_shared {tile.layout = #tile.smem<>} : memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK: tile.pipelined %[[J:.*]] = %{{.*}} to %[[PART:.*]] stages(4) {
// CHECK: %[[FIRST:.*]] = arith.muli %[[RANK]], %{{.*}}
// CHECK: %[[K:.*]] = arith.addi %[[FIRST]], %[[J]]
// CHECK: arith.muli %[[K]], %{{.*}}
// CHECK: tile.gemm
// CHECK: }
// CHECK: tile.split_sum %[[ACC]], %[[SCRATCH]], %[[RANK]] splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[RANK]], %{{.*}}
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.copy %[[ACC]]
// CHECK-NEXT: }
module attributes {tile.target = "sm_90a"} {
  func.func @automatic(%A: memref<64x4096xf16>, %B: memref<4096x512xf16>, %C: memref<64x512xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %n0 = arith.muli %bx, %c128 : index
      tile.pipelined %kt = %c0 to %c64 stages(4) {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<4096x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %n0] : memref<64x128xf32, #tile.fragment>, memref<64x512xf16>
    }
    return
  }
}

// -----

// Asked for: split = 2 on a loop with a lower bound and a step; the epilogue's allocation stays
// in the kernel's body, before the loop.
// CHECK-LABEL: func.func @asked
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%{{.*}}, %{{.*}}) attributes {tile.splits = 2 : i64
// CHECK: %[[RANK:.*]] = arith.remui
// CHECK: tile.alloc_shared {tile.layout = #tile.smem<>} : memref<64x128xf16
// CHECK: tile.pipelined %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} stages(2) attributes {tile.schedule = {split = 2 : i64}} {
// CHECK: %[[FIRST:.*]] = arith.muli %[[RANK]], %{{.*}}
// CHECK: %[[STEP:.*]] = arith.addi %[[FIRST]], %[[J]]
// CHECK: %[[SCALED:.*]] = arith.muli %[[STEP]], %{{.*}}
// CHECK: %[[K:.*]] = arith.addi %{{.*}}, %[[SCALED]]
// CHECK: arith.muli %[[K]]
// CHECK: tile.split_sum {{.*}} splits(2)
// CHECK: scf.if
// CHECK: tile.copy {{.*}} : memref<64x128xf32, #tile.fragment>, memref<64x128xf16, #gpu.address_space<workgroup>>
module attributes {tile.target = "sm_90a"} {
  func.func @asked(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c4 to %c64 step %c2 stages(2) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c32 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      %Cs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %Cf, %Cs : memref<64x128xf32, #tile.fragment>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %Cs, %C[%c0, %c0] : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16>
    }
    return
  }
}

// -----

// Enough tiles (132 x 1 of 8 steps), a short loop, or split = 1: the kernel stays as it is.
// CHECK-LABEL: func.func @whole
// CHECK-NOT: tile.splits
// CHECK-NOT: tile.split_sum
module attributes {tile.target = "sm_90a"} {
  func.func @whole(%A: memref<64x4096xf16>, %B: memref<4096x512xf16>, %C: memref<64x512xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %n0 = arith.muli %bx, %c128 : index
      tile.pipelined %kt = %c0 to %c64 stages(4) attributes {tile.schedule = {split = 1}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<4096x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %n0] : memref<64x128xf32, #tile.fragment>, memref<64x512xf16>
    }
    tile.kernel grid(%c4, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %n0 = arith.muli %bx, %c128 : index
      tile.pipelined %kt = %c0 to %c8 stages(4) {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<4096x512xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %n0] : memref<64x128xf32, #tile.fragment>, memref<64x512xf16>
    }
    return
  }
}

// -----

// Steps that the split does not divide (63 in 2): parts of ceil(63 / 2) = 32 steps from the
// rank's first, min(rank x 32, 63), the last part shorter (31).
// CHECK-LABEL: func.func @uneven
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[B:.*]], %{{.*}}) attributes {tile.splits = 2 : i64
// CHECK: %[[RANK:.*]] = arith.remui %[[B]], %{{.*}} : index
// CHECK-DAG: %[[STEPS:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[PART:.*]] = arith.constant 32 : index
// CHECK: %[[AT:.*]] = arith.muli %[[RANK]], %[[PART]] : index
// CHECK: %[[FIRST:.*]] = arith.minui %[[AT]], %[[STEPS]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[STEPS]], %[[FIRST]] : index
// CHECK: %[[TRIPS:.*]] = arith.minui %[[LEFT]], %[[PART]] : index
// CHECK: tile.pipelined %[[J:.*]] = %{{.*}} to %[[TRIPS]] stages(3) attributes {tile.schedule = {split = 2 : i64}} {
// CHECK: arith.addi %[[FIRST]], %[[J]] : index
// CHECK: tile.split_sum {{.*}} splits(2)
module attributes {tile.target = "sm_90a"} {
  func.func @uneven(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %c63 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

// Sizes known at run time, split on request (never automatically: the tile count is not known):
// the grid's first size times 4, and each block's part of ceil(steps / 4) steps, from its rank's
// first step (the last parts shorter or empty), which the loop's body counts from.
// CHECK-LABEL: func.func @run_time_sizes
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128 : index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %[[GX]], %[[FOUR]] : index
// CHECK: tile.kernel grid(%[[BLOCKS]], %{{.*}}) threads(128) (%[[B:.*]], %{{.*}}) attributes {tile.splits = 4 : i64
// CHECK: %[[RANK:.*]] = arith.remui %[[B]], %{{.*}} : index
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %[[K:.*]] : index
// CHECK: %[[SPAN:.*]] = arith.select %[[RUNS]]
// CHECK: %[[PART:.*]] = arith.ceildivui %[[SPAN]], %{{.*}} : index
// CHECK: %[[MINE:.*]] = arith.muli %[[RANK]], %[[PART]] : index
// CHECK: %[[FIRST:.*]] = arith.minui %[[MINE]], %[[SPAN]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[SPAN]], %[[FIRST]] : index
// CHECK: %[[TRIPS:.*]] = arith.minui %[[LEFT]], %[[PART]] : index
// CHECK: tile.pipelined %[[J:.*]] = %{{.*}} to %[[TRIPS]]
// CHECK: arith.addi %[[FIRST]], %[[J]] : index
// CHECK: tile.split_sum
module attributes {tile.target = "sm_90a"} {
  func.func @run_time_sizes(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %m = memref.dim %A, %c0 : memref<?x?xf16>
    %k = memref.dim %A, %c1 : memref<?x?xf16>
    %n = memref.dim %B, %c1 : memref<?x?xf16>
    %gx = arith.ceildivui %n, %c128 : index
    %gy = arith.ceildivui %m, %c64 : index
    %ktiles = arith.ceildivui %k, %c64 : index
    tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      %m0 = arith.muli %by, %c64 : index
      %n0 = arith.muli %bx, %c128 : index
      tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {split = 4}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%m0, %k0], %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %n0], %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
    }
    return
  }
}

// -----

// Weights widened by the threads into a register tile, wgmma's A (a W4A16-style product with the
// weights' rows as M): each step writes the tile whole before its gemm reads it, so nothing but
// the accumulator crosses steps and the loop splits as asked.
// CHECK-LABEL: func.func @register_weights
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%{{.*}}, %{{.*}}) attributes {tile.splits = 4 : i64
// CHECK: tile.pipelined
// CHECK: tile.parallel
// CHECK: tile.gemm %[[WD:.*]], %{{.*}}, %[[CT:.*]] {transpose_b}
// CHECK: tile.split_sum %[[CT]]
module attributes {tile.target = "sm_90a"} {
  func.func @register_weights(%A: memref<16x8192xf16>, %W: memref<64x8192xi8>, %C: memref<16x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
      %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %c128 stages(4) attributes {tile.schedule = {split = 4}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<16x8192xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Wq : memref<64x8192xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
        tile.parallel (%i, %j) in (64, 64) {
          %q = memref.load %Wq[%i, %j] : memref<64x64xi8, #gpu.address_space<workgroup>>
          %w = arith.sitofp %q : i8 to f16
          memref.store %w, %Wd[%i, %j] : memref<64x64xf16, #tile.fragment>
        }
        tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
      }
      tile.parallel (%i, %j) in (64, 16) {
        %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %Cs[%j, %i] : memref<16x64xf16, #gpu.address_space<workgroup>>
      }
      tile.copy %Cs, %C[%c0, %c0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf16>
    }
    return
  }
}

// -----

// A step's product (filled before its gemm, so no step reads another's) scaled by the step's
// scale and added into the sum element by element, as a group-quantized or block-scaled GEMM
// does: the sum is the steps' additions in any split, so the loop splits as asked and the sum,
// not the step's product, is added up in the cluster.
// CHECK-LABEL: func.func @scaled_products
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%{{.*}}, %{{.*}}) attributes {tile.splits = 4 : i64
// CHECK: %[[T:.*]] = tile.alloc_fragment {{.*}}: memref<64x16xf32
// CHECK: %[[CT:.*]] = tile.alloc_fragment {{.*}}: memref<64x16xf32
// CHECK: tile.pipelined
// CHECK: tile.fill %[[T]]
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[T]] {transpose_b}
// CHECK: math.fma
// CHECK: memref.store %{{.*}}, %[[CT]]
// CHECK: }
// CHECK: }
// CHECK-NOT: tile.split_sum %[[T]]
// CHECK: tile.split_sum %[[CT]]
// CHECK-NOT: tile.split_sum
module attributes {tile.target = "sm_90a"} {
  func.func @scaled_products(%A: memref<16x8192xf16>, %W: memref<64x8192xf16>, %S: memref<128xf32>, %C: memref<16x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
      %Ws = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %T = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %c128 stages(4) attributes {tile.schedule = {split = 4}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.fill %T, %zero : memref<64x16xf32, #tile.fragment>
        tile.copy %A[%c0, %k0], %As : memref<16x8192xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Ws : memref<64x8192xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %Ws, %As, %T {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
        %s = memref.load %S[%kt] : memref<128xf32>
        tile.parallel (%i, %j) in (64, 16) {
          %t = memref.load %T[%i, %j] : memref<64x16xf32, #tile.fragment>
          %c = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
          %u = math.fma %t, %s, %c : f32
          memref.store %u, %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        }
      }
      tile.parallel (%i, %j) in (64, 16) {
        %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %C[%j, %i] : memref<16x64xf16>
      }
    }
    return
  }
}

