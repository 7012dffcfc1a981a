// tile-compile --target sm_80: PTX for Ampere (and, compiled by the driver, every later NVIDIA
// chip) with mma.sync and none of Hopper's instructions, and a manifest a launcher can use.
// RUN: rm -rf %t && tile-compile %examples/gemm_relu.mlir --target sm_80 -o %t | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_relu_0_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// RUN: rm -rf %t.fa && tile-compile %examples/flash_attention.mlir --target sm_80 -o %t.fa 2>&1 | FileCheck %s --check-prefix=FA-SUMMARY
// RUN: FileCheck %s --check-prefix=FA < %t.fa/attention_d64_f16_0_kernel.ptx

// SUMMARY: gemm_relu.mlir: 1 kernel(s) for sm_80 written to

// The 128x128 accumulator on four warps (2 x 2, each 64x64: 8 x 8 instruction tiles), two K
// steps of 16 a 32-deep K tile: 64 mma.sync a loop trip; the tiles arrive by the threads' copies,
// no TMA, no wgmma, no mbarrier.
// PTX: .target sm_80
// PTX: .visible .entry gemm_relu_0_kernel(
// PTX-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: mma.sync
// PTX-NOT: wgmma
// PTX-NOT: cp.async.bulk
// PTX-NOT: mbarrier
// PTX-NOT: setmaxnreg

// JSON: "entry": "gemm_relu_0_kernel"
// JSON-SAME: "target": "sm_80", "strategy": "registers", "workgroup_size": [128, 1, 1], "grid": [32, 32, 1]
// JSON-NOT: tensor_map

// The four FlashAttention kernels compile without a warning: both products of each on mma.sync.
// FA-SUMMARY-NOT: warning
// FA-SUMMARY: flash_attention.mlir: 4 kernel(s) for sm_80 written to
// FA: .target sm_80
// FA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FA-NOT: wgmma
