// Grouped GEMM, the expert layer of a mixture of experts: the rows of A (tokens sorted by expert,
// M x K) come in G groups of sizes known on the device only (`Sizes`, G entries, summing to M);
// group g is multiplied by its own weights B[g] (K x N) into the same rows of C (M x N), all in
// one launch. The kernel is persistent over all groups' output tiles: 132 blocks (one a
// multiprocessor of an H200) walk the work items 0, 1, ... of the groups in order, each group
// ceil(rows / 128) x ceil(N / 128) of them; a block finds its item's group by summing the sizes.
// The host bounds the items by (ceil(M / 128) + G) x ceil(N / 128); an item past the last group's
// has no group and is skipped. A tile's rows past its group's end are read (they are the next
// group's, or zeros past M) but not written, and neither is a row past M (sizes that sum past it):
// a tile inside its group leaves as one copy, the group's last tile element by element.
func.func @grouped_gemm(%A: memref<?x?xf16>, %B: memref<?x?x?xf16>, %Sizes: memref<?xi32> {tile.sizes = array<i64: 0, 0>}, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %blocks = arith.constant 132 : index
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %groups = memref.dim %B, %c0 : memref<?x?x?xf16>
  %k = memref.dim %B, %c1 : memref<?x?x?xf16>
  %n = memref.dim %B, %c2 : memref<?x?x?xf16>
  %ntiles = arith.ceildivui %n, %c128 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  %mtiles = arith.ceildivui %m, %c128 : index
  %row_tiles = arith.addi %mtiles, %groups : index
  %bound = arith.muli %row_tiles, %ntiles : index
  tile.kernel grid(%blocks) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    scf.for %w = %bx to %bound step %blocks {
      // Item %w's group: whether it has one, which, its first row, its rows, its first item.
      %at:7 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %hit = %false, %grp = %c0, %grow = %c0, %grows = %c0, %gfirst = %c0)
          -> (index, index, i1, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %mt = arith.ceildivui %rows, %c128 : index
        %items = arith.muli %mt, %ntiles : index
        %end = arith.addi %first, %items : index
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
        %m0 = arith.muli %mtile, %c128 : index
        %row0 = arith.addi %at#4, %m0 : index
        %n0 = arith.muli %ntile, %c128 : index
        tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
        tile.pipelined %kt = %c0 to %ktiles stages(4) {
          %k0 = arith.muli %kt, %c64 : index
          tile.copy %A[%row0, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
          tile.copy %B[%at#3, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
          tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
              memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
        }
        // A tile whose rows all lie in its group leaves as one copy (clipped at C's edges only);
        // the group's last tile, element by element where its rows are the group's.
        %m_end = arith.addi %m0, %c128 : index
        %whole = arith.cmpi ule, %m_end, %at#5 : index
        scf.if %whole {
          tile.copy %Cf, %C[%row0, %n0] : memref<128x128xf32, #tile.fragment>, memref<?x?xf16>
        } else {
        tile.parallel (%i, %j) in (128, 128) {
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
            %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
            %h = arith.truncf %v : f32 to f16
            memref.store %h, %C[%row, %col] : memref<?x?xf16>
          }
        }
        }
      }
    }
  }
  return
}
