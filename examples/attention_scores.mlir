// Attention scores S = Q K^T / sqrt(64) on 4-D (batch, head, sequence, head dim) tensors, the way
// attention inputs arrive: each block computes one 128x128 tile of one (batch, head) matrix, its 2-D
// tiles placed in the tensors' last two dimensions and the leading offsets picking the batch and the
// head (block z = batch * 16 + head). The sequence (1000) is ragged on 128-row tiles: the last block's
// rows 1000..1023 read zeros and are not written, never the next head's rows. On sm_90a the copies
// are 4-D TMA boxes (1x1x128x32 and 1x1x128x64), on gfx942 wide loads and guarded stores at
// (batch, head, row, column); cooperative matrices run it with the plain strategy, with a warning
// that names the copy.
func.func @attention_scores(%Q: memref<4x16x1000x64xf16>, %K: memref<4x16x1000x64xf16>, %S: memref<4x16x1000x1000xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %scale = arith.constant 0.125 : f32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8, %c8, %c64) threads(128) (%bx, %by, %bz) {
    %Qs = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Sf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Sf, %zero : memref<128x128xf32, #tile.fragment>
    %b = arith.divui %bz, %c16 : index
    %h = arith.remui %bz, %c16 : index
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %Q[%b, %h, %m0, %k0], %Qs : memref<4x16x1000x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %K[%b, %h, %n0, %k0], %Ks : memref<4x16x1000x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks, %Sf {transpose_b} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Sf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.mulf %v, %scale : f32
      memref.store %r, %Sf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Sf, %S[%b, %h, %m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4x16x1000x1000xf16>
  }
  return
}
