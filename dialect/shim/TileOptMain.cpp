//===- TileOptMain.cpp - the tile-opt driver ------------------------------===//
//
// tile-opt is stock mlir-opt plus the tile dialect and passes: every upstream dialect, extension,
// translation and pass is registered so that all of mlir-opt's flags and pipelines work unchanged.
//
//===----------------------------------------------------------------------===//

#include "TileDialect.h"
#include "TileShim.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

extern "C" int tileShimOptMain(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tile::TileDialect>();
  mlir::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
