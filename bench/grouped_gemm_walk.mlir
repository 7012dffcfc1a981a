// Grouped GEMM (examples/grouped_gemm.mlir's arguments and result), one 128x256 output tile a block as
// written, persistent by tile-persistent-kernels: the grid's rows are row tiles of the groups in
// order (ceil(rows / 128) each), bounded by the host at ceil(M / 128) + G; the kernel counts the
// row tiles the sizes give and guards its body by it, and the persistent kernel's blocks walk
// those only.
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
    // The groups' row tiles.
    %live = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0) -> (index) {
      %size = memref.load %Sizes[%g] : memref<?xi32>
      %rows = arith.index_cast %size : i32 to index
      %mt = arith.ceildivui %rows, %c128 : index
      %next = arith.addi %sum, %mt : index
      scf.yield %next : index
    }
    %in_groups = arith.cmpi ult, %by, %live : index
    scf.if %in_groups {
      // Row tile %by's group, its first row in A and C, and the group's rows from there.
      %at:5 = scf.for %g = %c0 to %groups step %c1
          iter_args(%start = %c0, %first = %c0, %grp = %c0, %grow = %c0, %grows = %c0)
          -> (index, index, index, index, index) {
        %size = memref.load %Sizes[%g] : memref<?xi32>
        %rows = arith.index_cast %size : i32 to index
        %mt = arith.ceildivui %rows, %c128 : index
        %end = arith.addi %first, %mt : index
        %after_first = arith.cmpi uge, %by, %first : index
        %before_end = arith.cmpi ult, %by, %end : index
        %here = arith.andi %after_first, %before_end : i1
        %grp2 = arith.select %here, %g, %grp : index
        %m0 = arith.subi %by, %first : index
        %m0r = arith.muli %m0, %c128 : index
        %r0 = arith.addi %start, %m0r : index
        %grow2 = arith.select %here, %r0, %grow : index
        %left = arith.subi %rows, %m0r : index
        %grows2 = arith.select %here, %left, %grows : index
        %next = arith.addi %start, %rows : index
        scf.yield %next, %end, %grp2, %grow2, %grows2 : index, index, index, index, index
      }
      %n0 = arith.muli %bx, %c256 : index
      tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
      tile.pipelined %kt = %c0 to %ktiles stages(4) attributes {tile.schedule = {persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%at#3, %k0], %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%at#2, %k0, %n0], %Bs : memref<?x?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
            memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
      }
      // A tile whose rows all lie in its group leaves as one copy; the group's last tile, element
      // by element where its rows are the group's (and C's: sizes from the device may sum past M).
      %whole = arith.cmpi uge, %at#4, %c128 : index
      scf.if %whole {
        tile.copy %Cf, %C[%at#3, %n0] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
      } else {
        tile.parallel (%i, %j) in (128, 256) {
          %col = arith.addi %n0, %j : index
          %in_group = arith.cmpi ult, %i, %at#4 : index
          %in_row = arith.cmpi ult, %col, %n : index
          %row = arith.addi %at#3, %i : index
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
