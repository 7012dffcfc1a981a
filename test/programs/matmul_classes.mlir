// tile.matmul in the forms a frontend hands over: run-time sizes (each size class its own kernel
// under an scf.if, the decode rows' split twin among them on sm_90a), a linear layer's weight as
// N x K with rows known at run time, static sizes that no tile divides, and decode rows.
func.func @matmul_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  tile.matmul %A, %B, %C : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>
  return
}

func.func @matmul_linear(%X: memref<?x1056xbf16>, %W: memref<200x1056xbf16>, %Y: memref<?x200xf32>) {
  tile.matmul %X, %W, %Y {transpose_b} : memref<?x1056xbf16>, memref<200x1056xbf16>, memref<?x200xf32>
  return
}

func.func @matmul_static(%A: memref<150x72xf16>, %B: memref<72x130xf16>, %C: memref<150x130xbf16>) {
  tile.matmul %A, %B, %C : memref<150x72xf16>, memref<72x130xf16>, memref<150x130xbf16>
  return
}

// Decode rows and a long K: on sm_90a the narrow tiling, split across a cluster where the run-time
// N leaves few tiles (C in f16: the split sums K's halves in another order than the program).
func.func @matmul_decode(%A: memref<40x1100xf16>, %B: memref<1100x?xf16>, %C: memref<40x?xf16>) {
  tile.matmul %A, %B, %C : memref<40x1100xf16>, memref<1100x?xf16>, memref<40x?xf16>
  return
}

// Batches: attention-style scores (each batch its own B, as N x K), and a weight shared by every
// batch of a 3-D activation, the batch count known at run time.
func.func @matmul_batched_scores(%Q: memref<3x?x64xf16>, %K: memref<3x?x64xf16>, %S: memref<3x?x?xf32>) {
  tile.matmul %Q, %K, %S {transpose_b} : memref<3x?x64xf16>, memref<3x?x64xf16>, memref<3x?x?xf32>
  return
}

func.func @matmul_batched_shared_weight(%X: memref<?x20x96xbf16>, %W: memref<96x130xbf16>, %Y: memref<?x20x130xbf16>) {
  tile.matmul %X, %W, %Y : memref<?x20x96xbf16>, memref<96x130xbf16>, memref<?x20x130xbf16>
  return
}
