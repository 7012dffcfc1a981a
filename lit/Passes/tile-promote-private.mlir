// tile-promote-private and tile-promote-private-vectors: a private array read and written through
// a vector view (an accumulator) becomes the values it holds: its fill a constant vector, its
// vector loads and stores in a loop the loop's iteration argument, its reads after the loop lanes
// of the loop's result. An array only ever read and written slot by slot becomes its values in
// tile-promote-private (sm_90a) and stays for LLVM's SROA in tile-promote-private-vectors
// (gfx942); one used otherwise stays in both.
// RUN: tile-opt %s -split-input-file -tile-promote-private-vectors | FileCheck %s --check-prefixes=CHECK,VECTORS
// RUN: tile-opt %s -split-input-file -tile-promote-private | FileCheck %s --check-prefixes=CHECK,ALL

// CHECK-LABEL: gpu.func @accumulator
// CHECK-NOT: memref.alloca() : memref<8xf32
// CHECK: %[[V0:.*]] = vector.from_elements %[[ONE:.*]], %[[ONE]], %[[ONE]], %[[ONE]] : vector<4xf32>
// CHECK: %[[INIT:.*]] = vector.from_elements %[[ZERO:.*]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : vector<4xf32>
// CHECK: %[[HIGH:.*]] = vector.from_elements %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]] : vector<4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %{{.*}} iter_args(%[[X:.*]] = %[[INIT]], %{{.*}} = %[[HIGH]]) -> (vector<4xf32>, vector<4xf32>)
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[X]] : vector<4xf32>
// CHECK: scf.yield %[[SUM]], %[[V0]] : vector<4xf32>, vector<4xf32>
// CHECK: %[[LANE:.*]] = vector.extract %[[LOOP]]#0[2] : f32 from vector<4xf32>
// CHECK: memref.store %[[LANE]], %arg0[%{{.*}}]
// CHECK: %[[SLOT:.*]] = vector.extract %[[LOOP]]#1[1] : f32 from vector<4xf32>
// CHECK: memref.store %[[SLOT]], %arg0[%{{.*}}]
// VECTORS: memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// VECTORS: memref.store
// VECTORS: memref.load
// ALL-NOT: memref.alloca
// ALL: %[[AGAIN:.*]] = vector.extract %[[LOOP]]#0[2] : f32 from vector<4xf32>
// ALL: memref.store %[[AGAIN]], %arg0[%{{.*}}]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @accumulator {
    gpu.func @accumulator(%out: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %acc = memref.alloca() : memref<8xf32, #gpu.address_space<private>>
      memref.store %zero, %acc[%c0] : memref<8xf32, #gpu.address_space<private>>
      memref.store %zero, %acc[%c1] : memref<8xf32, #gpu.address_space<private>>
      memref.store %zero, %acc[%c2] : memref<8xf32, #gpu.address_space<private>>
      memref.store %zero, %acc[%c3] : memref<8xf32, #gpu.address_space<private>>
      memref.store %one, %acc[%c4] : memref<8xf32, #gpu.address_space<private>>
      memref.store %one, %acc[%c5] : memref<8xf32, #gpu.address_space<private>>
      memref.store %one, %acc[%c6] : memref<8xf32, #gpu.address_space<private>>
      memref.store %one, %acc[%c7] : memref<8xf32, #gpu.address_space<private>>
      %view = memref.memory_space_cast %acc : memref<8xf32, #gpu.address_space<private>> to memref<8xf32, 5>
      %v0 = vector.load %view[%c4] : memref<8xf32, 5>, vector<4xf32>
      scf.for %i = %c0 to %c16 step %c1 {
        %x = vector.load %view[%c0] : memref<8xf32, 5>, vector<4xf32>
        %y = arith.addf %x, %x : vector<4xf32>
        vector.store %y, %view[%c0] : memref<8xf32, 5>, vector<4xf32>
        vector.store %v0, %view[%c4] : memref<8xf32, 5>, vector<4xf32>
      }
      %a = memref.load %acc[%c2] : memref<8xf32, #gpu.address_space<private>>
      memref.store %a, %out[%c0] : memref<8xf32>
      %b = memref.load %acc[%c5] : memref<8xf32, #gpu.address_space<private>>
      memref.store %b, %out[%c1] : memref<8xf32>
      %run = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      memref.store %a, %run[%c0] : memref<4xf32, #gpu.address_space<private>>
      %c = memref.load %run[%c0] : memref<4xf32, #gpu.address_space<private>>
      memref.store %c, %out[%c2] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// A branch that writes the array yields its vector; the absent else yields the one before it.
// CHECK-LABEL: gpu.func @branch
// CHECK-NOT: memref.alloca
// CHECK: %[[BEFORE:.*]] = vector.load %arg0
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK: %[[NEW:.*]] = arith.mulf %[[BEFORE]], %[[BEFORE]]
// CHECK: scf.yield %[[NEW]] : vector<4xf32>
// CHECK: } else {
// CHECK: scf.yield %[[BEFORE]] : vector<4xf32>
// CHECK: vector.store %[[IF]], %arg0
module attributes {gpu.container_module} {
  gpu.module @branch {
    gpu.func @branch(%io: memref<4xf32>, %flag: i1) kernel {
      %c0 = arith.constant 0 : index
      %acc = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %view = memref.memory_space_cast %acc : memref<4xf32, #gpu.address_space<private>> to memref<4xf32, 5>
      %in = vector.load %io[%c0] : memref<4xf32>, vector<4xf32>
      vector.store %in, %view[%c0] : memref<4xf32, 5>, vector<4xf32>
      scf.if %flag {
        %x = vector.load %view[%c0] : memref<4xf32, 5>, vector<4xf32>
        %y = arith.mulf %x, %x : vector<4xf32>
        vector.store %y, %view[%c0] : memref<4xf32, 5>, vector<4xf32>
      }
      %z = vector.load %view[%c0] : memref<4xf32, 5>, vector<4xf32>
      vector.store %z, %io[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

// An array whose view another op takes (here a whole-array copy) stays.
// CHECK-LABEL: gpu.func @escapes
// CHECK: memref.alloca
// CHECK: vector.store
// CHECK: memref.copy
module attributes {gpu.container_module} {
  gpu.module @escapes {
    gpu.func @escapes(%out: memref<4xf32, 5>) kernel {
      %c0 = arith.constant 0 : index
      %cst = arith.constant dense<1.0> : vector<4xf32>
      %acc = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
      %view = memref.memory_space_cast %acc : memref<4xf32, #gpu.address_space<private>> to memref<4xf32, 5>
      vector.store %cst, %view[%c0] : memref<4xf32, 5>, vector<4xf32>
      memref.copy %view, %out : memref<4xf32, 5> to memref<4xf32, 5>
      gpu.return
    }
  }
}

// -----

// SPIR-V's private arrays (the Function storage class) are promoted as the private address space's
// are: slot by slot in tile-promote-private (the SPIR-V backends), left in -vectors; an array in
// workgroup memory stays in both.
// CHECK-LABEL: gpu.func @spirv_function_storage
// VECTORS: memref.alloca() : memref<2xf32, #spirv.storage_class<Function>>
// ALL-NOT: memref.alloca() : memref<2xf32, #spirv.storage_class<Function>>
// ALL: %[[SUM:.*]] = arith.addf %[[ONE:.*]], %[[ONE]] : f32
// ALL: memref.store %[[SUM]], %arg0[%{{.*}}] : memref<2xf32>
// CHECK: memref.alloca() : memref<2xf32, #spirv.storage_class<Workgroup>>
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @spirv_function_storage {
    gpu.func @spirv_function_storage(%out: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f32
      %slots = memref.alloca() : memref<2xf32, #spirv.storage_class<Function>>
      memref.store %one, %slots[%c0] : memref<2xf32, #spirv.storage_class<Function>>
      %x = memref.load %slots[%c0] : memref<2xf32, #spirv.storage_class<Function>>
      %sum = arith.addf %x, %x : f32
      memref.store %sum, %slots[%c1] : memref<2xf32, #spirv.storage_class<Function>>
      %y = memref.load %slots[%c1] : memref<2xf32, #spirv.storage_class<Function>>
      memref.store %y, %out[%c0] : memref<2xf32>
      %shared = memref.alloca() : memref<2xf32, #spirv.storage_class<Workgroup>>
      memref.store %one, %shared[%c0] : memref<2xf32, #spirv.storage_class<Workgroup>>
      gpu.return
    }
  }
}
