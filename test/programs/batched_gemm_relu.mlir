// A batched GEMM with shared weights: X (batch, rows, K) times W (K, N), a 3-D A with a 2-D B, into a
// 3-D result, with a ReLU epilogue. Rows (100) and N (48) are ragged on 64x64 tiles: the last row
// block reads zeros past row 100 of its batch (never the next batch's rows) and writes neither those
// rows nor columns past 48. Block z is the batch.
func.func @batched_gemm_relu(%X: memref<3x100x64xf16>, %W: memref<64x48xf16>, %Y: memref<3x100x48xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c2, %c3) threads(128) (%bx, %by, %bz) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Yf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Yf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %X[%bz, %m0, %k0], %Xs : memref<3x100x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%k0, %n0], %Ws : memref<64x48xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %Ws, %Yf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Yf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Yf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Yf, %Y[%bz, %m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<3x100x48xf16>
  }
  return
}
