// tile-compile returns the tile kernels' code and launch manifests; a launcher runs kernels, each
// with the grid its manifest computes, and nothing around them. A launch under host control flow
// cannot be described (a function's kernels run in order: both of an scf.if, a loop's once, which
// gave tile-run's Vulkan run 2X for X): an error at the op around it, on every target, and nothing
// is written. Other host work is not run: a warning at it, the kernels written.
// RUN: rm -rf %t && split-file %s %t && mkdir -p %t/out %t/warned
// RUN: not tile-compile %t/choice.mlir --target sm_90a -o %t/out 2>&1 | FileCheck %s --check-prefix=CHOICE
// RUN: not tile-compile %t/choice.mlir --target gfx942 -o %t/out 2>&1 | FileCheck %s --check-prefix=CHOICE-AMD
// RUN: not tile-compile %t/choice.mlir --target spirv -o %t/out 2>&1 | FileCheck %s --check-prefix=CHOICE-SPIRV
// RUN: not tile-run %t/choice.mlir --target vulkan --check 2>&1 | FileCheck %s --check-prefix=CHOICE-SPIRV
// RUN: ls %t/out | count 0
// RUN: tile-run %t/choice.mlir --check 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: tile-compile %t/store.mlir --target sm_90a -o %t/warned 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: ls %t/warned | count 2

// CHOICE: choice.mlir:8:3: error: 'scf.if' op launches tile kernels under host control flow, which a launch manifest cannot describe (a launcher runs kernels, each with the grid its manifest computes, and nothing around them); launch them from the function's top level and choose between them in the caller, or lower the module with the tile-to-nvvm{chip=sm_90a} pipeline, whose host code keeps it
// CHOICE: choice.mlir:30:3: error: 'scf.for' op launches tile kernels under host control flow
// CHOICE-NOT: kernel(s)
// CHOICE-AMD: choice.mlir:8:3: error: 'scf.if' op {{.*}} with the tile-to-rocdl{chip=gfx942} pipeline
// CHOICE-SPIRV: choice.mlir:8:3: error: 'scf.if' op {{.*}} with the tile-to-spirv{chip=spirv} pipeline
// The CPU reference runs the host function itself (tile-run): the choice is made.
// CPU: check %arg1: match
// STORE: store.mlir:5:3: warning: 'memref.store' op is host code, which a launcher does not run (the compiler returns the tile kernels' code and launch manifests only); do it in a tile.kernel or in the caller, or lower the module with the tile-to-nvvm{chip=sm_90a} pipeline, whose host code keeps it
// STORE: 1 kernel(s) for sm_90a written

//--- choice.mlir
func.func @two_ways(%X: memref<?xf32>, %Y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c64 : index
  %small = arith.cmpi ult, %n, %c1000 : index
  scf.if %small {
    tile.kernel grid(%blocks) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %c64i = arith.constant 64 : index
        %base = arith.muli %b, %c64i : index
        %at = arith.addi %base, %i : index
        %x = memref.load %X[%at] : memref<?xf32>
        memref.store %x, %Y[%at] : memref<?xf32>
      }
    }
  } else {
    tile.kernel grid(%blocks) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %c64i = arith.constant 64 : index
        %base = arith.muli %b, %c64i : index
        %at = arith.addi %base, %i : index
        %x = memref.load %X[%at] : memref<?xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %Y[%at] : memref<?xf32>
      }
    }
  }
  scf.for %r = %c0 to %c64 step %c64 {
    tile.kernel grid(%blocks) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %c64i = arith.constant 64 : index
        %base = arith.muli %b, %c64i : index
        %at = arith.addi %base, %i : index
        %y = memref.load %Y[%at] : memref<?xf32>
        memref.store %y, %Y[%at] : memref<?xf32>
      }
    }
  }
  return
}

//--- store.mlir
func.func @host_store(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %X[%c0] : memref<64xf32>
  tile.kernel grid(%c1) threads(64) (%b) {
    tile.parallel (%i) in (64) {
      %x = memref.load %X[%i] : memref<64xf32>
      memref.store %x, %Y[%i] : memref<64xf32>
    }
  }
  return
}
