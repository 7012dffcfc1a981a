// tile-compile returns the tile kernels' code only, so another frontend's GPU code beside them (a
// gpu.launch, an outlined gpu.module and its gpu.launch_func) would be dropped with exit status 0:
// it is an error at each such op, naming the pipeline that lowers both, and nothing is written.
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: not tile-compile %s --target sm_90a -o %t/out 2>&1 | FileCheck %s --check-prefixes=CHECK,NVVM
// RUN: not tile-compile %s --target gfx942 -o %t/out 2>&1 | FileCheck %s --check-prefixes=CHECK,ROCDL
// RUN: not tile-compile %s --target spirv -o %t/out 2>&1 | FileCheck %s --check-prefixes=CHECK,SPIRV
// RUN: not tile-compile %s --target spirv-coopmat -o %t/out 2>&1 | FileCheck %s --check-prefixes=CHECK,COOPMAT
// RUN: ls %t/out | count 0

// NVVM: tile-compile-foreign.mlir:[[# @LINE + 21]]:3: error: 'gpu.launch' op is GPU code outside a tile.kernel, which the compiler does not return (it returns the tile kernels' code only); lower a module that also holds other GPU code with the tile-to-nvvm{chip=sm_90a} pipeline, which lowers both
// ROCDL: tile-compile-foreign.mlir:[[# @LINE + 20]]:3: error: 'gpu.launch' op {{.*}} with the tile-to-rocdl{chip=gfx942} pipeline
// SPIRV: tile-compile-foreign.mlir:[[# @LINE + 19]]:3: error: 'gpu.launch' op {{.*}} with the tile-to-spirv{chip=spirv} pipeline
// COOPMAT: tile-compile-foreign.mlir:[[# @LINE + 18]]:3: error: 'gpu.launch' op {{.*}} with the tile-to-spirv{chip=spirv-coopmat} pipeline
// CHECK: tile-compile-foreign.mlir:[[# @LINE + 27]]:1: error: 'gpu.module' op is GPU code outside a tile.kernel
// CHECK: tile-compile-foreign.mlir:[[# @LINE + 39]]:3: error: 'gpu.launch_func' op is GPU code outside a tile.kernel
// CHECK-NOT: kernel(s)

func.func @scale(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%bx, %bx], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Y[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

func.func @other(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %A[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

module attributes {gpu.container_module} {
gpu.module @outlined {
  gpu.func @twice(%A: memref<64xf32>) kernel {
    %tx = gpu.thread_id x
    %v = memref.load %A[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%tx] : memref<64xf32>
    gpu.return
  }
}

func.func @launch_outlined(%A: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch_func @outlined::@twice blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%A : memref<64xf32>)
  return
}
}
