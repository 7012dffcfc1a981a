// Grouped GEMM (examples/grouped_gemm.mlir's arguments and result), one 128x256 output tile a block as
// written, persistent by tile-persistent-kernels: the grid's rows are the groups' row tiles, bounded
// by the host at ceil(M / 128) + G; the kernel counts the row tiles the sizes give and guards its
// body by that count, and the persistent kernel's blocks walk those only. Every tile stores only its
// group's rows (`limits`). Where groups are long (1024 rows or more on average) the row tiles whole
// in their group come first, in the groups' order, then each group's last, partial one: such a
// group's B is out of L2 by the time its whole tiles are done either way, and a block that stores a
// partial tile falls behind the blocks it shares B's columns with, so those are left to the last
// waves. Where groups are short, each group's partial tile comes right after its whole ones, while
// its B is in L2 (bench/RESULTS.md, runs 308-313).
func.func @grouped_gemm_walk(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %ntiles = arith.ceildivui %n, %c256 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c128 : index
  %row_tiles = arith.addi %mtiles, %groups : index
  tile.kernel grid(%ntiles, %row_tiles) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    // Whether each group's partial row tile waits for every group's whole ones (long groups).
    %long_rows = arith.muli %groups, %c1024 : index
    %defer = arith.cmpi uge, %m, %long_rows : index
    // The groups' row tiles, and those walked first: the whole ones (128 rows of their group)
    // where partial ones wait, else all.
    %counts:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0, %sum_first = %c0) -> (index, index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %wt = arith.divui %rows, %c128 : index
      %ft = arith.select %defer, %wt, %mt : index
      %next = arith.addi %sum, %mt : index
      %next_first = arith.addi %sum_first, %ft : index
      scf.yield %next, %next_first : index, index
    }
    %in_groups = arith.cmpi ult, %by, %counts#0 : index
    scf.if %in_groups {
      // Row tile %by's group, its first row in A and C, and the group's rows from there: below
      // %counts#1 the row tiles walked first, in the groups' order; from there the partial ones.
      %is_whole = arith.cmpi ult, %by, %counts#1 : index
      %is_part = arith.cmpi uge, %by, %counts#1 : index
      %partial_index = arith.subi %by, %counts#1 : index
      %at:6 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %firstp = %c0, %grp = %c0, %grow = %c0, %grows = %c0)
          -> (index, index, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %whole_tiles = arith.divui %rows, %c128 : index
        %all_tiles = arith.ceildivui %rows, %c128 : index
        %wt = arith.select %defer, %whole_tiles, %all_tiles : index
        %wrows = arith.muli %whole_tiles, %c128 : index
        %rest = arith.subi %rows, %wrows : index
        %has_rest = arith.cmpi ne, %rest, %c0 : index
        %waits = arith.andi %has_rest, %defer : i1
        %pt = arith.select %waits, %c1, %c0 : index
        %end = arith.addi %first, %wt : index
        %endp = arith.addi %firstp, %pt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %in_whole = arith.andi %after_first, %before_end : i1
        %here_whole = arith.andi %in_whole, %is_whole : i1
        %after_firstp = arith.cmpi uge, %partial_index, %firstp : index
        %before_endp = arith.cmpi ult, %partial_index, %endp : index
        %in_part = arith.andi %after_firstp, %before_endp : i1
        %here_part = arith.andi %in_part, %is_part : i1
        %here = arith.ori %here_whole, %here_part : i1
        %grp2 = arith.select %here, %g, %grp : index
        %m0 = arith.subi %by, %first : index
        %m0r = arith.muli %m0, %c128 : index
        %m0s = arith.select %here_part, %wrows, %m0r : index
        %r0 = arith.addi %start, %m0s : index
        %grow2 = arith.select %here, %r0, %grow : index
        %left = arith.subi %rows, %m0s : index
        %grows2 = arith.select %here, %left, %grows : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %endp, %grp2, %grow2, %grows2 : index, index, index, index, index, index
      }
      %n0 = arith.muli %bx, %c256 : index
      tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%at#4, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#3, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
            memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
      }
      // The tile's rows in its group (all of them but in a group's last tile) leave as one
      // copy, limited to the group's rows and clipped at C's end (sizes from the device may sum
      // past M).
      tile.copy %Cf, %C[%at#4, %n0] limits [%at#5, %c256] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
    }
  }
  return
}
