// Attention scores Q K^T on 4-D (batch, head, sequence, head dim) tensors: a GEMM of 2-D tiles placed
// in the trailing dimensions, the leading offsets picking the batch and the head (block z = b * 3 + h).
// The sequence (104) is ragged on 64-row tiles: the last block's rows 104..127 read zeros and are not
// written, never the next head's rows. B is given as NxK (transpose_b), the scale 1/8 applied in the
// epilogue.
func.func @multi_head_scores(%Q: memref<2x3x104x64xf16>, %K: memref<2x3x104x64xf16>, %S: memref<2x3x104x104xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 0.125 : f32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2, %c6) threads(128) (%bx, %by, %bz) {
    %Qs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Sf, %zero : memref<64x64xf32, #tile.fragment>
    %b = arith.divui %bz, %c3 : index
    %h = arith.remui %bz, %c3 : index
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %Q[%b, %h, %m0, %k0], %Qs : memref<2x3x104x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %K[%b, %h, %n0, %k0], %Ks : memref<2x3x104x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks, %Sf {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.mulf %v, %scale : f32
      memref.store %r, %Sf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Sf, %S[%b, %h, %m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<2x3x104x104xf16>
  }
  return
}
