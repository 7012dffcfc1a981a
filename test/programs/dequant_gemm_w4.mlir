// 4-bit weights, stored two to a byte (tile-pack-narrow-types): a W4A16 GEMM whose signed i4
// weights carry an f16 scale per 128 weights of a row, the same with f4E2M1FN weights (MXFP4's
// element type), unsigned 4-bit codes widened to f32 and to i32, and a tile of packed weights
// copied through shared memory into another tensor.

// C = A * dequant(B)^T: B's tiles are widened in a tile.parallel into an f16 tile the gemm reads.
func.func @dequant_gemm_i4(%A: memref<64x256xf16>, %B: memref<128x256xi4>, %S: memref<128x2xf16>, %C: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(128) (%bn) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %n0 = arith.muli %bn, %c64 : index
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0], %As : memref<64x256xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bq : memref<128x256xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
      %g = arith.divui %k0, %c128 : index
      tile.parallel (%n, %kk) in (64, 64) {
        %q = memref.load %Bq[%n, %kk] : memref<64x64xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        %row = arith.addi %n0, %n : index
        %s = memref.load %S[%row, %g] : memref<128x2xf16>
        %d = arith.mulf %w, %s : f16
        memref.store %d, %Bd[%n, %kk] : memref<64x64xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %Cf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %n0] : memref<64x64xf32, #tile.fragment>, memref<64x128xf32>
  }
  return
}

// The same with f4E2M1FN weights read straight from global memory, scaled by one f16 scale a
// row block, into an f16 gemm.
func.func @dequant_gemm_f4(%A: memref<64x128xf16>, %B: memref<64x128xf4E2M1FN>, %S: memref<2xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(128) (%bn) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x32xf32, #tile.fragment>
    %n0 = arith.muli %bn, %c32 : index
    %s = memref.load %S[%bn] : memref<2xf16>
    tile.pipelined %k = %c0 to %c2 stages(1) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0], %As : memref<64x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%n, %kk) in (32, 64) {
        %row = arith.addi %n0, %n : index
        %col = arith.addi %k0, %kk : index
        %q = memref.load %B[%row, %col] : memref<64x128xf4E2M1FN>
        %w = arith.extf %q : f4E2M1FN to f16
        %d = arith.mulf %w, %s : f16
        memref.store %d, %Bd[%n, %kk] : memref<32x64xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %Cf {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %n0] : memref<64x32xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// Unsigned 4-bit codes (arith.extui, arith.uitofp) and f4E2M1FN widened to f32, element by element.
func.func @widen_4_bit(%Q: memref<16x64xi4>, %F: memref<16x64xf4E2M1FN>, %U: memref<16x64xf32>, %I: memref<16x64xi32>, %G: memref<16x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    tile.parallel (%i, %j) in (16, 64) {
      %q = memref.load %Q[%i, %j] : memref<16x64xi4>
      %u = arith.uitofp %q : i4 to f32
      %e = arith.extui %q : i4 to i32
      %s = arith.extsi %q : i4 to i32
      %t = arith.addi %e, %s : i32
      %f = memref.load %F[%i, %j] : memref<16x64xf4E2M1FN>
      %g = arith.extf %f : f4E2M1FN to f32
      memref.store %u, %U[%i, %j] : memref<16x64xf32>
      memref.store %t, %I[%i, %j] : memref<16x64xi32>
      memref.store %g, %G[%i, %j] : memref<16x64xf32>
    }
  }
  return
}

// A 16x32 tile of packed weights copied through shared memory to another place (its bytes move).
func.func @move_packed_tile(%W: memref<64x96xi4>, %O: memref<32x64xi4>) {
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  tile.kernel grid(%c2, %c2) threads(64) (%bx, %by) {
    %T = tile.alloc_shared : memref<16x32xi4, #gpu.address_space<workgroup>>
    %r = arith.muli %by, %c16 : index
    %c = arith.muli %bx, %c32 : index
    %rs = arith.addi %r, %c32 : index
    %cs = arith.addi %c, %c32 : index
    tile.copy %W[%rs, %cs], %T : memref<64x96xi4>, memref<16x32xi4, #gpu.address_space<workgroup>>
    tile.copy %T, %O[%r, %c] : memref<16x32xi4, #gpu.address_space<workgroup>>, memref<32x64xi4>
  }
  return
}
