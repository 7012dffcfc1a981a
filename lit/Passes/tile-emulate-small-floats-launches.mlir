// tile-emulate-small-floats-launches: a kernel module's tensors of a type its target emulates
// (f8E4M3FN on sm_90a) take the type of their bits at the kernel's signature and its launches
// before tile-emulate-small-floats runs on the kernel module alone, a cast on each side, so that a
// launch matches its kernel while the host's code and the kernels are lowered apart; the
// tile-to-nvvm pipeline of tile-opt (and of the plugin in mlir-opt) then compiles fp8 programs.
// RUN: tile-opt %s -split-input-file -tile-emulate-small-floats-launches | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-emulate-small-floats-launches -arith-emulate-unsupported-floats="source-types=f8E4M3FN target-type=f32" -tile-emulate-small-floats -canonicalize | FileCheck %s --check-prefix=EMULATED
// RUN: tile-opt %S/../../test/programs/f8_values.mlir --pass-pipeline='builtin.module(tile-to-nvvm{chip=sm_90a})' | FileCheck %s --check-prefix=PIPELINE

// CHECK-LABEL: gpu.func @scale
// CHECK-SAME: (%[[BITS:.*]]: memref<64xi8>, %{{.*}}: memref<64xf32>) kernel
// CHECK-NEXT: %[[TENSOR:.*]] = builtin.unrealized_conversion_cast %[[BITS]] : memref<64xi8> to memref<64xf8E4M3FN>
// CHECK: memref.load %[[TENSOR]]
// CHECK-LABEL: func.func @host
// CHECK: %[[HOST:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<64xf8E4M3FN> to memref<64xi8>
// CHECK: gpu.launch_func @kernels::@scale {{.*}} args(%[[HOST]] : memref<64xi8>, %{{.*}} : memref<64xf32>)
// EMULATED-LABEL: gpu.func @scale
// EMULATED-SAME: (%[[BITS:.*]]: memref<64xi8>, %{{.*}}: memref<64xf32>) kernel
// EMULATED-NOT: unrealized_conversion_cast
// EMULATED: memref.load %[[BITS]]
// EMULATED-NOT: f8E4M3FN
// EMULATED-LABEL: func.func @host
// PIPELINE: gpu.binary @f8_round_trip_0_module
module attributes {gpu.container_module, tile.target = "sm_90a"} {
  gpu.module @kernels {
    gpu.func @scale(%X: memref<64xf8E4M3FN>, %Y: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %X[%i] : memref<64xf8E4M3FN>
      %y = arith.extf %x : f8E4M3FN to f32
      memref.store %y, %Y[%i] : memref<64xf32>
      gpu.return
    }
  }
  func.func @host(%X: memref<64xf8E4M3FN>, %Y: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%X : memref<64xf8E4M3FN>, %Y : memref<64xf32>)
    return
  }
}
