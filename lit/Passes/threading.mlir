// tile-canonicalize gives the same result on one thread and on many (the pass is cloned per
// function when nested under func.func).
// RUN: tile-opt %s --pass-pipeline='builtin.module(func.func(tile-canonicalize))' > %t.threads
// RUN: tile-opt %s --pass-pipeline='builtin.module(func.func(tile-canonicalize))' --mlir-disable-threading > %t.single
// RUN: diff %t.threads %t.single
// RUN: FileCheck %s < %t.threads

// CHECK-LABEL: func.func @f0
// CHECK-COUNT-1: tile.fill
// CHECK-LABEL: func.func @f1
// CHECK-COUNT-1: tile.fill
// CHECK-LABEL: func.func @f2
// CHECK-COUNT-1: tile.fill
// CHECK-LABEL: func.func @f3
// CHECK-COUNT-1: tile.fill
// CHECK-NOT: tile.fill

func.func @f0(%C: memref<64x64xf32>, %n: index) {
  %a = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<8x8xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
func.func @f1(%C: memref<64x64xf32>, %n: index) {
  %a = arith.constant 1.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<8x8xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
func.func @f2(%C: memref<64x64xf32>, %n: index) {
  %a = arith.constant 2.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<8x8xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
func.func @f3(%C: memref<64x64xf32>, %n: index) {
  %a = arith.constant 3.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.fill %F, %a : memref<8x8xf32, #tile.fragment>
    tile.copy %F, %C[%bx, %bx] : memref<8x8xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
