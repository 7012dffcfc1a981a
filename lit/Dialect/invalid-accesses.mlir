// The rules for what the lowerings cannot honour (issue 11): zero sizes, layouts, nested loops,
// indices statically known to leave a buffer, tensors a launch cannot pass. One chunk each.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A tile of size 0 has nothing to hold; every lowering would build empty loops and buffers.
func.func @zero_size_tile(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    // expected-error @+1 {{expects the result to have no size 0, but got memref<0x64xf32, #tile.fragment>}}
    %f = tile.alloc_fragment : memref<0x64xf32, #tile.fragment>
  }
  return
}

// -----

// A global tensor of size 0 has no element to copy.
func.func @zero_size_tensor(%X: memref<0x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    // expected-error @+1 {{expects the source to have no size 0, but got memref<0x64xf32>}}
    tile.copy %X[%c0, %c0], %f : memref<0x64xf32>, memref<8x64xf32, #tile.fragment>
  }
  return
}

// -----

// Strided and affine-map layouts: every lowering addresses tiles and tensors row-major.
func.func @strided_tile(%n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(32) (%bx) {
    // expected-error @+1 {{expects the result in the identity layout (row-major and contiguous, no strided or affine map layout), but got memref<16x16xf32, strided<[1, 16]>, #tile.fragment>}}
    %f = tile.alloc_fragment : memref<16x16xf32, strided<[1, 16]>, #tile.fragment>
  }
  return
}

// -----

func.func @strided_tensor(%X: memref<64x64xf32, strided<[1, 64]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    // expected-error @+1 {{expects the source in the identity layout}}
    tile.copy %X[%c0, %c0], %f : memref<64x64xf32, strided<[1, 64]>>, memref<8x64xf32, #tile.fragment>
  }
  return
}

// -----

// A tile.parallel in another: the GPU lowerings deal one loop's iterations to the threads, and an
// inner loop would run on one thread's share only.
func.func @nested_parallel(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{expects to be outside every other tile.parallel (the GPU lowerings deal one loop's iterations to the block's threads), but it is nested in one}}
      tile.parallel (%j) in (8) {
        %v = memref.load %f[%i, %j] : memref<8x8xf32, #tile.fragment>
        memref.store %v, %f[%j, %i] : memref<8x8xf32, #tile.fragment>
      }
    }
  }
  return
}

// -----

// Whole-tile ops in a tile.parallel body: the body runs once per element, so each iteration would
// run the whole op (a gemm in a 128x256 loop: 32,768 gemms, each writing all of its accumulator).
// The fuzzer's seed 17171 (case 5656) moved a gemm into such a body.
func.func @gemm_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 256) {
      // expected-error @+1 {{'tile.gemm' op expects to be outside every tile.parallel (it works on whole tiles, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
  }
  return
}

// -----

// The fuzzer's seed 18181: a tile.copy of a whole K tile moved into a 64x64 parallel body.
func.func @copy_in_parallel(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %e = math.exp2 %s : f32
      // expected-error @+1 {{'tile.copy' op expects to be outside every tile.parallel (it works on whole tiles, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      tile.copy %K[%c0, %c0], %Ks : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @reduce_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %r = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.reduce' op expects to be outside every tile.parallel (it works on whole tiles}}
      tile.reduce <max> %f, %r dim(1) : memref<8x64xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    }
  }
  return
}

// -----

// At any depth: a fill in an scf.for in the body runs once per element all the same.
func.func @fill_in_loop_in_parallel(%n: index) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 8) {
      scf.for %t = %c0 to %c2 step %c1 {
        // expected-error @+1 {{'tile.fill' op expects to be outside every tile.parallel (it works on whole tiles}}
        tile.fill %f, %zero : memref<8x8xf32, #tile.fragment>
      }
    }
  }
  return
}

// -----

func.func @alloc_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.alloc_fragment' op expects to be outside every tile.parallel (it allocates a tile of the block, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      %f = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @alloc_shared_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.alloc_shared' op expects to be outside every tile.parallel (it allocates a tile of the block}}
      %s = tile.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @pipelined_in_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%n) threads(32) (%bx) {
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.pipelined' op expects to be outside every tile.parallel (it is a loop over whole tiles, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      tile.pipelined %k = %c0 to %c4 stages(2) {
      }
    }
  }
  return
}

// -----

// The pipelining ops act for the whole block too.
func.func @barriers_in_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(32) (%bx) {
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.arrive' op expects to be outside every tile.parallel (it synchronizes the whole block, and a tile.parallel body runs once per element: move it out of the loop), but it is nested in one}}
      tile.arrive %full[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @wait_in_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%n) threads(32) (%bx) {
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.wait' op expects to be outside every tile.parallel (it synchronizes the whole block}}
      tile.wait %full[%c0], %c0 : memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @alloc_barriers_in_parallel(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.alloc_barriers' op expects to be outside every tile.parallel (it allocates barriers of the block}}
      %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @copy_async_in_parallel(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%bx) {
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (8) {
      // expected-error @+1 {{'tile.copy_async' op expects to be outside every tile.parallel (it works on whole tiles}}
      tile.copy_async %K[%c0, %c0], %Ks, %full[%c0] : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Extents larger than the tile the body stores to: the CPU reference would write past the buffer.
func.func @parallel_past_tile(%n: index) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%n) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{expects every index to stay within the buffers it accesses, but index 0 of a memref.store of memref<64x64xf32, #tile.fragment> takes values from 0 to 96}}
    tile.parallel (%i, %j) in (97, 64) {
      memref.store %zero, %f[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Index arithmetic on the loop indices is followed: %i + 1 reaches 64 in a 64-element tile.
func.func @parallel_shifted_past_tile(%n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+1 {{index 0 of a memref.load of memref<64xf32, #tile.fragment> takes values from 1 to 64}}
    tile.parallel (%i) in (64) {
      %j = arith.addi %i, %c1 : index
      %v = memref.load %f[%j] : memref<64xf32, #tile.fragment>
      memref.store %v, %f[%i] : memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Negative: a reversed index (31 - %i) stays inside; no error.
func.func @parallel_reversed(%n: index) {
  %c31 = arith.constant 31 : index
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    %g = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.parallel (%i) in (32) {
      %j = arith.subi %c31, %i : index
      %v = memref.load %f[%j] : memref<32xf32, #tile.fragment>
      memref.store %v, %g[%i] : memref<32xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A constant index past the tile, outside any loop: reported at the kernel.
func.func @constant_index_past_tile(%n: index) {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tile.kernel' op expects every index to stay within the buffers it accesses, but index 0 of a memref.store of memref<64xf32, #tile.fragment> takes values from 64 to 64}}
  tile.kernel grid(%n) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    memref.store %zero, %f[%c64] : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// A tensor the host computes (here a collapsed view) is not something a launch can pass: the
// manifests name host arguments.
func.func @host_view(%X: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %flat = memref.collapse_shape %X [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  // expected-error @+1 {{'tile.kernel' op expects every tensor it uses from host code to be an argument of the host function (what a launch passes), but got the result of memref.collapse_shape (memref<64xf32>)}}
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %flat[%c0], %f : memref<64xf32>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// A kernel is outlined to the device: it cannot call a host function (calling its own used to
// recurse until the CPU reference overflowed its stack).
func.func @calls_itself(%X: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op expects no function calls in its body (a kernel runs on the device, where host functions do not exist), but got func.call @calls_itself}}
  tile.kernel grid(%c1) threads(32) (%bx) {
    func.call @calls_itself(%X) : (memref<64xf32>) -> ()
  }
  return
}

// -----

// Sizes whose products overflow 64 bits used to panic the lowerings (a caught Rust panic).
func.func @huge_tile(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    // expected-error @+1 {{expects the result to hold at most 262144 elements (a tile lives in the on-chip memory of one block), but got memref<9223372036854775807x2xf32, #tile.fragment>}}
    %f = tile.alloc_fragment : memref<9223372036854775807x2xf32, #tile.fragment>
  }
  return
}

// -----

func.func @huge_extents(%n: index) {
  tile.kernel grid(%n) threads(32) (%bx) {
    // expected-error @+1 {{expects at most 16777216 iterations (the loop runs over tiles of one block), but got extents (4294967296, 4294967296)}}
    tile.parallel (%i, %j) in (4294967296, 4294967296) {
    }
  }
  return
}

// -----

func.func @huge_tensor(%X: memref<9223372036854775807x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    // expected-error @+1 {{expects the source to hold at most 1099511627776 elements (the lowerings index tensors with 64-bit byte offsets), but got memref<9223372036854775807x64xf32>}}
    tile.copy %X[%c0, %c0], %f : memref<9223372036854775807x64xf32>, memref<8x64xf32, #tile.fragment>
  }
  return
}

// -----

// A store of one 4-bit element would race with the thread storing the other half of its byte.
func.func @store_i4(%Q: memref<8x8xi4>, %v: i4) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%b) {
    // expected-error @+1 {{'tile.parallel' op expects no element stores into memref<8x8xi4>, whose elements are stored two to a byte (threads writing the two halves of a byte would race); copy whole tiles of them with tile.copy}}
    tile.parallel (%i) in (8) {
      memref.store %v, %Q[%i, %i] : memref<8x8xi4>
    }
  }
  return
}
