// What a partition argument must be: a 1-D i32 or i64 memref with room for a part, naming a
// dimension of another memref argument. The messages quote dialect/src/partition.rs.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'func.func' op argument 1: expects tile.sizes on a 1-D memref of i32 or i64 (the entries a launcher checks), but it is on memref<3xf32>}}
func.func @float_sizes(%A: memref<?x64xf16>, %S: memref<3xf32> {tile.sizes = array<i64: 0, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects tile.sizes to hold at least an entry (one part), but its memref holds 0}}
func.func @no_groups(%A: memref<?x64xf16>, %S: memref<0xi32> {tile.sizes = array<i64: 0, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects tile.offsets to hold at least 2 entries (one part), but its memref holds 1}}
func.func @one_offset(%A: memref<?x64xf16>, %S: memref<1xi32> {tile.offsets = array<i64: 0, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: tile.offsets partitions dimension 2 of argument 0, which has 2 dimension(s)}}
func.func @past_the_rank(%A: memref<?x64xf16>, %S: memref<4xi32> {tile.offsets = array<i64: 0, 2>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects tile.offsets to name another memref argument of the function (of 2), but it names argument 1}}
func.func @itself(%A: memref<?x64xf16>, %S: memref<4xi32> {tile.offsets = array<i64: 1, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects tile.offsets to be array<i64: T, D> (it partitions dimension D of argument T), but got [0, 0]}}
func.func @not_an_array(%A: memref<?x64xf16>, %S: memref<4xi32> {tile.offsets = [0, 0]}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects tile.offsets or tile.sizes (the attributes of host function arguments), but got tile.offset}}
func.func @misspelt(%A: memref<?x64xf16>, %S: memref<4xi32> {tile.offset = array<i64: 0, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 1: expects one of tile.offsets and tile.sizes, but it has both}}
func.func @both(%A: memref<?x64xf16>, %S: memref<4xi32> {tile.offsets = array<i64: 0, 0>, tile.sizes = array<i64: 0, 0>}) {
  return
}
