//===- TileDialect.td - the tile dialect --------------------*- tablegen -*-===//
//
// The dialect definition. Op, attribute and enum definitions live in their own files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tiled GPU kernels: on-chip tiles, tile copies, tensor-core GEMMs and tile epilogues";
  let description = [{
    The `tile` dialect describes GPU kernels in the programming model of TileLang: a kernel allocates
    on-chip tiles (`tile.alloc_shared`, `tile.alloc_fragment`), moves tiles between memory levels
    (`tile.copy`), multiplies them on tensor cores (`tile.gemm`), overlaps the two in software-pipelined
    loops (`tile.pipelined`), and writes epilogues and reductions over tiles (`tile.parallel`,
    `tile.reduce`, `tile.fill`).

    Every buffer is a builtin `memref`. Its memory space says where it lives: none or
    `#gpu.address_space<global>` for device memory, `#gpu.address_space<workgroup>` for the shared
    memory of one block, and `#tile.fragment` for registers spread over the threads of a block.
  }];
  let useDefaultAttributePrinterParser = 1;
  // `tile.offsets` and `tile.sizes` on host function arguments (partition arguments).
  let hasRegionArgAttrVerify = 1;
  // Tile programs are written with these; loading tile loads them too.
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // TILE_DIALECT_TD
