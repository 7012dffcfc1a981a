// Another frontend's kernel with 2-D vector transfers goes through the AMD pipeline:
// tile-vector-to-scf lowers them to loops of 1-D transfers there (convert-vector-to-llvm lowers
// only those), as upstream's convert-vector-to-scf did, while the tile kernels, which hold no
// transfer, skip it (lit Passes/tile-vector-to-scf.mlir). (The NVIDIA pipeline lowers the loops
// too, but its convert-gpu-to-nvvm leaves their `vector.type_cast` of a private vector unconverted,
// as it did after upstream's pass: a known gap, bench/RESULTS.md 2026-12-02.)
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-rocdl)' | FileCheck %s --check-prefix=ROCDL

// ROCDL: gpu.binary @copy_kernel [#gpu.object<#rocdl.target
// ROCDL-NOT: gpu.launch blocks
func.func @copy(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %t = vector.transfer_read %A[%c0, %c0], %pad : memref<8x8xf32>, vector<8x8xf32>
    vector.transfer_write %t, %B[%c0, %c0] : vector<8x8xf32>, memref<8x8xf32>
    gpu.terminator
  }
  return
}
