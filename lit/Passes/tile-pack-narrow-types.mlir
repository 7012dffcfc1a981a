// tile-pack-narrow-types: 4-bit buffers become the bytes that hold two elements, copies of them
// move bytes (the offset along the last dimension halved), an element load takes the half of its
// byte that holds it and the op that widens it is rebuilt on that half.
// RUN: tile-opt %s -split-input-file -tile-pack-narrow-types | FileCheck %s

// CHECK-LABEL: func.func @copy_and_widen
// CHECK-SAME: memref<128x128xi8>
// CHECK: %[[TILE:.*]] = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %c64 : index
// CHECK: %[[HALF:.*]] = arith.shrui %[[K0]], %{{.*}} : index
// CHECK: tile.copy %{{.*}}[%{{.*}}, %[[HALF]]], %[[TILE]] : memref<128x128xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
// The byte's index from the element's even neighbour's (K - K mod 2), so that once the loop is
// unrolled both halves of a byte load it through one address.
// CHECK: tile.parallel (%[[N:.*]], %[[K:.*]]) in (64, 64)
// CHECK: %[[ODD_INDEX:.*]] = arith.andi %[[K]], %{{.*}} : index
// CHECK: %[[EVEN:.*]] = arith.subi %[[K]], %[[ODD_INDEX]] : index
// CHECK: %[[BYTE_INDEX:.*]] = arith.shrui %[[EVEN]]
// The load is marked with the loop index its element's column is (number 1), for the registers
// strategy's 16-byte lines.
// CHECK: %[[BYTE:.*]] = memref.load %[[TILE]][%[[N]], %[[BYTE_INDEX]]] {tile.packed_byte = 1 : i64} : memref<64x32xi8, #gpu.address_space<workgroup>>
// A signed code widened to f16 with no conversion, both halves of the byte at once: the byte in
// both halves of a word (times 0x10001), then one mask and one XOR put the low half's code under
// 1024.0's exponent (0x6408: 1024 + (c ^ 8), the code flipped into offset form) and leave the high
// half's in place at fraction bit 4 under 64.0's (0x5480: 64 + (c ^ 8)); 1032.0 and 72.0 come off
// in one paired subtraction, and the element's parity picks its half.
// CHECK: %[[ODD:.*]] = arith.andi %[[K]]
// CHECK: %[[WIDE:.*]] = arith.extui %[[BYTE]] : i8 to i32
// CHECK: %[[BOTH:.*]] = arith.muli %[[WIDE]], %c65537_i32 : i32
// CHECK: %[[CODES:.*]] = arith.andi %[[BOTH]], %c15728655_i32 : i32
// CHECK: %[[BITS:.*]] = arith.xori %[[CODES]], %c1417700360_i32 : i32
// CHECK: %[[WORD:.*]] = vector.from_elements %[[BITS]] : vector<1xi32>
// CHECK: %[[PAIR:.*]] = vector.bitcast %[[WORD]] : vector<1xi32> to vector<2xf16>
// CHECK: %[[MAGIC:.*]] = arith.constant dense<[1.032000e+03, 7.200000e+01]> : vector<2xf16>
// CHECK: %[[FLOATS:.*]] = arith.subf %[[PAIR]], %[[MAGIC]] : vector<2xf16>
// CHECK: %[[HIGH:.*]] = arith.cmpi ne, %[[ODD]]
// CHECK: %[[HIGH_FLOAT:.*]] = vector.extract %[[FLOATS]][1] : f16 from vector<2xf16>
// CHECK: %[[LOW_FLOAT:.*]] = vector.extract %[[FLOATS]][0] : f16 from vector<2xf16>
// CHECK: arith.select %[[HIGH]], %[[HIGH_FLOAT]], %[[LOW_FLOAT]] : f16
// CHECK-NOT: i4
func.func @copy_and_widen(%B: memref<128x256xi4>, %O: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %Bq = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %k0 = arith.muli %c2, %c64 : index
    tile.copy %B[%c0, %k0], %Bq : memref<128x256xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
    tile.parallel (%n, %k) in (64, 64) {
      %q = memref.load %Bq[%n, %k] : memref<64x64xi4, #gpu.address_space<workgroup>>
      %w = arith.sitofp %q : i4 to f16
      memref.store %w, %Bd[%n, %k] : memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Bd, %O[%c0, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16>
  }
  return
}

// -----

// An element at an even constant index is the low half of its byte, at an odd one the high half;
// unsigned widening needs no sign extension (to f32: a high half stays at fraction bits 4-7,
// under 2^19's exponent, minus 2^19).
// CHECK-LABEL: func.func @constant_halves
// CHECK-SAME: memref<8x4xi8>
// CHECK: %[[LOW_BYTE:.*]] = memref.load %{{.*}}[%{{.*}}, %c1{{.*}}] : memref<8x4xi8>
// CHECK: %[[LOW:.*]] = arith.andi %[[LOW_BYTE]], %c15_i8 : i8
// CHECK: arith.extui %[[LOW]] : i8 to i32
// CHECK: %[[HIGH_BYTE:.*]] = memref.load %{{.*}}[%{{.*}}, %c1{{.*}}] : memref<8x4xi8>
// CHECK: %[[MAGIC:.*]] = arith.constant 5.242880e+05 : f32
// CHECK: %[[HIGH32:.*]] = arith.extui %[[HIGH_BYTE]] : i8 to i32
// CHECK: %[[HIGH:.*]] = arith.andi %[[HIGH32]], %c240_i32 : i32
// CHECK: %[[BITS:.*]] = arith.ori %[[HIGH]], %c1224736768_i32 : i32
// CHECK: %[[FLOAT:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK: arith.subf %[[FLOAT]], %[[MAGIC]] : f32
func.func @constant_halves(%Q: memref<8x8xi4>, %I: memref<8xi32>, %F: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  tile.kernel grid(%c1) threads(32) (%b) {
    tile.parallel (%i) in (8) {
      %lo = memref.load %Q[%i, %c2] : memref<8x8xi4>
      %u = arith.extui %lo : i4 to i32
      memref.store %u, %I[%i] : memref<8xi32>
      %hi = memref.load %Q[%i, %c3] : memref<8x8xi4>
      %f = arith.uitofp %hi : i4 to f32
      memref.store %f, %F[%i] : memref<8xf32>
    }
  }
  return
}

// -----

// f4E2M1FN widened to f16 from its bits: exponent rebiased (bias 15 - 1 = 14), the mantissa bit
// the top fraction bit, 0.5 for the subnormal code, the sign moved to bit 15.
// CHECK-LABEL: func.func @float_codes
// CHECK-SAME: memref<4x8xi8>
// CHECK: %[[CODE:.*]] = arith.extui %{{.*}} : i8 to i16
// CHECK: arith.addi %{{.*}}, %c14_i16 : i16
// CHECK: arith.shli %{{.*}}, %c10_i16 : i16
// CHECK: arith.shli %{{.*}}, %c9_i16 : i16
// CHECK: arith.muli %{{.*}}, %c14336_i16 : i16
// CHECK: arith.select
// CHECK: arith.shli %{{.*}}, %c12_i16 : i16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK-NOT: f4E2M1FN
func.func @float_codes(%F: memref<4x16xf4E2M1FN>, %O: memref<4x16xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    tile.parallel (%i, %j) in (4, 16) {
      %q = memref.load %F[%i, %j] : memref<4x16xf4E2M1FN>
      %w = arith.extf %q : f4E2M1FN to f16
      memref.store %w, %O[%i, %j] : memref<4x16xf16>
    }
  }
  return
}

// -----

// A dynamic last dimension stays dynamic; memref.dim of it counts elements again (bytes times 2).
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: memref<?x?xi8>
// CHECK: %[[BYTES:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xi8>
// CHECK: %[[ELEMENTS:.*]] = arith.muli %[[BYTES]], %c2 : index
// CHECK: arith.divui %[[ELEMENTS]]
func.func @dynamic_rows(%Q: memref<?x?xi4>, %O: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %Q, %c1 : memref<?x?xi4>
  %blocks = arith.divui %n, %c64 : index
  tile.kernel grid(%blocks) threads(64) (%b) {
    tile.parallel (%j) in (64) {
      %c0 = arith.constant 0 : index
      %col = arith.muli %b, %c64 : index
      %at = arith.addi %col, %j : index
      %q = memref.load %Q[%c0, %at] : memref<?x?xi4>
      %f = arith.sitofp %q : i4 to f32
      memref.store %f, %O[%at] : memref<?xf32>
    }
  }
  return
}

// -----

// A code widened to a float whose bits the exponent trick cannot build (f8E4M3FN): sign-extended
// from its four bits, then converted.
// CHECK-LABEL: func.func @eight_bit_float_codes
// CHECK: %[[UP:.*]] = arith.shli %{{.*}}, %[[FOUR:c4_i8.*]] : i8
// CHECK-NEXT: %[[CODE:.*]] = arith.shrsi %[[UP]], %[[FOUR]] : i8
// CHECK-NEXT: arith.sitofp %[[CODE]] : i8 to f8E4M3FN
func.func @eight_bit_float_codes(%B: memref<64x64xi4>, %Y: memref<64x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) (%b) {
    %Bq = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %W = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bq : memref<64x64xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (64, 64) {
      %q = memref.load %Bq[%i, %j] : memref<64x64xi4, #gpu.address_space<workgroup>>
      %w = arith.sitofp %q : i4 to f8E4M3FN
      memref.store %w, %W[%i, %j] : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    }
    tile.copy %W, %Y[%c0, %c0] : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN>
  }
  return
}
