// A generated GEMM (seed 2026, program 170), once built by the deleted sm_90a GEMM template, now by
// the per-op rules (wgmma): bf16, transpose_b, a pipelined K loop of 4 tiles over ragged M (100 rows
// on 64-row tiles), a clamp epilogue. test/tests/gpu_cases.rs writes its sm_90a case and replays it
// from the manifest.
func.func @generated(%A: memref<100x64xbf16>, %B: memref<16x64xbf16>, %Y: memref<100x16xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %k0 = arith.constant 0.67 : f32
  %k1 = arith.constant -1.11 : f32
  %k2 = arith.constant -0.02 : f32
  %k3 = arith.constant 0.45 : f32
  %init = arith.constant -1.45 : f32
  %cm = arith.constant 64 : index
  %cn = arith.constant 16 : index
  %ck = arith.constant 16 : index
  %cn2 = arith.constant 8 : index
  %kt = arith.constant 4 : index
  %mlast = arith.constant 99 : index
  %nlast = arith.constant 15 : index
  %gx = arith.constant 1 : index
  %gy = arith.constant 2 : index
  %gz = arith.constant 1 : index
  %heads = arith.constant 1 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {
    %m0 = arith.muli %by, %cm : index
    %n0 = arith.muli %bx, %cn : index
    %o0 = arith.muli %bx, %cn2 : index
    %As = tile.alloc_shared : memref<64x16xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %C = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    tile.fill %C, %init : memref<64x16xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %kt stages(3) {
      %kk = arith.muli %k, %ck : index
      tile.copy %A[%m0, %kk], %As : memref<100x64xbf16>, memref<64x16xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %kk], %Bs : memref<16x64xbf16>, memref<16x16xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %C {transpose_b} : memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (64, 16) {
      %v = memref.load %C[%i, %j] : memref<64x16xf32, #tile.fragment>
      %c0_0a = math.absf %v : f32
      %c0_0b = arith.addf %c0_0a, %one : f32
      %c0_0 = math.sqrt %c0_0b : f32
      %c0_1t = math.tanh %c0_0 : f32
      %c0_1 = math.exp %c0_1t : f32
      %c0_2 = arith.addf %c0_1, %k2 : f32
      %c0_3t = math.tanh %c0_2 : f32
      %c0_3 = math.exp %c0_3t : f32
      memref.store %c0_3, %C[%i, %j] : memref<64x16xf32, #tile.fragment>
    }
    tile.copy %C, %Y[%m0, %n0] : memref<64x16xf32, #tile.fragment>, memref<100x16xf32>
  }
  return
}

