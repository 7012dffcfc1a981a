// Invalid input for tile-pack-narrow-types: what 4-bit buffers and values meet that bytes holding
// two elements cannot serve is an error at the op, naming what works.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-pack-narrow-types

// The copy's offset along the packed dimension is not known to be even.
func.func @odd_offset(%B: memref<64x256xi4>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %Bq = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op expects its offset along the last dimension of a buffer of 4-bit elements to be even where the compiler can see it}}
    tile.copy %B[%c0, %k], %Bq : memref<64x256xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A 4-bit value used as it is, not widened.
func.func @unwidened(%Q: memref<8x8xi4>, %O: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%b) {
    tile.parallel (%i) in (8) {
      %q = memref.load %Q[%i, %i] : memref<8x8xi4>
      // expected-error @+1 {{'arith.addi' op uses a i4 loaded from a buffer of 4-bit elements, which are stored two to a byte: widen it first (arith.extsi, extui, sitofp or uitofp)}}
      %s = arith.addi %q, %q : i4
      %w = arith.extsi %s : i4 to i32
      memref.store %w, %O[%i] : memref<8xi32>
    }
  }
  return
}

// -----

// A view of a 4-bit buffer.
func.func @subview(%Q: memref<8x8xi4>) {
  // expected-error @+1 {{'memref.subview' op makes a memref<4x4xi4, strided<[8, 1]>>: only host function arguments and tile.alloc_shared hold 4-bit elements}}
  %v = memref.subview %Q[0, 0] [4, 4] [1, 1] : memref<8x8xi4> to memref<4x4xi4, strided<[8, 1]>>
  return
}

// -----

// A host function whose 4-bit argument has an odd last dimension.
// expected-error @+1 {{'func.func' op expects the last dimension of memref<8x7xi4> to be even: 4-bit elements are stored two to a byte along it}}
func.func @odd_rows(%Q: memref<8x7xi4>, %O: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%b) {
    tile.parallel (%i) in (7) {
      %q = memref.load %Q[%i, %i] : memref<8x7xi4>
      %f = arith.sitofp %q : i4 to f32
      memref.store %f, %O[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// f4E2M1FN widened to a type with no layout this pass builds.
func.func @f4_to_f8(%F: memref<8x8xf4E2M1FN>, %O: memref<8xf8E4M3FN>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%b) {
    tile.parallel (%i) in (8) {
      %q = memref.load %F[%i, %i] : memref<8x8xf4E2M1FN>
      // expected-error @+1 {{'arith.extf' op uses a f4E2M1FN loaded from a buffer of 4-bit elements, which are stored two to a byte: widen it first (arith.extf to f16, bf16, f32 or f64)}}
      %f = arith.extf %q : f4E2M1FN to f8E4M3FN
      memref.store %f, %O[%i] : memref<8xf8E4M3FN>
    }
  }
  return
}
