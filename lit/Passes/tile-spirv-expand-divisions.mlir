// tile-spirv-expand-divisions: the rounding integer divisions upstream's arith-to-SPIR-V
// conversion lacks, as divisions, comparisons and selects; everything else stays. The SPIRV run
// converts the result upstream (before the pass, `arith.ceildivui` fails to legalize there).
// RUN: tile-opt %s -split-input-file -tile-spirv-expand-divisions | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile-spirv-expand-divisions), convert-gpu-to-spirv)' | FileCheck %s --check-prefix=SPIRV

// ceildivui a, b: 0 where a is 0, else (a - 1) / b + 1.
// CHECK-LABEL: gpu.func @ceil_unsigned
// CHECK: %[[A:.*]] = gpu.block_id x
// CHECK: %[[B:.*]] = gpu.block_dim x
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[BELOW:.*]] = arith.subi %[[A]], %[[ONE]] : index
// CHECK: %[[Q:.*]] = arith.divui %[[BELOW]], %[[B]] : index
// CHECK: %[[UP:.*]] = arith.addi %[[Q]], %[[ONE]] : index
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[A]], %[[ZERO]] : index
// CHECK: %[[R:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[UP]] : index
// CHECK-NOT: arith.ceildivui
// CHECK: memref.store %{{.*}}, %arg0
// SPIRV: spirv.UDiv
// SPIRV-NOT: ceildiv
module attributes {gpu.container_module} {
  gpu.module @ceil_unsigned [#spirv.target_env<#spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>] {
    gpu.func @ceil_unsigned(%out: memref<1xi32>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %a = gpu.block_id x
      %b = gpu.block_dim x
      %q = arith.ceildivui %a, %b : index
      %v = arith.index_cast %q : index to i32
      memref.store %v, %out[%c0] : memref<1xi32>
      gpu.return
    }
  }
}

// -----

// ceildivsi rounds up where the signs agree and the division is inexact; floordivsi rounds down
// where they differ.
// CHECK-LABEL: gpu.func @signed
// CHECK: %[[Q:.*]] = arith.divsi %[[A:.*]], %[[B:.*]] : i32
// CHECK: %[[P:.*]] = arith.muli %[[Q]], %[[B]] : i32
// CHECK: %[[INEXACT:.*]] = arith.cmpi ne, %[[P]], %[[A]] : i32
// CHECK: %[[AN:.*]] = arith.cmpi slt, %[[A]], %{{.*}} : i32
// CHECK: %[[BN:.*]] = arith.cmpi slt, %[[B]], %{{.*}} : i32
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[AN]], %[[BN]] : i1
// CHECK: %[[UP:.*]] = arith.andi %[[INEXACT]], %[[SAME]] : i1
// CHECK: arith.select %[[UP]], %{{.*}}, %[[Q]] : i32
// CHECK: %[[Q2:.*]] = arith.divsi
// CHECK: %[[DIFFER:.*]] = arith.xori
// CHECK: %[[DOWN:.*]] = arith.andi %{{.*}}, %[[DIFFER]] : i1
// CHECK: arith.select %[[DOWN]], %{{.*}}, %[[Q2]] : i32
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// SPIRV: spirv.SDiv
// SPIRV-NOT: ceildiv
// SPIRV-NOT: floordiv
module attributes {gpu.container_module} {
  gpu.module @signed [#spirv.target_env<#spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>] {
    gpu.func @signed(%out: memref<2xi32>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %x = gpu.block_id x
      %y = gpu.thread_id x
      %a = arith.index_cast %x : index to i32
      %t = arith.index_cast %y : index to i32
      %c5 = arith.constant -5 : i32
      %b = arith.addi %t, %c5 : i32
      %up = arith.ceildivsi %a, %b : i32
      %down = arith.floordivsi %a, %b : i32
      memref.store %up, %out[%c0] : memref<2xi32>
      memref.store %down, %out[%c1] : memref<2xi32>
      gpu.return
    }
  }
}
