// A two-GEMM chain, as an MLP block: Y = relu(X W1) W2 on 4096 rows of 256 features, a hidden tile
// of 128 and 64 outputs. The first product stays in registers: relu, then an f16 copy of it is the
// second gemm's A operand, register to register (the accumulator and the wgmma A operand hold each
// element on the same thread).
func.func @mlp_chain(%X: memref<4096x256xf16>, %W1: memref<256x128xf16>, %W2: memref<128x64xf16>, %Y: memref<4096x64xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %rows = arith.constant 64 : index
  %blocks = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%blocks) threads(128) (%b) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %W1s = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %W2s = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %H = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %P = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %r0 = arith.muli %b, %rows : index
    tile.fill %H, %zero : memref<64x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%r0, %k0], %Xs : memref<4096x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W1[%k0, %c0], %W1s : memref<256x128xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %W1s, %H : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 128) {
      %h = memref.load %H[%i, %j] : memref<64x128xf32, #tile.fragment>
      %r = arith.maximumf %h, %zero : f32
      memref.store %r, %H[%i, %j] : memref<64x128xf32, #tile.fragment>
    }
    tile.copy %H, %P : memref<64x128xf32, #tile.fragment>, memref<64x128xf16, #tile.fragment>
    tile.copy %W2, %W2s : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %O, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %P, %W2s, %O : memref<64x128xf16, #tile.fragment>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %O, %Y[%r0, %c0] : memref<64x64xf32, #tile.fragment>, memref<4096x64xf16>
  }
  return
}
