// tile.print of a fragment in registers, a shared tile and scalars (index, f16, i8), in two blocks.
// The printed values do not depend on the inputs, so that every target prints the same lines
// (bench/print_check.py compares a GPU's with the interpreter's).
func.func @print_tiles(%Y: memref<2x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant 0.5 : f32
  %tenth = arith.constant 0.1 : f16
  %minus3 = arith.constant -3 : i8
  tile.kernel grid(%c2) threads(64) (%bx) {
    %f = tile.alloc_fragment : memref<4x8xf32, #tile.fragment>
    %s = tile.alloc_shared : memref<4x8xf16, #gpu.address_space<workgroup>>
    %base = arith.index_cast %bx : index to i32
    %offset = arith.sitofp %base : i32 to f32
    tile.parallel (%i, %j) in (4, 8) {
      %c8 = arith.constant 8 : index
      %row = arith.muli %i, %c8 : index
      %n = arith.addi %row, %j : index
      %k = arith.index_cast %n : index to i32
      %x = arith.sitofp %k : i32 to f32
      %h = arith.mulf %x, %half : f32
      %v = arith.addf %h, %offset : f32
      memref.store %v, %f[%i, %j] : memref<4x8xf32, #tile.fragment>
    }
    tile.print "fragment", %f : memref<4x8xf32, #tile.fragment>
    tile.copy %f, %s : memref<4x8xf32, #tile.fragment>, memref<4x8xf16, #gpu.address_space<workgroup>>
    tile.print "shared", %s : memref<4x8xf16, #gpu.address_space<workgroup>>
    tile.print "block", %bx : index
    tile.print "tenth", %tenth : f16
    tile.print "minus three", %minus3 : i8
    tile.copy %f, %Y[%bx, %c0, %c0] : memref<4x8xf32, #tile.fragment>, memref<2x4x8xf32>
  }
  return
}
