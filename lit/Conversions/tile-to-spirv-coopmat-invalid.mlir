// convert-tile-to-spirv-coopmat on programs it cannot run fast or at all: every kernel is lowered
// op by op, so what is refused is refused by an op's rule, and what runs without cooperative
// matrices gets a warning at the op; each names the op, the target and what would work.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-spirv-coopmat | FileCheck %s

// bf16: the tiles hold it as 16-bit integers (tile-emulate-small-floats computes in f32), and its
// gemm runs without cooperative matrices, which take f16 here.
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
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<128x48xbf16>, memref<64x16xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<48x96xbf16>, memref<16x64xbf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op multiplies bf16 by bf16 into f32; cooperative matrices on spirv-coopmat take f16 x f16 -> f32; it runs without cooperative matrices on spirv-coopmat (one loop over K per accumulator element)}}
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

// Workgroup memory is 48 KiB on NVIDIA's Vulkan driver: the 128x64 and 64x256 f16 tiles leave no room
// to stage the accumulator's matrices, so the gemm loops over K, with a warning.
// CHECK-LABEL: gpu.func @overflow_0_kernel
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.return
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
    tile.pipelined %k = %c0 to %c3 stages(2) {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op needs 1024 bytes of workgroup memory to stage its accumulator for cooperative matrices, but the kernel's shared tiles and scratch leave 0 of spirv-coopmat's 49152; use smaller tiles; it runs without cooperative matrices on spirv-coopmat (one loop over K per accumulator element)}}
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

// A fill that is not a constant (the template took constant fills only) is the fill rule's; the
// gemm runs on cooperative matrices.
// CHECK-LABEL: gpu.func @bias_0_kernel
// CHECK: arith.sitofp
// CHECK: gpu.subgroup_mma_compute
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

// A GEMM on N-D global tensors: the copies index the leading dimensions (the plain rule), the gemm
// runs on cooperative matrices.
// CHECK-LABEL: gpu.func @nd_gemm_0_kernel
// CHECK: gpu.subgroup_mma_compute
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
      tile.copy %X[%bz, %m0, %k0], %Xs : memref<3x100x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %W[%k0, %c0], %Ws : memref<64x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %Ws, %Yf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Yf, %Y[%bz, %m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<3x100x64xf16>
  }
  return
}

// -----

// 8-bit floats: the plain target holds them as bytes and computes in f32; the cooperative-matrix
// target has not had their values checked, so it refuses them and names the target that takes
// them.
func.func @f8_tiles(%X: memref<32x32xf8E4M3FN>, %n: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    // expected-error @+1 {{'tile.alloc_shared' op uses f8E4M3FN, which spirv-coopmat does not lower yet; use f16 or f32, or target spirv, which holds f8E4M3FN as integers and computes in f32}}
    %S = tile.alloc_shared : memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %X[%c0, %c0], %S : memref<32x32xf8E4M3FN>, memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
  }
  return
}
