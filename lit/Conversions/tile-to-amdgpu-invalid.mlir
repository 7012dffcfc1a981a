// convert-tile-to-amdgpu on programs gfx942 cannot run fast: one located diagnostic each, naming the
// op, the chip and what would work (a warning where the plain strategy runs the kernel instead).
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-amdgpu

// Wavefronts are 64 lanes.
func.func @threads(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(96) (%bx) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for gfx942: expects a multiple of 64 threads (64-wide wavefronts) up to 1024 on gfx942, but got 96}}
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// 64 KiB of LDS per workgroup on gfx942.
func.func @lds_overflow(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<256x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<256x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<256x256xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for gfx942: needs 69632 bytes of LDS for the 256x64 A and 64x256 B tiles, but gfx942 gives a workgroup at most 65536; use a smaller K tile or a smaller tile}}
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<256x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<256x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<256x256xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// mfma is lowered for f16 and bf16 so far.
func.func @integers(%A: memref<256x256xi8>, %B: memref<256x256xi8>, %C: memref<256x256xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for gfx942: expects f16 or bf16 inputs for mfma on gfx942, but got i8 (i8 and f8E4M3FN are not lowered yet)}}
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xi8, #gpu.address_space<workgroup>>, memref<32x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xi32, #tile.fragment>, memref<256x256xi32>
  }
  return
}

// -----

// A tile the waves cannot split into 16x16 or 32x32 mfma tiles.
func.func @tile_split(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<48x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x48xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<48x48xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<48x48xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for gfx942: expects a 48x48 tile that 4 waves can split into 32x32 or 16x16 mfma tiles on gfx942; use multiples of 64 rows and columns}}
    tile.pipelined %k = %c0 to %c4 stages(2) {
      tile.copy %A[%c0, %k], %As : memref<256x256xf16>, memref<48x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<256x256xf16>, memref<32x48xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<48x32xf16, #gpu.address_space<workgroup>>, memref<32x48xf16, #gpu.address_space<workgroup>>, memref<48x48xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<48x48xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// a fill that is not a constant: the mfma lowering says what it cannot do, as a warning: the plain strategy runs the
// kernel (a GEMM the plain strategy could not run either gets an error naming both reasons).
func.func @computed_fill(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 1.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %bi = arith.index_cast %bx : index to i32
    %start = arith.sitofp %bi : i32 to f32
    // expected-warning @+1 {{'tile.fill' op expects one tile.fill of the accumulator with a constant before the main loop (other fills are not supported on gfx942 yet) (chip gfx942); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.fill %Cf, %start : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}


// -----

// Column reductions (dim 0) of the accumulator are completed across lanes on sm_90a only so far.
func.func @column_sum(%A: memref<256x128xf16>, %B: memref<128x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<128x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    // expected-warning @+1 {{'tile.reduce' op reduces the accumulator's columns (dim 0), which is lowered on tensor cores on sm_90a only so far (on gfx942, reduce rows, dim 1); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.reduce <sum> %S, %sum dim(0) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %sum[%j] : memref<64xf32, #tile.fragment>
      %d = arith.subf %v, %s : f32
      memref.store %d, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// An epilogue that reads a bias vector from global memory: read on tensor cores on sm_90a only so
// far; here the plain strategy runs the kernel, and the warning names the load of the other tensor.
func.func @bias_epilogue(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %bias: memref<256xf32>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %n = arith.addi %n0, %j : index
      // expected-warning @+1 {{'memref.load' op reads the global tensor memref<256xf32> in the epilogue (a bias vector or a residual tile), which is read on tensor cores on sm_90a only so far (on gfx942, the epilogue reads the accumulator and its reductions only); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
      %b = memref.load %bias[%n] : memref<256xf32>
      %r = arith.addf %v, %b : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}
