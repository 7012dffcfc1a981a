// Malformed custom syntax is a located parse error, never a crash.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @kernel_missing_threads(%n: index) {
  // expected-error @+1 {{expected 'threads'}}
  tile.kernel grid(%n) (%bx) {
  }
  return
}

// -----

func.func @kernel_threads_not_integer(%n: index) {
  // expected-error @+1 {{expected integer value}}
  tile.kernel grid(%n) threads(%n) (%bx) {
  }
  return
}

// -----

func.func @pipelined_missing_stages(%n: index) {
  // expected-error @+1 {{expected 'stages'}}
  tile.pipelined %k = %n to %n {
  }
  return
}

// -----

func.func @parallel_missing_in() {
  // expected-error @+1 {{expected 'in'}}
  tile.parallel (%i) (128) {
  }
  return
}

// -----

func.func @unknown_reduction(%n: index) {
  tile.kernel grid(%n) threads(128) (%bx) {
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error @+2 {{expected ::mlir::tile::ReductionKind to be one of: sum, max, min, abssum, absmax}}
    // expected-error @+1 {{failed to parse Tile_ReductionKindAttr parameter 'value'}}
    tile.reduce <mean> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @fill_not_memref(%v: f32) {
  // expected-error @+1 {{expects a memref tile type, but got 'tensor<4xf32>'}}
  tile.fill %v, %v : tensor<4xf32>
  return
}

// -----

// The fill value must have the tile's element type already in custom form.
func.func @fill_value_mismatch(%n: index) {
  %one = arith.constant 1.0 : f16
  tile.kernel grid(%n) threads(128) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error @+2 {{use of value '%one' expects different type than prior uses: 'f32' vs 'f16'}}
    // expected-note @-4 {{prior use here}}
    tile.fill %F, %one : memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @unknown_op() {
  // expected-error @+1 {{custom op 'tile.transpose' is unknown}}
  tile.transpose
  return
}

// -----

// expected-error @+1 {{unknown attribute `register` in dialect `tile`}}
func.func @unknown_attribute(%a: memref<4xf32, #tile.register>) {
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @offsets_not_index(%A: memref<256x256xf16>, %i: i32) {
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  tile.copy %A[%i, %i], %A : memref<256x256xf16>, memref<256x256xf16>
  return
}
