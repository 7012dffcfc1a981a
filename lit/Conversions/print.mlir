// tile.print on each target that prints. The CPU reference calls the print functions tile-run
// defines (the message a constant global of its bytes, the block, the element's index, the value
// widened to f64 or i64); NVIDIA chips call gpu.printf (CUDA's vprintf) from the block's first
// thread with the same line's format, a tile's elements in row-major loops between barriers; a
// fragment in registers goes through a workgroup scratch tile first.
// RUN: tile-opt %s -split-input-file -convert-tile-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s --check-prefix=NV

// CPU-DAG: memref.global "private" constant @tile_print_message_{{[0-9]}} : memref<4xi8> = dense<[104, 97, 108, 102]>
// CPU-DAG: func.func private @tile_print_float(memref<?xi8>, i64, i64, i64, i64, i64, i64, i64, i64, f64)
// CPU-LABEL: func.func @scalar_and_shared_tile
// CPU: arith.extf %{{.*}} : f16 to f32
// CPU: arith.extf %{{.*}} : f32 to f64
// CPU: %[[C:.*]] = arith.constant -1 : i64
// CPU: func.call @tile_print_float(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C]],
// CPU: scf.for
// CPU: scf.for
// CPU: %[[R:.*]] = arith.constant 2 : i64
// CPU: func.call @tile_print_float(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[R]],
// NV-LABEL: gpu.func @scalar_and_shared_tile_0_kernel
// NV: gpu.barrier
// NV-NEXT: %[[T:.*]] = gpu.thread_id  x
// NV-NEXT: arith.constant 0 : index
// NV-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// NV: scf.if %[[FIRST]] {
// NV: gpu.printf "half block (%lld, %lld, %lld): %g\0A", %{{.*}} : i64, i64, i64, f64
// NV: gpu.barrier
// NV: scf.if
// NV: scf.for
// NV: scf.for
// NV: gpu.printf "tile 100%% block (%lld, %lld, %lld) [%lld, %lld]: %g\0A", %{{.*}} : i64, i64, i64, i64, i64, f64
// NV: gpu.barrier
func.func @scalar_and_shared_tile(%n: index) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f16
  tile.kernel grid(%n) threads(64) (%b) {
    %S = tile.alloc_shared : memref<4x8xf32, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<4x8xf32, #gpu.address_space<workgroup>>
    tile.print "half", %half : f16
    tile.print "tile 100%", %S : memref<4x8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// An integer prints as i64; a fragment in registers: its slots to a scratch tile, then the first
// thread prints the scratch.
// CPU-LABEL: func.func @integer_and_fragment
// CPU: arith.extsi %{{.*}} : i8 to i64
// CPU: func.call @tile_print_int
// NV-LABEL: gpu.module @integer_and_fragment_0_module
// NV-SAME: \22strategy\22: \22registers\22
// NV: gpu.printf "count block (%lld, %lld, %lld): %lld\0A"
// NV: memref.store %{{.*}}, %[[SCRATCH:.*]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// NV: gpu.barrier
// NV: scf.if
// NV: memref.load %[[SCRATCH]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// NV: gpu.printf "scores block (%lld, %lld, %lld) [%lld, %lld]: %g\0A"
// NV: gpu.barrier
func.func @integer_and_fragment(%X: memref<4x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %count = arith.constant -3 : i8
  tile.kernel grid(%n) threads(32) (%b) {
    %F = tile.alloc_fragment : memref<4x8xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<4x8xf32>, memref<4x8xf32, #tile.fragment>
    tile.print "count", %count : i8
    tile.print "scores", %F : memref<4x8xf32, #tile.fragment>
  }
  return
}
