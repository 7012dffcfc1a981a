// tile-split-k keeps a loop whole where the split its program asks for cannot be made, and warns at
// the loop, saying why; a request that contradicts itself is refused there.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-split-k -verify-diagnostics

module attributes {tile.target = "sm_80"} {
  func.func @no_clusters(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 4 in its tile.schedule, but sm_90a splits a loop across the blocks of a thread block cluster, which sm_80 has not (split K in the program to split it here: blocks each adding their part with an atomic copy, as test/programs/split_k_atomic.mlir does); the loop runs whole on each block}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 4}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  func.func @too_many(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      // expected-error @+1 {{'tile.pipelined' op asks for split = 16 in its tile.schedule, but a cluster holds 2 to 8 blocks on sm_90a}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 16}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  func.func @persistent_too(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      // expected-error @+1 {{'tile.pipelined' op asks for split = 2 in its tile.schedule, but a split kernel is not persistent: drop one of the entries}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 2, persistent = true}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  func.func @bias_start(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %half = arith.constant 0.5 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %half : memref<64x128xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 2 in its tile.schedule, but 'tile.fill' before the loop sets an accumulator to something other than zero; the loop runs whole on each block}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  func.func @scaled_in_loop(%A: memref<64x4096xf16>, %B: memref<4096x128xf16>, %C: memref<64x128xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %half = arith.constant 0.5 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
      tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 2 in its tile.schedule, but 'tile.parallel' in the loop touches a fragment (only the gemms' accumulators may be, by the gemms, sums a tile.parallel adds to element by element, and register tiles the step writes whole first); the loop runs whole on each block}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, %c0], %Bs : memref<4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
        tile.parallel (%i, %j) in (64, 128) {
          %v = memref.load %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
          %s = arith.mulf %v, %half : f32
          memref.store %s, %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
        }
      }
      tile.copy %Cf, %C[%c0, %c0] : memref<64x128xf32, #tile.fragment>, memref<64x128xf16>
    }
    return
  }
}

// -----

// A register A operand read before the step writes it (here: its second half only) carries values
// from one step to the next: the loop stays whole.
module attributes {tile.target = "sm_90a"} {
  func.func @register_tile_carried(%A: memref<64x4096xf16>, %W: memref<64x4096xi8>, %C: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x64xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 2 in its tile.schedule, but 'tile.parallel' in the loop touches a fragment}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Wq : memref<64x4096xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
        tile.parallel (%i, %j) in (64, 32) {
          %jj = arith.addi %j, %c32 : index
          %q = memref.load %Wq[%i, %jj] : memref<64x64xi8, #gpu.address_space<workgroup>>
          %w = arith.sitofp %q : i8 to f16
          memref.store %w, %Wd[%i, %jj] : memref<64x64xf16, #tile.fragment>
        }
        tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
      tile.copy %Ct, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf16>
    }
    return
  }
}

// -----

// A register tile the step stores under a condition keeps the elements it skips from the step
// before: the loop stays whole.
module attributes {tile.target = "sm_90a"} {
  func.func @register_tile_stored_conditionally(%A: memref<64x4096xf16>, %W: memref<64x4096xi8>, %C: memref<64x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %Wq = tile.alloc_shared : memref<64x64xi8, #gpu.address_space<workgroup>>
      %Wd = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x64xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 2 in its tile.schedule, but 'tile.parallel' in the loop touches a fragment}}
      tile.pipelined %kt = %c0 to %c64 stages(3) attributes {tile.schedule = {split = 2}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<64x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Wq : memref<64x4096xi8>, memref<64x64xi8, #gpu.address_space<workgroup>>
        tile.parallel (%i, %j) in (64, 64) {
          %q = memref.load %Wq[%i, %j] : memref<64x64xi8, #gpu.address_space<workgroup>>
          %w = arith.sitofp %q : i8 to f16
          %low = arith.cmpi ult, %j, %c32 : index
          scf.if %low {
            memref.store %w, %Wd[%i, %j] : memref<64x64xf16, #tile.fragment>
          }
        }
        tile.gemm %Wd, %As, %Ct {transpose_b} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
      tile.copy %Ct, %C[%c0, %c0] : memref<64x64xf32, #tile.fragment>, memref<64x64xf16>
    }
    return
  }
}

// -----

// A step's product scaled into a sum, but the product is not set anew each step (no fill before
// its gemm): each addition then depends on every earlier step, and the loop stays whole.
module attributes {tile.target = "sm_90a"} {
  func.func @scaled_product_carried(%A: memref<16x8192xf16>, %W: memref<64x8192xf16>, %S: memref<128xf32>, %C: memref<16x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    tile.kernel grid(%c1, %c1) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
      %Ws = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      %T = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
      %Ct = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
      tile.fill %T, %zero : memref<64x16xf32, #tile.fragment>
      tile.fill %Ct, %zero : memref<64x16xf32, #tile.fragment>
      // expected-warning @+1 {{'tile.pipelined' op asks for split = 4 in its tile.schedule, but 'tile.parallel' in the loop touches a fragment}}
      tile.pipelined %kt = %c0 to %c128 stages(4) attributes {tile.schedule = {split = 4}} {
        %k0 = arith.muli %kt, %c64 : index
        tile.copy %A[%c0, %k0], %As : memref<16x8192xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
        tile.copy %W[%c0, %k0], %Ws : memref<64x8192xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %Ws, %As, %T {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
        %s = memref.load %S[%kt] : memref<128xf32>
        tile.parallel (%i, %j) in (64, 16) {
          %t = memref.load %T[%i, %j] : memref<64x16xf32, #tile.fragment>
          %c = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
          %u = math.fma %t, %s, %c : f32
          memref.store %u, %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        }
      }
      tile.parallel (%i, %j) in (64, 16) {
        %v = memref.load %Ct[%i, %j] : memref<64x16xf32, #tile.fragment>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %C[%j, %i] : memref<16x64xf16>
      }
    }
    return
  }
}

