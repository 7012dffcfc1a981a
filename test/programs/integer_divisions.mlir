// The rounding integer divisions inside a kernel (ceildivui, ceildivsi, floordivsi) on operands of
// both signs: SPIR-V has no instruction for them (tile-spirv-expand-divisions writes them out).
// Y[i, 0..2] = ceildivsi(a, b), floordivsi(a, b), ceildivui(|a|, |b|) with a = X[i] - 40 and
// b = i mod 9 - 4 (5 in place of 0), and a last column with a trip count from a division.
func.func @integer_divisions(%X: memref<96xi32>, %Y: memref<96x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<96xi32, #tile.fragment>
    %G = tile.alloc_fragment : memref<96x4xi32, #tile.fragment>
    tile.copy %X[%c0], %F : memref<96xi32>, memref<96xi32, #tile.fragment>
    tile.parallel (%i) in (96) {
      %x = memref.load %F[%i] : memref<96xi32, #tile.fragment>
      %c40 = arith.constant 40 : i32
      %a = arith.subi %x, %c40 : i32
      %ii = arith.index_cast %i : index to i32
      %c9 = arith.constant 9 : i32
      %c4 = arith.constant 4 : i32
      %c5 = arith.constant 5 : i32
      %zero = arith.constant 0 : i32
      %r = arith.remui %ii, %c9 : i32
      %b0 = arith.subi %r, %c4 : i32
      %isz = arith.cmpi eq, %b0, %zero : i32
      %b = arith.select %isz, %c5, %b0 : i32
      %up = arith.ceildivsi %a, %b : i32
      %down = arith.floordivsi %a, %b : i32
      %aa = math.absi %a : i32
      %ab = math.absi %b : i32
      %uup = arith.ceildivui %aa, %ab : i32
      %n = arith.index_cast %aa : i32 to index
      %cs = arith.constant 8 : index
      %trips = arith.ceildivui %n, %cs : index
      %t = arith.index_cast %trips : index to i32
      %k0 = arith.constant 0 : index
      %k1 = arith.constant 1 : index
      %k2 = arith.constant 2 : index
      %k3 = arith.constant 3 : index
      memref.store %up, %G[%i, %k0] : memref<96x4xi32, #tile.fragment>
      memref.store %down, %G[%i, %k1] : memref<96x4xi32, #tile.fragment>
      memref.store %uup, %G[%i, %k2] : memref<96x4xi32, #tile.fragment>
      memref.store %t, %G[%i, %k3] : memref<96x4xi32, #tile.fragment>
    }
    tile.copy %G, %Y[%c0, %c0] : memref<96x4xi32, #tile.fragment>, memref<96x4xi32>
  }
  return
}
