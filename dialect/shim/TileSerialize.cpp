//===- TileSerialize.cpp - what the LLVM stage needs of MLIR's C++ --------------------------===//
//
// The LLVM stage of GPU kernels is Rust over inkwell (`passes/src/llvm_stage.rs`). What it cannot
// reach through MLIR's C API is here: the fields of the `#nvvm.target` and `#rocdl.target`
// attributes, the `gpu.binary` that replaces a serialized `gpu.module` (its builder fills the
// default offloading handler), and upstream's serialization for any other target attribute.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

extern "C" bool tileShimSerializeGpuModuleToAssembly(MlirOperation op) {
  auto module = dyn_cast<gpu::GPUModuleOp>(unwrap(op));
  if (!module)
    return false;
  if (!module.getTargetsAttr()) {
    module.emitError("the module has no target attributes");
    return false;
  }
  gpu::TargetOptions options({}, {}, {}, {}, gpu::CompilationTarget::Assembly);
  SmallVector<Attribute> objects;
  for (Attribute attribute : module.getTargetsAttr()) {
    auto target = dyn_cast<gpu::TargetAttrInterface>(attribute);
    if (!target) {
      module.emitError("Target attribute doesn't implements `TargetAttrInterface`.");
      return false;
    }
    std::optional<SmallVector<char, 0>> serialized = target.serializeToObject(module, options);
    if (!serialized) {
      module.emitError("An error happened while serializing the module.");
      return false;
    }
    Attribute object = target.createObject(module, *serialized, options);
    if (!object) {
      module.emitError("An error happened while creating the object.");
      return false;
    }
    objects.push_back(object);
  }
  MlirAttribute array = wrap(ArrayAttr::get(module->getContext(), objects));
  tileShimReplaceGpuModuleByBinary(op, array);
  return true;
}

extern "C" void tileShimReplaceGpuModuleByBinary(MlirOperation op, MlirAttribute objects) {
  auto module = cast<gpu::GPUModuleOp>(unwrap(op));
  OpBuilder builder(module->getContext());
  builder.setInsertionPointAfter(module);
  gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), module.getOffloadingHandlerAttr(),
                        cast<ArrayAttr>(unwrap(objects)));
  module->erase();
}

extern "C" bool tileShimRocdlTarget(MlirAttribute attribute, MlirStringRef *triple, MlirStringRef *chip,
                                    MlirStringRef *features, int *optLevel, MlirStringRef *abi) {
  auto target = dyn_cast<ROCDL::ROCDLTargetAttr>(unwrap(attribute));
  if (!target)
    return false;
  *triple = wrap(target.getTriple());
  *chip = wrap(target.getChip());
  *features = wrap(target.getFeatures());
  *optLevel = target.getO();
  *abi = wrap(target.getAbi());
  return true;
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
