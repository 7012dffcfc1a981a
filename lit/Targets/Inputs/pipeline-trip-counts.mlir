// Column sums over a pipelined loop, each iteration's rows weighted by its index, for trip
// counts below, equal to and not a multiple of the ring depth, and a dynamic one
// (lit/Targets/pipeline-run.mlir runs them before and after tile-expand-pipelines).
module attributes {tile.target = "sm_90a"} {

// below: 2 iterations, a ring of 3.
func.func @below(%A: memref<64x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %weighted = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c2 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<64x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf32, #gpu.address_space<workgroup>>
        %k32 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %k32 : i32 to f32
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %weighted[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %weighted, %acc dim(0) {clear = false} : memref<32x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// equal: 3 iterations, a ring of 3.
func.func @equal(%A: memref<96x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %weighted = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c3 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<96x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf32, #gpu.address_space<workgroup>>
        %k32 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %k32 : i32 to f32
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %weighted[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %weighted, %acc dim(0) {clear = false} : memref<32x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// ragged: 7 iterations, a ring of 3.
func.func @ragged(%A: memref<224x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %weighted = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c7 stages(3) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<224x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf32, #gpu.address_space<workgroup>>
        %k32 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %k32 : i32 to f32
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %weighted[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %weighted, %acc dim(0) {clear = false} : memref<32x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// deep: 5 iterations, a ring of 4.
func.func @deep(%A: memref<160x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %weighted = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c5 stages(4) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<160x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf32, #gpu.address_space<workgroup>>
        %k32 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %k32 : i32 to f32
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %weighted[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %weighted, %acc dim(0) {clear = false} : memref<32x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// dynamic: a dynamic trip count, a ring of 2.
func.func @dynamic(%A: memref<?x64xf32>, %O: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %A, %c0 : memref<?x64xf32>
  %n = arith.ceildivui %rows, %c32 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %acc = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %weighted = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.fill %acc, %zero : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %r0 = arith.muli %k, %c32 : index
      tile.copy %A[%r0, %c0], %s : memref<?x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (32, 64) {
        %v = memref.load %s[%i, %j] : memref<32x64xf32, #gpu.address_space<workgroup>>
        %k32 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %k32 : i32 to f32
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %weighted[%i, %j] : memref<32x64xf32, #tile.fragment>
      }
      tile.reduce <sum> %weighted, %acc dim(0) {clear = false} : memref<32x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    }
    tile.copy %acc, %O[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}
}
