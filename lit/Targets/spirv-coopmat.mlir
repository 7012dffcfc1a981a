// tile-compile --target spirv-coopmat writes SPIR-V on KHR cooperative matrices in the Vulkan memory
// model, which spirv-val (SPIRV-Tools 2025.5: Debian 12's predates the extension) accepts, and a
// manifest that names the strategy and the subgroup width the code assumes. Every example that fits
// compiles; the others are refused with what would work.
// REQUIRES: spirv-val-coopmat
// RUN: rm -rf %t && tile-compile %examples/gemm_relu.mlir --target spirv-coopmat -o %t
// RUN: tile-compile %examples/gemm_ragged_relu.mlir --target spirv-coopmat -o %t
// RUN: tile-compile %examples/softmax.mlir --target spirv-coopmat -o %t
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/gemm_relu_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/gemm_ragged_relu_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/softmax_0_kernel.spv
// RUN: %spirv_dis_coopmat %t/gemm_relu_0_kernel.spv | FileCheck %s --check-prefix=SPV
// Kernels the GEMM template does not take (attention, the MLP chain) run on the register rules,
// their gemms on cooperative matrices through a workgroup staging area: valid SPIR-V too.
// RUN: tile-compile %S/../../test/programs/attention_small.mlir --target spirv-coopmat -o %t 2>/dev/null
// RUN: tile-compile %examples/mlp_chain.mlir --target spirv-coopmat -o %t 2>/dev/null
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/attention_small_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/mlp_chain_0_kernel.spv
// RUN: %spirv_dis_coopmat %t/attention_small_0_kernel.spv | FileCheck %s --check-prefix=REGS
// RUN: %spirv_dis_coopmat %t/mlp_chain_0_kernel.spv | FileCheck %s --check-prefix=REGS
// RUN: FileCheck %s --check-prefix=REGSJSON < %t/attention_small_0_kernel.json
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// RUN: not tile-compile %examples/gemm_bf16.mlir --target spirv-coopmat -o %t 2>&1 | FileCheck %s --check-prefix=BF16
// The lavapipe in CI has no cooperative matrices: tile-run says so.
// RUN: not tile-run %S/../../test/programs/gemm_ragged_relu.mlir --target vulkan-coopmat 2>&1 | FileCheck %s --check-prefix=RUNERR
// RUN: not tile-run %S/../../test/programs/attention_small.mlir --target vulkan-coopmat 2>&1 | FileCheck %s --check-prefix=RUNERR-REGS

// SPV: OpCapability CooperativeMatrixKHR
// SPV: OpCapability VulkanMemoryModel
// SPV: OpMemoryModel Logical Vulkan
// SPV: OpCooperativeMatrixLoadKHR
// SPV: OpCooperativeMatrixMulAddKHR
// SPV: OpCooperativeMatrixStoreKHR
// REGS: OpCapability CooperativeMatrixKHR
// REGS: OpMemoryModel Logical Vulkan
// REGS: OpCooperativeMatrixLoadKHR
// REGS: OpCooperativeMatrixMulAddKHR
// REGS: OpCooperativeMatrixStoreKHR
// REGS: OpCooperativeMatrixLoadKHR
// REGS: OpCooperativeMatrixMulAddKHR
// REGS: OpCooperativeMatrixStoreKHR
// The reductions that exchange through workgroup memory share one scratch tile.
// REGSJSON: "strategy": "registers", "workgroup_size": [64, 1, 1], "grid": [4, 1, 1], "shared_bytes": 11264
// JSON: "entry": "gemm_relu_0_kernel", "host_function": "gemm_relu", "target": "spirv-coopmat", "strategy": "cooperative-matrix", "workgroup_size": [128, 1, 1], "subgroup_size": 32, "grid": [32, 32, 1], "shared_bytes": 23040
// JSON-SAME: "tile": {"m": 128, "n": 128, "k": 32, "subgroups": [2, 2], "matrix": "16x16x16", "transpose_b": false}
// BF16: error: 'tile.pipelined' op cannot be lowered for spirv-coopmat: expects f16 inputs for 16x16x16 cooperative matrices on spirv-coopmat, but got bf16
// RUNERR-REGS: error: attention_small_0_kernel uses cooperative matrices, but {{.*}} lacks VK_KHR_cooperative_matrix
// RUNERR: error: small_0_kernel uses cooperative matrices, but {{.*}} lacks VK_KHR_cooperative_matrix (or the Vulkan memory model); compile for target spirv instead
