// tile-compile writes each kernel's code and versioned manifest, and with --emit spirv-module only
// the kernel's spirv.module as text (no cutting it out of the lowered module by hand).
// RUN: rm -rf %t && tile-compile %s --target spirv -o %t/code | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=JSON < %t/code/scale_0_kernel.json
// RUN: tile-compile %s --target spirv --emit spirv-module -o %t/text
// RUN: FileCheck %s --check-prefix=TEXT < %t/text/scale_0_kernel.spirv.mlir
// RUN: not ls %t/text/scale_0_kernel.spv
// RUN: not tile-compile %s --target sm_90a --emit spirv-module -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD

// WROTE: 1 kernel(s) for spirv written to
// JSON: {"version": 1, "compiler": "{{[0-9.]+}}", "entry": "scale_0_kernel", "host_function": "scale", "target": "spirv", "strategy": "{{plain|registers}}"
// TEXT: spirv.module @__spv__scale_0_module Logical GLSL450
// TEXT: spirv.func @scale_0_kernel
// TEXT-NOT: gpu.module
// BAD: error: --emit spirv-module needs a SPIR-V target, but got sm_90a

func.func @scale(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%bx, %bx], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Y[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
