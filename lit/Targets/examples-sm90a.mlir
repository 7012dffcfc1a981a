// Every example compiles for sm_90a: PTX with wgmma and TMA, and a manifest per kernel.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for f in %examples/*.mlir; do tile-compile $f --target sm_90a -o %t || exit 1; done
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: cat %t/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: FileCheck %s --check-prefix=DYNAMIC < %t/gemm_dynamic_0_kernel.json

// FILES-DAG: attention_scores_0_kernel.ptx
// FILES-DAG: gemm_256_threads_0_kernel.ptx
// FILES-DAG: gemm_bf16_0_kernel.ptx
// FILES-DAG: gemm_dynamic_0_kernel.json
// FILES-DAG: gemm_ragged_relu_0_kernel.ptx
// FILES-DAG: gemm_relu_0_kernel.ptx
// FILES-DAG: gemm_transpose_b_0_kernel.ptx

// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// The attention example's 4-D tensors: 4-D TMA loads and stores.
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group

// The dynamic example: grid and trip count are expressions over the tensors' sizes. It is
// persistent: min(tiles, 132) blocks, the tile grid passed as the last two parameters.
// DYNAMIC: "grid": [{"op": "arith.minui", "args": [{"op": "arith.muli", "args": [{"op": "arith.ceildivui", "args": [{"dim": [1, 1]}, 256]}, {"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}]}, 132]}, 1, 1]
// DYNAMIC-SAME: "shape": [null, null]
// DYNAMIC-SAME: {"role": "size", "kind": "scalar", "type": "i64", "value": {"op": "arith.ceildivui", "args": [{"dim": [0, 1]}, 64]}}
// DYNAMIC-SAME: {"role": "tiles_x", "kind": "scalar", "type": "i64", "value": {"op": "arith.ceildivui", "args": [{"dim": [1, 1]}, 256]}}
// DYNAMIC-SAME: {"role": "tiles_y", "kind": "scalar", "type": "i64", "value": {"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}}
