// Grouped GEMM (a mixture-of-experts layer, grouped_gemm_small): 4 groups of rows of A (288x96),
// group g multiplied by its own B[g] (96x80) into the same rows of C, in one launch. The group
// sizes are read on the device, here from random inputs made valid (|s| * 9 rows for each of the
// first three groups, the rest of the 288 for the last: empty groups and groups of fewer rows
// than a tile happen). Three blocks walk all groups' 64x64 output tiles (persistent): of item
// %w, each finds the group from the sizes; the host bounds the items by (ceil(288 / 64) + 3) x 2
// output tiles, and an item past the last group's is none. A tile's rows past its group's end
// are not written (they are the next group's): a tile inside its group leaves as one copy, the
// group's last element by element.
func.func @grouped_gemm_small(%A: memref<288x96xf16>, %B: memref<4x96x80xf16>, %Sizes: memref<4xi32>, %C: memref<288x80xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %groups = arith.constant 4 : index
  %last = arith.constant 3 : index
  %m = arith.constant 288 : index
  %n = arith.constant 80 : index
  %ntiles = arith.constant 2 : index
  %ktiles = arith.constant 2 : index
  %bound = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %z32 = arith.constant 0 : i32
  %nine = arith.constant 9 : i32
  %false = arith.constant false
  tile.kernel grid(%c3) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    scf.for %w = %bx to %bound step %c3 {
      // Item %w's group: whether there is one, which, its first row, its rows, its first item.
      %at:7 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %hit = %false, %grp = %c0, %grow = %c0, %grows = %c0, %gfirst = %c0)
          -> (index, index, i1, index, index, index, index) {
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
        %t = arith.muli %mt, %ntiles : index
        %end = arith.addi %first, %t : index
        %after_first = arith.cmpi uge, %w, %first : index
        %before_end = arith.cmpi ult, %w, %end : index
        %here = arith.andi %after_first, %before_end : i1
        %hit2 = arith.ori %hit, %here : i1
        %grp2 = arith.select %here, %g, %grp : index
        %grow2 = arith.select %here, %start, %grow : index
        %grows2 = arith.select %here, %rows, %grows : index
        %gfirst2 = arith.select %here, %first, %gfirst : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %hit2, %grp2, %grow2, %grows2, %gfirst2 : index, index, i1, index, index, index, index
      }
      scf.if %at#2 {
        %local = arith.subi %w, %at#6 : index
        %mtile = arith.divui %local, %ntiles : index
        %ntile = arith.remui %local, %ntiles : index
        %m0 = arith.muli %mtile, %c64 : index
        %row0 = arith.addi %at#4, %m0 : index
        %n0 = arith.muli %ntile, %c64 : index
        tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
        tile.pipelined %kt = %c0 to %ktiles stages(2) {
          %k0 = arith.muli %kt, %c64 : index
          tile.copy %A[%row0, %k0], %As : memref<288x96xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
          tile.copy %B[%at#3, %k0, %n0], %Bs : memref<4x96x80xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
          tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>,
              memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
        }
        // A tile whose rows all lie in its group leaves as one copy (clipped at C's edges only);
        // the group's last tile, element by element where its rows are the group's.
        %m_end = arith.addi %m0, %c64 : index
        %whole = arith.cmpi ule, %m_end, %at#5 : index
        scf.if %whole {
          tile.copy %Cf, %C[%row0, %n0] : memref<64x64xf32, #tile.fragment>, memref<288x80xf16>
        } else {
        tile.parallel (%i, %j) in (64, 64) {
          %r = arith.addi %m0, %i : index
          %col = arith.addi %n0, %j : index
          %in_group = arith.cmpi ult, %r, %at#5 : index
          %in_row = arith.cmpi ult, %col, %n : index
          // Group sizes that sum past M (they come from the device) write no row past C's end.
          %row = arith.addi %row0, %i : index
          %in_c = arith.cmpi ult, %row, %m : index
          %in_tile = arith.andi %in_group, %in_row : i1
          %in = arith.andi %in_tile, %in_c : i1
          scf.if %in {
            %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
            %h = arith.truncf %v : f32 to f16
            memref.store %h, %C[%row, %col] : memref<288x80xf16>
          }
        }
        }
      }
    }
  }
  return
}
