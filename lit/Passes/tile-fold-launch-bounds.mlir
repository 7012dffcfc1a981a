// tile-fold-launch-bounds: the comparisons of a lowered kernel that its manifest's static grid and
// block decide become constants (the canonicalization after the pass drops the branches), and the
// sizes go on the kernel's gpu.func as known_grid_size and known_block_size.
// RUN: tile-opt %s -split-input-file -tile-fold-launch-bounds | FileCheck %s

// A 4096-row tensor in 128-row tiles on a grid of 32: row (block * 128 + thread / 4) is always
// inside, its column (thread % 4 * 8 + 8) too; a row index compared with 3000 is not decided.
// CHECK-LABEL: gpu.module @static_grid
// CHECK: gpu.func @static_grid_kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 32, 1, 1>
// CHECK: %[[ROW:.*]] = arith.constant true
// CHECK-NEXT: arith.cmpi ult
// CHECK: %[[COLUMN:.*]] = arith.constant true
// CHECK-NEXT: arith.cmpi ule
// CHECK-NEXT: %[[INSIDE:.*]] = arith.andi %[[ROW]], %[[COLUMN]]
// CHECK-NEXT: scf.if %[[INSIDE]]
// CHECK: %[[OPEN:.*]] = arith.cmpi ult, %{{.*}}, %c3000
// CHECK-NEXT: scf.if %[[OPEN]]
// CHECK: %[[BEYOND:.*]] = arith.constant false
// CHECK-NEXT: arith.cmpi uge
// CHECK-NEXT: scf.if %[[BEYOND]]
module attributes {gpu.container_module} {
  gpu.module @static_grid attributes {tile.manifest = "{\22version\22: 1, \22compiler\22: \220.1.0\22, \22entry\22: \22static_grid_kernel\22, \22target\22: \22spirv\22, \22workgroup_size\22: [128, 1, 1], \22grid\22: [32, 1, 1]}"} {
    gpu.func @static_grid_kernel(%A: memref<4096x32xf32>) kernel {
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %c3000 = arith.constant 3000 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %base = arith.muli %block, %c128 : index
      %row_in = arith.divui %thread, %c4 : index
      %row = arith.addi %base, %row_in : index
      %lane = arith.remui %thread, %c4 : index
      %column = arith.muli %lane, %c8 : index
      %end = arith.addi %column, %c8 : index
      %rows = memref.dim %A, %c0 : memref<4096x32xf32>
      %row_inside = arith.cmpi ult, %row, %rows : index
      %column_inside = arith.cmpi ule, %end, %c128 : index
      %inside = arith.andi %row_inside, %column_inside : i1
      scf.if %inside {
        memref.store %cst, %A[%row, %column] : memref<4096x32xf32>
      }
      %open = arith.cmpi ult, %row, %c3000 : index
      scf.if %open {
        memref.store %cst, %A[%row, %column] : memref<4096x32xf32>
      }
      %beyond = arith.cmpi uge, %thread, %c128 : index
      scf.if %beyond {
        memref.store %cst, %A[%row, %column] : memref<4096x32xf32>
      }
      gpu.return
    }
  }
}

// -----

// A grid the host computes from a tensor's size: no known_grid_size, and the block's rows are not
// decided; the thread's bound still is (its block size is static).
// CHECK-LABEL: gpu.module @host_grid
// CHECK: gpu.func @host_grid_kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-NOT: known_grid_size
// CHECK: %[[ROWS:.*]] = arith.cmpi ult, %{{.*}}, %c4096
// CHECK-NEXT: scf.if %[[ROWS]]
// CHECK: %[[LANE:.*]] = arith.constant true
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if %[[LANE]]
module attributes {gpu.container_module} {
  gpu.module @host_grid attributes {tile.manifest = "{\22version\22: 1, \22compiler\22: \220.1.0\22, \22entry\22: \22host_grid_kernel\22, \22target\22: \22spirv\22, \22workgroup_size\22: [64, 1, 1], \22grid\22: [{\22op\22: \22arith.ceildivui\22, \22args\22: [{\22dim\22: [0, 0]}, 64]}, 1, 1]}"} {
    gpu.func @host_grid_kernel(%A: memref<4096xf32>) kernel {
      %c64 = arith.constant 64 : index
      %c4096 = arith.constant 4096 : index
      %cst = arith.constant 0.0 : f32
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %base = arith.muli %block, %c64 : index
      %row = arith.addi %base, %thread : index
      %inside = arith.cmpi ult, %row, %c4096 : index
      scf.if %inside {
        memref.store %cst, %A[%row] : memref<4096xf32>
      }
      %lane_inside = arith.cmpi slt, %thread, %c64 : index
      scf.if %lane_inside {
        memref.store %cst, %A[%thread] : memref<4096xf32>
      }
      gpu.return
    }
  }
}

// -----

// Narrow integers wrap sooner: a sum of i8 values up to 127 + 127 is not known to stay below 127
// (it wraps), so the comparison stays; the same sum in i32 is decided.
// CHECK-LABEL: gpu.module @narrow
// CHECK: %[[WRAPS:.*]] = arith.cmpi sle, %{{.*}}, %c127_i8
// CHECK-NEXT: scf.if %[[WRAPS]]
// CHECK: %[[BELOW:.*]] = arith.constant true
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if %[[BELOW]]
module attributes {gpu.container_module} {
  gpu.module @narrow attributes {tile.manifest = "{\22version\22: 1, \22compiler\22: \220.1.0\22, \22entry\22: \22narrow_kernel\22, \22target\22: \22spirv\22, \22workgroup_size\22: [128, 1, 1], \22grid\22: [1, 1, 1]}"} {
    gpu.func @narrow_kernel(%A: memref<4xf32>) kernel {
      %c127_i8 = arith.constant 127 : i8
      %c300_i32 = arith.constant 300 : i32
      %cst = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : index
      %thread = gpu.thread_id x
      %t8 = arith.index_castui %thread : index to i8
      %sum8 = arith.addi %t8, %t8 : i8
      %small = arith.cmpi sle, %sum8, %c127_i8 : i8
      scf.if %small {
        memref.store %cst, %A[%c0] : memref<4xf32>
      }
      %t32 = arith.index_castui %thread : index to i32
      %sum32 = arith.addi %t32, %t32 : i32
      %below = arith.cmpi slt, %sum32, %c300_i32 : i32
      scf.if %below {
        memref.store %cst, %A[%c0] : memref<4xf32>
      }
      gpu.return
    }
  }
}

// -----

// A prefetch in a K loop of 128 steps: step k + 1 is loaded only where k + 1 < 128 (the guard), so
// inside it (k + 1) * 32 + the thread's column (up to 24) + 8 is at most 4096 and the run is
// inside; the same test outside the guard (k + 1 up to 128) is not decided, nor one in its else.
// CHECK-LABEL: gpu.module @guarded
// CHECK: %[[NEXT:.*]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[NEXT]]
// CHECK: %[[INSIDE:.*]] = arith.constant true
// CHECK-NEXT: arith.cmpi ule
// CHECK-NEXT: scf.if %[[INSIDE]]
// CHECK: } else {
// CHECK: %[[ELSE:.*]] = arith.cmpi ule
// CHECK-NEXT: scf.if %[[ELSE]]
// CHECK: %[[OUTSIDE:.*]] = arith.cmpi ule
// CHECK-NEXT: scf.if %[[OUTSIDE]]
module attributes {gpu.container_module} {
  gpu.module @guarded attributes {tile.manifest = "{\22version\22: 1, \22compiler\22: \220.1.0\22, \22entry\22: \22guarded_kernel\22, \22target\22: \22gfx942\22, \22workgroup_size\22: [128, 1, 1], \22grid\22: [1, 1, 1]}"} {
    gpu.func @guarded_kernel(%A: memref<4096xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %cst = arith.constant 0.0 : f16
      %thread = gpu.thread_id x
      %lane = arith.remui %thread, %c4 : index
      %column = arith.muli %lane, %c8 : index
      scf.for %k = %c0 to %c128 step %c1 {
        %next = arith.addi %k, %c1 : index
        %more = arith.cmpi slt, %next, %c128 : index
        scf.if %more {
          %start = arith.muli %next, %c32 : index
          %first = arith.addi %start, %column : index
          %end = arith.addi %first, %c8 : index
          %inside = arith.cmpi ule, %end, %c4096 : index
          scf.if %inside {
            memref.store %cst, %A[%first] : memref<4096xf16>
          }
        } else {
          %start = arith.muli %next, %c32 : index
          %first = arith.addi %start, %column : index
          %end = arith.addi %first, %c8 : index
          %inside = arith.cmpi ule, %end, %c4096 : index
          scf.if %inside {
            memref.store %cst, %A[%first] : memref<4096xf16>
          }
        }
        %start = arith.muli %next, %c32 : index
        %first = arith.addi %start, %column : index
        %end = arith.addi %first, %c8 : index
        %outside = arith.cmpi ule, %end, %c4096 : index
        scf.if %outside {
          memref.store %cst, %A[%first] : memref<4096xf16>
        }
      }
      gpu.return
    }
  }
}
