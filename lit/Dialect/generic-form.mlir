// Tile IR written in generic form (as a frontend might emit it) parses, verifies and prints in
// custom form.
// RUN: tile-opt %s | FileCheck %s

// CHECK-LABEL: func.func @generic
// CHECK: tile.kernel grid(%{{.*}}) threads(128) (%[[BX:.*]]) {
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} stages(2) {
// CHECK: tile.copy %{{.*}}[%[[K]], %[[BX]]], %{{.*}} : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK: tile.reduce <absmax> %{{.*}}, %{{.*}} dim(0) {clear = false}
func.func @generic(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    %S = "tile.alloc_shared"() : () -> memref<64x32xf16, #gpu.address_space<workgroup>>
    %m = "tile.alloc_fragment"() : () -> memref<32xf32, #tile.fragment>
    %F = "tile.alloc_fragment"() : () -> memref<64x32xf32, #tile.fragment>
    "tile.pipelined"(%c0, %n) <{stages = 2 : i64}> ({
    ^bb0(%k: index):
      "tile.copy"(%A, %k, %bx, %S) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0>}> : (memref<?x?xf16>, index, index, memref<64x32xf16, #gpu.address_space<workgroup>>) -> ()
      "tile.yield"() : () -> ()
    }) : (index, index) -> ()
    "tile.reduce"(%F, %m) <{kind = #tile.reduction<absmax>, dim = 0 : i64, clear = false}> : (memref<64x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>) -> ()
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}
