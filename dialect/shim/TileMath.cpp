//===- TileMath.cpp - upstream math expansions and approximations ---------===//
//
// MLIR registers `math-expand-ops` as a pass but keeps its polynomial approximations (erf, atan,
// cbrt, expm1, ...) behind C++ pattern populators only; this file reaches both for the Rust passes
// that lower `math` ops to code needing no vendor math library.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

/// Returns the comma-separated entries of `list`, without empty ones.
static SmallVector<StringRef> splitList(MlirStringRef list) {
  SmallVector<StringRef> entries;
  for (StringRef entry : llvm::split(unwrap(list), ','))
    if (!entry.trim().empty())
      entries.push_back(entry.trim());
  return entries;
}

extern "C" bool tileShimRewriteMath(MlirOperation root, MlirStringRef seeds, MlirStringRef expand,
                                    MlirStringRef approximate) {
  Operation *op = unwrap(root);
  MLIRContext *context = op->getContext();
  context->getOrLoadDialect<math::MathDialect>();
  llvm::StringSet<> seedNames;
  for (StringRef name : splitList(seeds))
    seedNames.insert(name);
  SmallVector<Operation *> worklist;
  op->walk([&](Operation *nested) {
    if (seedNames.contains(nested->getName().getStringRef()))
      worklist.push_back(nested);
  });
  if (worklist.empty())
    return true;

  SmallVector<StringRef> mnemonics = splitList(expand);
  SmallVector<StringRef> approximated = splitList(approximate);
  RewritePatternSet patterns(context);
  if (!mnemonics.empty())
    math::populateExpansionPatterns(patterns, mnemonics);
  if (!approximated.empty())
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return llvm::is_contained(approximated, name); });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  return succeeded(applyOpPatternsGreedily(worklist, std::move(patterns), config));
}
