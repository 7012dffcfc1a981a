// The fuzzer's seed 13131, case 339 (minimized): a tile.copy moved into a tile.parallel body that
// also updates the copied fragment. The iterations are unordered: what each copy reads depends on
// which stores ran before it (Vulkan and the CPU reference differ). The interpreter stops at the
// second iteration's copy, which reads what the first changed.
func.func @row_softmax(%X: memref<24x64xf32>, %Y: memref<24x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c3) threads(64) (%bx) {
    %S = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %l = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    %r0 = arith.muli %bx, %c8 : index
    tile.copy %X[%r0, %c0], %S : memref<24x64xf32>, memref<8x64xf32, #tile.fragment>
    tile.reduce <sum> %S, %l dim(1) : memref<8x64xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 64) {
      %e = memref.load %S[%i, %j] : memref<8x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<8xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
    tile.copy %S, %Y[%r0, %c0] : memref<8x64xf32, #tile.fragment>, memref<24x64xf32>
      memref.store %p, %S[%i, %j] : memref<8x64xf32, #tile.fragment>
    }
  }
  return
}
