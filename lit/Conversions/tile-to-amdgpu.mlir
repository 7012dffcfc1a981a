// convert-tile-to-amdgpu: tile GEMM kernels become gfx942 kernels: registers prefetch a K step
// ahead while mfma reads the current one from LDS; where two LDS buffers fit, one is filled while
// the other feeds the MMAs, with one amdgpu.lds_barrier a step.
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s

// The contract's example: 2 waves split N (wave tile 128x64, 4x2 mfma 32x32x8 tiles), LDS rows
// padded by 4 elements, two LDS buffers, B transposed into K-contiguous LDS rows, ReLU in the
// epilogue.
// CHECK-LABEL: func.func @gemm_relu
// CHECK: gpu.module @gemm_relu_0_module attributes {tile.manifest = "{{.*}}\22chip\22: \22gfx942\22{{.*}}\22lds_bytes\22: 36864{{.*}}\22mfma\22: \2232x32x8\22
// CHECK-NOT: func.func
// CHECK: gpu.func @gemm_relu_0_kernel(%{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>, %{{.*}}: memref<4096x4096xf16>) workgroup(%[[LA:.*]] : memref<2x128x36xf16, 3>, %[[LB:.*]] : memref<2x128x36xf16, 3>) kernel
// Step 0 into buffer 0, then step 1's registers are loaded before the loop.
// CHECK: vector.load %{{.*}} : memref<4096x4096xf16>, vector<8xf16>
// CHECK: vector.transfer_read
// CHECK: vector.store %{{.*}}, %[[LA]][%[[ZERO:.*]], %{{.*}}, %{{.*}}] : memref<2x128x36xf16, 3>, vector<8xf16>
// CHECK: amdgpu.lds_barrier
// CHECK: vector.load %{{.*}} : memref<4096x4096xf16>, vector<8xf16>
// CHECK: scf.for %[[IT:.*]] = {{.*}} iter_args(
// CHECK-NOT: amdgpu.lds_barrier
// CHECK: %[[READ:.*]] = arith.remui %[[IT]], %{{.*}} : index
// CHECK: %[[WRITE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: vector.load %[[LA]][%[[READ]], %{{.*}}, %{{.*}}] : memref<2x128x36xf16, 3>, vector<4xf16>
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %[[LA]][%[[WRITE]], %{{.*}}, %{{.*}}] : memref<2x128x36xf16, 3>, vector<8xf16>
// CHECK: memref.store %{{.*}}, %[[LB]][%[[WRITE]], %{{.*}}, %{{.*}}] : memref<2x128x36xf16, 3>
// CHECK: vector.load %{{.*}} : memref<4096x4096xf16>, vector<8xf16>
// CHECK: amdgpu.lds_barrier
// CHECK-NEXT: scf.yield
// CHECK: vector.extract %{{.*}}[15] : f32 from vector<16xf32>
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4096x4096xf16>
// The host side: the launch, with the host tensors as they are.
// CHECK: func.func private @gemm_relu_0_launch(%[[A:.*]]: memref<4096x4096xf16>, %[[B:.*]]: memref<4096x4096xf16>, %[[C:.*]]: memref<4096x4096xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK: gpu.launch_func  @gemm_relu_0_module::@gemm_relu_0_kernel blocks in ({{.*}}) threads in ({{.*}})  args(%[[A]] : memref<4096x4096xf16>, %[[B]] : memref<4096x4096xf16>, %[[C]] : memref<4096x4096xf16>)
func.func @gemm_relu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}

// -----

// A 64x64 tile on 4 waves: each wave gets 32x32, still the 32x32x8 instruction; B given as NxK is
// stored to LDS as whole vectors (no transpose).
// CHECK-LABEL: func.func @small_tile
// CHECK: gpu.func @small_tile_0_kernel
// CHECK-NOT: memref.store %{{.*}}, %{{.*}} : memref<64x36xbf16, 3>
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
func.func @small_tile(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4, %c4) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bs : memref<256x256xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x32xbf16, #gpu.address_space<workgroup>>,
          memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// Asked for: one LDS buffer on gfx942; the lowering builds it (memref<128x36xf16, 3>, no ring).
// CHECK-LABEL: func.func @asked
// CHECK: workgroup(%{{.*}} : memref<128x36xf16, 3>, %{{.*}} : memref<128x36xf16, 3>)
// CHECK-COUNT-2: amdgpu.lds_barrier
func.func @asked(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 stages(3) attributes {tile.schedule = {buffers = 1 : i64}} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
  }
  return
}
