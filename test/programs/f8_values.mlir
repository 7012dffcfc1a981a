// f8E4M3FN outside the tensor cores' operands, on every target that holds it as bytes
// (tile-emulate-small-floats: sm_90a, sm_80, gfx942, plain SPIR-V, the CPU reference):
// @f8_round_trip rounds f32 values to f8E4M3FN across its range (subnormals, ties, up to 300 of
// its 448; overflow to NaN is lit/Targets/tile-run-f8.mlir's) and widens them back; @f8_through_shared moves an f8E4M3FN tile through shared memory
// (copied in, widened and scaled by the threads, rounded into a second shared tile, copied out);
// @f8_from_fragment rounds a fragment into an f8E4M3FN tensor as it is copied out;
// @f8_between_f16_fragments converts f16 to f8E4M3FN and back as fragments are copied.
func.func @f8_round_trip(%X: memref<64x64xf32>, %D: memref<3x64x64xf8E4M3FN>, %E: memref<3x64x64xf32>) {
  %c1 = arith.constant 1 : index
  %small = arith.constant 0.004 : f32
  %middle = arith.constant 3.0 : f32
  %large = arith.constant 300.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    tile.parallel (%i, %j) in (64, 64) {
      %c0 = arith.constant 0 : index
      %c1i = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x = memref.load %X[%i, %j] : memref<64x64xf32>
      %a = arith.mulf %x, %small : f32
      %m = arith.mulf %x, %middle : f32
      %l = arith.mulf %x, %large : f32
      %ta = arith.truncf %a : f32 to f8E4M3FN
      %tm = arith.truncf %m : f32 to f8E4M3FN
      %tl = arith.truncf %l : f32 to f8E4M3FN
      memref.store %ta, %D[%c0, %i, %j] : memref<3x64x64xf8E4M3FN>
      memref.store %tm, %D[%c1i, %i, %j] : memref<3x64x64xf8E4M3FN>
      memref.store %tl, %D[%c2, %i, %j] : memref<3x64x64xf8E4M3FN>
      %ea = arith.extf %ta : f8E4M3FN to f32
      %em = arith.extf %tm : f8E4M3FN to f32
      %el = arith.extf %tl : f8E4M3FN to f32
      memref.store %ea, %E[%c0, %i, %j] : memref<3x64x64xf32>
      memref.store %em, %E[%c1i, %i, %j] : memref<3x64x64xf32>
      memref.store %el, %E[%c2, %i, %j] : memref<3x64x64xf32>
    }
  }
  return
}

func.func @f8_through_shared(%Q: memref<128x128xf8E4M3FN>, %W: memref<128x128xf32>, %R: memref<128x128xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 1.5 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Rs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %r0 = arith.muli %by, %c64 : index
    %c0b = arith.muli %bx, %c64 : index
    tile.copy %Q[%r0, %c0b], %Qs : memref<128x128xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (64, 64) {
      %q = memref.load %Qs[%i, %j] : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
      %w = arith.extf %q : f8E4M3FN to f32
      %s = arith.mulf %w, %scale : f32
      %row = arith.addi %r0, %i : index
      %column = arith.addi %c0b, %j : index
      memref.store %s, %W[%row, %column] : memref<128x128xf32>
      %r = arith.truncf %s : f32 to f8E4M3FN
      memref.store %r, %Rs[%i, %j] : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    }
    tile.copy %Rs, %R[%r0, %c0b] : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf8E4M3FN>
  }
  return
}

func.func @f8_from_fragment(%X: memref<64x64xf32>, %Y: memref<64x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scale = arith.constant 40.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %F[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = arith.mulf %x, %scale : f32
      memref.store %y, %F[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN>
  }
  return
}

// f16 values rounded into an f8E4M3FN fragment as they are copied in, and widened back into an
// f16 fragment (the conversions go through f32: a direct f16 <-> f8E4M3FN conversion is what
// canonicalization makes of them, which upstream's 8-bit float emulation cannot take).
func.func @f8_between_f16_fragments(%X: memref<64x64xf16>, %Y: memref<64x64xf8E4M3FN>, %Z: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %F = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
    tile.copy %X[%c0, %c0], %F : memref<64x64xf16>, memref<64x64xf8E4M3FN, #tile.fragment>
    tile.copy %F, %Y[%c0, %c0] : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x64xf8E4M3FN>
    %H = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    tile.copy %Y[%c0, %c0], %H : memref<64x64xf8E4M3FN>, memref<64x64xf16, #tile.fragment>
    tile.copy %H, %Z[%c0, %c0] : memref<64x64xf16, #tile.fragment>, memref<64x64xf16>
  }
  return
}
