//===- TileCAPI.cpp - C functions the Rust crates call --------------------===//

#include "TileDialect.h"
#include "TileShim.h"

#include "mlir/CAPI/AffineMap.h"
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

extern "C" bool tileShimIsPrivateMemory(MlirType type) {
  auto memref = llvm::dyn_cast<MemRefType>(unwrap(type));
  if (!memref || !memref.getMemorySpace())
    return false;
  Attribute space = memref.getMemorySpace();
  if (auto gpuSpace = llvm::dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Private;
  if (auto storage = llvm::dyn_cast<spirv::StorageClassAttr>(space))
    return storage.getValue() == spirv::StorageClass::Function;
  return false;
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

extern "C" MlirAttribute tileShimFragmentLayoutGet(MlirContext context, intptr_t rank,
                                                   const int64_t *shape, int64_t threads,
                                                   int64_t replicate, MlirAffineMap thread,
                                                   MlirAffineMap slot, MlirStringRef origin) {
  MLIRContext *ctx = unwrap(context);
  return wrap(tile::FragmentLayoutAttr::getChecked(
      [ctx]() { return mlir::emitError(UnknownLoc::get(ctx)); }, ctx,
      ArrayRef<int64_t>(shape, rank), threads, replicate, unwrap(thread), unwrap(slot),
      unwrap(origin)));
}

static tile::FragmentLayoutAttr fragmentLayout(MlirAttribute attr) {
  return llvm::cast<tile::FragmentLayoutAttr>(unwrap(attr));
}

extern "C" bool tileShimIsFragmentLayout(MlirAttribute attr) {
  return llvm::isa_and_nonnull<tile::FragmentLayoutAttr>(unwrap(attr));
}
extern "C" intptr_t tileShimFragmentLayoutRank(MlirAttribute attr) {
  return fragmentLayout(attr).getShape().size();
}
extern "C" int64_t tileShimFragmentLayoutSize(MlirAttribute attr, intptr_t dim) {
  return fragmentLayout(attr).getShape()[dim];
}
extern "C" int64_t tileShimFragmentLayoutThreads(MlirAttribute attr) {
  return fragmentLayout(attr).getThreads();
}
extern "C" int64_t tileShimFragmentLayoutReplicate(MlirAttribute attr) {
  return fragmentLayout(attr).getReplicate();
}
extern "C" MlirAffineMap tileShimFragmentLayoutThreadMap(MlirAttribute attr) {
  return wrap(fragmentLayout(attr).getThread());
}
extern "C" MlirAffineMap tileShimFragmentLayoutSlotMap(MlirAttribute attr) {
  return wrap(fragmentLayout(attr).getSlot());
}
extern "C" MlirStringRef tileShimFragmentLayoutOrigin(MlirAttribute attr) {
  return wrap(fragmentLayout(attr).getOrigin());
}

extern "C" MlirAttribute tileShimSharedLayoutGet(MlirContext context, int64_t swizzle,
                                                 int64_t padding, bool transposed,
                                                 intptr_t boxRank, const int64_t *box,
                                                 int64_t boxes, int64_t buffers) {
  MLIRContext *ctx = unwrap(context);
  return wrap(tile::SharedLayoutAttr::getChecked(
      [ctx]() { return mlir::emitError(UnknownLoc::get(ctx)); }, ctx, swizzle, padding,
      transposed, ArrayRef<int64_t>(box, boxRank), boxes, buffers));
}

extern "C" bool tileShimIsSharedLayout(MlirAttribute attr) {
  return llvm::isa_and_nonnull<tile::SharedLayoutAttr>(unwrap(attr));
}

extern "C" int64_t tileShimSharedLayoutField(MlirAttribute attr, intptr_t field) {
  auto layout = llvm::cast<tile::SharedLayoutAttr>(unwrap(attr));
  switch (field) {
  case 0: return layout.getSwizzle();
  case 1: return layout.getPadding();
  case 2: return layout.getTransposed();
  case 3: return layout.getBoxes();
  case 4: return layout.getBuffers();
  case 5: return layout.getBox().size();
  default: return layout.getBox()[field - 6];
  }
}

namespace {
/// The options every target pipeline takes.
struct ChipOptions : public PassPipelineOptions<ChipOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("The chip to compile for (default: the pipeline's first)"),
                           llvm::cl::init("")};
  Option<bool> serialize{*this, "serialize",
                         llvm::cl::desc("Turn the kernel modules into gpu.binary code (false: leave them in the LLVM "
                                        "dialect, as the code generator would read them)"),
                         llvm::cl::init(true)};
};
} // namespace

extern "C" void tileShimRegisterPipeline(const char *name, const char *description,
                                         TilePipelineBuilder build, int32_t id) {
  PassPipelineRegistration<ChipOptions>(
      name, description, [build, id](OpPassManager &pm, const ChipOptions &options) {
        std::string chip = options.chip;
        llvm::StringRef anchor = pm.getOpAnchorName();
        build(id, wrap(&pm), MlirStringRef{chip.data(), chip.size()}, options.serialize,
              MlirStringRef{anchor.data(), anchor.size()});
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
