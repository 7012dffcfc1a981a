// tile-compile --target spirv-coopmat writes SPIR-V on KHR cooperative matrices in the Vulkan memory
// model, which spirv-val (SPIRV-Tools 2025.5: Debian 12's predates the extension) accepts, and a
// manifest that names the strategy and the subgroup width the code assumes. Every kernel is lowered
// op by op (no GEMM template): f16 gemms on cooperative matrices, the GEMMs' accumulators held in
// matrices across the main loop, their tiles copied through vector views of the tensors.
// Every example that fits compiles; the others are refused with what would work.
// REQUIRES: spirv-val-coopmat
// RUN: rm -rf %t && tile-compile %examples/gemm_relu.mlir --target spirv-coopmat -o %t
// RUN: tile-compile %examples/gemm_ragged_relu.mlir --target spirv-coopmat -o %t
// RUN: tile-compile %examples/softmax.mlir --target spirv-coopmat -o %t
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/gemm_relu_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/gemm_ragged_relu_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/softmax_0_kernel.spv
// RUN: %spirv_dis_coopmat %t/gemm_relu_0_kernel.spv | FileCheck %s --check-prefix=SPV
// Attention and the MLP chain: the same rules, valid SPIR-V too.
// RUN: tile-compile %S/../../test/programs/attention_small.mlir --target spirv-coopmat -o %t 2>/dev/null
// RUN: tile-compile %examples/mlp_chain.mlir --target spirv-coopmat -o %t 2>/dev/null
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/attention_small_0_kernel.spv
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/mlp_chain_0_kernel.spv
// RUN: %spirv_dis_coopmat %t/attention_small_0_kernel.spv | FileCheck %s --check-prefix=REGS
// RUN: %spirv_dis_coopmat %t/mlp_chain_0_kernel.spv | FileCheck %s --check-prefix=REGS
// RUN: FileCheck %s --check-prefix=REGSJSON < %t/attention_small_0_kernel.json
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_relu_0_kernel.json
// RUN: tile-compile %examples/gemm_bf16.mlir --target spirv-coopmat -o %t 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: %spirv_val_coopmat --target-env vulkan1.3 %t/gemm_bf16_0_kernel.spv
// RUN: tile-compile %S/../../test/programs/gemm_transpose_b_bf16.mlir --target spirv-coopmat --emit spirv-module -o %t 2>/dev/null
// RUN: FileCheck %s --check-prefix=BF16-BITS < %t/gemm_tb_0_kernel.spirv.mlir
// The lavapipe in CI has no cooperative matrices: tile-run says so.
// RUN: not tile-run %S/../../test/programs/gemm_ragged_relu.mlir --target vulkan-coopmat 2>&1 | FileCheck %s --check-prefix=RUNERR
// RUN: not tile-run %S/../../test/programs/attention_small.mlir --target vulkan-coopmat 2>&1 | FileCheck %s --check-prefix=RUNERR-REGS

// SPV: OpCapability CooperativeMatrixKHR
// SPV: OpCapability VulkanMemoryModel
// SPV: OpMemoryModel Logical Vulkan
// Two variables per tensor the copies read: the tensor and its vector view, on one binding.
// SPV-DAG: OpDecorate %{{.*}} Binding 0
// SPV-DAG: OpDecorate %{{.*}} Binding 0
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
// Row reductions shuffle within 32-wide subgroups: the manifest asks for that width.
// REGSJSON: "strategy": "registers", "workgroup_size": [64, 1, 1], "subgroup_size": 32, "grid": [4, 1, 1], "shared_bytes": 10240
// The A and B tiles with rows padded by 8 elements (10 KiB and 8.5 KiB) and the area the held
// accumulator is staged through once, 4 matrices of each of the 4 subgroups at a time (16 KiB).
// JSON: "entry": "gemm_relu_0_kernel", "host_function": "gemm_relu", "target": "spirv-coopmat", "strategy": "registers", "workgroup_size": [128, 1, 1], "subgroup_size": 32, "grid": [32, 32, 1], "shared_bytes": 35328
// bf16 tiles hold 16-bit integers (tile-emulate-small-floats); the gemm runs without cooperative matrices.
// BF16: gemm_bf16.mlir:23:7: warning: 'tile.gemm' op multiplies bf16 by bf16 into f32; cooperative matrices on spirv-coopmat take f16 x f16 -> f32
// BF16: 1 kernel(s) for spirv-coopmat written
// Every view of a bf16 tensor holds its bits, the wide copies' vector views too (in f32 words
// they were read as other numbers).
// BF16-BITS: @gemm_tb_0_kernel_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<1920 x i16, stride=2> [0])>, StorageBuffer>
// BF16-BITS: @gemm_tb_0_kernel_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<3200 x i16, stride=2> [0])>, StorageBuffer>
// BF16-BITS: @gemm_tb_0_kernel_arg_3 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<480 x vector<4xi16>, stride=8> [0])>, StorageBuffer>
// RUNERR-REGS: attention_small.mlir:13:3: error: 'tile.kernel' op attention_small_0_kernel uses cooperative matrices, but {{.*}} lacks VK_KHR_cooperative_matrix
// RUNERR: gemm_ragged_relu.mlir:10:3: error: 'tile.kernel' op small_0_kernel uses cooperative matrices, but {{.*}} lacks VK_KHR_cooperative_matrix (or the Vulkan memory model); compile for target spirv instead
