// convert-tile-to-nvgpu on programs the sm_90a rules cannot run as written: one located diagnostic
// each, naming the op, the chip and what would work. A warning where an op runs on slower code (a
// gemm that wgmma cannot take runs as one loop over K per accumulator element); an error where no
// rule can run the program.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-nvgpu

// 96 threads are no whole warpgroup: the gemm runs without tensor cores, and says what wgmma takes.
func.func @threads_not_warpgroups(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(96) (%bx) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (its block of 96 threads is no whole number of warpgroups (128 threads)) nor mma.sync (its 96 threads' warps cannot split the 128x128 accumulator into 16x8 tiles); it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// A 32-row accumulator is no m64 wgmma tile, and a K tile of 8 is no K step of mma.sync (16): the
// gemm runs without tensor cores.
func.func @m_too_small(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<32x8xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<8x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<32x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<32x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xf16>, memref<32x8xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xf16>, memref<8x128xf16, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op does not fit wgmma (M = 32 is not a multiple of 64 (64 rows a warpgroup)) nor mma.sync (K = 8 is not a multiple of 16); it runs without tensor cores on sm_90a (one loop over K per accumulator element)}}
      tile.gemm %As, %Bs, %Cf : memref<32x8xf16, #gpu.address_space<workgroup>>, memref<8x128xf16, #gpu.address_space<workgroup>>, memref<32x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<32x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// i8 inputs with B given K x N: wgmma reads 8-bit operands K-major only; the gemm runs on mma.sync
// (m16n8k32), with a warning that says so and what would put it on wgmma.
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
    tile.pipelined %k = %c0 to %c4 stages(3) {
      tile.copy %A[%c0, %k], %As : memref<1024x1024xi8>, memref<128x64xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k, %c0], %Bs : memref<1024x1024xi8>, memref<64x128xi8, #gpu.address_space<workgroup>>
      // expected-warning @+1 {{'tile.gemm' op multiplies i8 on mma.sync.m16n8k32, at a fraction of sm_90a's tensor-core rate: wgmma reads i8 operands K-major only, so give A as MxK in a shared tile and B as NxK (transpose_b) in a shared tile, with M a multiple of 64 a warpgroup and K of 32}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xi8, #gpu.address_space<workgroup>>, memref<64x128xi8, #gpu.address_space<workgroup>>, memref<128x128xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xi32, #tile.fragment>, memref<1024x1024xi32>
  }
  return
}

// -----

// An f32 host value read inside the kernel: the kernel takes tensors, constants and integers the host
// computes from its arguments (index arguments, sizes), not floats yet.
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
      // expected-error @+1 {{'arith.mulf' op reads argument 3 of the host function (of type f32) inside the kernel; the sm_90a lowering passes tensors, constants and integers the host computes from its arguments (sizes, index arguments and integer arithmetic on them)}}
      %s = arith.mulf %v, %alpha : f32
      memref.store %s, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// -----

// A tile.layout written by hand that the gemm's operand cannot use (lowered without the planning
// passes, the threads copy this 64x16 A tile: wgmma reads it as column slabs) is an error naming the
// tile, the layout and the gemm that wants another.
func.func @stale_layout(%A: memref<128x48xf16>, %B: memref<48x96xf16>, %C: memref<128x96xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    // expected-error @+1 {{'tile.alloc_shared' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as #tile.smem<swizzle = 64>, 'tile.gemm'}}
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

// A tile laid out for TMA's swizzled boxes (what tile-infer-layouts records for a tile the loop's
// ring will fill) lowered without tile-plan-pipelines and tile-expand-pipelines, whose rings TMA
// fills: the threads copy it, and the error says which passes the layout needs.
func.func @layout_for_rings(%A: memref<128x64xf16>, %B: memref<64x64xf16>, %C: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2) threads(128) (%bx) {
    // expected-error-re @+1 {{'tile.alloc_shared' op has no consistent layout on sm_90a: its tile.layout attribute lays it out as #tile.smem<swizzle = 128, box = [64, 64]>, 'tile.gemm' at {{.*}} wants #tile.smem<box = [64, 8], boxes = 8>; TMA fills a swizzled tile only from the rings of tile-plan-pipelines and tile-expand-pipelines, in boxes that serve every gemm reading it (run them before the lowering, as the tile-to-nvvm pipeline does, or drop the attribute)}}
    %As = tile.alloc_shared {tile.layout = #tile.smem<swizzle = 128, box = [64, 64]>} : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    %m0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 stages(2) {
      tile.copy %A[%m0, %c0], %As : memref<128x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %c0], %Bs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %c0] : memref<64x64xf32, #tile.fragment>, memref<128x64xf32>
  }
  return
}

// -----

// i8 inputs with K = 16: mma.sync's i8 form takes K steps of 32, so the gemm runs without tensor
// cores, and says what would work.
func.func @integer_inputs_short_k(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x16xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x64xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xi32, #tile.fragment>
    tile.copy %A[%c0, %c0], %As : memref<64x64xi8>, memref<64x16xi8, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0], %Bs : memref<64x64xi8>, memref<16x64xi8, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{'tile.gemm' op does not fit wgmma}}
    tile.gemm %As, %Bs, %Cf : memref<64x16xi8, #gpu.address_space<workgroup>>, memref<16x64xi8, #gpu.address_space<workgroup>>, memref<64x64xi32, #tile.fragment>
    tile.copy %Cf, %C[%c0, %c0] : memref<64x64xi32, #tile.fragment>, memref<64x64xi32>
  }
  return
}

// -----

// f8E4M3FN inputs with B given K x N: wgmma reads 8-bit operands K-major only, and no other rule
// converts 8-bit floats, so the gemm is refused (no slow fallback), saying what wgmma takes.
func.func @f8_b_kn(%A: memref<256x256xf8E4M3FN>, %B: memref<256x256xf8E4M3FN>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c4 stages(2) {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<256x256xf8E4M3FN>, memref<128x64xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<256x256xf8E4M3FN>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>
      // expected-error @+1 {{'tile.gemm' op multiplies f8E4M3FN, which sm_90a runs on wgmma alone (no rule converts 8-bit floats): give A as MxK (a shared tile filled by copies from f8E4M3FN tensors, or an f8E4M3FN fragment where the warpgroups split M, each holding its own rows) and B as NxK (transpose_b) in a shared tile filled by copies, K a multiple of 32, and an f32 accumulator in a block of whole warpgroups with M a multiple of 64 a warpgroup and N a multiple of 8 up to 256}}
      tile.gemm %As, %Bs, %Cf : memref<128x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf32>
  }
  return
}

// -----

// A kernel without a gemm that the register rules cannot take keeps the slower path too, and says
// so: the loop writes row 1 of a fragment at index [1, j], which is not the loop's index.
func.func @fragment_row_by_constant(%X: memref<64xf32>, %Y: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %x = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %y = tile.alloc_fragment : memref<2x64xf32, #tile.fragment>
    tile.copy %X[%c0], %x : memref<64xf32>, memref<64xf32, #tile.fragment>
    // expected-warning @+1 {{'tile.parallel' op reads a fragment at indices that are not the loop's indices (a thread would not know the register), so on sm_90a the kernel's fragments live in private or workgroup memory instead of registers (correct, slower)}}
    tile.parallel (%j) in (64) {
      %v = memref.load %x[%j] : memref<64xf32, #tile.fragment>
      %w = arith.addf %v, %v : f32
      memref.store %v, %y[%c0, %j] : memref<2x64xf32, #tile.fragment>
      memref.store %w, %y[%c1, %j] : memref<2x64xf32, #tile.fragment>
      tile.yield
    }
    tile.copy %y, %Y[%c0, %c0] : memref<2x64xf32, #tile.fragment>, memref<2x64xf32>
  }
  return
}

// -----

// A loop that gives each thread more iterations than a register file holds (4096 x 16 elements
// on 64 threads: 1024 each) is not written out one by one: the kernel takes the plain lowering,
// whose loop stays one iteration long, and says so (written out, 1024 iterations of an unpacked
// 4-bit element took the backend 10 s).
func.func @long_loop_per_thread(%F: memref<4096x16xf16>, %O: memref<4096x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    // expected-warning @+1 {{'tile.parallel' op gives each thread 1024 iterations, more than the 255 a register tile's loop is written out for, so on sm_90a the kernel's fragments live in private or workgroup memory instead of registers (correct, slower)}}
    tile.parallel (%i, %j) in (4096, 16) {
      %q = memref.load %F[%i, %j] : memref<4096x16xf16>
      %w = arith.extf %q : f16 to f32
      memref.store %w, %O[%i, %j] : memref<4096x16xf32>
    }
  }
  return
}

// -----

// A sum over a cluster's blocks exchanges registers: a kernel whose fragments cannot be in
// registers cannot have one.
module attributes {tile.target = "sm_90a"} {
  func.func @split_sum_off_registers(%C: memref<64x512xf32>, %R: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    tile.kernel grid(%c16) threads(128) (%b) attributes {tile.splits = 4} {
      %bx = arith.divui %b, %c4 : index
      %rank = arith.remui %b, %c4 : index
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      %scratch = tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
      tile.fill %Cf, %one : memref<64x128xf32, #tile.fragment>
      // expected-error @+1 {{'tile.split_sum' op needs its kernel's fragments in registers, but 'memref.load' at}}
      tile.split_sum %Cf, %scratch, %rank splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
      %v = memref.load %Cf[%rank, %c0] : memref<64x128xf32, #tile.fragment>
      memref.store %v, %R[%bx] : memref<4xf32>
    }
    return
  }
}

// -----

// A's rows are 100 f16 elements, 200 bytes: neither TMA nor 16-byte cp.async can copy them, so the
// copy into the tile moves element by element, once warned (the ring's copies share its location).
func.func @rows_not_16_bytes(%A: memref<256x100xf16>, %B: memref<100x256xf16>, %C: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c2 stages(2) {
      %k0 = arith.muli %kt, %c64 : index
      // expected-warning @+1 {{'tile.copy' op copies element by element on sm_90a: its tensor's rows (100 x f16, 200 bytes) are not a multiple of 16 bytes, which TMA boxes and 16-byte cp.async need; give the tensor rows of a multiple of 8 elements (padding them)}}
      tile.copy %A[%m0, %k0], %As : memref<256x100xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<100x256xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<256x256xf16>
  }
  return
}

// -----

// An 8-bit P read from registers needs each warpgroup to hold its own rows: 64 rows on two
// warpgroups split N, so wgmma cannot read it, and nothing else takes f8E4M3FN.
func.func @f8_p_split_n(%Q: memref<64x64xf8E4M3FN>, %K: memref<64x64xf8E4M3FN>, %V: memref<64x64xf8E4M3FN>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(256) (%bx) {
    %Qs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    %P = tile.alloc_fragment : memref<64x64xf8E4M3FN, #tile.fragment>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %Q[%c0, %c0], %Qs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %Ks : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0], %Vs : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>
    tile.fill %S, %zero : memref<64x64xf32, #tile.fragment>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %Qs, %Ks, %S {transpose_b} : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %k) in (64, 64) {
      %s = memref.load %S[%i, %k] : memref<64x64xf32, #tile.fragment>
      %d = arith.minimumf %s, %zero : f32
      %e = math.exp2 %d : f32
      memref.store %e, %S[%i, %k] : memref<64x64xf32, #tile.fragment>
    }
    tile.copy %S, %P : memref<64x64xf32, #tile.fragment>, memref<64x64xf8E4M3FN, #tile.fragment>
    // expected-error @+1 {{'tile.gemm' op multiplies f8E4M3FN, which sm_90a runs on wgmma alone (no rule converts 8-bit floats): give A as MxK (a shared tile filled by copies from f8E4M3FN tensors, or an f8E4M3FN fragment where the warpgroups split M, each holding its own rows) and B as NxK (transpose_b) in a shared tile filled by copies, K a multiple of 32, and an f32 accumulator in a block of whole warpgroups with M a multiple of 64 a warpgroup and N a multiple of 8 up to 256}}
    tile.gemm %P, %Vs, %Acc {transpose_b} : memref<64x64xf8E4M3FN, #tile.fragment>, memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %O[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

// -----

// The copy engine cuts boxes along the tile's rows only: a store limited in its columns at run time
// stores element by element, and says so.
func.func @limited_columns(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %columns: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
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
    // expected-warning @+1 {{'tile.copy' op stores element by element on sm_90a, not by TMA: its limit on the tile's dimension 1 is not a constant at least its extent 128 (boxes are cut along the tile's rows only); limit the rows alone to keep the store on the copy engine}}
    tile.copy %Cf, %C[%c0, %c0] limits [%c128, %columns] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}
