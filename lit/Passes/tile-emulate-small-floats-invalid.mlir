// Invalid input for tile-emulate-small-floats: a bf16 or f8E4M3FN value used by anything but a
// store or a widening (after arith-emulate-unsupported-floats has moved arithmetic to f32) is an
// error at that op, on a target that holds them as integers.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-emulate-small-floats

// A select between two bf16 values on plain SPIR-V.
module attributes {tile.target = "spirv"} {
func.func @select_bf16(%X: memref<8xbf16>, %Y: memref<8xbf16>, %i: index, %c: i1) {
  %x = memref.load %X[%i] : memref<8xbf16>
  %y = memref.load %Y[%i] : memref<8xbf16>
  // expected-error @+1 {{'arith.select' op uses a bf16 value, which this target holds as the integers of its bits: only loads, stores, arith.extf and arith.truncf of it are converted}}
  %s = arith.select %c, %x, %y : bf16
  memref.store %s, %Y[%i] : memref<8xbf16>
  return
}
}

// -----

// A vector of f8E4M3FN on the CPU reference.
func.func @f8_vector(%X: memref<8xf8E4M3FN>, %i: index) {
  // expected-error @+1 {{'vector.load' op computes on f8E4M3FN, which this target holds as the integers of its bits and converts only where values are loaded, stored or widened (arith.extf, arith.truncf, constants); convert to f32 first}}
  %v = vector.load %X[%i] : memref<8xf8E4M3FN>, vector<4xf8E4M3FN>
  vector.store %v, %X[%i] : memref<8xf8E4M3FN>, vector<4xf8E4M3FN>
  return
}
