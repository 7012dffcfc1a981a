// atan2 at the origin and on its axes, the zeros made from the random inputs (|b| * 0 is +0, a * 0
// keeps a's sign). C gives +-0 at (+-0, +0); upstream's polynomial approximation, which the GPU
// targets expand atan2 by, alone gives +-pi/2 (lavapipe: NaN) wherever x is zero. Zeros whose sign
// decides the result (x = -0; y = -0 with x < 0, -pi) are left out: a Vulkan shader need not keep
// a zero's sign.
func.func @atan2_origin(%A: memref<256xf32>, %B: memref<256xf32>, %O: memref<4x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %a = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %b = tile.alloc_fragment : memref<256xf32, #tile.fragment>
    %o = tile.alloc_fragment : memref<4x256xf32, #tile.fragment>
    tile.copy %A[%c0], %a : memref<256xf32>, memref<256xf32, #tile.fragment>
    tile.copy %B[%c0], %b : memref<256xf32>, memref<256xf32, #tile.fragment>
    tile.parallel (%i) in (256) {
      %y = memref.load %a[%i] : memref<256xf32, #tile.fragment>
      %x = memref.load %b[%i] : memref<256xf32, #tile.fragment>
      %y0 = arith.mulf %y, %zero : f32
      %magnitude = math.absf %x : f32
      %x0 = arith.mulf %magnitude, %zero : f32
      %origin = math.atan2 %y0, %x0 : f32
      %plain = math.atan2 %y, %x : f32
      %y_magnitude = math.absf %y : f32
      %y_plus = arith.mulf %y_magnitude, %zero : f32
      %on_x = math.atan2 %y_plus, %x : f32
      %on_y = math.atan2 %y, %x0 : f32
      memref.store %origin, %o[%c0, %i] : memref<4x256xf32, #tile.fragment>
      memref.store %plain, %o[%c1, %i] : memref<4x256xf32, #tile.fragment>
      memref.store %on_x, %o[%c2, %i] : memref<4x256xf32, #tile.fragment>
      memref.store %on_y, %o[%c3, %i] : memref<4x256xf32, #tile.fragment>
    }
    tile.copy %o, %O[%c0, %c0] : memref<4x256xf32, #tile.fragment>, memref<4x256xf32>
  }
  return
}
