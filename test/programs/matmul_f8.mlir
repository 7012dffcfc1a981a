// tile.matmul on 8-bit floats (an fp8 linear layer: B as N x K, as wgmma reads 8-bit operands):
// f8E4M3FN into bf16 with the rows known at run time, and f8E5M2 into f32 with a K whose rows are
// not a multiple of 16 bytes (copied element by element, with a warning, on sm_90a). sm_80 has no
// matrix instruction for 8-bit floats and refuses them at the matmul.
func.func @matmul_f8_linear(%X: memref<?x512xf8E4M3FN>, %W: memref<384x512xf8E4M3FN>, %Y: memref<?x384xbf16>) {
  tile.matmul %X, %W, %Y {transpose_b} : memref<?x512xf8E4M3FN>, memref<384x512xf8E4M3FN>, memref<?x384xbf16>
  return
}

func.func @matmul_f8_ragged_k(%A: memref<200x1100xf8E5M2>, %B: memref<96x1100xf8E5M2>, %C: memref<200x96xf32>) {
  tile.matmul %A, %B, %C {transpose_b} : memref<200x1100xf8E5M2>, memref<96x1100xf8E5M2>, memref<200x96xf32>
  return
}
