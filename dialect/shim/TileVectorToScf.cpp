//===- TileVectorToScf.cpp - convert-vector-to-scf where it has work ------===//
//
// Upstream's `convert-vector-to-scf` applies its two pattern sets (transfer permutation maps, then
// transfers and `vector.print` to loops) with the greedy driver to the whole module, which also
// tries to fold every op on the way: 6% of an sm_90a GEMM kernel's compilation, for kernels that
// hold no op those patterns rewrite (tile's lowerings emit `vector.load`/`vector.store`, never
// transfers). This runs the same pattern sets in the same order on the same op, only when the op
// holds a `vector.transfer_read`, `vector.transfer_write` or `vector.print` (another frontend's
// kernel may): otherwise it leaves the IR as it is.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

extern "C" void tileShimVectorTransfersToScf(MlirOperation root) {
  Operation *op = unwrap(root);
  WalkResult found = op->walk([](Operation *nested) {
    return isa<vector::TransferReadOp, vector::TransferWriteOp, vector::PrintOp>(nested)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (!found.wasInterrupted())
    return;
  MLIRContext *context = op->getContext();
  RewritePatternSet permutations(context);
  vector::populateVectorTransferPermutationMapLoweringPatterns(permutations);
  (void)applyPatternsGreedily(op, std::move(permutations));
  RewritePatternSet transfers(context);
  populateVectorToSCFConversionPatterns(transfers, VectorTransferToSCFOptions());
  (void)applyPatternsGreedily(op, std::move(transfers));
}
