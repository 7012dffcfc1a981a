// Stock mlir-opt reaches our Rust passes through --pass-pipeline once the plugin is loaded (its flags
// are built before plugins load, so -tile-canonicalize itself is not a flag there).
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin --load-pass-plugin=%tile_plugin %s --pass-pipeline='builtin.module(tile-canonicalize)' | FileCheck %s
// Nested on functions, the pass is cloned per function and may run on several threads.
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin --load-pass-plugin=%tile_plugin %s --pass-pipeline='builtin.module(func.func(tile-canonicalize))' | FileCheck %s
// Upstream -canonicalize applies the tile patterns through the op classes.
// RUN: mlir-opt --load-dialect-plugin=%tile_plugin %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @first
// CHECK: tile.fill %{{.*}}, %[[ONE:.*]] :
// CHECK-NOT: tile.fill
// CHECK: return
func.func @first(%C: memref<256x256xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %F, %one : memref<64x64xf32, #tile.fragment>
    tile.copy %F, %C[%i, %i] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// CHECK-LABEL: func.func @second
// CHECK-NOT: tile.pipelined
// CHECK: return
func.func @second(%A: memref<256x256xf16>, %i: index) {
  %c4 = arith.constant 4 : index
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c4 to %c4 stages(3) {
      tile.copy %A[%k, %k], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
