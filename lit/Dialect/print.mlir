// tile.print: scalars (index, integers, floats) and tiles (fragments, shared tiles) with a message;
// it prints back as it parses.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @scalars_and_tiles
// CHECK: tile.print "block", %{{.*}} : index
// CHECK: tile.print "count", %{{.*}} : i32
// CHECK: tile.print "scale", %{{.*}} : f16
// CHECK: tile.print "scores", %{{.*}} : memref<16x32xf32, #tile.fragment>
// CHECK: tile.print "keys 100%", %{{.*}} : memref<32x64xbf16, #gpu.address_space<workgroup>>
func.func @scalars_and_tiles(%n: index, %count: i32, %scale: f16) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %S = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.print "block", %b : index
    tile.print "count", %count : i32
    tile.print "scale", %scale : f16
    tile.print "scores", %F : memref<16x32xf32, #tile.fragment>
    tile.print "keys 100%", %S : memref<32x64xbf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// In a pipelined loop: each step prints.
// CHECK-LABEL: func.func @in_a_loop
// CHECK: tile.pipelined
// CHECK: tile.print "step", %{{.*}} : index
func.func @in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%n) threads(128) (%b) {
    tile.pipelined %k = %c0 to %c4 stages(1) {
      tile.print "step", %k : index
    }
  }
  return
}
