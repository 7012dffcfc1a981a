// Grouped GEMM one output tile a block, made persistent by tile-persistent-kernels
// (grouped_gemm_walk_small): 4 groups of rows of A (288x96), group g multiplied by its own B[g]
// (96x2504) into the same rows of C. The group sizes are read on the device, here from random
// inputs made valid (|s| * 9 rows for each of the first three groups, the rest of the 288 for the
// last: empty groups and groups of fewer rows than a tile happen). The grid's rows are the groups'
// row tiles of 64, bounded by the host at ceil(288 / 64) + 4, its columns 128 wide: the row tiles
// whole in their group first, in the groups' order, then each group's partial one
// (bench/grouped_gemm_walk.mlir's order). The kernel counts the row tiles the sizes give and
// guards its work by that count, which a persistent kernel's walk keeps (up to 9 x 20 tiles on
// 132 blocks: blocks walk one or two; a producer warpgroup carries each tile's group search from
// tile to tile).
func.func @grouped_gemm_walk_small(%A: memref<288x96xf16>, %B: memref<4x96x2504xf16>, %Sizes: memref<4xi32>, %C: memref<288x2504xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %groups = arith.constant 4 : index
  %last = arith.constant 3 : index
  %m = arith.constant 288 : index
  %n = arith.constant 2504 : index
  %ntiles = arith.constant 20 : index
  %ktiles = arith.constant 2 : index
  %row_tiles = arith.constant 9 : index
  %zero = arith.constant 0.0 : f32
  %z32 = arith.constant 0 : i32
  %nine = arith.constant 9 : i32
  tile.kernel grid(%ntiles, %row_tiles) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    // All groups' row tiles, and those of them whole (64 rows of their group).
    %live:3 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %tiles = %c0, %wholes = %c0) -> (index, index, index) {
      %s = memref.load %Sizes[%g] : memref<4xi32>
      %neg = arith.subi %z32, %s : i32
      %abs = arith.maxsi %s, %neg : i32
      %r9 = arith.muli %abs, %nine : i32
      %ri = arith.index_cast %r9 : i32 to index
      %left = arith.subi %m, %start : index
      %capped = arith.minui %ri, %left : index
      %is_last = arith.cmpi eq, %g, %last : index
      %rows = arith.select %is_last, %left, %capped : index
      %mt = arith.ceildivui %rows, %c64 : index
      %wt = arith.divui %rows, %c64 : index
      %next = arith.addi %start, %rows : index
      %sum = arith.addi %tiles, %mt : index
      %sum_whole = arith.addi %wholes, %wt : index
      scf.yield %next, %sum, %sum_whole : index, index, index
    }
    %in_groups = arith.cmpi ult, %by, %live#1 : index
    scf.if %in_groups {
      // Row tile %by's group, its first row and its rows from there: below %live#2 the whole row
      // tiles of the groups in order, from there each group's partial one (the one that holds
      // it wins).
      %is_whole = arith.cmpi ult, %by, %live#2 : index
      %is_part = arith.cmpi uge, %by, %live#2 : index
      %partial = arith.subi %by, %live#2 : index
      %at:6 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %firstp = %c0, %grp = %c0, %grow = %c0, %grows = %c0)
          -> (index, index, index, index, index, index) {
        %s = memref.load %Sizes[%g] : memref<4xi32>
        %neg = arith.subi %z32, %s : i32
        %abs = arith.maxsi %s, %neg : i32
        %r9 = arith.muli %abs, %nine : i32
        %ri = arith.index_cast %r9 : i32 to index
        %left = arith.subi %m, %start : index
        %capped = arith.minui %ri, %left : index
        %is_last = arith.cmpi eq, %g, %last : index
        %rows = arith.select %is_last, %left, %capped : index
        %wt = arith.divui %rows, %c64 : index
        %wrows = arith.muli %wt, %c64 : index
        %tail = arith.subi %rows, %wrows : index
        %has_tail = arith.cmpi ne, %tail, %c0 : index
        %pt = arith.select %has_tail, %c1, %c0 : index
        %end = arith.addi %first, %wt : index
        %endp = arith.addi %firstp, %pt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %in_whole = arith.andi %after_first, %before_end : i1
        %here_whole = arith.andi %in_whole, %is_whole : i1
        %after_firstp = arith.cmpi uge, %partial, %firstp : index
        %before_endp = arith.cmpi ult, %partial, %endp : index
        %in_part = arith.andi %after_firstp, %before_endp : i1
        %here_part = arith.andi %in_part, %is_part : i1
        %here = arith.ori %here_whole, %here_part : i1
        %grp2 = arith.select %here, %g, %grp : index
        %m0 = arith.subi %by, %first : index
        %m0r = arith.muli %m0, %c64 : index
        %m0s = arith.select %here_part, %wrows, %m0r : index
        %r0 = arith.addi %start, %m0s : index
        %grow2 = arith.select %here, %r0, %grow : index
        %rest = arith.subi %rows, %m0s : index
        %grows2 = arith.select %here, %rest, %grows : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %endp, %grp2, %grow2, %grows2 : index, index, index, index, index, index
      }
      %n0 = arith.muli %bx, %c128 : index
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(2) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%at#4, %k0], %As : memref<288x96xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#3, %k0, %n0], %Bs : memref<4x96x2504xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>,
            memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      // The tile's rows in its group (all of them but in a group's last tile) leave as one
      // copy, limited to the group's rows and clipped at C's edges.
      tile.copy %Cf, %C[%at#4, %n0] limits [%at#5, %c128] : memref<64x128xf32, #tile.fragment>, memref<288x2504xf16>
    }
  }
  return
}
