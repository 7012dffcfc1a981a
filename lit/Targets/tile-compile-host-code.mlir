// tile-compile returns the tile kernels' code and launch manifests; a launcher runs kernels, each
// with the grid its manifest computes. A choice between launches (scf.if on the host's integer
// arguments and tensor sizes) is each kernel's condition, `when`, which the launchers evaluate
// (manifest version 2, so that a launcher of version 1 refuses it rather than run both): before,
// both kernels of an scf.if ran, one after the other (2X for X on tile-run's Vulkan run). A launch
// under a loop, or a choice on what a launcher cannot recompute, cannot be described: an error at
// the op around it, on every target, and nothing is written. Other host work is not run: a
// warning at it, the kernels written.
// RUN: rm -rf %t && split-file %s %t && mkdir -p %t/choice %t/out %t/warned
// RUN: tile-compile %t/choice.mlir --target sm_90a -o %t/choice 2>&1 | FileCheck %s --check-prefix=CHOICE
// RUN: FileCheck %s --check-prefix=THEN < %t/choice/two_ways_0_kernel.json
// RUN: FileCheck %s --check-prefix=ELSE < %t/choice/two_ways_1_kernel.json
// RUN: FileCheck %s --check-prefix=ALWAYS < %t/choice/two_ways_2_kernel.json
// RUN: tile-run %t/choice.mlir --target vulkan --check 2>&1 | FileCheck %s --check-prefix=MATCH
// RUN: tile-run %t/choice.mlir --target vulkan --check --dynamic-size 2048 2>&1 | FileCheck %s --check-prefix=MATCH
// RUN: tile-compile %t/flag.mlir --target sm_90a -o %t/choice 2>&1 | FileCheck %s --check-prefix=FLAG-COUNT
// RUN: FileCheck %s --check-prefix=FLAG-THEN < %t/choice/on_flag_0_kernel.json
// RUN: FileCheck %s --check-prefix=FLAG-ELSE < %t/choice/on_flag_1_kernel.json
// RUN: not tile-compile %t/loop.mlir --target sm_90a -o %t/out 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not tile-compile %t/loop.mlir --target gfx942 -o %t/out 2>&1 | FileCheck %s --check-prefix=LOOP-AMD
// RUN: not tile-compile %t/loop.mlir --target spirv -o %t/out 2>&1 | FileCheck %s --check-prefix=LOOP-SPIRV
// RUN: not tile-run %t/loop.mlir --target vulkan --check 2>&1 | FileCheck %s --check-prefix=LOOP-SPIRV
// RUN: not tile-compile %t/loaded.mlir --target sm_90a -o %t/out 2>&1 | FileCheck %s --check-prefix=LOADED
// RUN: ls %t/out | count 0
// RUN: tile-compile %t/store.mlir --target sm_90a -o %t/warned 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: ls %t/warned | count 2

// CHOICE: 3 kernel(s) for sm_90a written
// THEN: "version": 2
// THEN-SAME: "when": {"op": "arith.cmpi ult", "args": [{"dim": [0, 0]}, 1000]}
// ELSE: "version": 2
// ELSE-SAME: "when": {"op": "arith.xori", "args": [{"op": "arith.cmpi ult", "args": [{"dim": [0, 0]}, 1000]}, 1]}
// ALWAYS: "version": 1
// ALWAYS-NOT: "when"
// MATCH: check %arg1: match
// A condition that is no comparison (a boolean argument: a launcher may pass true as -1) is
// compared with 0 first, so that the else branch's xor with 1 negates it.
// FLAG-COUNT: 2 kernel(s) for sm_90a written
// FLAG-THEN: "when": {"op": "arith.cmpi ne", "args": [{"argument": 1}, 0]}
// FLAG-ELSE: "when": {"op": "arith.xori", "args": [{"op": "arith.cmpi ne", "args": [{"argument": 1}, 0]}, 1]}
// LOOP: loop.mlir:5:3: error: 'scf.for' op launches tile kernels under host control flow that a launch manifest cannot describe (a launcher runs kernels, each with the grid its manifest computes where its condition holds, once); launch them from the function's top level or an scf.if, and repeat them in the caller, or lower the module with the tile-to-nvvm{chip=sm_90a} pipeline, whose host code keeps it
// LOOP-NOT: kernel(s)
// LOOP-AMD: loop.mlir:5:3: error: 'scf.for' op {{.*}} with the tile-to-rocdl{chip=gfx942} pipeline
// LOOP-SPIRV: loop.mlir:5:3: error: 'scf.for' op {{.*}} with the tile-to-spirv{chip=spirv} pipeline
// LOADED: loaded.mlir:6:3: error: 'scf.if' op chooses between tile kernel launches on a value computed by memref.load, which a launcher cannot recompute; compute the condition from the function's integer arguments and its tensors' sizes and addresses, or lower the module with the tile-to-nvvm{chip=sm_90a} pipeline, whose host code keeps it
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
  // After the choice, whichever it was: Y += 1.
  tile.kernel grid(%blocks) threads(64) (%b) {
    tile.parallel (%i) in (64) {
      %c64i = arith.constant 64 : index
      %one = arith.constant 1.0 : f32
      %base = arith.muli %b, %c64i : index
      %at = arith.addi %base, %i : index
      %y = memref.load %Y[%at] : memref<?xf32>
      %z = arith.addf %y, %one : f32
      memref.store %z, %Y[%at] : memref<?xf32>
    }
  }
  return
}

//--- flag.mlir
func.func @on_flag(%X: memref<64xf32>, %flag: i1) {
  %c1 = arith.constant 1 : index
  scf.if %flag {
    tile.kernel grid(%c1) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %x = memref.load %X[%i] : memref<64xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %X[%i] : memref<64xf32>
      }
    }
  } else {
    tile.kernel grid(%c1) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %x = memref.load %X[%i] : memref<64xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %X[%i] : memref<64xf32>
      }
    }
  }
  return
}

//--- loop.mlir
func.func @repeated(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %r = %c0 to %c3 step %c1 {
    tile.kernel grid(%c1) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %x = memref.load %X[%i] : memref<64xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %X[%i] : memref<64xf32>
      }
    }
  }
  return
}

//--- loaded.mlir
func.func @on_data(%X: memref<64xf32>, %Flag: memref<1xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %flag = memref.load %Flag[%c0] : memref<1xi1>
  // (The load is host code too: a warning at it before the error.)
  scf.if %flag {
    tile.kernel grid(%c1) threads(64) (%b) {
      tile.parallel (%i) in (64) {
        %x = memref.load %X[%i] : memref<64xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %X[%i] : memref<64xf32>
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
