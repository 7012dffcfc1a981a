// Kernels outside the GEMM family compile for sm_90a (and gfx942) with the plain strategy: no
// tensor cores, tiles in shared memory, and each fragment op lowered by its layout with the
// fragments in per-thread registers (tile-to-registers.mlir has the rules). The manifest says so,
// and lists the tensors as memref descriptors.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s --check-prefix=AMD

// A 64x64 row maximum on 64 threads: 64 registers of the tile and 16 row maxima a thread; a row
// spans 16 lanes, combined by shuffles (warps on sm_90a, 64-lane waves on gfx942).
// CHECK-LABEL: func.func @row_max
// CHECK: gpu.module @row_max_0_module attributes {tile.manifest = "{{.*}}\22target\22: \22sm_90a\22, \22strategy\22: \22registers\22
// CHECK: gpu.func @row_max_0_kernel(%{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: gpu.thread_id x
// CHECK: memref.alloca() : memref<64xf32, #gpu.address_space<private>>
// CHECK: memref.alloca() : memref<16xf32, #gpu.address_space<private>>
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor
// AMD: \22target\22: \22gfx942\22, \22strategy\22: \22registers\22
// AMD: gpu.func @row_max_0_kernel(%{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// AMD: gpu.shuffle  xor
func.func @row_max(%X: memref<64x64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %S : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.copy %m, %Y[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// -----

// min_blocks_per_multiprocessor asks NVIDIA's code generator for registers few enough for that many
// blocks a multiprocessor (.minnctapersm; the known block size gives .maxntid, once); gfx942
// ignores it.
// CHECK-LABEL: gpu.func @occupancy_0_kernel
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32}
// AMD-LABEL: gpu.func @occupancy_0_kernel
// AMD-NOT: minctasm
func.func @occupancy(%X: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(256) (%b) attributes {min_blocks_per_multiprocessor = 2 : i64} {
    %f = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    tile.copy %X[%c0], %f : memref<256xf32>, memref<256xf32, #tile.fragment>
    tile.copy %f, %X[%c0] : memref<256xf32, #tile.fragment>, memref<256xf32>
  }
  return
}
