// Invalid asynchronous-copy ops: each rule of their verifiers, at the op.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @barriers_type() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    // expected-error @+1 {{'tile.alloc_barriers' op expects the result to be barriers, a memref<N x i64, #gpu.address_space<workgroup>> with 1 <= N <= 32, but got memref<2xi32, #gpu.address_space<workgroup>>}}
    %full = tile.alloc_barriers : memref<2xi32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @slot_shape() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.slot' op expects the result to be one tile of the ring (the ring's shape without its leading dimension, its element type), but got memref<64x32xf16, #gpu.address_space<workgroup>> from memref<2x32x64xf16, #gpu.address_space<workgroup>>}}
    %s = tile.slot %ring[%c1] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @slot_index() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.slot' op expects the slot in [0, 2), but got 2}}
    %s = tile.slot %ring[%c2] : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> memref<32x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_converts(%K: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy_async' op expects the source and destination to have one element type (an asynchronous copy does not convert), but got memref<256x64xf32> and memref<32x64xf16, #gpu.address_space<workgroup>>}}
    tile.copy_async %K[%c0, %c0], %s, %full[%c0] : memref<256x64xf32>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_into_fragment(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %f = tile.alloc_fragment : memref<32x64xf16, #tile.fragment>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy_async' op expects a copy from a global tensor into a shared tile, but got memref<256x64xf16> into memref<32x64xf16, #tile.fragment>}}
    tile.copy_async %K[%c0, %c0], %f, %full[%c0] : memref<256x64xf16>, memref<32x64xf16, #tile.fragment>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @copy_offsets(%K: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %s = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy_async' op expects one offset per dimension of the source (2), but got 1}}
    tile.copy_async %K[%c0], %s, %full[%c0] : memref<256x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @arrive_index() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.arrive' op expects the barrier in [0, 2), but got 4}}
    tile.arrive %full[%c4] : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @wait_phase() {
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.wait' op expects a phase >= 0, but got -1}}
    tile.wait %full[%c1], %m1 : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @wait_outside() {
  %c1 = arith.constant 1 : index
  %full = memref.alloc() : memref<2xi64>
  // expected-error @+1 {{'tile.wait' op expects to be nested in a tile.kernel (it runs on the threads of a block), but it is not}}
  tile.wait %full[%c1], %c1 : memref<2xi64>
  return
}

// -----

// A producer's block is the kernel's plus a warpgroup: the kernel's threads must be whole
// warpgroups.
func.func @producer_threads() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(96) (%b) {
    // expected-error @+1 {{'tile.producer' op expects its kernel's threads to be whole warpgroups (a multiple of 128) and at most 896 (the producer's warpgroup comes on top), but the kernel has 96 threads}}
    tile.producer {
    }
  }
  return
}

// -----

func.func @producer_nested() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    scf.for %k = %c0 to %c1 step %c1 {
      // expected-error @+1 {{'tile.producer' op expects to be a direct child of a tile.kernel (the block's extra warpgroup runs it beside the kernel's threads), but it is nested in another op}}
      tile.producer {
      }
    }
  }
  return
}

// -----

func.func @producer_twice() {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    // expected-error @+1 {{'tile.producer' op expects to be the only tile.producer of its kernel, but the kernel has 2}}
    tile.producer {
    }
    tile.producer {
    }
  }
  return
}

// -----

// Only what issues copies: a gemm belongs to the kernel's threads.
func.func @producer_computes(%A: memref<64x64xf16>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.producer' op expects only index arithmetic, loads of global tensors, scf.for, scf.if, tile.slot, tile.copy_async, tile.wait and tile.arrive in its body, but it holds 'tile.fill'}}
    tile.producer {
      tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A barrier the producer arrives on completes on its arrival alone.
func.func @producer_shares_barrier() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.producer' op expects the barriers it arrives on to be arrived on only by the producer, but the kernel's threads arrive on one of them too}}
    tile.producer {
      tile.arrive %full[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
    }
    tile.arrive %full[%c1] : memref<2xi64, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @split_sum_splits(%r: index) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.splits = 2} {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.split_sum' op expects splits from 2 to 8 (the blocks of a portable thread block cluster), but got 1}}
    tile.split_sum %Cf, %s, %r splits(1) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @split_sum_no_clusters(%r: index) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.split_sum' op expects its kernel's tile.splits (the blocks of each of its clusters) to be 2, but got none}}
    tile.split_sum %Cf, %s, %r splits(2) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @split_sum_nested(%r: index, %p: i1) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.splits = 2} {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
    scf.if %p {
      // expected-error @+1 {{'tile.split_sum' op expects to be a direct child of a tile.kernel (every thread of each block reaches it once), but it is nested in another op}}
      tile.split_sum %Cf, %s, %r splits(2) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @split_sum_shared(%r: index) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.splits = 2} {
    %Cs = tile.alloc_shared : memref<64x128xf32, #gpu.address_space<workgroup>>
    %s = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.split_sum' op expects a fragment to sum, but got memref<64x128xf32, #gpu.address_space<workgroup>>}}
    tile.split_sum %Cs, %s, %r splits(2) : memref<64x128xf32, #gpu.address_space<workgroup>>, memref<8192xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @split_sum_scratch(%r: index) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.splits = 2} {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<8192xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.split_sum' op expects a shared tile of the fragment's element type to exchange it through, but got memref<8192xf16, #gpu.address_space<workgroup>>}}
    tile.split_sum %Cf, %s, %r splits(2) : memref<64x128xf32, #tile.fragment>, memref<8192xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @split_sum_small_scratch(%r: index) {
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.splits = 2} {
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.split_sum' op expects a scratch of at least the fragment's 8192 elements (each thread's registers go there), but got memref<64xf32, #gpu.address_space<workgroup>>}}
    tile.split_sum %Cf, %s, %r splits(2) : memref<64x128xf32, #tile.fragment>, memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @multicast_blocks() {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.kernel' op expects tile.multicast from 2 to 8 (the blocks of a portable thread block cluster), but got 16}}
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.multicast = 16} {
  }
  return
}

// -----

func.func @multicast_and_splits() {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.kernel' op expects one of tile.splits and tile.multicast (a cluster either splits each tile's sum or shares its loads), but got both}}
  tile.kernel grid(%c2) threads(128) (%b) attributes {tile.multicast = 2, tile.splits = 2} {
  }
  return
}

// -----

func.func @cluster_shared_without_clusters(%A: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.kernel' op expects tile.multicast (the blocks of its clusters) where a copy is tile.cluster_shared ('tile.copy' at}}
  tile.kernel grid(%c2) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0], %As {tile.cluster_shared} : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}
