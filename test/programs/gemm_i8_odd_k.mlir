// An i8 GEMM whose K tile (65) has no small divisor, on 193x193 accumulator tiles: a fuzzer's
// mutant of gemm_i8.mlir (seed 37373, case 3456). The plain strategy ran its K loop in chunks of
// 1, and each invocation's 146 accumulator slots x 65 x 8 trips ran past lavapipe's cap of 65535
// loop iterations, which silently leaves the loops: wrong sums on Vulkan. K now runs in chunks of
// 8 and a last chunk of K mod 8.
func.func @gemm_i8_odd_k(%A: memref<512x512xi8>, %B: memref<512x512xi8>, %C: memref<512x512xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c65 = arith.constant 65 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1, %c1) threads(256) (%bx, %by) {
    %As = tile.alloc_shared : memref<193x65xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<193x65xi8, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<193x193xi32, #tile.fragment>
    tile.fill %Cf, %zero : memref<193x193xi32, #tile.fragment>
    scf.for %k = %c0 to %c8 step %c1 {
      %k0 = arith.muli %k, %c65 : index
      tile.copy %A[%c0, %k0], %As : memref<512x512xi8>, memref<193x65xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %k0], %Bs : memref<512x512xi8>, memref<193x65xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<193x65xi8, #gpu.address_space<workgroup>>, memref<193x65xi8, #gpu.address_space<workgroup>>, memref<193x193xi32, #tile.fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : memref<193x193xi32, #tile.fragment>, memref<512x512xi32>
  }
  return
}
