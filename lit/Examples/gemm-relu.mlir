// The contract's example program parses, verifies, round-trips in custom and generic form, and is
// left unchanged by tile-canonicalize (nothing in it is dead).
// RUN: tile-opt %examples/gemm_relu.mlir | FileCheck %s
// RUN: tile-opt %examples/gemm_relu.mlir -mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %examples/gemm_relu.mlir > %t.plain
// RUN: tile-opt %examples/gemm_relu.mlir -tile-canonicalize > %t.canon
// RUN: diff %t.plain %t.canon

// CHECK-LABEL: func.func @gemm_relu
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) threads(128) (%[[BX:.*]], %[[BY:.*]]) {
// CHECK-NEXT: %[[AS:.*]] = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[BS:.*]] = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[CF:.*]] = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
// CHECK-NEXT: tile.fill %[[CF]], %{{.*}} : memref<128x128xf32, #tile.fragment>
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} stages(3) {
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[AS]]
// CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[BS]]
// CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]]
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (128, 128) {
// CHECK-NEXT: memref.load %[[CF]][%[[I]], %[[J]]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.store
// CHECK: tile.copy %[[CF]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
