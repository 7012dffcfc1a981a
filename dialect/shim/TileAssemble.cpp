//===- TileAssemble.cpp - AMDGCN assembly to an ELF object, in process ----===//
//
// `tile-compile` makes each gfx942 kernel's HSA code object from its assembly: assembled here by
// LLVM's MC layer (upstream's `mlir::ROCDL::assembleIsa`, what `gpu-module-to-binary{format=bin}`
// runs), then linked by ld.lld. Running llvm-mc as a process cost a load of libLLVM per kernel.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include <mutex>
#include <string>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmParser();
}

using namespace mlir;

extern "C" bool tileShimAssembleAmdgcn(MlirStringRef assembly, MlirStringRef chip, TileByteSink sink,
                                       void *userData) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
  });
  // A context of its own for the error (the callers run this on several threads at once).
  MLIRContext context(MLIRContext::Threading::DISABLED);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message += diagnostic.str();
    return success();
  });
  FailureOr<SmallVector<char, 0>> object =
      ROCDL::assembleIsa(unwrap(assembly), "amdgcn-amd-amdhsa", unwrap(chip), "",
                         [&] { return emitError(UnknownLoc::get(&context)); });
  if (failed(object)) {
    if (message.empty())
      message = "the assembler failed";
    sink(userData, message.data(), message.size());
    return false;
  }
  sink(userData, object->data(), object->size());
  return true;
}
