// What a target cannot build is refused at the op before lowering (issue 11): an f8E4M3FN gemm
// no matrix instruction takes (sm_90a's wgmma takes it only with whole warpgroups; sm_80's
// mma.sync not at all; gfx942 runs it on the f16 mfma, its operands widened), host memrefs outside the
// default memory space. Never an AMDGCN serialization error located nowhere or a failed
// translation. (Math ops: the math passes' own lit files.)
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not tile-opt %s -split-input-file -convert-tile-to-nvgpu-sm80 2>&1 | FileCheck %s --check-prefix=AMP
// RUN: not tile-opt %s -split-input-file -convert-tile-to-amdgpu 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s -split-input-file -convert-tile-to-spirv 2>&1 | FileCheck %s --check-prefix=VK
// RUN: not tile-opt %s -split-input-file -convert-tile-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU

// NV: unsupported.mlir:[[# @LINE + 14]]:5: error: 'tile.gemm' op multiplies f8E4M3FN, which sm_90a runs on wgmma alone
// AMP: unsupported.mlir:[[# @LINE + 13]]:5: error: 'tile.gemm' op multiplies f8E4M3FN, which sm_80 has no matrix instruction for (mma.sync takes f16, bf16 and i8): widen the operands to f16 in a tile.parallel (exact: every f8E4M3FN value is an f16 one) and multiply those, or compile for sm_90a, whose wgmma takes f8E4M3FN
// AMD-NOT: warning: 'tile.gemm' op multiplies f8E4M3FN
// AMD: gpu.func @fp8_0_kernel
// AMD: arith.extf %{{.*}} : vector<4xf8E4M3FN> to vector<4xf16>
// AMD: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// (Copies, conversions and elementwise work on f8E4M3FN lower everywhere: the values as bytes.)
func.func @fp8(%X: memref<32x32xf8E4M3FN>, %Y: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %s = tile.alloc_shared : memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %f = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %s : memref<32x32xf8E4M3FN>, memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.gemm %s, %s, %f {transpose_b} : memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
    tile.copy %f, %Y[%c0, %c0] : memref<32x32xf32, #tile.fragment>, memref<32x32xf32>
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
// there, its one thread issues TMA copies only (a plain tile of a tensor whose sizes are known at
// run time only is not TMA's).
// NV: unsupported.mlir:[[# @LINE + 16]]:9: error: 'tile.copy_async' op is in a tile.producer, whose one thread issues TMA copies only, but TMA does not fill this tile on sm_90a
// AMP: unsupported.mlir:[[# @LINE + 12]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not sm_80; compile for sm_90a, or expand the pipeline without producer = "warpgroup"
// AMD: unsupported.mlir:[[# @LINE + 11]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not gfx942; compile for sm_90a, or expand the pipeline without producer = "warpgroup"
// VK: unsupported.mlir:[[# @LINE + 10]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not spirv
// CPU: unsupported.mlir:[[# @LINE + 9]]:5: error: 'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only sm_90a gives it, not the CPU reference
func.func @producer(%K: memref<?x64xf32>, %O: memref<32x64xf32>) {
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
        tile.copy_async %K[%c0, %c0], %tile, %full[%k] : memref<?x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%k] : memref<2xi64, #gpu.address_space<workgroup>>
      }
    }
    tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    %first = tile.slot %ring[%c0] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %first, %O[%c0, %c0] : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<32x64xf32>
  }
  return
}

// -----

// A kernel that runs as a thread block cluster (a decision of sm_90a's passes, here in the
// input) is refused where the target has no clusters; the CPU reference runs its blocks alone.
// AMP: unsupported.mlir:[[# @LINE + 7]]:3: error: 'tile.kernel' op runs as a thread block cluster (tile.multicast is set, which tile-persistent-kernels (a schedule with multicast = N) writes), which only sm_90a has, not sm_80; compile for sm_90a, or drop the attribute
// AMD: unsupported.mlir:[[# @LINE + 6]]:3: error: 'tile.kernel' op runs as a thread block cluster (tile.multicast is set, which tile-persistent-kernels (a schedule with multicast = N) writes), which only sm_90a has, not gfx942
// VK: unsupported.mlir:[[# @LINE + 5]]:3: error: 'tile.kernel' op runs as a thread block cluster (tile.multicast is set, which tile-persistent-kernels (a schedule with multicast = N) writes), which only sm_90a has, not spirv
// NV-NOT: error: 'tile.kernel' op runs as a thread block cluster
// CPU-NOT: error: 'tile.kernel' op runs as a thread block cluster
func.func @clustered() {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.multicast = 2} {
  }
  return
}
