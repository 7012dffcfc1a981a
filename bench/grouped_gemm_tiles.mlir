// Grouped GEMM as examples/grouped_gemm.mlir computes it (the same arguments and result), one block
// a 128x256 output tile: the grid covers (ceil(M / 128) + G) row tiles x ceil(N / 256) column tiles
// in bands of 8 row tiles (down a band's rows, then its next column, so that blocks running
// together share B's columns in L2); a block finds its row tile's group by a loop over the
// sizes at its top, which its producer warpgroup reads too; a row tile past the last group's
// runs no step and writes nothing; a tile stores its group's rows only (`limits`). bench/prepare.sh
// compiles it beside the example.
func.func @grouped_gemm_tiles(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %ntiles = arith.ceildivui %n, %c256 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c128 : index
  %row_tiles = arith.addi %mtiles, %groups : index
  %items = arith.muli %row_tiles, %ntiles : index
  %band = arith.muli %c8, %ntiles : index
  tile.kernel grid(%items) threads(256) (%id) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    // The grouped walk: bands of 8 row tiles, down a band's rows, then its next column.
    %b = arith.divui %id, %band : index
    %in_band = arith.remui %id, %band : index
    %first_row = arith.muli %b, %c8 : index
    %rows_left = arith.subi %row_tiles, %first_row : index
    %band_rows = arith.minui %rows_left, %c8 : index
    %row_in_band = arith.remui %in_band, %band_rows : index
    %by = arith.addi %first_row, %row_in_band : index
    %bx = arith.divui %in_band, %band_rows : index
    %at:6 = scf.for %g = %c0 to %groups step %c1
        iter_args(%start = %c0, %first = %c0, %hit = %false, %grp = %c0, %grow = %c0, %grows = %c0)
        -> (index, index, i1, index, index, index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %end = arith.addi %first, %mt : index
      %after_first = arith.cmpi uge, %by, %first : index
      %before_end = arith.cmpi ult, %by, %end : index
      %here = arith.andi %after_first, %before_end : i1
      %hit2 = arith.ori %hit, %here : i1
      %grp2 = arith.select %here, %g, %grp : index
      %m0 = arith.subi %by, %first : index
      %m0r = arith.muli %m0, %c128 : index
      %r0 = arith.addi %start, %m0r : index
      %grow2 = arith.select %here, %r0, %grow : index
      %left = arith.subi %rows, %m0r : index
      %grows2 = arith.select %here, %left, %grows : index
      %next = arith.addi %start, %rows : index
      scf.yield %next, %end, %hit2, %grp2, %grow2, %grows2 : index, index, i1, index, index, index
    }
    %row0 = arith.select %at#2, %at#4, %c0 : index
    %valid = arith.select %at#2, %at#5, %c0 : index
    %steps = arith.select %at#2, %ktiles, %c0 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    tile.pipelined %kt = %c0 to %steps stages(4) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%at#3, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%row0, %n0] limits [%valid, %c256] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
  }
  return
}
