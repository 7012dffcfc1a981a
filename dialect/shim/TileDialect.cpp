//===- TileDialect.cpp - dialect, op syntax and the hooks into Rust -------===//
//
// Only what ODS cannot generate: the custom syntax of the three region ops, the custom directive of
// tile.fill, and the forwarding of verify() and getCanonicalizationPatterns() to Rust.
//
//===----------------------------------------------------------------------===//

#include "TileDialect.h"
#include "TileShim.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Rewrite.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <atomic>
#include <string>

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Hooks into Rust
//===----------------------------------------------------------------------===//

static std::atomic<TileVerifyHook> verifyHook{nullptr};
static std::atomic<TileCanonicalizeHook> canonicalizeHook{nullptr};

extern "C" void tileShimSetHooks(TileVerifyHook verify, TileCanonicalizeHook canonicalize) {
  verifyHook.store(verify);
  canonicalizeHook.store(canonicalize);
}

/// Runs the Rust verifier of `op` and turns its message into an op error at the op's location.
static LogicalResult verifyInRust(Operation *op) {
  TileVerifyHook hook = verifyHook.load();
  if (!hook)
    return op->emitOpError("cannot be verified: the tile dialect was registered without its Rust "
                           "verifiers (register it through the tile crate, C API or plugin)");
  std::string message;
  auto sink = [](void *userData, MlirStringRef text) {
    static_cast<std::string *>(userData)->append(text.data, text.length);
  };
  if (hook(wrap(op), sink, &message))
    return success();
  return op->emitOpError(message);
}

static void addRustPatterns(StringRef opName, RewritePatternSet &results, MLIRContext *context) {
  if (TileCanonicalizeHook hook = canonicalizeHook.load())
    hook(wrap(opName), wrap(&results), wrap(context));
}

#define TILE_VERIFY_IN_RUST(OP)                                                                    \
  LogicalResult OP::verify() { return verifyInRust(getOperation()); }
TILE_VERIFY_IN_RUST(KernelOp)
TILE_VERIFY_IN_RUST(PipelinedOp)
TILE_VERIFY_IN_RUST(ParallelOp)
TILE_VERIFY_IN_RUST(AllocSharedOp)
TILE_VERIFY_IN_RUST(AllocFragmentOp)
TILE_VERIFY_IN_RUST(CopyOp)
TILE_VERIFY_IN_RUST(GemmOp)
TILE_VERIFY_IN_RUST(MatmulOp)
TILE_VERIFY_IN_RUST(FillOp)
TILE_VERIFY_IN_RUST(ReduceOp)
TILE_VERIFY_IN_RUST(ScanOp)
TILE_VERIFY_IN_RUST(PrintOp)
TILE_VERIFY_IN_RUST(AllocBarriersOp)
TILE_VERIFY_IN_RUST(SlotOp)
TILE_VERIFY_IN_RUST(CopyAsyncOp)
TILE_VERIFY_IN_RUST(ArriveOp)
TILE_VERIFY_IN_RUST(WaitOp)
TILE_VERIFY_IN_RUST(ProducerOp)
TILE_VERIFY_IN_RUST(SplitSumOp)
#undef TILE_VERIFY_IN_RUST

void PipelinedOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  addRustPatterns(getOperationName(), results, context);
}

void FillOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  addRustPatterns(getOperationName(), results, context);
}

//===----------------------------------------------------------------------===//
// Custom syntax
//===----------------------------------------------------------------------===//

/// `tile.fill` spells only the tile's type; the value has the tile's element type.
static ParseResult parseTileAndElementType(OpAsmParser &parser, Type &tileType, Type &valueType) {
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseType(tileType))
    return failure();
  auto memref = llvm::dyn_cast<MemRefType>(tileType);
  if (!memref)
    return parser.emitError(location, "expects a memref tile type, but got ") << tileType;
  valueType = memref.getElementType();
  return success();
}

static void printTileAndElementType(OpAsmPrinter &printer, Operation *, Type tileType, Type) {
  printer << tileType;
}

static ParseResult parseParenthesizedInteger(OpAsmParser &parser, StringRef keyword,
                                             int64_t &value) {
  return failure(parser.parseKeyword(keyword) || parser.parseLParen() ||
                 parser.parseInteger(value) || parser.parseRParen());
}

static void printBody(OpAsmPrinter &printer, Region &body) {
  printer << ' ';
  printer.printRegion(body, /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
}

// tile.kernel grid(%gx [, %gy [, %gz]]) threads(128) (%bx [, %by [, %bz]]) attributes {...} { ... }
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &state) {
  Type index = parser.getBuilder().getIndexType();
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  SmallVector<OpAsmParser::Argument> blockIndices;
  int64_t threads;
  if (parser.parseKeyword("grid") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, index, state.operands) ||
      parseParenthesizedInteger(parser, "threads", threads) ||
      parser.parseArgumentList(blockIndices, OpAsmParser::Delimiter::Paren))
    return failure();
  for (OpAsmParser::Argument &argument : blockIndices)
    argument.type = index;
  state.addAttribute(getThreadsAttrName(state.name), parser.getBuilder().getI64IntegerAttr(threads));
  Region *body = state.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(state.attributes) ||
      parser.parseRegion(*body, blockIndices))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), state.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &printer) {
  printer << " grid(" << getGrid() << ") threads(" << getThreads() << ") (";
  llvm::interleaveComma(getBody().getArguments(), printer,
                        [&](BlockArgument index) { printer.printOperand(index); });
  printer << ")";
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getThreadsAttrName()});
  printBody(printer, getBody());
}

// tile.pipelined %k = %lb to %ub [step %s] stages(3) attributes {...} { ... }
ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &state) {
  Type index = parser.getBuilder().getIndexType();
  OpAsmParser::Argument inductionVar;
  OpAsmParser::UnresolvedOperand lowerBound, upperBound, step;
  if (parser.parseArgument(inductionVar) || parser.parseEqual() ||
      parser.parseOperand(lowerBound) || parser.parseKeyword("to") ||
      parser.parseOperand(upperBound) ||
      parser.resolveOperand(lowerBound, index, state.operands) ||
      parser.resolveOperand(upperBound, index, state.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("step")) &&
      (parser.parseOperand(step) || parser.resolveOperand(step, index, state.operands)))
    return failure();
  int64_t stages;
  if (parseParenthesizedInteger(parser, "stages", stages))
    return failure();
  state.addAttribute(getStagesAttrName(state.name), parser.getBuilder().getI64IntegerAttr(stages));
  inductionVar.type = index;
  Region *body = state.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(state.attributes) ||
      parser.parseRegion(*body, inductionVar))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), state.location);
  return success();
}

void PipelinedOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  if (getBody().getNumArguments() == 1)
    printer.printOperand(getInductionVar());
  printer << " = " << getLowerBound() << " to " << getUpperBound();
  if (Value step = getStep())
    printer << " step " << step;
  printer << " stages(" << getStages() << ")";
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getStagesAttrName()});
  printBody(printer, getBody());
}

// tile.parallel (%i, %j) in (128, 128) attributes {...} { ... }
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &state) {
  Type index = parser.getBuilder().getIndexType();
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&]() {
        return parser.parseInteger(extents.emplace_back());
      }))
    return failure();
  for (OpAsmParser::Argument &argument : indices)
    argument.type = index;
  state.addAttribute(getExtentsAttrName(state.name),
                     parser.getBuilder().getDenseI64ArrayAttr(extents));
  Region *body = state.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(state.attributes) ||
      parser.parseRegion(*body, indices))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), state.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &printer) {
  printer << " (";
  llvm::interleaveComma(getBody().getArguments(), printer,
                        [&](BlockArgument index) { printer.printOperand(index); });
  printer << ") in (";
  llvm::interleaveComma(getExtents(), printer);
  printer << ")";
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getExtentsAttrName()});
  printBody(printer, getBody());
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> mlir::tile::parseSizeList(AsmParser &parser) {
  SmallVector<int64_t> sizes;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() { return parser.parseInteger(sizes.emplace_back()); }))
    return failure();
  return sizes;
}

void mlir::tile::printSizeList(AsmPrinter &printer, ArrayRef<int64_t> sizes) {
  printer << '[';
  llvm::interleaveComma(sizes, printer);
  printer << ']';
}

// Only the structure is checked here (arity, ranges); that every thread holds each of its elements
// in a slot of its own is checked in Rust by the ops that carry a layout, which know the shape.
LogicalResult FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         ArrayRef<int64_t> shape, int64_t threads, int64_t replicate,
                                         AffineMap thread, AffineMap slot, StringRef) {
  // An empty shape is a scalar's (a reduction to rank 0).
  if (llvm::any_of(shape, [](int64_t size) { return size <= 0; }))
    return emitError() << "expects a shape of positive sizes";
  if (threads <= 0)
    return emitError() << "expects a positive number of threads, but got " << threads;
  if (replicate <= 0)
    return emitError() << "expects replicate to be positive, but got " << replicate;
  // The layout's table evaluates the thread map for each element and replica (replicas may
  // name the same thread: a reduction's result is replicated over the threads that reduced it,
  // modulo the block's).
  if (replicate > TILE_MAX_LAYOUT_OWNERS)
    return emitError() << "expects replicate to be at most " << TILE_MAX_LAYOUT_OWNERS << ", but got " << replicate;
  unsigned rank = shape.size();
  if (thread.getNumDims() != rank || thread.getNumResults() != 1 || thread.getNumSymbols() > 1)
    return emitError() << "expects the thread map to take " << rank
                       << " indices (and at most one replica symbol) to one thread, but got "
                       << AffineMapAttr::get(thread);
  if (replicate > 1 && thread.getNumSymbols() != 1)
    return emitError() << "expects the thread map of a layout replicated " << replicate
                       << " times to take the replica as symbol s0, but got " << AffineMapAttr::get(thread);
  if (slot.getNumDims() != rank || slot.getNumResults() != 1 || slot.getNumSymbols() != 0)
    return emitError() << "expects the slot map to take " << rank
                       << " indices to one slot, but got " << AffineMapAttr::get(slot);
  return success();
}

LogicalResult SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t swizzle, int64_t padding, bool,
                                       ArrayRef<int64_t> box, int64_t boxes, int64_t buffers) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "expects swizzle to be 0, 32, 64 or 128 bytes, but got " << swizzle;
  if (padding < 0)
    return emitError() << "expects padding to be non-negative, but got " << padding;
  if (llvm::any_of(box, [](int64_t size) { return size <= 0 || size > 256; }))
    return emitError() << "expects box sizes between 1 and 256 (the TMA limit)";
  if (boxes <= 0 || buffers <= 0)
    return emitError() << "expects boxes and buffers to be positive, but got " << boxes << " and "
                       << buffers;
  return success();
}

//===----------------------------------------------------------------------===//
// Generated definitions
//===----------------------------------------------------------------------===//

#include "TileDialect.cpp.inc"
#include "TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TileAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "TileOps.cpp.inc"

/// Shortens every string argument of `diag` that spans lines (an op printed into the message, as in
/// upstream's "block with no terminator, has <op>") to its first line, so that no handler dumps a
/// whole kernel at the user. Returns failure: the next handler prints the diagnostic.
static llvm::LogicalResult keepFirstLines(mlir::Diagnostic &diag) {
  size_t count = diag.getArguments().size();
  for (size_t index = 0; index < count; ++index) {
    auto argument = diag.getArguments()[index];
    if (argument.getKind() != mlir::DiagnosticArgument::DiagnosticArgumentKind::String)
      continue;
    llvm::StringRef text = argument.getAsString();
    size_t newline = text.find('\n');
    if (newline == llvm::StringRef::npos)
      continue;
    // A lone newline (what precedes an op printed on several lines) goes; an op keeps its first
    // line and says how many it lost.
    std::string shortened =
        text.trim().empty()
            ? std::string()
            : (text.substr(0, newline).rtrim() + " (" + llvm::Twine(text.count('\n')) +
               " more lines of IR omitted)")
                  .str();
    // The diagnostic owns the strings streamed into it: append, then move into place.
    diag << llvm::Twine(shortened);
    auto arguments = diag.getArguments();
    arguments[index] = arguments.back();
    arguments.back() = mlir::DiagnosticArgument(llvm::StringRef());
  }
  return llvm::failure();
}

// A `tile.*` attribute on a function argument declares a partition argument; the Rust verifier of
// the function's arguments checks every one of them.
LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned,
                                                    NamedAttribute) {
  return verifyInRust(op);
}

void TileDialect::initialize() {
  getContext()->getDiagEngine().registerHandler(keepFirstLines);
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "TileOps.cpp.inc"
      >();
}
