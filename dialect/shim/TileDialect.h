//===- TileDialect.h - C++ declarations generated from the ODS ------------===//

#ifndef TILE_DIALECT_H
#define TILE_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlir/IR/DialectImplementation.h"

namespace mlir::tile {
/// Parses a list of sizes written `[64, 128]` (empty: `[]`).
FailureOr<SmallVector<int64_t>> parseSizeList(AsmParser &parser);
/// Prints a list of sizes as `[64, 128]`.
void printSizeList(AsmPrinter &printer, ArrayRef<int64_t> sizes);
} // namespace mlir::tile

#include "TileDialect.h.inc"
#include "TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "TileOps.h.inc"

#endif // TILE_DIALECT_H
