// Invalid input for convert-tile-to-spirv-coopmat: each is a diagnostic that names the op, the
// target and what would work.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-spirv-coopmat

// bf16 has no cooperative matrices in the target environment.
func.func @bf16(%A: memref<128x48xbf16>, %B: memref<48x96xbf16>, %C: memref<128x96xbf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for spirv-coopmat: expects f16 inputs for 16x16x16 cooperative matrices on spirv-coopmat, but got bf16 (the target environment has f16 x f16 -> f32 only; use f16)}}
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xbf16>, memref<64x16xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xbf16>, memref<16x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<16x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<128x96xbf16>
  }
  return
}

// -----

// Workgroup memory is 48 KiB on NVIDIA's Vulkan driver.
func.func @overflow(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for spirv-coopmat: needs 60416 bytes of workgroup memory (128x64 A and 64x256 B tiles with rows padded by 8, 8192 bytes of staging for the epilogue), but spirv-coopmat (NVIDIA's Vulkan driver) gives a workgroup at most 49152; use a smaller K tile}}
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 256) {
      %v = memref.load %Cf[%i, %j] : memref<128x256xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x256xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// Storage buffers are bound as sized arrays.
func.func @dynamic(%A: memref<?x48xf16>, %B: memref<48x96xf16>, %C: memref<?x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for spirv-coopmat: expects A to have a static 2-D shape on spirv-coopmat (storage buffers are bound as sized arrays), but got memref<?x48xf16>}}
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<?x48xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<?x96xf16>
  }
  return
}

// -----

// A fill that is not a constant falls back to the plain strategy, with a warning.
func.func @bias(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %bi = arith.index_cast %bx : index to i32
    %start = arith.sitofp %bi : i32 to f32
    // expected-warning @+1 {{'tile.fill' op expects one tile.fill of the accumulator with a constant before the main loop (other fills are not supported on spirv-coopmat yet); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.fill %Cf, %start : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<128x96xf16>
  }
  return
}

// -----

// GEMMs on N-D global tensors are lowered on tensor cores on sm_90a and gfx942 only so far: the plain strategy
// runs this one, with a warning at the first copy of an N-D tensor.
func.func @nd_gemm(%X: memref<3x100x64xf16>, %W: memref<64x64xf16>, %Y: memref<3x100x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1, %c2, %c3) threads(128) (%bx, %by, %bz) {
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Yf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Yf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      // expected-warning @+1 {{'tile.copy' op copies a tile of the rank-3 global tensor memref<3x100x64xf16> (its leading offsets picking a batch or head), which is lowered on tensor cores on sm_90a and gfx942 only so far (on spirv-coopmat, GEMM operands and results of rank 2); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
      tile.copy %X[%bz, %m0, %k0], %Xs : memref<3x100x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%k0, %c0], %Ws : memref<64x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %Ws, %Yf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Yf, %Y[%bz, %m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<3x100x64xf16>
  }
  return
}
