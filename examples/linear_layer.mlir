// A linear layer as a frontend hands it over: Y = X W^T for a batch of tokens whose count is known
// only at run time (X: tokens x 4096, W: 11008 x 4096 as PyTorch stores a weight, Y: tokens x
// 11008; f16). The program leaves the kernels to the compiler: `tile-expand-matmuls` writes one
// GEMM kernel per size class (decode rows, few output tiles, many in two tilings by how well their
// waves fill the chip), each tiled for the target, and the launcher runs the one whose condition
// holds for the tokens it is given.
func.func @linear_layer(%X: memref<?x4096xf16>, %W: memref<11008x4096xf16>, %Y: memref<?x11008xf16>) {
  tile.matmul %X, %W, %Y {transpose_b} : memref<?x4096xf16>, memref<11008x4096xf16>, memref<?x11008xf16>
  return
}
