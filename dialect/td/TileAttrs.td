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

/// A list of sizes, written `[64, 128]`.
def Tile_SizeList : ArrayRefParameter<"int64_t", "a list of sizes"> {
  let parser = "::mlir::tile::parseSizeList($_parser)";
  let printer = "::mlir::tile::printSizeList($_printer, $_self)";
}

/// A list of sizes that may be left out (empty), written `[32, 64]`.
def Tile_OptionalSizeList : OptionalArrayRefParameter<"int64_t", "a list of sizes"> {
  let parser = "::mlir::tile::parseSizeList($_parser)";
  let printer = "::mlir::tile::printSizeList($_printer, $_self)";
}

def Tile_FragmentLayoutAttr : Tile_Attr<"FragmentLayout", "frag"> {
  let summary = "Layout of a fragment: which thread holds each element, in which of its registers";
  let description = [{
    The `#tile.frag` attribute says how the elements of a fragment (a memref in `#tile.fragment`), or
    the iterations of a `tile.parallel`, are spread over the threads of a block:

    - `shape`: the fragment's shape (or the loop's extents);
    - `threads`: the threads of the block the layout spreads over;
    - `thread`: an affine map from an element's indices `(d0, ..., dn)` to the thread that holds it.
      With `replicate = r > 1` the map has one symbol `s0`, and element `e` is held by the threads
      `thread(e)[s0]` for `s0` in `0 .. r` (a row statistic held by every lane of the row, say);
    - `slot`: an affine map from an element's indices to the register slot that holds it in its
      thread; no thread holds two elements in one slot;
    - `origin`: where the layout comes from (an instruction such as `wgmma.acc.m64n64`, `blocked`,
      `slice`), for diagnostics and for the lowering's choice of pattern.

    `tile-infer-layouts` records one on every fragment's `tile.alloc_fragment` (as `tile.layout`)
    and on every `tile.parallel` (as `tile.loop_layout`); a layout written there by hand is kept.
    The verifier checks the maps' arity; the ops that carry a layout check that it matches the
    fragment's shape and that each thread holds each of its elements in its own slot.

    Example: the sm_90a wgmma accumulator of a 64x16 tile on one warpgroup (128 threads).

    ```mlir
    #tile.frag<shape = [64, 16], threads = 128,
               thread = (d0, d1) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2),
               slot = (d0, d1) -> ((d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2),
               origin = "wgmma.acc.m64n16">
    ```
  }];
  let parameters = (ins
    Tile_SizeList:$shape,
    "int64_t":$threads,
    DefaultValuedParameter<"int64_t", "1">:$replicate,
    "::mlir::AffineMap":$thread,
    "::mlir::AffineMap":$slot,
    StringRefParameter<"where the layout comes from", "\"\"">:$origin
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "smem"> {
  let summary = "Layout of a shared tile: swizzle, padding, orientation, TMA boxes and ring depth";
  let description = [{
    The `#tile.smem` attribute says how a shared tile (a memref in `#gpu.address_space<workgroup>`)
    lies in shared memory:

    - `swizzle`: 0, 32, 64 or 128: the bytes of the XOR swizzle span (the TMA and wgmma swizzle
      modes); 0 is row-major without a swizzle;
    - `padding`: elements of padding after each row (LDS bank spreading on gfx942);
    - `transposed`: the tile is stored with its last two dimensions swapped;
    - `box`: the TMA box (rows, columns) the tile is loaded or stored in, empty without TMA, and
      `boxes` how many boxes side by side make the tile;
    - `buffers`: copies of the tile in a pipelined loop's ring (1 outside one).

    A box with no swizzle, 8 columns wide (`box = [R, 8]`, `boxes` = columns / 8) is the column
    slabs sm_90a's threads write a wgmma operand tile in when TMA does not fill it: 8 rows of a
    slab are one core matrix.

    Example: an sm_90a B tile of 32x128 f16 read N-major by wgmma, in two 64-column boxes.

    ```mlir
    #tile.smem<swizzle = 128, box = [32, 64], boxes = 2>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "0">:$swizzle,
    DefaultValuedParameter<"int64_t", "0">:$padding,
    DefaultValuedParameter<"bool", "false">:$transposed,
    Tile_OptionalSizeList:$box,
    DefaultValuedParameter<"int64_t", "1">:$boxes,
    DefaultValuedParameter<"int64_t", "1">:$buffers
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
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
