// Grouped GEMM one output tile a block (grouped_gemm_small's groups and tensors): the grid covers
// (ceil(288 / 64) + 3) row tiles x 2 column tiles; a block finds its row tile's group by a loop
// over the sizes at its top (a loop over a table: its producer warpgroup, where the target gives
// one, runs it too) and runs no step where the row tile is past the last group's. Random sizes are
// made valid as in grouped_gemm_small (|s| * 9 rows for each of the first three groups, the rest
// of the 288 for the last). A tile's rows past its group's end are not written.
func.func @grouped_gemm_tiles_small(%A: memref<288x96xf16>, %B: memref<4x96x80xf16>, %Sizes: memref<4xi32>, %C: memref<288x80xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %groups = arith.constant 4 : index
  %last = arith.constant 3 : index
  %m = arith.constant 288 : index
  %n = arith.constant 80 : index
  %ktiles = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %z32 = arith.constant 0 : i32
  %nine = arith.constant 9 : i32
  %false = arith.constant false
  tile.kernel grid(%c2, %c8) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // Row tile %by's group: whether there is one, which, the tile's first row, its rows in the group.
    %at:6 = scf.for %g = %c0 to %groups step %c1
        iter_args(%start = %c0, %first = %c0, %hit = %false, %grp = %c0, %grow = %c0, %grows = %c0)
        -> (index, index, i1, index, index, index) {
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
      %end = arith.addi %first, %mt : index
      %after_first = arith.cmpi uge, %by, %first : index
      %before_end = arith.cmpi ult, %by, %end : index
      %here = arith.andi %after_first, %before_end : i1
      %hit2 = arith.ori %hit, %here : i1
      %grp2 = arith.select %here, %g, %grp : index
      %tile_in_group = arith.subi %by, %first : index
      %m0 = arith.muli %tile_in_group, %c64 : index
      %r0 = arith.addi %start, %m0 : index
      %grow2 = arith.select %here, %r0, %grow : index
      %rows_left = arith.subi %rows, %m0 : index
      %grows2 = arith.select %here, %rows_left, %grows : index
      %next = arith.addi %start, %rows : index
      scf.yield %next, %end, %hit2, %grp2, %grow2, %grows2 : index, index, i1, index, index, index
    }
    %row0 = arith.select %at#2, %at#4, %c0 : index
    %valid = arith.select %at#2, %at#5, %c0 : index
    %steps = arith.select %at#2, %ktiles, %c0 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.pipelined %kt = %c0 to %steps stages(2) {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row0, %k0], %As : memref<288x96xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%at#3, %k0, %n0], %Bs : memref<4x96x80xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>,
          memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    // A tile inside its group leaves as one copy; a group's last tile, element by element.
    %whole = arith.cmpi uge, %valid, %c64 : index
    scf.if %whole {
      tile.copy %Cf, %C[%row0, %n0] : memref<64x64xf32, #tile.fragment>, memref<288x80xf16>
    } else {
      tile.parallel (%i, %j) in (64, 64) {
        %col = arith.addi %n0, %j : index
        %in_group = arith.cmpi ult, %i, %valid : index
        %in_row = arith.cmpi ult, %col, %n : index
        %in = arith.andi %in_group, %in_row : i1
        scf.if %in {
          %row = arith.addi %row0, %i : index
          %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
          %h = arith.truncf %v : f32 to f16
          memref.store %h, %C[%row, %col] : memref<288x80xf16>
        }
      }
    }
  }
  return
}
