// tile-compile --target sm_90a: PTX with Hopper's instructions and a manifest a launcher can use.
// RUN: rm -rf %t && tile-compile %examples/gemm_relu.mlir --target sm_90a -o %t | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_relu_0_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// RUN: python3 -c "import json, sys; m = json.load(open(sys.argv[1])); assert m['grid'] == [1024, 1, 1] and m['strategy'] == 'registers' and len(m['bindings']) == 3 and [p['swizzle'] for p in m['params']] == [64, 128, 128]" %t/gemm_relu_0_kernel.json

// SUMMARY: gemm_relu.mlir: 1 kernel(s) for sm_90a written to

// PTX: .target sm_90a
// PTX: .visible .entry gemm_relu_0_kernel(
// PTX-NOT: .func
// gemm_relu's tiles arrive by TMA: its 128x32 A tiles as one box of 64-byte rows (the 64-byte
// swizzle, read by wgmma descriptors of that swizzle mode), its 32x128 B tiles as two 32x64
// boxes (the 128-byte swizzle); 1024 tiles, a block each (four blocks share a multiprocessor);
// the accumulator goes out by TMA from the drained A ring (32-bit swizzled shared stores, a proxy
// fence, one thread's bulk stores, waited for before the area is written again and at the end).
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: cp.async.cg.shared.global
// PTX-DAG: mbarrier.try_wait.parity
// PTX-DAG: wgmma.fence.sync.aligned
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: wgmma.wait_group.sync.aligned 1
// PTX-DAG: st.shared.b32
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.commit_group
// PTX-DAG: cp.async.bulk.wait_group.read 0
// PTX-DAG: cp.async.bulk.wait_group 0
// PTX-NOT: st.global

// JSON: "entry": "gemm_relu_0_kernel"
// JSON-SAME: "strategy": "registers", "workgroup_size": [128, 1, 1], "grid": [1024, 1, 1]
// JSON-SAME: {"role": "tma", "kind": "tensor_map", "host_argument": 0, "shape": [4096, 4096], "element": "f16", "box": [128, 32], "swizzle": 64, "oob_fill": "zero"}
// JSON-SAME: {"role": "tma", "kind": "tensor_map", "host_argument": 1, "shape": [4096, 4096], "element": "f16", "box": [32, 64], "swizzle": 128, "oob_fill": "zero"}
