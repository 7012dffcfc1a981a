// tile-emulate-small-floats: where the target has no instructions for bf16 or the 8-bit floats
// (plain SPIR-V: all three; the CPU reference: f8E4M3FN and f8E5M2), memrefs of them hold the integers of their bits, a
// load's arith.extf is rebuilt in integer arithmetic and an arith.truncf becomes the bits it rounds
// to. Upstream's arith-emulate-unsupported-floats first moves their arithmetic to f32.
// RUN: tile-opt %s -split-input-file -arith-emulate-unsupported-floats="source-types=bf16,f8E4M3FN,f8E5M2 target-type=f32" -tile-emulate-small-floats | FileCheck %s

// The plain SPIR-V target holds bf16 as i16: an element widened by a shift into an f32's top half,
// a sum rounded to nearest even (0x7FFF plus the kept bit) and stored as i16.
// CHECK-LABEL: func.func @bf16_on_spirv
// CHECK-SAME: memref<8xi16>, %{{.*}}: memref<8xi16>
// CHECK: %[[BITS:.*]] = memref.load %{{.*}} : memref<8xi16>
// CHECK: %[[WORD:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK: %[[HIGH:.*]] = arith.shli %[[WORD]], %c16_i32 : i32
// CHECK: %[[VALUE:.*]] = arith.bitcast %[[HIGH]] : i32 to f32
// CHECK: %[[SUM:.*]] = arith.addf %[[VALUE]], %[[VALUE]] : f32
// CHECK: arith.addi %c32767_i32
// CHECK: arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK: %[[ROUNDED:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK: memref.store %[[ROUNDED]], %{{.*}} : memref<8xi16>
// CHECK-NOT: bf16
module attributes {tile.target = "spirv"} {
func.func @bf16_on_spirv(%X: memref<8xbf16>, %Y: memref<8xbf16>, %i: index) {
  %x = memref.load %X[%i] : memref<8xbf16>
  %s = arith.addf %x, %x : bf16
  memref.store %s, %Y[%i] : memref<8xbf16>
  return
}
}

// -----

// Without a target (the CPU reference) f8E4M3FN is held as i8; its NaN code 0x7F and subnormal codes
// (the mantissa times 2^-9) are decoded, and a constant is stored as the code it rounds to.
// CHECK-LABEL: func.func @f8_on_the_cpu
// CHECK-SAME: memref<8xi8>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<8xi8>
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK: arith.cmpi eq, %{{.*}}, %c127_i32{{.*}} : i32
// CHECK: memref.store %{{.*}} : memref<8xf32>
// CHECK: memref.store %c56_i8, %{{.*}} : memref<8xi8>
// CHECK-NOT: f8E4M3FN
func.func @f8_on_the_cpu(%X: memref<8xf8E4M3FN>, %Y: memref<8xf32>, %Z: memref<8xf8E4M3FN>, %i: index) {
  %x = memref.load %X[%i] : memref<8xf8E4M3FN>
  %w = arith.extf %x : f8E4M3FN to f32
  memref.store %w, %Y[%i] : memref<8xf32>
  %one = arith.constant 1.0 : f8E4M3FN
  memref.store %one, %Z[%i] : memref<8xf8E4M3FN>
  return
}

// -----

// A target with instructions for bf16 (sm_90a) keeps it.
// CHECK-LABEL: func.func @kept_on_sm90a
// CHECK: memref.load %{{.*}} : memref<8xbf16>
module attributes {tile.target = "sm_90a"} {
func.func @kept_on_sm90a(%X: memref<8xbf16>, %Y: memref<8xf32>, %i: index) {
  %x = memref.load %X[%i] : memref<8xbf16>
  %w = arith.extf %x : bf16 to f32
  memref.store %w, %Y[%i] : memref<8xf32>
  return
}
}

// -----

// f8E5M2 likewise: its five exponent bits rebiased from 15 (112 added), two mantissa bits moved to
// the top of an f32's, subnormal codes the mantissa times 2^-16, exponent 31 infinity (code 0x7C)
// or NaN (above it); a rounding saturates at 0x7C (infinity) and gives 0x7E for NaN; a constant is
// stored as its code (1.0: 0x3C).
// CHECK-LABEL: func.func @e5m2_on_the_cpu
// CHECK-SAME: memref<8xi8>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<8xi8>
// CHECK: arith.addi %{{.*}}, %c112_i32 : i32
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.cmpi uge, %{{.*}}, %c124_i32{{.*}} : i32
// CHECK: arith.cmpi ugt, %{{.*}}, %c124_i32{{.*}} : i32
// CHECK: memref.store %{{.*}} : memref<8xf32>
// CHECK: arith.minui %{{.*}}, %c124_i32{{.*}} : i32
// CHECK: arith.select %{{.*}}, %c126_i32, %{{.*}} : i32
// CHECK: memref.store %{{.*}} : memref<8xi8>
// CHECK: memref.store %c60_i8, %{{.*}} : memref<8xi8>
// CHECK-NOT: f8E5M2
func.func @e5m2_on_the_cpu(%X: memref<8xf8E5M2>, %Y: memref<8xf32>, %Z: memref<8xf8E5M2>, %i: index) {
  %x = memref.load %X[%i] : memref<8xf8E5M2>
  %w = arith.extf %x : f8E5M2 to f32
  memref.store %w, %Y[%i] : memref<8xf32>
  %d = arith.addf %w, %w : f32
  %r = arith.truncf %d : f32 to f8E5M2
  memref.store %r, %Z[%i] : memref<8xf8E5M2>
  %one = arith.constant 1.0 : f8E5M2
  memref.store %one, %Z[%i] : memref<8xf8E5M2>
  return
}

// -----

// sm_90a holds f8E4M3FN as bytes outside wgmma's operands. A kernel's vectors of it that are only
// moved (a 16-byte run loaded, built of elements, stored) move the bytes; the gpu.func's signature
// keeps its arguments alone (its workgroup attribution stays an attribution, of bytes).
// CHECK-LABEL: gpu.func @f8_moved
// CHECK-SAME: (%{{.*}}: memref<32xi8>, %{{.*}}: memref<32xf32>, %{{.*}}: index)
// CHECK-SAME: workgroup(%{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>)
// CHECK: vector.load %{{.*}} : memref<32xi8>, vector<16xi8>
// CHECK: vector.store %{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK: vector.from_elements %{{.*}} : vector<2xi8>
// CHECK: arith.uitofp
// CHECK-NOT: f8E4M3FN
module attributes {tile.target = "sm_90a"} {
gpu.module @kernels {
gpu.func @f8_moved(%X: memref<32xf8E4M3FN>, %Y: memref<32xf32>, %i: index) workgroup(%T : memref<32xf8E4M3FN, #gpu.address_space<workgroup>>) kernel {
  %v = vector.load %X[%i] : memref<32xf8E4M3FN>, vector<16xf8E4M3FN>
  vector.store %v, %T[%i] : memref<32xf8E4M3FN, #gpu.address_space<workgroup>>, vector<16xf8E4M3FN>
  %x = memref.load %T[%i] : memref<32xf8E4M3FN, #gpu.address_space<workgroup>>
  %pair = vector.from_elements %x, %x : vector<2xf8E4M3FN>
  vector.store %pair, %X[%i] : memref<32xf8E4M3FN>, vector<2xf8E4M3FN>
  %w = arith.extf %x : f8E4M3FN to f32
  memref.store %w, %Y[%i] : memref<32xf32>
  gpu.return
}
}
}

// -----

// Vectors of f8E4M3FN (an mfma's operands read four at a time): the loaded vector holds bytes, each
// lane widened on its own and the widened lanes built into the f32 vector; a vector rounded into
// f8E4M3FN is rounded lane by lane into a vector of bytes.
// CHECK-LABEL: func.func @f8_vectors
// CHECK: %[[BYTES:.*]] = vector.load %{{.*}} : memref<64xi8>, vector<4xi8>
// CHECK: vector.extract %[[BYTES]][0] : i8 from vector<4xi8>
// CHECK: vector.extract %[[BYTES]][3] : i8 from vector<4xi8>
// CHECK: %[[WIDE:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[WIDE]], %[[WIDE]] : vector<4xf32>
// CHECK: vector.extract %[[SUM]][0] : f32 from vector<4xf32>
// CHECK: %[[ROUNDED:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: vector.store %[[ROUNDED]], %{{.*}} : memref<64xi8>, vector<4xi8>
// CHECK-NOT: f8E4M3FN
module attributes {tile.target = "spirv"} {
func.func @f8_vectors(%X: memref<64xf8E4M3FN>, %Y: memref<64xf8E4M3FN>, %i: index) {
  %v = vector.load %X[%i] : memref<64xf8E4M3FN>, vector<4xf8E4M3FN>
  %w = arith.extf %v : vector<4xf8E4M3FN> to vector<4xf32>
  %s = arith.addf %w, %w : vector<4xf32>
  %r = arith.truncf %s : vector<4xf32> to vector<4xf8E4M3FN>
  vector.store %r, %Y[%i] : memref<64xf8E4M3FN>, vector<4xf8E4M3FN>
  return
}
}

// -----

// sm_90a rounds f32 to the 8-bit floats by its instruction (cvt.rn.satfinite, two lanes at a time:
// the first lane in the low byte), and where the instruction saturates at the largest finite
// value, from the overflow bound on (f8E4M3FN from 464, f8E5M2 from 61440), adds one to the lane's
// code, which gives what arith.truncf gives there (f8E4M3FN's NaN, f8E5M2's infinity), with no
// branch; a pair of lanes stores its two codes as one 16-bit word; a scalar is rounded as a pair
// with itself. Its kernel modules only: the CPU reference, which lowers such a module for the
// host, rounds in integer arithmetic.
// CHECK-LABEL: gpu.func @f8_rounded_on_sm90a
// CHECK: %[[LOW:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK: %[[HIGH:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK: %[[BOUND:.*]] = arith.constant 4.640000e+02 : f32
// CHECK: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %[[HIGH]], %[[LOW]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[LOW_ABS:.*]] = math.absf %[[LOW]] : f32
// CHECK: %[[LOW_PAST:.*]] = arith.cmpf oge, %[[LOW_ABS]], %[[BOUND]] : f32
// CHECK: %[[LOW_STEP:.*]] = arith.select %[[LOW_PAST]], %c1_i16, %c0_i16 : i16
// CHECK: %[[LOW_DONE:.*]] = arith.addi %[[PAIR]], %[[LOW_STEP]] : i16
// CHECK: %[[HIGH_ABS:.*]] = math.absf %[[HIGH]] : f32
// CHECK: %[[HIGH_PAST:.*]] = arith.cmpf oge, %[[HIGH_ABS]], %[[BOUND]] : f32
// CHECK: %[[HIGH_STEP:.*]] = arith.select %[[HIGH_PAST]], %c256_i16, %{{.*}} : i16
// CHECK: %[[CODES:.*]] = arith.addi %[[LOW_DONE]], %[[HIGH_STEP]] : i16
// CHECK-NOT: scf.if
// CHECK: %[[WORDS:.*]] = vector.from_elements %[[CODES]] : vector<1xi16>
// CHECK: %[[BYTES:.*]] = vector.bitcast %[[WORDS]] : vector<1xi16> to vector<2xi8>
// CHECK: vector.store %[[BYTES]], %{{.*}} : memref<64xi8>, vector<2xi8>
// CHECK: %[[TOP:.*]] = arith.constant 6.144000e+04 : f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[ONE:.*]], %[[ONE]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E5M2)
// CHECK: arith.cmpf oge, %{{.*}}, %[[TOP]] : f32
// CHECK-NOT: f8E4M3FN
module attributes {tile.target = "sm_90a"} {
gpu.module @kernels {
gpu.func @f8_rounded_on_sm90a(%X: memref<64xf32>, %Y: memref<64xf8E4M3FN>, %Z: memref<64xf8E5M2>, %i: index) kernel {
  %v = vector.load %X[%i] : memref<64xf32>, vector<2xf32>
  %r = arith.truncf %v : vector<2xf32> to vector<2xf8E4M3FN>
  vector.store %r, %Y[%i] : memref<64xf8E4M3FN>, vector<2xf8E4M3FN>
  %x = memref.load %X[%i] : memref<64xf32>
  %s = arith.truncf %x : f32 to f8E5M2
  memref.store %s, %Z[%i] : memref<64xf8E5M2>
  gpu.return
}
}
}

// -----

// A rounding the sm_90a rules marked `tile.in_range` (its operand stays below the overflow bound:
// a P of exponentials clamped at 1) is the instruction's codes as they are: no check for values
// past the largest finite one.
// CHECK-LABEL: gpu.func @f8_in_range_on_sm90a
// CHECK: %[[LOW:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK: %[[HIGH:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK-NOT: arith.constant 4.640000e+02
// CHECK: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %[[HIGH]], %[[LOW]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.addi
// CHECK: %[[WORDS:.*]] = vector.from_elements %[[PAIR]] : vector<1xi16>
// CHECK: vector.bitcast %[[WORDS]] : vector<1xi16> to vector<2xi8>
// CHECK-NOT: tile.in_range
module attributes {tile.target = "sm_90a"} {
gpu.module @kernels {
gpu.func @f8_in_range_on_sm90a(%X: memref<64xf32>, %Y: memref<64xf8E4M3FN>, %i: index) kernel {
  %v = vector.load %X[%i] : memref<64xf32>, vector<2xf32>
  %r = arith.truncf %v {tile.in_range} : vector<2xf32> to vector<2xf8E4M3FN>
  vector.store %r, %Y[%i] : memref<64xf8E4M3FN>, vector<2xf8E4M3FN>
  gpu.return
}
}
}

// -----

// The same rounding outside a kernel module (the CPU reference's lowering of a module that names
// sm_90a): integer arithmetic, no instruction.
// CHECK-LABEL: func.func @f8_rounded_on_the_host
// CHECK-NOT: nvvm.convert
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK-NOT: nvvm.convert
module attributes {tile.target = "sm_90a"} {
func.func @f8_rounded_on_the_host(%X: memref<64xf32>, %Y: memref<64xf8E4M3FN>, %i: index) {
  %x = memref.load %X[%i] : memref<64xf32>
  %r = arith.truncf %x : f32 to f8E4M3FN
  memref.store %r, %Y[%i] : memref<64xf8E4M3FN>
  return
}
}

// -----

// A rounding a saturating copy made (`tile.saturate`) on sm_90a: the instruction saturates by
// itself, so no check for values past the largest finite one either.
// CHECK-LABEL: gpu.func @f8_saturate_on_sm90a
// CHECK-NOT: arith.constant 4.640000e+02
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} sat = #nvvm.sat_mode<satfinite>
// CHECK-NOT: arith.cmpf
// CHECK-NOT: tile.saturate
module attributes {tile.target = "sm_90a"} {
gpu.module @kernels {
gpu.func @f8_saturate_on_sm90a(%X: memref<64xf32>, %Y: memref<64xf8E4M3FN>, %i: index) kernel {
  %v = vector.load %X[%i] : memref<64xf32>, vector<2xf32>
  %r = arith.truncf %v {tile.saturate} : vector<2xf32> to vector<2xf8E4M3FN>
  vector.store %r, %Y[%i] : memref<64xf8E4M3FN>, vector<2xf8E4M3FN>
  gpu.return
}
}
}

// -----

// The same in integer arithmetic (the CPU reference): the value clamped to the largest finite
// f8E5M2 (57344) with its sign first, NaN kept (minimumf and maximumf propagate it).
// CHECK-LABEL: func.func @f8_saturate_on_the_host
// CHECK: %[[HIGH:.*]] = arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maximumf %[[HIGH]], %{{.*}} : f32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK-NOT: tile.saturate
func.func @f8_saturate_on_the_host(%X: memref<64xf32>, %Y: memref<64xf8E5M2>, %i: index) {
  %x = memref.load %X[%i] : memref<64xf32>
  %r = arith.truncf %x {tile.saturate} : f32 to f8E5M2
  memref.store %r, %Y[%i] : memref<64xf8E5M2>
  return
}
