// Every verifier rule of the tile ops, one chunk each. The messages quote the Rust verifiers.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A kernel needs 1 to 3 grid dimensions.
func.func @kernel_grid_empty() {
  // expected-error @+1 {{'tile.kernel' op expects 1 to 3 grid sizes, but got 0}}
  tile.kernel grid() threads(128) () {
  }
  return
}

// -----

func.func @kernel_grid_four(%n: index) {
  // expected-error @+1 {{expects 1 to 3 grid sizes, but got 4}}
  tile.kernel grid(%n, %n, %n, %n) threads(128) (%a, %b, %c, %d) {
  }
  return
}

// -----

// threads must be a positive multiple of 32 ...
func.func @kernel_threads_not_warp_multiple(%n: index) {
  // expected-error @+1 {{expects threads to be a positive multiple of 32 and at most 1024, but got 100}}
  tile.kernel grid(%n) threads(100) (%bx) {
  }
  return
}

// -----

func.func @kernel_threads_zero(%n: index) {
  // expected-error @+1 {{expects threads to be a positive multiple of 32 and at most 1024, but got 0}}
  tile.kernel grid(%n) threads(0) (%bx) {
  }
  return
}

// -----

// ... and at most 1024.
func.func @kernel_threads_too_many(%n: index) {
  // expected-error @+1 {{expects threads to be a positive multiple of 32 and at most 1024, but got 2048}}
  tile.kernel grid(%n) threads(2048) (%bx) {
  }
  return
}

// -----

// One block index per grid dimension.
func.func @kernel_block_indices(%n: index) {
  // expected-error @+1 {{expects 2 block indices (one per grid dimension), but got 1 body arguments}}
  tile.kernel grid(%n, %n) threads(128) (%bx) {
  }
  return
}

// -----

func.func @pipelined_zero_stages(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.pipelined' op expects stages between 1 and 64, but got 0}}
    tile.pipelined %k = %c0 to %n stages(0) {
    }
  }
  return
}

// -----

// TileLang's per-statement order and stage lists are refused, not dropped: the pipeline is planned.
func.func @pipelined_order_list(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.pipelined' op expects no 'order' list, but got [0, 2, 1]: the pipeline is planned from the loop's copies and its stages (tile-plan-pipelines records it as tile.schedule), not from per-statement orders and stages; drop it}}
    tile.pipelined %k = %c0 to %n stages(3) attributes {order = [0, 2, 1]} {
    }
  }
  return
}

// -----

// Found by tile-fuzz (seed 14141): a ring this deep overflowed the sm_90a shared-memory check and
// the lowering then wrote out its prologue for ever.
func.func @pipelined_huge_stages(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.pipelined' op expects stages between 1 and 64, but got 9223372036854775807}}
    tile.pipelined %k = %c0 to %n stages(9223372036854775807) {
    }
  }
  return
}

// -----

func.func @pipelined_zero_step(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.pipelined' op expects a positive step, but got 0}}
    tile.pipelined %k = %c0 to %n step %c0 stages(2) {
    }
  }
  return
}

// -----

func.func @parallel_zero_extent(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.parallel' op expects one or more positive extents, but got (128, 0)}}
    tile.parallel (%i, %j) in (128, 0) {
    }
  }
  return
}

// -----

func.func @parallel_indices(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{expects 2 loop indices (one per extent), but got 1 body arguments}}
    tile.parallel (%i) in (128, 128) {
    }
  }
  return
}

// -----

// Tiles live in one block's on-chip memory: only inside a kernel.
func.func @alloc_outside_kernel() {
  // expected-error @+1 {{'tile.alloc_shared' op expects to be nested in a tile.kernel (tiles live in the on-chip memory of one block), but it is not}}
  %s = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_fragment_outside_kernel() {
  // expected-error @+1 {{'tile.alloc_fragment' op expects to be nested in a tile.kernel}}
  %f = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  return
}

// -----

func.func @alloc_shared_wrong_space(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.alloc_shared' op expects a result in memory space #gpu.address_space<workgroup>, but got memref<128x32xf16, #tile.fragment>}}
    %s = tile.alloc_shared : memref<128x32xf16, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_fragment_wrong_space(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects a result in memory space #tile.fragment, but got memref<128x128xf32>}}
    %f = tile.alloc_fragment : memref<128x128xf32>
  }
  return
}

// -----

func.func @alloc_dynamic(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects the result to have a static shape, but got memref<?x128xf32, #tile.fragment>}}
    %f = tile.alloc_fragment : memref<?x128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_element_type(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.alloc_shared' op expects the result to hold f16, bf16, f32, f8E4M3FN, f8E5M2, i8, i32, i4 or f4E2M1FN, but got element type f64}}
    %s = tile.alloc_shared : memref<64x64xf64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A memory space that is none of the three levels.
func.func @alloc_unknown_space(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{expects the result in global memory (no memory space or #gpu.address_space<global>), shared memory (#gpu.address_space<workgroup>) or a fragment (#tile.fragment), but got memref<64x64xf16, 3>}}
    %s = tile.alloc_shared : memref<64x64xf16, 3>
  }
  return
}

// -----

func.func @copy_offsets_both_sides(%A: memref<256x256xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects offsets on at most one side (the other side is the tile), but got offsets on both}}
    tile.copy %A[%i, %i], %S[%i, %i] : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_shapes_differ(%i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects the source and destination to have the same tile shape when neither has offsets, but got 128x32 and 64x32}}
    tile.copy %S, %F : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_offset_count(%A: memref<256x256xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects one offset per dimension of the source (2), but got 1}}
    tile.copy %A[%i], %S : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A tile of lower rank lies in the trailing dimensions of a global tensor only, never of an on-chip
// buffer.
func.func @copy_tile_rank_on_chip(%i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<4x128xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects the tile (destination, 128) to have the rank of the source in shared memory (2), but got rank 1}}
    tile.copy %S[%i, %i], %F : memref<4x128xf16, #gpu.address_space<workgroup>>, memref<128xf32, #tile.fragment>
  }
  return
}

// -----

// The tile's dimensions map to the global tensor's trailing ones: it cannot have more of them.
func.func @copy_tile_rank_above_global(%A: memref<256x256xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<2x64x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects the tile (destination, 2x64x64) to have a rank from 1 to the rank of the source (2), but got rank 3}}
    tile.copy %A[%i, %i], %S : memref<256x256xf16>, memref<2x64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// Global tensors of rank above 5 (a TMA tensor map's limit) take tiles of their own rank only.
func.func @copy_global_rank_above_five(%A: memref<2x2x2x2x64x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects a source of rank at most 5 when the tile (destination, 64x64) has a lower rank, but got rank 6}}
    tile.copy %A[%i, %i, %i, %i, %i, %i], %S : memref<2x2x2x2x64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_tile_dynamic(%A: memref<256x256xf16>, %B: memref<?x32xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    // expected-error @+1 {{'tile.copy' op expects the source (the tile) to have a static shape, but got memref<?x32xf16>}}
    tile.copy %B, %A[%i, %i] : memref<?x32xf16>, memref<256x256xf16>
  }
  return
}

// -----

// Global buffers clip; an on-chip buffer cannot hold a larger tile.
func.func @copy_tile_larger_than_shared(%i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<128x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects the tile (128x32) to fit in the source in shared memory (64x32), but it does not}}
    tile.copy %S[%i, %i], %F : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf32, #tile.fragment>
  }
  return
}

// -----

func.func @copy_element_type(%A: memref<256x256xf64>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects the source to hold f16, bf16, f32, f8E4M3FN, f8E5M2, i8, i32, i4 or f4E2M1FN, but got element type f64}}
    tile.copy %A[%i, %i], %S : memref<256x256xf64>, memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @gemm_a_global(%A: memref<128x32xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %B = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects A in shared memory or a fragment, but got global memory}}
    tile.gemm %A, %B, %C : memref<128x32xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_b_fragment(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_fragment : memref<32x128xf16, #tile.fragment>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects B in shared memory, but got a fragment}}
    tile.gemm %A, %B, %C : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #tile.fragment>, memref<128x128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shared(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_shared : memref<128x128xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.gemm' op expects C in a fragment, but got shared memory}}
    tile.gemm %A, %B, %C : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// With transpose_b, B is NxK: a KxN B does not match A's K.
func.func @gemm_k_mismatch(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects the K of A and B to agree, but got K = 32 for A (128x32) and K = 128 for B (32x128)}}
    tile.gemm %A, %B, %C {transpose_b} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shape(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects C to be MxN = 128x64, but got 128x128}}
    tile.gemm %A, %B, %C {transpose_a} : memref<32x128xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_mixed_inputs(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects A and B to have one element type, but got f16 and bf16}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_f32_inputs(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects A and B to hold f16, bf16, f8E4M3FN, f8E5M2 or i8 (widen 4-bit weights into an f16 or bf16 tile in a tile.parallel first), but got f32}}
    tile.gemm %A, %B, %C : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_accumulator(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects C to accumulate in f32 for f16 inputs, but got f16}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_not_2d(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %A = tile.alloc_shared : memref<2x64x32xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects A to be 2-D, but got memref<2x64x32xf16, #gpu.address_space<workgroup>>}}
    tile.gemm %A, %B, %C : memref<2x64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @fill_global(%A: memref<64x64xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.fill' op expects the filled tile in shared memory or a fragment, but got global memory}}
    tile.fill %A, %zero : memref<64x64xf32>
  }
  return
}

// -----

// Tile ops other than the kernel run on the threads of a block.
func.func @copy_outside_kernel(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  // expected-error @+1 {{'tile.copy' op expects to be nested in a tile.kernel (it runs on the threads of a block), but it is not}}
  tile.copy %A, %B : memref<64x64xf32>, memref<64x64xf32>
  return
}

// -----

func.func @pipelined_outside_kernel(%n: index) {
  // expected-error @+1 {{'tile.pipelined' op expects to be nested in a tile.kernel (it runs on the threads of a block), but it is not}}
  tile.pipelined %k = %n to %n stages(2) {
  }
  return
}

// -----

// A kernel is a launch from host code.
func.func @kernel_in_kernel(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.kernel' op expects to be in host code, but it is nested in another tile.kernel}}
    tile.kernel grid(%n) threads(128) (%by) {
    }
  }
  return
}

// -----

// The generic form can spell a value of another type; the verifier rejects it.
func.func @fill_value_type(%n: index) {
  %one = arith.constant 1.0 : f16
  tile.kernel grid(%n) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.fill' op expects a fill value of the tile's element type f32, but got f16}}
    "tile.fill"(%F, %one) : (memref<64x64xf32, #tile.fragment>, f16) -> ()
  }
  return
}

// -----

func.func @reduce_dim_out_of_range(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expects dim in [0, 2), but got 2}}
    tile.reduce <max> %S, %m dim(2) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_result_shape(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expects a result of shape 64 (the source 64x32 without dim 1), but got 32}}
    tile.reduce <sum> %S, %m dim(1) : memref<64x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_global(%A: memref<64x64xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expects the source in shared memory or a fragment, but got global memory}}
    tile.reduce <sum> %A, %m dim(1) : memref<64x64xf32>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_integers(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.reduce' op expects the source to hold floating-point elements, but got i32}}
    tile.reduce <sum> %S, %m dim(1) : memref<64x64xi32, #tile.fragment>, memref<64xi32, #tile.fragment>
  }
  return
}

// -----

func.func @layout_two_elements_in_one_slot() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects a valid tile.layout: expects each thread to hold each element in a slot of its own, but thread 0 holds [0] and [32] in slot 0}}
    %f = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 32, thread = (d0) -> (d0 mod 32), slot = (d0) -> (0)>} : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// The fuzzer's seed 17171, case 31479: slot 2^63 - 1 made `slot + 1` wrap and the verifier panic.
func.func @layout_slot_past_the_registers() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects a valid tile.layout: expects slots below 16777216, but element [0] is in slot 9223372036854775807}}
    %m = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64], threads = 128, thread = (d0) -> (d0), slot = (d0) -> (9223372036854775807), origin = "rows">} : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// The fuzzer's seed 30303, case 87255: replicate 2^63 - 1 asked the layout's table for as many
// owners an element, and the verifier panicked on the allocation.
func.func @layout_replicated_past_the_threads() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    // expected-error @+1 {{expects replicate to be at most 16777216, but got 9223372036854775807}}
    %m = tile.alloc_fragment {tile.layout = #tile.frag<shape = [64, 32], threads = 128, replicate = 9223372036854775807, thread = (d0, d1)[s0] -> (s0 * 64 + d0 mod 32), slot = (d0, d1) -> (d1), origin = "mfma.a.32x32x4">} : memref<64x32xf16, #tile.fragment>
  }
  return
}

// -----

// A replicate the attribute allows, but more (element, replica) pairs than the table may hold.
func.func @layout_with_too_many_owners() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(1024) (%bx) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects a valid tile.layout: expects elements times replicas at most 16777216, but got 262144 elements replicated 128 times}}
    %m = tile.alloc_fragment {tile.layout = #tile.frag<shape = [512, 512], threads = 1024, replicate = 128, thread = (d0, d1)[s0] -> (s0 * 8 + d0 mod 8), slot = (d0, d1) -> (d0 floordiv 8 + d1 * 64), origin = "rows">} : memref<512x512xf32, #tile.fragment>
  }
  return
}

// -----

func.func @layout_on_other_threads() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    // expected-error @+1 {{'tile.parallel' op expects a valid tile.loop_layout: expects a layout over the block's 32 threads, but got 64}}
    tile.parallel (%i) in (64) attributes {tile.loop_layout = #tile.frag<shape = [64], threads = 64, thread = (d0) -> (d0), slot = (d0) -> (0)>} {
    }
  }
  return
}

// -----

func.func @layout_of_the_wrong_kind() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    // expected-error @+1 {{'tile.alloc_shared' op expects tile.layout to be a #tile.smem, but got #tile.frag<shape = [64], threads = 32, thread = (d0) -> (d0 mod 32), slot = (d0) -> (d0 floordiv 32)>}}
    %s = tile.alloc_shared {tile.layout = #tile.frag<shape = [64], threads = 32, thread = (d0) -> (d0 mod 32), slot = (d0) -> (d0 floordiv 32)>} : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// expected-error @+1 {{expects swizzle to be 0, 32, 64 or 128 bytes, but got 16}}
func.func private @bad_swizzle() attributes {layout = #tile.smem<swizzle = 16>}

// -----

// expected-error @+1 {{expects the thread map to take 2 indices (and at most one replica symbol) to one thread, but got affine_map<(d0) -> (d0)>}}
func.func private @bad_arity() attributes {layout = #tile.frag<shape = [4, 4], threads = 32, thread = (d0) -> (d0), slot = (d0, d1) -> (d1)>}

// -----

// At most 32 blocks fit on a multiprocessor.
func.func @kernel_min_blocks() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op expects min_blocks_per_multiprocessor from 1 to 32, but got 0}}
  tile.kernel grid(%c1) threads(64) (%bx) attributes {min_blocks_per_multiprocessor = 0 : i64} {
  }
  return
}

// -----

// An invalid op inside a kernel: the kernel's verifier reads it while MLIR verifies it, and
// printing it for a message verifies it again; the located error comes once, no stack overflow
// (fuzzer, seed 6161).
func.func @load_without_operands(%n: index) {
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    // expected-error @+1 {{'memref.load' op expected 1 or more operands, but found 0}}
    %S = "memref.load"() : () -> memref<64x32xf16, #gpu.address_space<workgroup>>
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----

// A constant grid past what GPUs launch (the fuzzer's grids of 2^32 and 2^63 - 1 blocks ran for
// hours on the CPU reference and lavapipe).
func.func @grid_too_large() {
  %huge = arith.constant 4294967296 : index
  // expected-error @+1 {{'tile.kernel' op expects at most 2147483647 blocks along grid dimension x (what GPUs launch), but got 4294967296}}
  tile.kernel grid(%huge) threads(128) (%b) {
  }
  return
}

// -----

func.func @grid_y_too_large() {
  %c1 = arith.constant 1 : index
  %big = arith.constant 65536 : index
  // expected-error @+1 {{'tile.kernel' op expects at most 65535 blocks along grid dimension y (what GPUs launch), but got 65536}}
  tile.kernel grid(%c1, %big) threads(128) (%b, %c) {
  }
  return
}

// -----

// A negative grid size (found by the fuzzer, seed 11111: lavapipe launched it as a huge unsigned
// size, the CPU reference as none, and their outputs differed).
func.func @grid_negative() {
  %minus = arith.constant -1 : index
  // expected-error @+1 {{'tile.kernel' op expects 0 or more blocks along grid dimension x, but got -1}}
  tile.kernel grid(%minus) threads(128) (%b) {
  }
  return
}

// -----

// An atomic copy updates by sum, max or min.
func.func @atomic_copy_kind(%C: memref<64xf32>, %i: index) {
  tile.kernel grid(%i) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects an atomic copy to update by sum, max or min, but got absmax}}
    tile.copy %F, %C atomic <absmax> : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// -----

// An atomic copy goes from a fragment into a global tensor.
func.func @atomic_copy_levels(%C: memref<64xf32>, %i: index) {
  tile.kernel grid(%i) threads(64) (%bx) {
    %S = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects an atomic copy from a fragment into a global tensor, but got a copy from shared memory into global memory}}
    tile.copy %S, %C atomic <sum> : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
  }
  return
}

// -----

// Atomics update 16- and 32-bit floats and 32-bit integers.
func.func @atomic_copy_element(%C: memref<64xi8>, %i: index) {
  tile.kernel grid(%i) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects an atomic copy into a tensor of f32, f16, bf16 or i32, but got i8}}
    tile.copy %F, %C atomic <sum> : memref<64xi32, #tile.fragment>, memref<64xi8>
  }
  return
}

// -----

// 4-bit elements are packed two to a byte in global memory and shared tiles; a fragment holds
// them only once widened.
func.func @fragment_of_i4() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    // expected-error @+1 {{'tile.alloc_fragment' op expects the result in global memory or a shared tile, since i4 elements are stored two to a byte there and widened in registers}}
    %F = tile.alloc_fragment : memref<64x64xi4, #tile.fragment>
  }
  return
}

// -----

func.func @odd_packed_tile() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    // expected-error @+1 {{last dimension to be even, since f4E2M1FN elements are stored two to a byte along it, but got memref<64x63xf4E2M1FN, #gpu.address_space<workgroup>>}}
    %S = tile.alloc_shared : memref<64x63xf4E2M1FN, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_widening_i4(%B: memref<64x64xi4>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects a copy of i4 elements to copy them unchanged (into i4 too), since they are stored two to a byte; widen them in a tile.parallel, but got a copy from i4 into f16}}
    tile.copy %B[%c0, %c0], %S : memref<64x64xi4>, memref<64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @fill_i4() {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i4
  tile.kernel grid(%c1) threads(128) (%b) {
    %S = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.fill' op expects the filled tile to hold elements of a byte or more, since i4 elements are stored two to a byte}}
    tile.fill %S, %zero : memref<64x64xi4, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @gemm_i4() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %A = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %B = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op expects A and B to hold f16, bf16, f8E4M3FN, f8E5M2 or i8 (widen 4-bit weights into an f16 or bf16 tile in a tile.parallel first), but got i4}}
    tile.gemm %A, %B, %C : memref<64x64xi4, #gpu.address_space<workgroup>>, memref<64x64xi4, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

// `dims` names one dimension of the tensor per dimension of the tile.
func.func @copy_dims_count(%X: memref<2x80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects dims to name one dimension of the source per dimension of the tile (destination, 32x64), but got [1, 2, 3]}}
    tile.copy %X[%i, %i, %i, %i], %S dims [1, 2, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// The named dimensions increase (a copy does not transpose) and lie in the tensor.
func.func @copy_dims_order(%X: memref<2x80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects dims to be increasing dimensions of the destination (rank 4), but got [3, 3]}}
    tile.copy %F, %X[%i, %i, %i, %i] dims [3, 3] : memref<32x64xf32, #tile.fragment>, memref<2x80x3x64xf16>
  }
  return
}

// -----

func.func @copy_dims_range(%X: memref<2x80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects dims to be increasing dimensions of the source (rank 4), but got [1, 4]}}
    tile.copy %X[%i, %i, %i, %i], %S dims [1, 4] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A tile's rows are contiguous: its last dimension is the tensor's last.
func.func @copy_dims_last(%X: memref<2x80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x3xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects dims to end with the last dimension of the source (3), since a tile's rows are contiguous; give the tile a trailing extent of 1 and name dimension 3 too, but got [1, 2]}}
    tile.copy %X[%i, %i, %i, %i], %S dims [1, 2] : memref<2x80x3x64xf16>, memref<32x3xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// `dims` only where one side has offsets.
func.func @copy_dims_without_offsets(%i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %F = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects dims only with offsets (they name the dimensions of the side with offsets that the tile spans), but neither side has offsets}}
    tile.copy %S, %F dims [0, 1] : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
  }
  return
}

// -----

// The asynchronous copy checks its `dims` the same way.
func.func @copy_async_dims(%X: memref<2x80x3x64xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %B = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy_async' op expects dims to be increasing dimensions of the source (rank 4), but got [3, 1]}}
    tile.copy_async %X[%i, %i, %i, %i], %S, %B[%i] dims [3, 1] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A scan runs along a dimension of its tile.
func.func @scan_dim_outside(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects dim to be a dimension of the source, in [0, 2), but got 2}}
    tile.scan <sum> %F, %F dim(2) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
  }
  return
}

// -----

// Sums, maxima and minima only.
func.func @scan_kind(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects a scan kind of sum, max or min}}
    tile.scan <abssum> %F, %F dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf32, #tile.fragment>
  }
  return
}

// -----

// The result has the source's shape and element type.
func.func @scan_shape(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects a result of the source's shape 16x32, but got 16x16}}
    tile.scan <sum> %F, %G dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x16xf32, #tile.fragment>
  }
  return
}

// -----

func.func @scan_element(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<16x32xf16, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects the source and the result to hold one element type, but got f32 and f16}}
    tile.scan <sum> %F, %G dim(1) : memref<16x32xf32, #tile.fragment>, memref<16x32xf16, #tile.fragment>
  }
  return
}

// -----

// Tiles on chip, of floats.
func.func @scan_global(%X: memref<16x32xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects the source in shared memory or a fragment, but got global memory}}
    tile.scan <sum> %X, %F dim(1) : memref<16x32xf32>, memref<16x32xf32, #tile.fragment>
  }
  return
}

// -----

func.func @scan_integers(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16x32xi32, #tile.fragment>
    // expected-error @+1 {{'tile.scan' op expects the source to hold floating-point elements, but got i32}}
    tile.scan <sum> %F, %F dim(1) : memref<16x32xi32, #tile.fragment>, memref<16x32xi32, #tile.fragment>
  }
  return
}

// -----

// A print of a global tensor: only scalars and tiles print.
func.func @print_global(%X: memref<16x16xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    // expected-error @+1 {{'tile.print' op expects a scalar, a fragment or a shared tile, but got memref<16x16xf32>, a tensor in global memory (copy the part to print into a tile)}}
    tile.print "x", %X : memref<16x16xf32>
  }
  return
}

// -----

// A tile of 4-bit elements (two to a byte) does not print; widened ones do.
func.func @print_packed(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %Q = tile.alloc_shared : memref<16x16xi4, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.print' op expects a tile of elements a byte or wider, but got memref<16x16xi4, #gpu.address_space<workgroup>> (stored two to a byte): widen them into a tile of f16 or i8 and print that}}
    tile.print "q", %Q : memref<16x16xi4, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A scalar of a type printf has no format for.
func.func @print_vector(%v: vector<4xf32>, %n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    // expected-error @+1 {{'tile.print' op expects an index, an integer of at most 64 bits, an f16, bf16, f32 or f64 value, or a tile, but got vector<4xf32> (extend it to f32 first)}}
    tile.print "v", %v : vector<4xf32>
  }
  return
}

// -----

// A print in a tile.parallel would run once per element, on many threads.
func.func @print_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<16xf32, #tile.fragment>
    tile.parallel (%i) in (16) {
      %v = memref.load %F[%i] : memref<16xf32, #tile.fragment>
      // expected-error @+1 {{'tile.print' op expects to be outside every tile.parallel (it prints once per block, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      tile.print "v", %v : f32
    }
  }
  return
}

// -----

// A print outside a kernel: host code prints nothing of the tile language.
func.func @print_on_the_host(%n: index) {
  // expected-error @+1 {{'tile.print' op expects to be nested in a tile.kernel (it runs on the threads of a block), but it is not}}
  tile.print "n", %n : index
  return
}

// -----

// A matmul is a launch of its own: not inside a kernel.
func.func @matmul_in_kernel(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    // expected-error @+1 {{'tile.matmul' op expects to be in host code (it becomes a kernel of its own; inside a kernel, copy tiles and use tile.gemm), but it is nested in a tile.kernel}}
    tile.matmul %A, %B, %C : memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf16>
  }
  return
}

// -----

func.func @matmul_k_disagrees(%A: memref<?x64xf16>, %B: memref<32x?xf16>, %C: memref<?x?xf16>) {
  // expected-error @+1 {{expects the K of A and B to agree, but got A memref<?x64xf16> and B memref<32x?xf16>}}
  tile.matmul %A, %B, %C : memref<?x64xf16>, memref<32x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @matmul_k_disagrees_transposed(%A: memref<?x64xf16>, %B: memref<?x32xf16>, %C: memref<?x?xf16>) {
  // expected-error @+1 {{expects the K of A and B to agree, but got A memref<?x64xf16> and B memref<?x32xf16> (NxK: transpose_b)}}
  tile.matmul %A, %B, %C {transpose_b} : memref<?x64xf16>, memref<?x32xf16>, memref<?x?xf16>
  return
}

// -----

func.func @matmul_c_shape(%A: memref<16x64xf16>, %B: memref<64x?xf16>, %C: memref<32x?xf16>) {
  // expected-error @+1 {{expects C to be MxN for A memref<16x64xf16> and B memref<64x?xf16>, but got memref<32x?xf16>}}
  tile.matmul %A, %B, %C : memref<16x64xf16>, memref<64x?xf16>, memref<32x?xf16>
  return
}

// -----

func.func @matmul_types_differ(%A: memref<?x?xf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  // expected-error @+1 {{expects A and B to have one element type, but got f16 and bf16}}
  tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xbf16>, memref<?x?xf32>
  return
}

// -----

func.func @matmul_i8(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  // expected-error @+1 {{expects A and B to hold f16, bf16, f8E4M3FN or f8E5M2 (other types: write the kernel, with tile.gemm), but got i8}}
  tile.matmul %A, %B, %C : memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>
  return
}

// -----

func.func @matmul_c_type(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xi32>) {
  // expected-error @+1 {{expects C to hold f16, bf16 or f32, but got i32}}
  tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xi32>
  return
}

// -----

func.func @matmul_rank(%A: memref<2x?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  // expected-error @+1 {{expects A and C of one rank (a batch dimension on both or neither) and B batched only with them, but got A memref<2x?x?xf16>, B memref<?x?xf16> and C memref<?x?xf16>}}
  tile.matmul %A, %B, %C : memref<2x?x?xf16>, memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @matmul_on_chip(%A: memref<64x64xf16, #gpu.address_space<workgroup>>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  // expected-error @+1 {{expects A in global memory (a tensor; tiles belong to tile.gemm in a kernel), but got shared memory}}
  tile.matmul %A, %B, %C : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @matmul_rank_4(%A: memref<2x2x?x?xf16>, %B: memref<?x?xf16>, %C: memref<2x2x?x?xf16>) {
  // expected-error @+1 {{expects A to be 2-D, or 3-D with a batch dimension first, but got memref<2x2x?x?xf16>}}
  tile.matmul %A, %B, %C : memref<2x2x?x?xf16>, memref<?x?xf16>, memref<2x2x?x?xf16>
  return
}

// -----

func.func @matmul_batches_differ(%A: memref<4x?x?xf16>, %B: memref<3x?x?xf16>, %C: memref<4x?x?xf16>) {
  // expected-error @+1 {{expects one batch size, but got A memref<4x?x?xf16>, B memref<3x?x?xf16> and C memref<4x?x?xf16>}}
  tile.matmul %A, %B, %C : memref<4x?x?xf16>, memref<3x?x?xf16>, memref<4x?x?xf16>
  return
}

// -----

// A saturating copy converts floats into 8-bit floats.
func.func @saturate_into_f16(%C: memref<64xf16>, %i: index) {
  tile.kernel grid(%i) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects saturate on a copy that converts floats into f8E4M3FN or f8E5M2 (values past the largest finite one become it), but got a copy from f32 into f16}}
    tile.copy %F, %C[%bx] saturate : memref<64xf32, #tile.fragment>, memref<64xf16>
  }
  return
}

// -----

// Limits bound what a store into a global tensor writes: one per tile dimension.
func.func @limits_per_dimension(%C: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op expects one limit per dimension of the tile (2), but got 1}}
    tile.copy %F, %C[%i, %i] limits [%i] : memref<64x128xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}

// -----

// A load takes no limits (the tile's elements past them would hold nothing defined).
func.func @limits_on_a_load(%A: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%i) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects limits on a store of a fragment into a global tensor at offsets (they bound the tile's elements it writes), but got a copy from global memory into shared memory}}
    tile.copy %A[%i, %i], %S limits [%i, %i] : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}
