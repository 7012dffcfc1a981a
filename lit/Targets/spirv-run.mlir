// tile-compile --target spirv writes a binary spirv-val accepts; tile-run runs it on the first Vulkan
// device (lavapipe in CI) and --check compares every output element with the CPU reference.
// RUN: rm -rf %t && tile-compile %S/../../test/programs/row_softmax.mlir --target spirv -o %t
// RUN: spirv-val --target-env vulkan1.3 %t/row_softmax_0_kernel.spv
// RUN: FileCheck %s --check-prefix=JSON < %t/row_softmax_0_kernel.json
// RUN: tile-run %S/../../test/programs/gemm_ragged_relu.mlir --target vulkan --check --seed 9 | FileCheck %s

// JSON: "entry": "row_softmax_0_kernel", "host_function": "row_softmax", "target": "spirv", "strategy": "registers", "workgroup_size": [64, 1, 1], "grid": [3, 1, 1]
// JSON-SAME: "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [24, 64], "element": "f32", "written": false}, {"set": 0, "binding": 1, "host_argument": 1, "shape": [24, 64], "element": "f32", "written": true}]

// CHECK: @small ran on {{.*}} (Vulkan) in
// CHECK-NEXT: output %arg2 [100, 90] f16: checksum {{.*}}, 0 unwritten
// CHECK-NEXT: check %arg2: match, worst relative error
