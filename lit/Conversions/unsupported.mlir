// What a target cannot build is refused at the op before lowering (issue 11): math ops it cannot
// build without a math library (PTX has no libdevice here, AMDGCN no ocml), 8-bit floats no target
// converts yet, host memrefs outside the default memory space. Never a PTX kernel calling an
// unresolved __nv_erff, an AMDGCN serialization error located nowhere, or a failed translation.
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s -split-input-file -convert-tile-to-spirv 2>&1 | FileCheck %s --check-prefix=VK
// RUN: not tile-opt %s -split-input-file -convert-tile-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU

// NV: unsupported.mlir:[[# @LINE + 12]]:12: error: 'math.erf' op is not lowered for sm_90a yet (it would call a math library the code cannot link); supported math ops there: absf, exp, log, sqrt, trunc
// AMD: unsupported.mlir:[[# @LINE + 11]]:12: error: 'math.erf' op is not lowered for gfx942 yet
// VK: unsupported.mlir:[[# @LINE + 10]]:12: error: 'math.erf' op is not lowered for spirv yet
// CPU: unsupported.mlir:[[# @LINE + 9]]:12: error: 'math.erf' op is not lowered for the CPU reference yet
func.func @erf(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %f : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %f[%i] : memref<64xf32, #tile.fragment>
      %e = math.erf %v : f32
      memref.store %e, %f[%i] : memref<64xf32, #tile.fragment>
    }
    tile.copy %f, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// -----

// GPU targets take f32 math: an f16 exponential would call __nv_expf on a half.
// NV: unsupported.mlir:[[# @LINE + 11]]:12: error: 'math.exp' op on f16 is not supported on sm_90a: math ops take f32 there (extend with arith.extf)
// AMD: unsupported.mlir:[[# @LINE + 10]]:12: error: 'math.exp' op on f16 is not supported on gfx942
// CPU-NOT: math.exp
func.func @exp_f16(%X: memref<64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    tile.copy %X[%c0], %f : memref<64xf16>, memref<64xf16, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %f[%i] : memref<64xf16, #tile.fragment>
      %e = math.exp %v : f16
      memref.store %e, %f[%i] : memref<64xf16, #tile.fragment>
    }
    tile.copy %f, %X[%c0] : memref<64xf16, #tile.fragment>, memref<64xf16>
  }
  return
}

// -----

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

// -----

// arith.remf is fmod: a libdevice/ocml call on sm_90a and gfx942 (an AMDGCN error about a missing
// ROCm bitcode path, located nowhere), OpFRem in SPIR-V.
// NV: unsupported.mlir:[[# @LINE + 10]]:12: error: 'arith.remf' op is not lowered for sm_90a yet (it would call a math library the code cannot link)
// AMD: unsupported.mlir:[[# @LINE + 9]]:12: error: 'arith.remf' op is not lowered for gfx942 yet
func.func @remainder(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c1) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %f[%i] : memref<64xf32, #tile.fragment>
      %r = arith.remf %v, %two : f32
      memref.store %r, %f[%i] : memref<64xf32, #tile.fragment>
    }
    tile.copy %f, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
