// Grouped GEMM, the expert layer of a mixture of experts: the rows of A (tokens sorted by expert,
// M x K) come in G groups of sizes known on the device only (`Sizes`, G entries, summing to M);
// group g is multiplied by its own weights B[g] (K x N) into the same rows of C (M x N), all in
// one launch. Written one 128x128 output tile a block: the grid's rows are the groups' row tiles,
// in the groups' order, bounded by the host at ceil(M / 128) + G; a block finds its row tile's
// group by summing the sizes, and a row tile past the last group's has no work. Its loop asks for
// a persistent kernel (`persistent = true`): sm_90a's tile-persistent-kernels makes the grid a walk
// of one block a multiprocessor over the row tiles the sizes give (the other targets run the grid
// as written). A tile's rows past its group's end are read (they are the next group's, or zeros
// past M) but not written: each tile leaves as one copy limited to its group's rows (`limits`,
// which sm_90a keeps on TMA), and clipped at C's end (sizes from the device may sum past M).
func.func @grouped_gemm(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %ntiles = arith.ceildivui %n, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c128 : index
  %row_tiles = arith.addi %mtiles, %groups : index
  tile.kernel grid(%ntiles, %row_tiles) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // The groups' row tiles.
    %count = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0) -> (index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %next = arith.addi %sum, %mt : index
      scf.yield %next : index
    }
    %in_groups = arith.cmpi ult, %by, %count : index
    scf.if %in_groups {
      // Row tile %by's group, its first row in A and C, and the group's rows from there.
      %at:5 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %grp = %c0, %row0 = %c0, %left = %c0)
          -> (index, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %mt = arith.ceildivui %rows, %c128 : index
        %end = arith.addi %first, %mt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %here = arith.andi %after_first, %before_end : i1
        %grp2 = arith.select %here, %g, %grp : index
        %tile = arith.subi %by, %first : index
        %m0 = arith.muli %tile, %c128 : index
        %r0 = arith.addi %start, %m0 : index
        %row02 = arith.select %here, %r0, %row0 : index
        %rest = arith.subi %rows, %m0 : index
        %left2 = arith.select %here, %rest, %left : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %grp2, %row02, %left2 : index, index, index, index, index
      }
      %n0 = arith.muli %bx, %c128 : index
      tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%at#3, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#2, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
            memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%at#3, %n0] limits [%at#4, %c128] : memref<128x128xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
