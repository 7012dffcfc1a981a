// Integer atomics every target makes, SPIR-V included: 4 blocks of 64 threads count the inputs of
// each residue class mod 8 (addi), and keep each class's largest and smallest input (maxs, mins)
// and the bits any of them has (ori); the counters hold random values first.
func.func @counts(%X: memref<256xi32>, %N: memref<8xi32>, %Hi: memref<8xi32>, %Lo: memref<8xi32>, %Bits: memref<8xi32>) {
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c4) threads(64) (%bx) {
    tile.parallel (%i) in (64) {
      %c64 = arith.constant 64 : index
      %c8 = arith.constant 8 : index
      %one = arith.constant 1 : i32
      %base = arith.muli %bx, %c64 : index
      %j = arith.addi %base, %i : index
      %x = memref.load %X[%j] : memref<256xi32>
      %class = arith.remui %j, %c8 : index
      %n = memref.atomic_rmw addi %one, %N[%class] : (i32, memref<8xi32>) -> i32
      %h = memref.atomic_rmw maxs %x, %Hi[%class] : (i32, memref<8xi32>) -> i32
      %l = memref.atomic_rmw mins %x, %Lo[%class] : (i32, memref<8xi32>) -> i32
      %b = memref.atomic_rmw ori %x, %Bits[%class] : (i32, memref<8xi32>) -> i32
    }
  }
  return
}
