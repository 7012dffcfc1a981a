// Decisions (the tile.* attributes passes record for later passes, declared in
// dialect/src/decisions.rs) written wrongly are refused by the op verifiers, at their op.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A schedule is a dictionary.
func.func @schedule_not_a_dictionary(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %t = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.pipelined' op expects tile.schedule to be a dictionary (what tile-plan-pipelines (a program may ask for entries) records), but got 3 : i64}}
    tile.pipelined %k = %c0 to %c4 stages(2) attributes {tile.schedule = 3 : i64} {
      tile.copy %A[%k, %c0], %t : memref<256x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// A schedule names only the entries tile-plan-pipelines decides.
func.func @schedule_unknown_entry(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %t = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.pipelined' op expects tile.schedule to be a dictionary of buffers, fill, wait, release, prefetch, persistent, split, producer, pingpong, multicast, not 'depth'}}
    tile.pipelined %k = %c0 to %c4 stages(2) attributes {tile.schedule = {depth = 2 : i64}} {
      tile.copy %A[%k, %c0], %t : memref<256x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Each entry holds what the planner writes there.
func.func @schedule_unknown_fill(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %t = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.pipelined' op expects tile.schedule to be a dictionary whose 'fill' is one of "tma", "registers", "async", "threads"}}
    tile.pipelined %k = %c0 to %c4 stages(2) attributes {tile.schedule = {fill = "magic"}} {
      tile.copy %A[%k, %c0], %t : memref<256x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// tile.ahead marks copies; on a gemm it would be misread.
func.func @ahead_on_a_gemm() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %a = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %w = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects no tile.ahead (it belongs on tile.copy), but got unit}}
    tile.gemm %a, %w, %c {tile.ahead} : memref<64x16xf16, #gpu.address_space<workgroup>>,
        memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// tile.ahead is a unit attribute.
func.func @ahead_with_a_value(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %t = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects tile.ahead to be a unit attribute (what tile-plan-pipelines records), but got true}}
    tile.copy %A[%c0, %c0], %t {tile.ahead = true} : memref<64x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A kernel's strategy is one the lowerings know.
func.func @unknown_strategy() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op expects tile.strategy to be one of "per-op", "plain" (what tile-infer-layouts records), but got "fast"}}
  tile.kernel grid(%c1) threads(128) (%b) attributes {tile.strategy = "fast"} {
  }
  return
}
