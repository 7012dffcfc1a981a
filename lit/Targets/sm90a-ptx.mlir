// tile-compile --target sm_90a: PTX with Hopper's instructions and a manifest a launcher can use.
// RUN: rm -rf %t && tile-compile %examples/gemm_relu.mlir --target sm_90a -o %t | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_relu_0_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// RUN: python3 -c "import json, sys; m = json.load(open(sys.argv[1])); assert m['grid'] == [32, 32, 1] and len(m['params']) == 3" %t/gemm_relu_0_kernel.json

// SUMMARY: gemm_relu.mlir: 1 kernel(s) for sm_90a written to

// PTX: .target sm_90a
// PTX: .visible .entry gemm_relu_0_kernel(
// PTX-NOT: .func
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity
// PTX-DAG: wgmma.fence.sync.aligned
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: wgmma.wait_group.sync.aligned 1
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta

// JSON: "entry": "gemm_relu_0_kernel"
// JSON-SAME: "block": [128, 1, 1]
// JSON-SAME: "dynamic_shared_bytes": 50176
// JSON-SAME: {"role": "A", "kind": "tensor_map", "host_argument": 0, "shape": [4096, 4096], "element": "f16", "box": [128, 32], "swizzle": 64, "oob_fill": "zero"}
// JSON-SAME: {"role": "B", "kind": "tensor_map", "host_argument": 1, "shape": [4096, 4096], "element": "f16", "box": [32, 64], "swizzle": 128, "oob_fill": "zero"}
// JSON-SAME: {"role": "C", "kind": "tensor_map", "host_argument": 2, "shape": [4096, 4096], "element": "f16", "box": [128, 64], "swizzle": 128, "oob_fill": "zero"}
