// The register lowering's rules for tile.scan of fragments. Where each line lies in the lanes of a
// warp, in chunks of consecutive elements (f32, NVIDIA and AMD), each thread scans its chunk and
// the lanes combine their chunks' totals by shuffles up; otherwise each thread stores its elements
// into a scratch tile of the kernel's workgroup memory, the block meets, the lines are scanned there (a
// line a thread, carrying the running sum), the block meets, each thread loads its elements back
// into its registers, and the block meets again before the scratch can be written anew. A scan
// between a fragment and a shared tile has no rule: the kernel takes the plain lowering, and the
// warning says why at the scan.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>/dev/null | FileCheck %s --check-prefixes=CHECK,NV
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVWARN
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMDWARN
// NVWARN-NOT: registers-scan.mlir:[[# @LINE + 26]]
// AMDWARN-NOT: registers-scan.mlir:[[# @LINE + 25]]

// CHECK-LABEL: gpu.func @cumsum_0_kernel
// NV: %[[SCRATCH:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// AMD: workgroup(%[[SCRATCH:.*]] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: %[[REGISTERS:.*]] = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
// CHECK: %[[MINE:.*]] = memref.load %[[REGISTERS]]
// CHECK: memref.store %[[MINE]], %[[SCRATCH]][%{{.*}}] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[SCRATCH]][%[[I]]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[NEXT]], %[[SCRATCH]][%[[I]]]
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK: gpu.barrier
// CHECK: %[[BACK:.*]] = memref.load %[[SCRATCH]][%{{.*}}]
// CHECK: memref.store %[[BACK]], %[[REGISTERS]]
// CHECK: gpu.barrier
// CHECK-NOT: tile.scan
func.func @cumsum(%X: memref<16x256xf32>, %Y: memref<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c16) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.copy %X[%b, %c0], %F : memref<16x256xf32>, memref<256xf32, #tile.fragment>
    tile.scan <sum> %F, %F dim(0) : memref<256xf32, #tile.fragment>, memref<256xf32, #tile.fragment>
    tile.copy %F, %Y[%b, %c0] : memref<256xf32, #tile.fragment>, memref<16x256xf32>
  }
  return
}

// -----

// NVWARN: registers-scan.mlir:[[# @LINE + 10]]:5: warning: 'tile.scan' op scans between a fragment and a shared tile, which the register lowering has no rule for (scan fragment into fragment), so on sm_90a the kernel's fragments live in private or workgroup memory instead of registers (correct, slower)
// AMDWARN: registers-scan.mlir:[[# @LINE + 9]]:5: warning: 'tile.scan' op scans between a fragment and a shared tile, which the register lowering has no rule for (scan fragment into fragment), so on gfx942
// CHECK-LABEL: gpu.func @from_shared_0_kernel
func.func @from_shared(%X: memref<16x256xf32>, %Y: memref<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  tile.kernel grid(%c16) threads(128) (%b) {
    %S = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.copy %X[%b, %c0], %S : memref<16x256xf32>, memref<256xf32, #gpu.address_space<workgroup>>
    tile.scan <sum> %S, %F dim(0) : memref<256xf32, #gpu.address_space<workgroup>>, memref<256xf32, #tile.fragment>
    tile.copy %F, %Y[%b, %c0] : memref<256xf32, #tile.fragment>, memref<16x256xf32>
  }
  return
}

// -----

// A row scan of a 16x32 tile on 128 threads: each row's 32 elements lie in 8 consecutive lanes, 4
// a lane. A lane scans its 4 elements (3 additions), the lanes combine their totals in 3 shuffles
// up (1, 2, 4 lanes) where the source lane is in the row, and a fourth shuffle brings each lane the
// total of the lanes before it (0 in a row's first lane: the scan is exclusive). No scratch, no
// barrier.
// NV-LABEL: gpu.func @row_cumsum_0_kernel
// NV-COUNT-3: arith.addf
// NV: arith.remui %thread_id_x, %c8{{.*}} : index
// NV: gpu.shuffle  up %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// NV: gpu.shuffle  up %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// NV: gpu.shuffle  up %{{.*}}, %c4_i32{{.*}}, %c32_i32{{.*}} : f32
// NV: %[[BEFORE:.*]], %{{.*}} = gpu.shuffle  up %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// NV-NEXT: arith.select %{{.*}}, %[[BEFORE]], %{{.*}} : f32
// NV-NOT: gpu.barrier
// NV: gpu.return
func.func @row_cumsum(%X: memref<16x32xf32>, %Y: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<16x32xf32>, memref<16x32xf32, #tile.fragment>
    tile.scan <sum> %F, %F dim(1) {exclusive} : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
    tile.copy %F, %Y[%c0, %c0] : memref<16x32xf32, #tile.fragment>, memref<16x32xf32>
  }
  return
}
