// A loop that carries a fragment held in registers, on lavapipe, for trip counts 0 to 3 (the block
// index): the block that runs no iteration writes the fill. Upstream's scf-to-spirv returns loop
// results through variables that only the loop's body stores to; with the fragment's private array
// promoted to the loop's iteration argument, block 0 wrote 0 instead of 1.5 until
// tile-spirv-guard-empty-loops put the loop under a branch on its trip count (lit
// Passes/tile-spirv-guard-empty-loops.mlir).
// RUN: tile-run %s --target vulkan --check --against interp | FileCheck %s

// CHECK: @empty_loop_results ran on {{.*}} (Vulkan) in
// CHECK: check %arg0: match
func.func @empty_loop_results(%Y: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %fill = arith.constant 1.5 : f32
  tile.kernel grid(%c4) threads(64) (%b) {
    %acc = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.fill %acc, %fill : memref<1x64xf32, #tile.fragment>
    scf.for %i = %c0 to %b step %c1 {
      tile.parallel (%r, %j) in (1, 64) {
        %v = memref.load %acc[%r, %j] : memref<1x64xf32, #tile.fragment>
        %w = arith.addf %v, %v : f32
        memref.store %w, %acc[%r, %j] : memref<1x64xf32, #tile.fragment>
      }
    }
    tile.copy %acc, %Y[%b, %c0] : memref<1x64xf32, #tile.fragment>, memref<4x64xf32>
  }
  return
}
