// tile-compile --target gfx942: AMDGCN assembly with mfma and LDS traffic, no scratch, for every
// example whose tiles fit the LDS, unchanged from what sm_90a compiles. Every kernel is lowered op by op: 16-byte global
// loads and LDS writes for the copies into LDS, mfma for the gemms.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for f in %examples/*.mlir; do case $f in *flash_mla_decode*|*linear_attention*|*block_sparse_attention*|*flash_attention_bwd*) continue ;; esac; tile-compile $f --target gfx942 -o %t || exit 1; done
// MLA decode's tiles (154 KiB), chunked linear attention's (88 KiB) and the 128x128 blocks of
// block-sparse attention (96 KiB) and FlashAttention backward's (84 KiB) do not fit the LDS; a located error
// says so.
// RUN: not tile-compile %examples/flash_mla_decode.mlir --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not tile-compile %examples/linear_attention.mlir --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not tile-compile %examples/block_sparse_attention.mlir --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not tile-compile %examples/flash_attention_bwd.mlir --target gfx942 -o %t 2>&1 | FileCheck %s --check-prefix=LDS
// LDS: .mlir:{{[0-9]+}}:3: error: 'tile.kernel' op needs {{[0-9]+}} bytes of workgroup memory for its tiles {{.*}} but gfx942 allows 65536 (the LDS of one workgroup); use smaller tiles (target gfx942)
// RUN: FileCheck %s < %t/gemm_relu_0_kernel.s
// The accumulator goes to C through LDS, in 16-byte stores (no 2-byte store of C is left).
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t/gemm_relu_0_kernel.s
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t/gemm_bf16_0_kernel.s
// RUN: FileCheck %s --check-prefix=BF16 < %t/gemm_bf16_0_kernel.s
// RUN: cat %t/*.s | FileCheck %s --check-prefix=ALL
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// The kernels of the register rules (attention, the MLP chain, the GEMM reading a bias and a
// residual) run their gemms on mfma too (the mfma rule), A and B read from LDS 8 bytes at a time
// where K is contiguous.
// RUN: FileCheck %s --check-prefix=REGS < %t/attention_d64_f16_0_kernel.s
// RUN: FileCheck %s --check-prefix=REGS < %t/mlp_chain_0_kernel.s
// RUN: FileCheck %s --check-prefix=REGS < %t/gemm_bias_residual_0_kernel.s
// RUN: FileCheck %s --check-prefix=REGS-BF16 < %t/attention_d128_bf16_3_kernel.s
// With lld-22 installed, each kernel also becomes an HSA code object.
// RUN: llvm-readelf -h --notes %t/gemm_relu_0_kernel.hsaco | FileCheck %s --check-prefix=OBJECT
// Row reductions of the accumulator (a softmax epilogue): lane butterflies (gpu.shuffle, here
// ds_swizzle) within a wave, partial rows exchanged between the two waves along N through LDS,
// one place per wave and row (the lanes that already combined share it): the LDS is the padded
// tiles' 9 KiB and 512 bytes of exchange.
// RUN: tile-compile %S/../../test/programs/gemm_row_softmax.mlir --target gfx942 -o %t
// RUN: FileCheck %s --check-prefix=ROWS < %t/gemm_row_softmax_0_kernel.s
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx942})' | FileCheck %s --check-prefix=PIPELINE
// The host side is lowered too: the launch, through MLIR's GPU runtime wrappers once translated.
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx942})' | FileCheck %s --check-prefix=HOST
// RUN: tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx942})' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: not tile-opt %examples/gemm_relu.mlir --pass-pipeline='builtin.module(tile-to-rocdl{chip=gfx90a})' 2>&1 | FileCheck %s --check-prefix=CHIP

// OBJECT: Type: DYN (Shared object file)
// OBJECT: Machine: EM_AMDGPU
// OBJECT: .name: gemm_relu_0_kernel
// OBJECT: amdhsa.target: amdgcn-amd-amdhsa--gfx942

// ROWS: v_mfma_f32_32x32x8_f16
// ROWS: ds_swizzle_b32
// ROWS: v_max_f32
// ROWS: ds_write{{.*}}_b32
// ROWS: s_barrier
// ROWS: v_exp_f32
// ROWS: ds_swizzle_b32
// ROWS: v_add_f32
// ROWS: .group_segment_fixed_size: 9728
// ROWS: .private_segment_fixed_size: 0

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// The LDS rows are padded by 8 bytes (72-byte rows): A's 16-byte runs are written as two 8-byte
// halves in one instruction; B (KxN) is stored transposed, each thread writing 4 rows of K at a
// time (8 bytes); each lane reads 8 elements of K of A and of B a pair of K steps (ds_read2_b64).
// CHECK-DAG: global_load_dwordx4
// CHECK-DAG: ds_write2_b64
// CHECK-DAG: ds_read2_b64
// CHECK-DAG: v_mfma_f32_32x32x8_f16
// CHECK-NOT: ds_read_u16
// One copy of the 128x32 A and 32x128 B tiles (f16, rows of 32 + 4): the next step waits in
// registers.
// CHECK: .group_segment_fixed_size: 18432
// CHECK: .private_segment_fixed_size: 0
// CHECK: .vgpr_spill_count: 0

// EPILOGUE-NOT: global_store_short
// EPILOGUE: global_store_dwordx4
// EPILOGUE-NOT: global_store_short
// EPILOGUE: .end_amdhsa_kernel

// BF16: v_mfma_f32_32x32x8_bf16

// REGS-DAG: ds_read{{2?}}_b64
// REGS-DAG: v_mfma_f32_32x32x8_f16
// REGS: .private_segment_fixed_size: 0
// REGS-BF16: v_mfma_f32_32x32x8_bf16

// No example spills or uses scratch.
// ALL-NOT: .private_segment_fixed_size: {{[1-9]}}
// ALL-NOT: .vgpr_spill_count: {{[1-9]}}

// JSON: "target": "gfx942", "strategy": "registers", "workgroup_size": [128, 1, 1], "grid": [32, 32, 1], "shared_bytes": 18432

// HOST: llvm.func @gemm_relu(
// HOST: gpu.launch_func @gemm_relu_0_module::@gemm_relu_0_kernel blocks in
// LLVMIR: call void @mgpuLaunchKernel
// PIPELINE: gpu.binary @gemm_relu_0_module
// PIPELINE-SAME: v_mfma_f32_32x32x8_f16

// CHIP: error: tile-to-rocdl failed: chip gfx90a is not supported yet; supported: gfx942
