//===- TileCAPI.cpp - C functions the Rust crates call --------------------===//

#include "TileDialect.h"
#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, mlir::tile::TileDialect)

extern "C" MlirDialectHandle tileShimGetDialectHandle(void) {
  return mlirGetDialectHandle__tile__();
}

extern "C" void tileShimInsertDialect(void *registry) {
  static_cast<DialectRegistry *>(registry)->insert<tile::TileDialect>();
}

extern "C" int32_t tileShimMemoryLevel(MlirType type) {
  auto memref = llvm::dyn_cast<MemRefType>(unwrap(type));
  if (!memref)
    return -2;
  Attribute space = memref.getMemorySpace();
  if (!space)
    return 0;
  if (llvm::isa<tile::FragmentSpaceAttr>(space))
    return 2;
  if (auto gpuSpace = llvm::dyn_cast<gpu::AddressSpaceAttr>(space)) {
    if (gpuSpace.getValue() == gpu::AddressSpace::Global)
      return 0;
    if (gpuSpace.getValue() == gpu::AddressSpace::Workgroup)
      return 1;
  }
  return -1;
}

extern "C" MlirAttribute tileShimFragmentSpaceGet(MlirContext context) {
  return wrap(tile::FragmentSpaceAttr::get(unwrap(context)));
}

extern "C" MlirAttribute tileShimWorkgroupSpaceGet(MlirContext context) {
  unwrap(context)->getOrLoadDialect<gpu::GPUDialect>();
  return wrap(gpu::AddressSpaceAttr::get(unwrap(context), gpu::AddressSpace::Workgroup));
}

extern "C" MlirAttribute tileShimReductionKindGet(MlirContext context, int32_t kind) {
  std::optional<tile::ReductionKind> value = tile::symbolizeReductionKind(kind);
  if (!value)
    return MlirAttribute{nullptr};
  return wrap(tile::ReductionKindAttr::get(unwrap(context), *value));
}

extern "C" int32_t tileShimReductionKindValue(MlirAttribute attr) {
  if (auto kind = llvm::dyn_cast_or_null<tile::ReductionKindAttr>(unwrap(attr)))
    return static_cast<int32_t>(kind.getValue());
  return -1;
}

namespace {
/// The options every target pipeline takes.
struct ChipOptions : public PassPipelineOptions<ChipOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("The chip to compile for (default: the pipeline's first)"),
                           llvm::cl::init("")};
};
} // namespace

extern "C" void tileShimRegisterPipeline(const char *name, const char *description,
                                         TilePipelineBuilder build, int32_t id) {
  PassPipelineRegistration<ChipOptions>(
      name, description, [build, id](OpPassManager &pm, const ChipOptions &options) {
        std::string chip = options.chip;
        build(id, wrap(&pm), MlirStringRef{chip.data(), chip.size()});
      });
}

extern "C" void tileShimRegisterPass(TilePassFactory factory, int32_t id) {
  registerPass([factory, id]() { return std::unique_ptr<Pass>(unwrap(factory(id))); });
}

extern "C" void tileShimEmitWarning(MlirLocation loc, const char *message) {
  mlir::emitWarning(unwrap(loc)) << message;
}

extern "C" bool tileShimSerializeSpirv(MlirOperation op, TileWordSink sink, void *userData) {
  auto module = llvm::dyn_cast<spirv::ModuleOp>(unwrap(op));
  if (!module)
    return false;
  SmallVector<uint32_t> binary;
  if (failed(spirv::serialize(module, binary)))
    return false;
  sink(userData, binary.data(), binary.size());
  return true;
}
