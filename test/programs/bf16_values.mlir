// bf16 on a target without instructions for it (the plain SPIR-V target holds it as i16:
// tile-emulate-small-floats): loads through a shared tile, a widened value, arithmetic in f32 and
// stores rounded back to bf16.

func.func @bf16_values(%A: memref<16x32xbf16>, %C: memref<16x32xf32>, %D: memref<16x32xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %As = tile.alloc_shared : memref<16x32xbf16, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0], %As : memref<16x32xbf16>, memref<16x32xbf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (16, 32) {
      %x = memref.load %As[%i, %j] : memref<16x32xbf16, #gpu.address_space<workgroup>>
      %y = arith.extf %x : bf16 to f32
      memref.store %y, %C[%i, %j] : memref<16x32xf32>
      %z = arith.addf %x, %x : bf16
      memref.store %z, %D[%i, %j] : memref<16x32xbf16>
    }
  }
  return
}
