//===- TileAttrs.td - tile attributes and enums -------------*- tablegen -*-===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_FragmentSpaceAttr : Tile_Attr<"FragmentSpace", "fragment"> {
  let summary = "Memory space of a fragment: registers spread over the threads of a block";
  let description = [{
    The `#tile.fragment` attribute is the memory space of a `memref` that lives in registers. Each
    element is held by one thread of the block; which thread holds which element is the fragment's
    layout, chosen by the lowering from the ops that use the fragment (for example the accumulator
    layout of the tensor-core instruction that writes it).

    Example:

    ```mlir
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    ```
  }];
}

def Tile_ReductionKind : I32EnumAttr<"ReductionKind", "how tile.reduce combines elements", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"abssum", 3>,
    I32EnumAttrCase<"absmax", 4>
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReductionKindAttr : EnumAttr<Tile_Dialect, Tile_ReductionKind, "reduction"> {
  let summary = "Reduction kind of tile.reduce: sum, max, min, abssum or absmax";
  let assemblyFormat = "`<` $value `>`";
}

#endif // TILE_ATTRS_TD
