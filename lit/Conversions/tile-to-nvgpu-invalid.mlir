// convert-tile-to-nvgpu on programs the sm_90a template cannot take: one located diagnostic each, naming
// the op, the chip and what would work. A warning when the per-op rules or the plain strategy run
// the kernel instead (it works, slower than the template); an error when the program's own request
// cannot be met (a ring bigger than shared memory) or no strategy can run it.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-nvgpu

// threads not warpgroups: the lowering says what sm_90a cannot do and what would.
func.func @threads_not_warpgroups(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-warning @+1 {{'tile.kernel' op cannot be lowered for sm_90a with TMA and wgmma: expects 128, 256, 384 or 512 threads (wgmma runs on warpgroups of 128 threads), but got 96; the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
  tile.kernel grid(%c4) threads(96) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (it takes f16 or bf16 inputs with K a multiple of 16, an A operand not transposed, a B operand in shared memory, and an f32 accumulator in the wgmma layout with M a multiple of 64 and N a multiple of 8 up to 256); it runs without tensor cores on sm_90a}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// m too small: the lowering says what sm_90a cannot do and what would.
func.func @m_too_small(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<32x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<32x128xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.pipelined' op cannot be lowered for sm_90a with TMA and wgmma: expects the tile's M (32) to be a multiple of 64 per warpgroup (1 warpgroups: M = 64 or a multiple) for wgmma m64; the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (it takes f16 or bf16 inputs with K a multiple of 16, an A operand not transposed, a B operand in shared memory, and an f32 accumulator in the wgmma layout with M a multiple of 64 and N a multiple of 8 up to 256); it runs without tensor cores on sm_90a}}
      tile.gemm %As, %Bs, %Cf : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<32x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<32x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// n not multiple of 64: the lowering says what sm_90a cannot do and what would.
func.func @n_not_multiple_of_64(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x96xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x96xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x96xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.pipelined' op cannot be lowered for sm_90a with TMA and wgmma: expects N to be a multiple of 64 when B is KxN (N-major, read in 128-byte swizzled columns), but got 96; use transpose_b with an NxK B; the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x96xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x96xf16, #gpu.address_space<workgroup>>, memref<128x96xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x96xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// k too deep: the lowering says what sm_90a cannot do and what would.
func.func @k_too_deep(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.pipelined' op cannot be lowered for sm_90a with TMA and wgmma: expects a K tile of 16, 32 or 64 elements on sm_90a (one swizzled row of at most 128 bytes), but got 128; the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// shared memory overflow: the lowering says what sm_90a cannot do and what would.
func.func @shared_memory_overflow(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(256) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x256xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for sm_90a: needs 394240 bytes of shared memory (8 stages of 49152 bytes), but sm_90a gives a block at most 232448; use stages(4) or a smaller tile}}
    tile.pipelined %k = %c0 to %c4 stages(8) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x256xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// integer inputs: the lowering says what sm_90a cannot do and what would.
func.func @integer_inputs(%A: memref<1024x1024xi8>, %B: memref<1024x1024xi8>, %C: memref<1024x1024xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xi32, #tile.fragment>
    // expected-warning @+1 {{'tile.pipelined' op cannot be lowered for sm_90a with TMA and wgmma: expects f16 or bf16 inputs for wgmma on sm_90a, but got i8 (f8E4M3FN and i8 are not lowered yet); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xi8>, memref<64x128xi8, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (it takes f16 or bf16 inputs with K a multiple of 16, an A operand not transposed, a B operand in shared memory, and an f32 accumulator in the wgmma layout with M a multiple of 64 and N a multiple of 8 up to 256); it runs without tensor cores on sm_90a}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xi8, #gpu.address_space<workgroup>>, memref<64x128xi8, #gpu.address_space<workgroup>>, memref<128x128xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xi32, #tile.fragment>, memref<1024x1024xi32>
  }
  return
}

// -----

// a fill that is not a constant: the wgmma lowering says what it cannot do; the plain strategy runs the kernel.
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
    // expected-warning @+1 {{'tile.fill' op expects one tile.fill of the accumulator with a constant before the main loop (other fills are not supported on sm_90a yet) (chip sm_90a); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
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

// dynamic lower bound: the lowering says what sm_90a cannot do and what would.
func.func @dynamic_lower_bound(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    // expected-error @+1 {{'tile.pipelined' op expects a constant lower bound for the sm_90a lowering (chip sm_90a)}}
    tile.pipelined %k = %n to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// A host value of a type the kernel ABI does not pass yet.
func.func @float_capture(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %alpha: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      // expected-error @+1 {{'arith.mulf' op reads a host value of type f32 inside the kernel; the sm_90a lowering passes index values and constants only (chip sm_90a)}}
      %s = arith.mulf %v, %alpha : f32
      memref.store %s, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// rows of 1400 bytes: TMA needs 16-byte multiples, so the plain strategy runs the kernel, with a
// warning at the copy of the tensor TMA cannot take.
func.func @tma_row_alignment(%A: memref<1000x700xf16>, %B: memref<700x1024xf16>, %C: memref<1000x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %z : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c1 stages(2) {
      // expected-warning @+1 {{'tile.copy' op cannot be lowered for sm_90a with TMA and wgmma: expects global tensors whose rows are multiples of 16 bytes (a TMA requirement), but A (memref<1000x700xf16>) has rows of 1400 bytes; pad its inner dimension to a multiple of 8; the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
      tile.copy %A[%c0, %k], %As : memref<1000x700xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<700x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1000x1024xf16>
  }
  return
}

// -----

// A tile.layout the lowering would not use (hand-written, or inferred for another chip) is refused.
func.func @stale_layout(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    // expected-error @+1 {{'tile.alloc_shared' op has tile.layout #tile.smem<swizzle = 64>, but the sm_90a lowering lays it out as #tile.smem<swizzle = 32, box = [64, 16]>; drop the attribute or run tile-infer-layouts for sm_90a}}
    %As = tile.alloc_shared {tile.layout = #tile.smem<swizzle = 64>} : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
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

// Row values are f32 registers: a reduction into an f16 fragment runs with the plain strategy.
func.func @f16_rows(%A: memref<200x256xf16>, %B: memref<256x192xf16>, %C: memref<200x192xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.0625 : f32
  tile.kernel grid(%c3, %c4) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 stages(2) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x192xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    // expected-warning @+1 {{'tile.reduce' op expects epilogue reductions to reduce the accumulator's rows (dim 1) or columns (dim 0), clear, into a 1-D f32 fragment, each fragment once, for the sm_90a lowering (chip sm_90a); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.reduce <max> %S, %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf16, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %mh = memref.load %m[%i] : memref<64xf16, #tile.fragment>
      %mx = arith.extf %mh : f16 to f32
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %l dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %e = memref.load %S[%i, %j] : memref<64x64xf32, #tile.fragment>
      %s = memref.load %l[%i] : memref<64xf32, #tile.fragment>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<64x64xf32, #tile.fragment>, memref<200x192xf32>
  }
  return
}

// -----

// Seven stages of 32 KiB fill shared memory; the column reduction's exchange between the 8 warps
// (4 KiB) does not fit beside them.
func.func @column_sum_full_ring(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c8, %c8) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %sum = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.fill %S, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    // expected-error @+1 {{'tile.pipelined' op cannot be lowered for sm_90a: needs 234496 bytes of shared memory (7 stages of 32768 bytes and 4096 bytes for the column reductions' exchange between warps), but sm_90a gives a block at most 232448; use fewer stages or a smaller tile}}
    tile.pipelined %k = %c0 to %c16 stages(7) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %S : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.reduce <sum> %S, %sum dim(0) : memref<128x128xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %S[%i, %j] : memref<128x128xf32, #tile.fragment>
      %s = memref.load %sum[%j] : memref<128xf32, #tile.fragment>
      %d = arith.subf %v, %s : f32
      memref.store %d, %S[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %S, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf32>
  }
  return
}

// -----

// A residual tile copied into a second fragment for the epilogue: the warning names that copy (not
// the fragment's allocation, nor the epilogue loop).
func.func @residual_epilogue(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %R: memref<256x256xf16>, %C: memref<256x256xf16>) {
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
    %Rf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // expected-warning @+1 {{'tile.copy' op copies a tile of the global tensor memref<256x256xf16> into a fragment for the epilogue (a bias vector or a residual tile), which the sm_90a lowering cannot read on tensor cores yet (its epilogue reads the accumulator and its reductions only) (chip sm_90a); the kernel is lowered by the per-op rules instead (correct; gemms on tensor cores where their operands allow, without the template's TMA pipeline)}}
    tile.copy %R[%m0, %n0], %Rf : memref<256x256xf16>, memref<128x128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r0 = memref.load %Rf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.addf %v, %r0 : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// One stage: the template's ring refills a stage while the next is read, so it needs two; the
// per-op rules run the loop synchronously instead (a hang on the H200 before: generated program
// 27 of seed 3030).
func.func @one_stage(%A: memref<58x128xf16>, %B: memref<8x128xf16>, %Y: memref<58x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %init = arith.constant 0.36 : f32
  tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<8x32xf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x8xf32, #tile.fragment>
    tile.fill %C, %init : memref<64x8xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.pipelined' op cannot be lowered for sm_90a with TMA and wgmma: expects stages(2) or more (its ring refills a stage while the next one is read), but got stages(1); the kernel is lowered by the per-op rules instead}}
    tile.pipelined %k = %c0 to %c4 stages(1) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk], %As : memref<58x128xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %kk], %Bs : memref<8x128xf16>, memref<8x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %C {transpose_b} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<8x32xf16, #gpu.address_space<workgroup>>, memref<64x8xf32, #tile.fragment>
    }
    tile.copy %C, %Y[%c0, %c0] : memref<64x8xf32, #tile.fragment>, memref<58x8xf32>
  }
  return
}
