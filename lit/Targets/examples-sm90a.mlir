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
// The attention example's 4-D tensors: 4-D TMA loads into its rings.
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Accumulators into 16-bit tensors go out by TMA (2-D and, for attention's output, 4-D boxes).
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group

// The dynamic example: its grid is an expression over the tensors' sizes (its tiles' count, the
// blocks taking them in groups of grid rows), its tensors memref descriptors, its tiles filled by
// TMA through maps the launcher encodes from those sizes.
// DYNAMIC: "strategy": "registers"
// DYNAMIC-SAME: "grid": [{"op": "arith.muli", "args": [{"op": "arith.ceildivui", "args": [{"dim": [1, 1]}, 256]}, {"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}]}, 1, 1]
// DYNAMIC-SAME: "kind": "tensor_map", "host_argument": 0, "shape": [null, null]
