// convert-tile-to-cpu on code whose result upstream leaves undefined, or that the CPU reference
// cannot link: one located error each. (Every lowering shares the first two checks,
// `tile_conversions::support::check_supported`.)
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-cpu

// A dimension past the memref's rank (found by the fuzzer: the CPU reference read past the
// descriptor's sizes and crashed, seed 9191 case 9400).
func.func @dim_past_rank(%A: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'memref.dim' op reads dimension 2 of memref<?x?xf16>, which has 2; use an index below 2}}
  %k = memref.dim %A, %c2 : memref<?x?xf16>
  %g = arith.ceildivui %k, %c2 : index
  tile.kernel grid(%g) threads(32) (%bx) {
    %S = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0], %S : memref<?x?xf16>, memref<8x8xf16, #gpu.address_space<workgroup>>
    tile.copy %S, %C[%c0, %c0] : memref<8x8xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}

// -----

// A remainder by a constant 0 (found by the fuzzer: the CPU reference's code for it ran on without
// end, seed 10101).
func.func @remainder_by_zero(%A: memref<64x64xf16>, %C: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tile.kernel grid(%c2) threads(32) (%bx) {
    // expected-error @+1 {{'arith.remui' op divides by the constant 0, whose result is undefined; divide by a nonzero value}}
    %h = arith.remui %bx, %c0 : index
    %S = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%h, %c0], %S : memref<64x64xf16>, memref<8x8xf16, #gpu.address_space<workgroup>>
    tile.copy %S, %C[%h, %c0] : memref<8x8xf16, #gpu.address_space<workgroup>>, memref<64x64xf16>
  }
  return
}

// -----

// A truncation from f64 to bf16, which LLVM compiles for the CPU as a call of compiler-rt's
// __truncdfbf2 that the CPU reference's JIT does not link (found by the fuzzer, seed 12121:
// "Symbols not found", located nowhere). Only the CPU lowering refuses it.
func.func @f64_to_bf16(%X: memref<64xbf16>, %Y: memref<64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xbf16, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xbf16>, memref<64xbf16, #tile.fragment>
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xbf16, #tile.fragment>
      %d = arith.extf %v : bf16 to f64
      // expected-error @+1 {{'arith.truncf' from f64 to bf16 needs compiler-rt's __truncdfbf2, which the CPU reference does not link; truncate to f32 first (then to bf16)}}
      %r = arith.truncf %d : f64 to bf16
      memref.store %r, %x[%j] : memref<64xbf16, #tile.fragment>
    }
    tile.copy %x, %Y[%c0] : memref<64xbf16, #tile.fragment>, memref<64xbf16>
  }
  return
}

// -----

// LLVM has no atomic product, so no target and not the CPU reference makes one.
func.func @atomic_product(%X: memref<64xf32>, %S: memref<1xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    tile.parallel (%i) in (64) {
      %c0 = arith.constant 0 : index
      %v = memref.load %X[%i] : memref<64xf32>
      // expected-error @+1 {{'memref.atomic_rmw' op makes an atomic mulf of f32, which the CPU reference cannot: its atomics are every kind but mulf and muli; no target makes it}}
      %old = memref.atomic_rmw mulf %v, %S[%c0] : (f32, memref<1xf32>) -> f32
    }
  }
  return
}
