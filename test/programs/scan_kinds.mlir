// tile.scan of every kind along both dimensions of a fragment and of a shared tile: inclusive and
// exclusive, in place and into another tile. Y holds, for a 24x40 tile of X: [0] the cumulative
// sums along rows (dim 1), [1] the exclusive running maxima down columns (dim 0), [2] the running
// minima along rows of the shared copy, [3] the exclusive cumulative sums down columns in place.
func.func @scan_kinds(%X: memref<24x40xf32>, %Y: memref<4x24x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %F = tile.alloc_fragment : memref<24x40xf32, #tile.fragment>
    %G = tile.alloc_fragment : memref<24x40xf32, #tile.fragment>
    %S = tile.alloc_shared : memref<24x40xf32, #gpu.address_space<workgroup>>
    %T = tile.alloc_shared : memref<24x40xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%c0, %c0], %F : memref<24x40xf32>, memref<24x40xf32, #tile.fragment>
    tile.scan <sum> %F, %G dim(1) : memref<24x40xf32, #tile.fragment>, memref<24x40xf32, #tile.fragment>
    tile.copy %G, %Y[%c0, %c0, %c0] : memref<24x40xf32, #tile.fragment>, memref<4x24x40xf32>
    tile.scan <max> %F, %G dim(0) {exclusive} : memref<24x40xf32, #tile.fragment>, memref<24x40xf32, #tile.fragment>
    tile.copy %G, %Y[%c1, %c0, %c0] : memref<24x40xf32, #tile.fragment>, memref<4x24x40xf32>
    tile.copy %X[%c0, %c0], %S : memref<24x40xf32>, memref<24x40xf32, #gpu.address_space<workgroup>>
    tile.scan <min> %S, %T dim(1) : memref<24x40xf32, #gpu.address_space<workgroup>>, memref<24x40xf32, #gpu.address_space<workgroup>>
    tile.copy %T, %Y[%c2, %c0, %c0] : memref<24x40xf32, #gpu.address_space<workgroup>>, memref<4x24x40xf32>
    tile.scan <sum> %F, %F dim(0) {exclusive} : memref<24x40xf32, #tile.fragment>, memref<24x40xf32, #tile.fragment>
    tile.copy %F, %Y[%c3, %c0, %c0] : memref<24x40xf32, #tile.fragment>, memref<4x24x40xf32>
  }
  return
}
