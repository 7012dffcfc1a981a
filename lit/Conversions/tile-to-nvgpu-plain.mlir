// Kernels outside the GEMM family compile for sm_90a with the plain strategy (the loops of the CPU
// reference shared by the block's threads, tiles in shared memory, fragments each thread touches only
// at its own elements in private attributions): correct, not fast. The manifest says so, and lists
// the tensors as memref descriptors.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s --check-prefix=AMD

// CHECK-LABEL: func.func @row_max
// CHECK: gpu.module @row_max_0_module attributes {tile.manifest = "{{.*}}\22target\22: \22sm_90a\22, \22strategy\22: \22plain\22
// CHECK: gpu.func @row_max_0_kernel(%{{.*}}: memref<64x64xf32>, %{{.*}}: memref<64xf32>) workgroup(%[[S:.*]] : memref<64x64xf32, #gpu.address_space<workgroup>>) private(%[[M:.*]] : memref<1xf32, #gpu.address_space<private>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: gpu.thread_id x
// CHECK: gpu.barrier
// CHECK: arith.maximumf
// AMD: \22target\22: \22gfx942\22, \22strategy\22: \22plain\22
// AMD: workgroup({{.*}}) private(
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
