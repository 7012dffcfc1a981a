//===- TileOptMain.cpp - the tile-opt driver ------------------------------===//
//
// tile-opt is stock mlir-opt plus the tile dialect and passes: every upstream dialect, extension,
// translation and pass is registered so that all of mlir-opt's flags and pipelines work unchanged.
// The one difference: the input is read here and shown to a Rust check before MLIR parses it, so
// that text MLIR's parser crashes on (see dialect/src/parser_guard.rs) ends in a located error.
//
//===----------------------------------------------------------------------===//

#include "TileDialect.h"
#include "TileShim.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

static void appendMessage(void *userData, MlirStringRef message) {
  static_cast<std::string *>(userData)->append(message.data, message.length);
}

extern "C" int tileShimOptMain(int argc, char **argv, TileSourceCheck check) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tile::TileDialect>();
  mlir::registerAllPasses();
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, "tile optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // These read no input: upstream's own entry prints them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  size_t offset = 0;
  std::string message;
  if (!check({file->getBufferStart(), file->getBufferSize()}, &offset, appendMessage, &message)) {
    llvm::SourceMgr sources;
    const char *at = file->getBufferStart() + std::min(offset, file->getBufferSize());
    sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sources.PrintMessage(llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error, message);
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
