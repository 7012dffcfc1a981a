//===- TileSerialize.cpp - gpu.modules to AMDGCN assembly, one target machine a thread -===//
//
// Upstream's `gpu-module-to-binary` makes an LLVM TargetMachine for every `gpu.module` it serializes.
// For AMDGCN each new machine builds its subtarget again and fills the register-alias cache of
// every physical register again (the resource-usage analysis asks whether each register is used):
// a cost paid per kernel that does not depend on the kernel, a few percent of compiling many
// kernels. Here the serialization is upstream's ROCDL serializer (its hooks: control variables,
// device libraries, the code-object-version flag; the O3 pipeline of `makeOptimizingTransformer`;
// the codegen of `translateModuleToISA`), with the target machine made once per thread and
// (triple, chip, features) and kept: MLIR's worker threads live as long as the process.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

using namespace mlir;

namespace {

/// This thread's target machine for (triple, chip, features), made on first use; null when the
/// target is not built into LLVM.
llvm::TargetMachine *threadMachine(StringRef triple, StringRef chip, StringRef features) {
  thread_local llvm::StringMap<std::unique_ptr<llvm::TargetMachine>> machines;
  std::unique_ptr<llvm::TargetMachine> &machine = machines[(triple + "\n" + chip + "\n" + features).str()];
  if (!machine) {
    std::string error;
    llvm::Triple parsed(triple);
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(parsed, error);
    if (!target)
      return nullptr;
    machine.reset(target->createTargetMachine(parsed, chip, features, {}, {}));
  }
  return machine.get();
}

/// Upstream's ROCDL serializer to assembly, on this thread's target machine. The hooks below are
/// the three places `ModuleToObject` reaches for its own machine; each does what upstream's does.
class AssemblySerializer : public ROCDL::SerializeGPUModuleBase {
public:
  AssemblySerializer(Operation &module, ROCDL::ROCDLTargetAttr target, const gpu::TargetOptions &options)
      : SerializeGPUModuleBase(module, target, options) {}

protected:
  llvm::TargetMachine *machine() { return threadMachine(triple, chip, features); }

  void setDataLayoutAndTriple(llvm::Module &module) override {
    if (llvm::TargetMachine *target = machine()) {
      module.setDataLayout(target->createDataLayout());
      module.setTargetTriple(target->getTargetTriple());
    }
  }

  LogicalResult optimizeModule(llvm::Module &module, int level) override {
    if (level < 0 || level > 3)
      return getOperation().emitError() << "Invalid optimization level: " << level << ".";
    llvm::TargetMachine *target = machine();
    if (!target)
      return getOperation().emitError() << "Target Machine unavailable for triple " << triple
                                        << ", can't optimize with LLVM\n";
    // Upstream sets the level on its machine here, which its code generation then runs at too.
    target->setOptLevel(static_cast<llvm::CodeGenOptLevel>(level));
    if (llvm::Error error = makeOptimizingTransformer(level, /*sizeLevel=*/0, target)(&module)) {
      InFlightDiagnostic diagnostic = getOperation().emitError();
      llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) {
        diagnostic << "Could not optimize LLVM IR: " << info.message() << "\n";
      });
      return diagnostic;
    }
    return success();
  }

  FailureOr<SmallVector<char, 0>> moduleToObject(llvm::Module &module) override {
    llvm::TargetMachine *target = machine();
    if (!target)
      return getOperation().emitError() << "Target Machine unavailable for triple " << triple;
    FailureOr<SmallString<0>> assembly =
        translateModuleToISA(module, *target, [&] { return getOperation().emitError(); });
    if (failed(assembly))
      return failure();
    return SmallVector<char, 0>(assembly->begin(), assembly->end());
  }
};

/// Serializes `module` for each of its targets into a `gpu.binary` of the same name that replaces
/// it, as `gpu-module-to-binary{format=isa}` does: `#rocdl.target`s through [`AssemblySerializer`],
/// any other target through its own interface.
LogicalResult serialize(gpu::GPUModuleOp module) {
  gpu::TargetOptions options({}, {}, {}, {}, gpu::CompilationTarget::Assembly);
  SmallVector<Attribute> objects;
  for (Attribute attribute : module.getTargetsAttr()) {
    auto target = dyn_cast<gpu::TargetAttrInterface>(attribute);
    if (!target)
      return module.emitError("Target attribute doesn't implements `TargetAttrInterface`.");
    std::optional<SmallVector<char, 0>> serialized;
    if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(attribute)) {
      ROCDL::SerializeGPUModuleBase::init();
      AssemblySerializer serializer(*module, rocdl, options);
      serialized = serializer.run();
    } else {
      serialized = target.serializeToObject(module, options);
    }
    if (!serialized)
      return module.emitError("An error happened while serializing the module.");
    Attribute object = target.createObject(module, *serialized, options);
    if (!object)
      return module.emitError("An error happened while creating the object.");
    objects.push_back(object);
  }
  OpBuilder builder(module->getContext());
  builder.setInsertionPointAfter(module);
  gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), module.getOffloadingHandlerAttr(),
                        builder.getArrayAttr(objects));
  module->erase();
  return success();
}

} // namespace

extern "C" bool tileShimSerializeGpuModuleToAssembly(MlirOperation op) {
  auto module = dyn_cast<gpu::GPUModuleOp>(unwrap(op));
  if (!module)
    return false;
  if (!module.getTargetsAttr()) {
    module.emitError("the module has no target attributes");
    return false;
  }
  return succeeded(serialize(module));
}

extern "C" void tileShimReplaceGpuModuleByBinary(MlirOperation op, MlirAttribute objects) {
  auto module = cast<gpu::GPUModuleOp>(unwrap(op));
  OpBuilder builder(module->getContext());
  builder.setInsertionPointAfter(module);
  gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), module.getOffloadingHandlerAttr(),
                        cast<ArrayAttr>(unwrap(objects)));
  module->erase();
}

extern "C" bool tileShimNvvmTarget(MlirAttribute attribute, MlirStringRef *triple, MlirStringRef *chip,
                                   MlirStringRef *features, int *optLevel) {
  auto target = dyn_cast<NVVM::NVVMTargetAttr>(unwrap(attribute));
  if (!target)
    return false;
  *triple = wrap(target.getTriple());
  *chip = wrap(target.getChip());
  *features = wrap(target.getFeatures());
  *optLevel = target.getO();
  return true;
}

extern "C" bool tileShimSerializeGpuModulesToAssembly(MlirOperation op) {
  Operation *root = unwrap(op);
  SmallVector<gpu::GPUModuleOp> modules;
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (auto module : block.getOps<gpu::GPUModuleOp>())
        modules.push_back(module);
  // As upstream's pass: the first module that fails ends it.
  for (gpu::GPUModuleOp module : modules) {
    if (!module.getTargetsAttr()) {
      module.emitError("the module has no target attributes");
      return false;
    }
    if (failed(serialize(module)))
      return false;
  }
  return true;
}
