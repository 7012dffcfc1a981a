// What a target cannot build is refused at the op before lowering (issue 11): 8-bit floats no
// target converts yet, host memrefs outside the default memory space. Never an AMDGCN serialization
// error located nowhere or a failed translation. (Math ops: the math passes' own lit files.)
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s -split-input-file -convert-tile-to-spirv 2>&1 | FileCheck %s --check-prefix=VK
// RUN: not tile-opt %s -split-input-file -convert-tile-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU

// NV: unsupported.mlir:[[# @LINE + 8]]:5: error: 'tile.copy' op uses f8E4M3FN, which sm_90a does not lower yet (no 8-bit float conversions); use f16 or f32
// AMD: unsupported.mlir:[[# @LINE + 7]]:5: error: 'tile.copy' op uses f8E4M3FN, which gfx942 does not lower yet
// CPU: unsupported.mlir:[[# @LINE + 6]]:5: error: 'tile.copy' op uses f8E4M3FN, which the CPU reference does not lower yet
func.func @fp8(%X: memref<64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %f : memref<64xf8E4M3FN>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// Host code is lowered to LLVM on every GPU target: a host memref in #gpu.address_space<global> has
// no LLVM address space there (upstream's error was located nowhere).
// NV: unsupported.mlir:[[# @LINE + 3]]:1: error: expects the host function's memrefs in the default memory space (a launch passes plain device pointers), but argument 0 is memref<16x16xf32, #gpu.address_space<global>>
// AMD: unsupported.mlir:[[# @LINE + 2]]:1: error: expects the host function's memrefs in the default memory space
// VK: unsupported.mlir:[[# @LINE + 1]]:1: error: expects the host function's memrefs in the default memory space
func.func @global_space(%f: memref<16x16xf32, #gpu.address_space<global>>) {
  return
}
