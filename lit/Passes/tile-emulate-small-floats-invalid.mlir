// Invalid input for tile-emulate-small-floats: a bf16 or f8E4M3FN value used by anything but a
// store, a widening or an op that only moves it (vector loads and stores, vectors built of it and
// taken apart, selects) (after arith-emulate-unsupported-floats has moved arithmetic to f32) is an
// error at that op, on a target that holds them as integers.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-emulate-small-floats

// A comparison of two bf16 values on plain SPIR-V (a select between them would move their bits).
module attributes {tile.target = "spirv"} {
func.func @compare_bf16(%X: memref<8xbf16>, %Y: memref<8xbf16>, %Z: memref<8xi1>, %i: index) {
  %x = memref.load %X[%i] : memref<8xbf16>
  %y = memref.load %Y[%i] : memref<8xbf16>
  // expected-error @+1 {{'arith.cmpf' op uses a bf16 value, which this target holds as the integers of its bits: only loads, stores, arith.extf and arith.truncf of it are converted}}
  %c = arith.cmpf olt, %x, %y : bf16
  memref.store %c, %Z[%i] : memref<8xi1>
  return
}
}

// -----

// A vector of f8E4M3FN on the CPU reference: loaded and stored it moves bytes, but negated it
// would be computed on.
func.func @f8_vector(%X: memref<8xf8E4M3FN>, %i: index) {
  %v = vector.load %X[%i] : memref<8xf8E4M3FN>, vector<4xf8E4M3FN>
  // expected-error @+1 {{'arith.negf' op uses a f8E4M3FN value, which this target holds as the integers of its bits: only loads, stores, arith.extf and arith.truncf of it are converted}}
  %n = arith.negf %v : vector<4xf8E4M3FN>
  vector.store %n, %X[%i] : memref<8xf8E4M3FN>, vector<4xf8E4M3FN>
  return
}

// -----

// An f8E4M3FN value computed on in a kernel for sm_90a (which holds it as bytes outside wgmma's
// operands).
module attributes {tile.target = "sm_90a"} {
func.func @f8_negated(%X: memref<8xf8E4M3FN>, %i: index) {
  %x = memref.load %X[%i] : memref<8xf8E4M3FN>
  // expected-error @+1 {{'arith.negf' op uses a f8E4M3FN value, which this target holds as the integers of its bits: only loads, stores, arith.extf and arith.truncf of it are converted}}
  %n = arith.negf %x : f8E4M3FN
  memref.store %n, %X[%i] : memref<8xf8E4M3FN>
  return
}
}
