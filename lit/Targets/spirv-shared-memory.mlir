// Vulkan devices differ in their workgroup memory (lavapipe 32 KiB, NVIDIA's driver 48 KiB, Vulkan
// guarantees 16 KiB): a SPIR-V module says its device's with tile.shared_memory_bytes (or
// tile-compile --shared-memory), which the workgroup-memory check and the target environment's
// max_compute_shared_memory_size follow. The chips' targets refuse it: their limit is the chip's.
// RUN: tile-opt %s -split-input-file -convert-tile-to-spirv | FileCheck %s
// RUN: rm -rf %t && tile-compile %S/Inputs/wide_rows.mlir --target spirv --shared-memory 49152 -o %t | FileCheck %s --check-prefix=COMPILE
// RUN: not tile-compile %S/Inputs/wide_rows.mlir --target spirv -o %t.default 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not tile-compile %S/Inputs/wide_rows.mlir --target spirv --shared-memory 1000 -o %t.small 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tile-compile %S/Inputs/wide_rows.mlir --target sm_90a --shared-memory 49152 -o %t.nv 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-compile %S/Inputs/wide_rows.mlir --target spirv --shared-memory lots -o %t.bad 2>&1 | FileCheck %s --check-prefix=USAGE
// A device with less than the module says (lavapipe): tile-run refuses the kernel at its tile.kernel.
// RUN: not tile-run %s --target vulkan 2>&1 | FileCheck %s --check-prefix=DEVICE

// 40 KiB of tiles: more than lavapipe's 32 KiB, within the 48 KiB the module gives its device.
// CHECK-LABEL: gpu.module @wide_rows_0_module
// CHECK-SAME: max_compute_shared_memory_size = 49152
// CHECK: gpu.func @wide_rows_0_kernel
// DEFAULT: error: 'tile.kernel' op needs 40960 bytes of workgroup memory for its tiles (shared tiles, and fragments the threads share, live there in the plain SPIR-V strategy), but the SPIR-V lowering allows 32768 (lavapipe's limit; a module for a device with more sets tile.shared_memory_bytes); use smaller tiles (target spirv)
// COMPILE: wide_rows.mlir: 1 kernel(s) for spirv written to
// RANGE: wide_rows.mlir:1:1: error: the module has tile.shared_memory_bytes = 1000, but expects 16384 to 232448 bytes for spirv (Vulkan guarantees 16384; the default is 32768)
// CHIP: wide_rows.mlir:1:1: error: the module has tile.shared_memory_bytes = 49152, but sm_90a's workgroup memory is the chip's (232448 bytes); only spirv or spirv-coopmat take the device's limit from the module
// DEVICE: spirv-shared-memory.mlir:[[#@LINE+6]]:3: error: 'tile.kernel' op wide_rows_0_kernel needs 40960 bytes of workgroup memory, but llvmpipe
// USAGE: --shared-memory expects the bytes of workgroup memory a block may use on the device, but got lots
module attributes {tile.shared_memory_bytes = 49152 : i64} {
func.func @wide_rows(%X: memref<64x160xf32>, %Y: memref<64x160xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x160xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%c0, %c0], %S : memref<64x160xf32>, memref<64x160xf32, #gpu.address_space<workgroup>>
    tile.copy %S, %Y[%c0, %c0] : memref<64x160xf32, #gpu.address_space<workgroup>>, memref<64x160xf32>
  }
  return
}
}
