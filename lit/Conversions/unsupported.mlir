// What a target cannot build is refused at the op before lowering (issue 11): 8-bit floats the
// GPU targets do not convert (sm_90a takes them only as wgmma operands; sm_80 and gfx942 not at all), host memrefs outside the default
// memory space. Never an AMDGCN serialization
// error located nowhere or a failed translation. (Math ops: the math passes' own lit files.)
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu-sm80 2>&1 | FileCheck %s --check-prefix=AMP
// RUN: not tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s -split-input-file -convert-tile-to-spirv 2>&1 | FileCheck %s --check-prefix=VK
// RUN: not tile-opt %s -split-input-file -convert-tile-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU

// NV: unsupported.mlir:[[# @LINE + 9]]:5: error: 'tile.copy' op uses f8E4M3FN, which sm_90a lowers only as wgmma operands (shared tiles that copies from f8E4M3FN tensors fill and gemms read; no 8-bit float conversions yet); use f16 or f32
// AMP: unsupported.mlir:[[# @LINE + 8]]:5: error: 'tile.copy' op uses f8E4M3FN, which sm_80 does not lower yet (no 8-bit float conversions); use f16 or f32
// AMD: unsupported.mlir:[[# @LINE + 7]]:5: error: 'tile.copy' op uses f8E4M3FN, which gfx942 does not lower yet
// (The CPU reference holds them as bytes: tile-emulate-small-floats.)
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
// NV: unsupported.mlir:[[# @LINE + 4]]:1: error: expects the host function's memrefs in the default memory space (a launch passes plain device pointers), but argument 0 is memref<16x16xf32, #gpu.address_space<global>>
// AMP: unsupported.mlir:[[# @LINE + 3]]:1: error: expects the host function's memrefs in the default memory space
// AMD: unsupported.mlir:[[# @LINE + 2]]:1: error: expects the host function's memrefs in the default memory space
// VK: unsupported.mlir:[[# @LINE + 1]]:1: error: expects the host function's memrefs in the default memory space
func.func @global_space(%f: memref<16x16xf32, #gpu.address_space<global>>) {
  return
}

// -----

// A producer needs a warpgroup of its own beside the kernel's threads, which only sm_90a gives it;
// there, its one thread issues TMA copies only (an f32 tile is not TMA's).
// NV: unsupported.mlir:[[# @LINE + 16]]:9: error: 'tile.copy_async' op is in a tile.producer, whose one thread issues TMA copies only, but TMA does not fill this tile on sm_90a
// AMP: unsupported.mlir:[[# @LINE + 12]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not sm_80; compile for sm_90a, or expand the pipeline without producer = "warpgroup"
// AMD: unsupported.mlir:[[# @LINE + 11]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not gfx942; compile for sm_90a, or expand the pipeline without producer = "warpgroup"
// VK: unsupported.mlir:[[# @LINE + 10]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not spirv
// CPU: unsupported.mlir:[[# @LINE + 9]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not the CPU reference
func.func @producer(%K: memref<256x64xf32>, %O: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf32, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.producer {
      scf.for %k = %c0 to %c2 step %c1 {
        %tile = tile.slot %ring[%k] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
        tile.copy_async %K[%c0, %c0], %tile, %full[%k] : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%k] : memref<2xi64, #gpu.address_space<workgroup>>
      }
    }
    tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    %first = tile.slot %ring[%c0] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %first, %O[%c0, %c0] : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<32x64xf32>
  }
  return
}
