// f8E5M2 (5 exponent bits, 2 mantissa bits, infinities: an f16's top byte) on every target:
// @e5m2_round_trip rounds f32 values to f8E5M2 across its range (subnormals below 2^-14, ties,
// values up to 50000 of its 57344, and past it to infinity) and widens them back;
// @e5m2_through_shared moves an f8E5M2 tile through shared memory (copied in, widened and scaled
// by the threads, rounded into a second shared tile, copied out); @e5m2_gemm multiplies f8E5M2
// tiles (K-major: wgmma's e5m2 on sm_90a, the f16 mfma on gfx942, which widens them) into an f32
// fragment copied out as f32 and as f8E5M2.
func.func @e5m2_round_trip(%X: memref<64x64xf32>, %D: memref<4x64x64xf8E5M2>, %E: memref<4x64x64xf32>) {
  %c1 = arith.constant 1 : index
  %small = arith.constant 0.0001 : f32
  %middle = arith.constant 3.0 : f32
  %large = arith.constant 50000.0 : f32
  %huge = arith.constant 90000.0 : f32
  tile.kernel grid(%c1) threads(128) (%b) {
    tile.parallel (%i, %j) in (64, 64) {
      %c0 = arith.constant 0 : index
      %c1i = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %x = memref.load %X[%i, %j] : memref<64x64xf32>
      %a = arith.mulf %x, %small : f32
      %m = arith.mulf %x, %middle : f32
      %l = arith.mulf %x, %large : f32
      %h = arith.mulf %x, %huge : f32
      %ta = arith.truncf %a : f32 to f8E5M2
      %tm = arith.truncf %m : f32 to f8E5M2
      %tl = arith.truncf %l : f32 to f8E5M2
      %th = arith.truncf %h : f32 to f8E5M2
      memref.store %ta, %D[%c0, %i, %j] : memref<4x64x64xf8E5M2>
      memref.store %tm, %D[%c1i, %i, %j] : memref<4x64x64xf8E5M2>
      memref.store %tl, %D[%c2, %i, %j] : memref<4x64x64xf8E5M2>
      memref.store %th, %D[%c3, %i, %j] : memref<4x64x64xf8E5M2>
      %ea = arith.extf %ta : f8E5M2 to f32
      %em = arith.extf %tm : f8E5M2 to f32
      %el = arith.extf %tl : f8E5M2 to f32
      %eh = arith.extf %th : f8E5M2 to f32
      memref.store %ea, %E[%c0, %i, %j] : memref<4x64x64xf32>
      memref.store %em, %E[%c1i, %i, %j] : memref<4x64x64xf32>
      memref.store %el, %E[%c2, %i, %j] : memref<4x64x64xf32>
      memref.store %eh, %E[%c3, %i, %j] : memref<4x64x64xf32>
    }
  }
  return
}

func.func @e5m2_through_shared(%Q: memref<128x128xf8E5M2>, %W: memref<128x128xf32>, %R: memref<128x128xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 1.75 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %Qs = tile.alloc_shared : memref<64x64xf8E5M2, #gpu.address_space<workgroup>>
    %Rs = tile.alloc_shared : memref<64x64xf8E5M2, #gpu.address_space<workgroup>>
    %r0 = arith.muli %by, %c64 : index
    %c0b = arith.muli %bx, %c64 : index
    tile.copy %Q[%r0, %c0b], %Qs : memref<128x128xf8E5M2>, memref<64x64xf8E5M2, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (64, 64) {
      %q = memref.load %Qs[%i, %j] : memref<64x64xf8E5M2, #gpu.address_space<workgroup>>
      %w = arith.extf %q : f8E5M2 to f32
      %s = arith.mulf %w, %scale : f32
      %row = arith.addi %r0, %i : index
      %column = arith.addi %c0b, %j : index
      memref.store %s, %W[%row, %column] : memref<128x128xf32>
      %r = arith.truncf %s : f32 to f8E5M2
      memref.store %r, %Rs[%i, %j] : memref<64x64xf8E5M2, #gpu.address_space<workgroup>>
    }
    tile.copy %Rs, %R[%r0, %c0b] : memref<64x64xf8E5M2, #gpu.address_space<workgroup>>, memref<128x128xf8E5M2>
  }
  return
}

func.func @e5m2_gemm(%A: memref<128x96xf8E5M2>, %B: memref<64x96xf8E5M2>, %C: memref<128x64xf32>, %D: memref<128x64xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(128) (%b) {
    %As = tile.alloc_shared : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %b, %c64 : index
    tile.pipelined %kt = %c0 to %c3 stages(2) {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<128x96xf8E5M2>, memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %k0], %Bs : memref<64x96xf8E5M2>, memref<64x32xf8E5M2, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<64x32xf8E5M2, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<128x64xf32>
    tile.copy %Cf, %D[%m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<128x64xf8E5M2>
  }
  return
}
