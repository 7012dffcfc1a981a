// Every reduction kind over the columns of a 16x32 tile, and clear = false accumulating a second
// reduction into the first: out[k][j] for kind k = sum, max, min, abssum, absmax, then sum twice.
// With 64 threads for 32 columns the GPU targets split every reduction across 2 threads a column.
func.func @reduce_kinds(%X: memref<16x32xf32>, %O: memref<6x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %S = tile.alloc_shared : memref<16x32xf32, #gpu.address_space<workgroup>>
    %r = tile.alloc_fragment : memref<1x32xf32, #tile.fragment>
    %v = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.copy %X[%c0, %c0], %S : memref<16x32xf32>, memref<16x32xf32, #gpu.address_space<workgroup>>
    tile.reduce <sum> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c0, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
    tile.reduce <max> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c1, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
    tile.reduce <min> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c2, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
    tile.reduce <abssum> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c3, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
    tile.reduce <absmax> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c4, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
    tile.reduce <sum> %S, %v dim(0) : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.reduce <sum> %S, %v dim(0) {clear = false} : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #tile.fragment>
    tile.parallel (%j) in (32) {
      %x = memref.load %v[%j] : memref<32xf32, #tile.fragment>
      memref.store %x, %r[%c0, %j] : memref<1x32xf32, #tile.fragment>
    }
    tile.copy %r, %O[%c5, %c0] : memref<1x32xf32, #tile.fragment>, memref<6x32xf32>
  }
  return
}
