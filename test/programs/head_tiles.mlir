// Tiles across the middle of (batch, sequence, head, channel) tensors, as Mamba-2 and attention
// kernels read them (TileLang's `X[b, s0:s0+64, h, :]`): `dims [1, 3]` puts a tile in the sequence
// and channel dimensions at a fixed batch and head. Per head, Y[b, :, h, :] = W[b, h] X[b, :, h, :]
// + X[b, :, h, :] / 2, on a ragged sequence (80 tokens on 64-row blocks and 32-token steps: the
// last block's rows 80..127 read zeros and are not written, never the next head's channels). The
// copies cover a pipelined ring (TMA or cp.async), a fragment read and a fragment written back.
func.func @head_tiles(%W: memref<2x3x80x80xf16>, %X: memref<2x80x3x64xf16>, %Y: memref<2x80x3x64xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  tile.kernel grid(%c2, %c3, %c2) threads(128) (%bx, %bh, %bb) {
    %Ws = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Xs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %R = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %W[%bb, %bh, %m0, %k0], %Ws : memref<2x3x80x80xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %X[%bb, %k0, %bh, %c0], %Xs dims [1, 3] : memref<2x80x3x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ws, %Xs, %Acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %X[%bb, %m0, %bh, %c0], %R dims [1, 3] : memref<2x80x3x64xf16>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %a = memref.load %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = memref.load %R[%i, %j] : memref<64x64xf32, #tile.fragment>
      %h = arith.mulf %r, %half : f32
      %s = arith.addf %a, %h : f32
      memref.store %s, %Acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Acc, %Y[%bb, %m0, %bh, %c0] dims [1, 3] : memref<64x64xf32, #tile.fragment>, memref<2x80x3x64xf16>
  }
  return
}
