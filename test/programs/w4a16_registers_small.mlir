// W4A16 GEMMs with the weights widened in registers as wgmma's A (tools/gen/dequant.py --registers):
// the product computed transposed and written out through a shared tile; K split across the
// blocks of a cluster in the first two (sm_90a: tile-split-k), the second scaling each step's
// product into the sum, activation rows not a multiple of the tile's in the third (the last
// tile's rows clipped), two K steps an iteration in the fourth, each widened into a register tile
// of its own (split too: the widening of one step runs beside the other's products).

// W4A16 GEMM 16x256x1024 (tools/gen/dequant.py --registers): tiles of 16 activation rows, 64
// weight rows and 128 of K, 128 threads, 2 stages; K split over the 2 blocks of a cluster; B's signed 4-bit weights
// widened and scaled (one f16 scale a 128 weights of a row, scales stored [K/128, N]) into a
// register tile, wgmma's A; the product computed transposed and written out through shared memory.
func.func @dequant_gemm_w4a16_registers_split(%A: memref<16x1024xf16>, %B: memref<256x1024xi4>, %S: memref<8x256xf16>, %C: memref<16x256xf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 16 : index
  %cbn = arith.constant 64 : index
  %cbk = arith.constant 128 : index
  %cgroup = arith.constant 128 : index
  %csteps = arith.constant 8 : index
  %gn = arith.constant 4 : index
  %gm = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gn, %gm) threads(128) (%bn, %bm) {
    %As = tile.alloc_shared : memref<16x128xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x128xi4, #gpu.address_space<workgroup>>
    %Ss = tile.alloc_shared : memref<1x64xf16, #gpu.address_space<workgroup>>
    %Wd = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.pipelined %k = %c0 to %csteps stages(2) attributes {tile.schedule = {split = 2}} {
      %k0 = arith.muli %k, %cbk : index
      %g = arith.divui %k0, %cgroup : index
      tile.copy %A[%m0, %k0], %As : memref<16x1024xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bq : memref<256x1024xi4>, memref<64x128xi4, #gpu.address_space<workgroup>>
      tile.copy %S[%g, %n0], %Ss : memref<8x256xf16>, memref<1x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 128) {
        %q = memref.load %Bq[%i, %j] : memref<64x128xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        %scale = memref.load %Ss[%c0, %i] : memref<1x64xf16, #gpu.address_space<workgroup>>
        %d = arith.mulf %w, %scale : f16
        memref.store %d, %Wd[%i, %j] : memref<64x128xf16, #tile.fragment>
      }
      tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x128xf16, #tile.fragment>, memref<16x128xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 16) {
      %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %Cs[%j, %i] : memref<16x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Cs, %C[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x256xf16>
  }
  return
}

// The same product with each step's scales applied to its product (unscaled weights into a step's
// own accumulator %T, filled before its gemm, then %Ct += %T * scale element by element): the
// sum %Ct, not %T, is what the split adds up across the cluster.
func.func @dequant_gemm_w4a16_registers_scaled_sum(%A: memref<16x1024xf16>, %B: memref<256x1024xi4>, %S: memref<8x256xf16>, %C: memref<16x256xf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 16 : index
  %cbn = arith.constant 64 : index
  %cbk = arith.constant 128 : index
  %cgroup = arith.constant 128 : index
  %csteps = arith.constant 8 : index
  %gn = arith.constant 4 : index
  %gm = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gn, %gm) threads(128) (%bn, %bm) {
    %As = tile.alloc_shared : memref<16x128xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x128xi4, #gpu.address_space<workgroup>>
    %Ss = tile.alloc_shared : memref<1x64xf16, #gpu.address_space<workgroup>>
    %Wd = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %T = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.pipelined %k = %c0 to %csteps stages(2) attributes {tile.schedule = {split = 2}} {
      %k0 = arith.muli %k, %cbk : index
      %g = arith.divui %k0, %cgroup : index
      tile.fill %T, %zero : memref<64x16xf32, #tile.fragment>
      tile.copy %A[%m0, %k0], %As : memref<16x1024xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bq : memref<256x1024xi4>, memref<64x128xi4, #gpu.address_space<workgroup>>
      tile.copy %S[%g, %n0], %Ss : memref<8x256xf16>, memref<1x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 128) {
        %q = memref.load %Bq[%i, %j] : memref<64x128xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        memref.store %w, %Wd[%i, %j] : memref<64x128xf16, #tile.fragment>
      }
      tile.gemm %Wd, %As, %T {transpose_b} : memref<64x128xf16, #tile.fragment>, memref<16x128xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
      tile.parallel (%i, %j) in (64, 16) {
        %t = memref.load %T[%i, %j] : memref<64x16xf32, #tile.fragment>
        %s16 = memref.load %Ss[%c0, %i] : memref<1x64xf16, #gpu.address_space<workgroup>>
        %s = arith.extf %s16 : f16 to f32
        %c = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        %u = math.fma %t, %s, %c : f32
        memref.store %u, %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
      }
    }
    tile.parallel (%i, %j) in (64, 16) {
      %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %Cs[%j, %i] : memref<16x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Cs, %C[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x256xf16>
  }
  return
}

// W4A16 GEMM 40x128x512 (tools/gen/dequant.py --registers): tiles of 16 activation rows, 64
// weight rows and 128 of K, 128 threads, 3 stages; B's signed 4-bit weights
// widened and scaled (one f16 scale a 128 weights of a row, scales stored [K/128, N]) into a
// register tile, wgmma's A; the product computed transposed and written out through shared memory.
func.func @dequant_gemm_w4a16_registers_ragged(%A: memref<40x512xf16>, %B: memref<128x512xi4>, %S: memref<4x128xf16>, %C: memref<40x128xf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 16 : index
  %cbn = arith.constant 64 : index
  %cbk = arith.constant 128 : index
  %cgroup = arith.constant 128 : index
  %csteps = arith.constant 4 : index
  %gn = arith.constant 2 : index
  %gm = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%gn, %gm) threads(128) (%bn, %bm) {
    %As = tile.alloc_shared : memref<16x128xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x128xi4, #gpu.address_space<workgroup>>
    %Ss = tile.alloc_shared : memref<1x64xf16, #gpu.address_space<workgroup>>
    %Wd = tile.alloc_fragment : memref<64x128xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.pipelined %k = %c0 to %csteps stages(3) {
      %k0 = arith.muli %k, %cbk : index
      %g = arith.divui %k0, %cgroup : index
      tile.copy %A[%m0, %k0], %As : memref<40x512xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0], %Bq : memref<128x512xi4>, memref<64x128xi4, #gpu.address_space<workgroup>>
      tile.copy %S[%g, %n0], %Ss : memref<4x128xf16>, memref<1x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 128) {
        %q = memref.load %Bq[%i, %j] : memref<64x128xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        %scale = memref.load %Ss[%c0, %i] : memref<1x64xf16, #gpu.address_space<workgroup>>
        %d = arith.mulf %w, %scale : f16
        memref.store %d, %Wd[%i, %j] : memref<64x128xf16, #tile.fragment>
      }
      tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x128xf16, #tile.fragment>, memref<16x128xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 16) {
      %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %Cs[%j, %i] : memref<16x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Cs, %C[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<40x128xf16>
  }
  return
}

// W4A16 GEMM 16x256x1024 (tools/gen/dequant.py --registers): tiles of 16 activation rows, 64
// weight rows and 64 of K, 128 threads, 3 stages; K split over the 2 blocks of a cluster;
// 2 K steps an iteration, each widened into a register tile of its own; B's signed 4-bit weights
// widened and scaled (one f16 scale a 128 weights of a row, scales stored [K/128, N]) into a
// register tile, wgmma's A; the product computed transposed and written out through shared memory.
func.func @dequant_gemm_w4a16_registers_unrolled(%A: memref<16x1024xf16>, %B: memref<256x1024xi4>, %S: memref<8x256xf16>, %C: memref<16x256xf16>) {
  %c0 = arith.constant 0 : index
  %cbm = arith.constant 16 : index
  %cbn = arith.constant 64 : index
  %cbk = arith.constant 64 : index
  %cgroup = arith.constant 128 : index
  %csteps = arith.constant 8 : index
  %gn = arith.constant 4 : index
  %gm = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %cunroll = arith.constant 2 : index
  tile.kernel grid(%gn, %gm) threads(128) (%bn, %bm) {
    %As0 = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Bq0 = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %Ss0 = tile.alloc_shared : memref<1x64xf16, #gpu.address_space<workgroup>>
    %Wd0 = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %As1 = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %Bq1 = tile.alloc_shared : memref<64x64xi4, #gpu.address_space<workgroup>>
    %Ss1 = tile.alloc_shared : memref<1x64xf16, #gpu.address_space<workgroup>>
    %Wd1 = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.pipelined %k = %c0 to %csteps stages(3) attributes {tile.schedule = {split = 2}} {
      %kfirst = arith.muli %k, %cunroll : index
      %kstep0 = arith.addi %kfirst, %c0 : index
      %k00 = arith.muli %kstep0, %cbk : index
      %g0 = arith.divui %k00, %cgroup : index
      tile.copy %A[%m0, %k00], %As0 : memref<16x1024xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k00], %Bq0 : memref<256x1024xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
      tile.copy %S[%g0, %n0], %Ss0 : memref<8x256xf16>, memref<1x64xf16, #gpu.address_space<workgroup>>
      %kstep1 = arith.addi %kfirst, %c1 : index
      %k01 = arith.muli %kstep1, %cbk : index
      %g1 = arith.divui %k01, %cgroup : index
      tile.copy %A[%m0, %k01], %As1 : memref<16x1024xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k01], %Bq1 : memref<256x1024xi4>, memref<64x64xi4, #gpu.address_space<workgroup>>
      tile.copy %S[%g1, %n0], %Ss1 : memref<8x256xf16>, memref<1x64xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 64) {
        %q = memref.load %Bq0[%i, %j] : memref<64x64xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        %scale = memref.load %Ss0[%c0, %i] : memref<1x64xf16, #gpu.address_space<workgroup>>
        %d = arith.mulf %w, %scale : f16
        memref.store %d, %Wd0[%i, %j] : memref<64x64xf16, #tile.fragment>
      }
      tile.gemm %Wd0, %As0, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
      tile.parallel (%i, %j) in (64, 64) {
        %q = memref.load %Bq1[%i, %j] : memref<64x64xi4, #gpu.address_space<workgroup>>
        %w = arith.sitofp %q : i4 to f16
        %scale = memref.load %Ss1[%c0, %i] : memref<1x64xf16, #gpu.address_space<workgroup>>
        %d = arith.mulf %w, %scale : f16
        memref.store %d, %Wd1[%i, %j] : memref<64x64xf16, #tile.fragment>
      }
      tile.gemm %Wd1, %As1, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 16) {
      %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %Cs[%j, %i] : memref<16x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Cs, %C[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x256xf16>
  }
  return
}
