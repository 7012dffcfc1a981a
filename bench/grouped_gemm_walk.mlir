// Grouped GEMM (examples/grouped_gemm.mlir's arguments and result), one 128x256 output tile a block as
// written, persistent by tile-persistent-kernels: the grid's rows are the groups' row tiles, bounded
// by the host at ceil(M / 128) + G; the kernel counts the row tiles the sizes give and guards its
// body by that count, and the persistent kernel's blocks walk those only. The row tiles whole in
// their group come first, in the groups' order, then each group's last, partial one: a partial tile
// stores element by element, and a block that stores one falls behind the blocks it shares B's
// columns with, so they are left to the last waves (bench/RESULTS.md, runs 308-309).
func.func @grouped_gemm_walk(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
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
    // The groups' row tiles, and those of them whole (128 rows of their group): the whole ones
    // are walked first, each group's last partial one after all of them.
    %counts:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0, %sum_whole = %c0) -> (index, index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %wt = arith.divui %rows, %c128 : index
      %next = arith.addi %sum, %mt : index
      %next_whole = arith.addi %sum_whole, %wt : index
      scf.yield %next, %next_whole : index, index
    }
    %in_groups = arith.cmpi ult, %by, %counts#0 : index
    scf.if %in_groups {
      // Row tile %by's group, its first row in A and C, and the group's rows from there: below
      // %counts#1 the whole row tiles of the groups in order, from there their partial ones.
      %is_whole = arith.cmpi ult, %by, %counts#1 : index
      %is_part = arith.cmpi uge, %by, %counts#1 : index
      %partial_index = arith.subi %by, %counts#1 : index
      %at:6 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %firstp = %c0, %grp = %c0, %grow = %c0, %grows = %c0)
          -> (index, index, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %wt = arith.divui %rows, %c128 : index
        %wrows = arith.muli %wt, %c128 : index
        %rest = arith.subi %rows, %wrows : index
        %has_rest = arith.cmpi ne, %rest, %c0 : index
        %pt = arith.select %has_rest, %c1, %c0 : index
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
      // A tile whose rows all lie in its group leaves as one copy; the group's last tile, element
      // by element where its rows are the group's (and C's: sizes from the device may sum past M).
      %whole = arith.cmpi uge, %at#5, %c128 : index
      scf.if %whole {
        tile.copy %Cf, %C[%at#4, %n0] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
      } else {
        tile.parallel (%i, %j) in (128, 256) {
          %col = arith.addi %n0, %j : index
          %in_group = arith.cmpi ult, %i, %at#5 : index
          %in_row = arith.cmpi ult, %col, %n : index
          %row = arith.addi %at#4, %i : index
          %in_c = arith.cmpi ult, %row, %m : index
          %in_tile = arith.andi %in_group, %in_row : i1
          %in = arith.andi %in_tile, %in_c : i1
          scf.if %in {
            %v = memref.load %Cf[%i, %j] : memref<128x256xf32, #tile.fragment>
            %h = arith.truncf %v : f32 to f16
            memref.store %h, %C[%row, %col] : memref<?x?xf16>
          }
        }
      }
    }
  }
  return
}
