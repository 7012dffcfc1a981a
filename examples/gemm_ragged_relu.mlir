// Sizes that are not tile multiples (1000x1504x704) with a ReLU epilogue: the last tiles are clipped.
func.func @gemm_ragged_relu(%A: memref<1000x704xf16>, %B: memref<704x1504xf16>, %C: memref<1000x1504xf16>) {
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 64 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %ktiles = arith.constant 11 : index
  %gx = arith.constant 12 : index
  %gy = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<1000x704xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<704x1504xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<1000x1504xf16>
  }
  return
}
