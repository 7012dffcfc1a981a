//===- TileOps.td - tile operations -------------------------*- tablegen -*-===//
//
// Every op's verifier is written in Rust (dialect/src/verify/); the generated `verify()` methods call
// it through the shim. Memory effects are declared per operand so that upstream CSE, DCE and
// canonicalization stay sound around tile ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "TileDialect.td"
include "TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits> {
  // Every tile op is verified in Rust.
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Region ops
//===----------------------------------------------------------------------===//

def Tile_YieldOp : Op<Tile_Dialect, "yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "PipelinedOp", "ParallelOp", "ProducerOp"]>]> {
  let summary = "Terminator of the regions of tile.kernel, tile.pipelined, tile.parallel and tile.producer";
  let description = [{
    The `tile.yield` operation ends the body of a `tile.kernel`, `tile.pipelined`, `tile.parallel`
    or `tile.producer`.
    It carries no values and is implicit in the custom form of its parents.

    Example:

    ```mlir
    tile.yield
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_KernelOp : Tile_Op<"kernel", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "One launch of a grid of blocks";
  let description = [{
    The `tile.kernel` operation is one GPU launch. `grid` gives the number of blocks in up to three
    dimensions as `index` values (a constant size from 0 to 2^31 - 1 along x and to 65535 along y and z,
    what GPUs launch); `threads` is the static number of threads of each block (a positive
    multiple of 32, at most 1024). The body runs once per block; its arguments are the block's indices,
    one per grid dimension. It lives inside an ordinary host `func.func` whose memref arguments are the
    global tensors; lowering turns it into `gpu.launch` and an outlined `gpu.func`.

    Tiles (`tile.alloc_shared`, `tile.alloc_fragment`) may only be allocated inside a kernel.

    `min_blocks_per_multiprocessor` (optional, 1 to 32) asks the code generator to keep each
    thread's registers few enough that this many blocks fit on one multiprocessor (NVIDIA:
    `.minnctapersm`); more blocks in flight hide more latency, fewer registers may spill. Other
    targets ignore it.

    Example:

    ```mlir
    tile.kernel grid(%c32, %c32) threads(128) (%bx, %by) {
      %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    }
    tile.kernel grid(%c64) threads(256) (%b) attributes {min_blocks_per_multiprocessor = 2 : i64} {
    }
    ```
  }];
  let arguments = (ins
    Arg<Variadic<Index>, "number of blocks in each grid dimension (1 to 3)">:$grid,
    I64Attr:$threads,
    OptionalAttr<I64Attr>:$min_blocks_per_multiprocessor);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Returns the block indices, one per grid dimension.
    ::mlir::Block::BlockArgListType getBlockIndices() { return getBody().getArguments(); }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Software-pipelined loop over tiles";
  let description = [{
    The `tile.pipelined` operation is a loop from `lb` to `ub` (exclusive) by `step` (1 when absent)
    whose copies into shared memory are software-pipelined `stages` deep: the copies of iteration
    k + stages - 1 overlap the compute of iteration k. Its semantics are those of the plain loop;
    `stages` must be between 1 (no overlap) and 64. The body's one argument is the induction variable.

    Example:

    ```mlir
    tile.pipelined %k = %c0 to %c128 stages(3) {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    }
    ```
  }];
  let arguments = (ins
    Arg<Index, "lower bound (inclusive)">:$lowerBound,
    Arg<Index, "upper bound (exclusive)">:$upperBound,
    Arg<Optional<Index>, "step (1 when absent)">:$step,
    I64Attr:$stages);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Returns the induction variable.
    ::mlir::BlockArgument getInductionVar() { return getBody().getArgument(0); }
  }];
}

def Tile_ParallelOp : Tile_Op<"parallel", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Elementwise loop nest over a tile shape";
  let description = [{
    The `tile.parallel` operation runs its body once for every index tuple of a static tile shape
    (`extents`, all positive). Iterations are unordered: each runs exactly once, on whichever thread the
    layout assigns it (for a fragment, the thread that holds that element). The body is written with
    upstream `arith`/`math` ops and `memref.load`/`memref.store` on tiles.
    It is per-element work: the ops that work on whole tiles or for the whole block (`tile.copy`,
    `tile.gemm`, `tile.fill`, `tile.reduce`, `tile.pipelined`, the allocations, `tile.copy_async`,
    `tile.arrive`, `tile.wait`) and another `tile.parallel` may not be in the body at any depth,
    since each would run once per element; the verifier refuses them.

    Example:

    ```mlir
    tile.parallel (%i, %j) in (128, 128) {
      %v = memref.load %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<128x128xf32, #tile.fragment>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared"> {
  let summary = "Allocation of a tile in the shared memory of a block";
  let description = [{
    The `tile.alloc_shared` operation allocates a statically shaped tile in the shared memory of the
    enclosing `tile.kernel`'s block. The result type is a `memref` with static shape and memory space
    `#gpu.address_space<workgroup>`. It is only legal inside a `tile.kernel`.

    Example:

    ```mlir
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let results = (outs Res<AnyMemRef, "the shared tile", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_AllocFragmentOp : Tile_Op<"alloc_fragment"> {
  let summary = "Allocation of a tile in registers spread over the threads of a block";
  let description = [{
    The `tile.alloc_fragment` operation allocates a statically shaped tile held in registers, spread
    over the threads of the enclosing `tile.kernel`'s block. The result type is a `memref` with static
    shape and memory space `#tile.fragment`. It is only legal inside a `tile.kernel`.

    Example:

    ```mlir
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let results = (outs Res<AnyMemRef, "the fragment", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Data movement and compute
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "Copy of one tile between memory levels";
  let description = [{
    The `tile.copy` operation moves one tile from `src` to `dst`. Offsets (`index`, one per dimension)
    may be given on one side; they name the tile's origin in that larger buffer, and the tile shape is
    the static shape of the other side. Without offsets both sides are tiles of the same shape. Any pair
    of levels is legal (global, shared, fragment). Element types may differ: the copy converts (an f32
    fragment stored to an f16 global tensor is the usual epilogue). A tile that reaches past the end of a
    global buffer is clipped: reads past the end give zero, writes past the end are dropped.

    N-D global tensors: a tile of rank r may be placed in a global tensor of higher rank n (n at most 5,
    the rank of a TMA tensor map), with one offset per dimension of the tensor. The tile's dimensions are
    the tensor's last r unless `dims` names them: `dims [1, 3]` puts a 2-D tile in dimensions 1 and 3 of
    a (batch, sequence, head, channel) tensor (TileLang's `X[b, s0:s0+64, h, :]`). The named dimensions
    increase and end with the tensor's last (the tile's rows are contiguous; a tile along another
    dimension is written with a trailing extent of 1). Each dimension the tile does not span is indexed
    by its offset alone, as if the tile had extent 1 there (the offsets pick a batch, a head). Clipping
    is per dimension: an element whose index in any dimension of the tensor is past that dimension's end
    reads zero and is not written, so a ragged last sequence block never touches the next head's rows.
    On-chip buffers take tiles of their own rank.

    With `atomic <sum>` (or `<max>`, `<min>`) a copy from a fragment into a global tensor updates each
    element atomically instead of storing it: the tensor's element becomes the sum of what it held and
    the fragment's (converted) element, or their maximum or minimum (NaN-propagating for floats), so
    blocks that write the same elements do not race (split-K, attention's dQ). The tensor holds f32, f16,
    bf16 or i32; clipping is as for a store. Targets make the updates their atomics have (the SPIR-V
    targets: sums, maxima and minima of i32).

    With `limits` (one `index` per tile dimension) a copy into a global tensor writes only the tile's
    elements whose index within the tile is below the limit in every dimension: a grouped GEMM's last
    row tile stores the rows of its group and leaves the next group's to the blocks that own them. A limit
    at or past the tile's extent limits nothing; clipping at the tensor's end still applies. Hopper keeps
    such a store on the copy engine (boxes of fewer rows where a limit cuts the tile's rows); other
    targets write the elements below the limits.

    A conversion rounds to nearest, ties to even, as `arith.truncf` does: a value past the largest
    finite one of f8E4M3FN becomes its NaN, of f8E5M2 infinity. With `saturate` a copy into 8-bit floats
    gives such values (infinities too) the largest finite magnitude with their sign instead, and NaN stays
    NaN: what CUDA's and TileLang's fp8 conversions do, and what sm_90a's conversion instruction does
    alone (without `saturate` it needs a check of each value, unless the compiler proves the values in
    range).

    Example:

    ```mlir
    tile.copy %A[%m0, %k0], %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %Cf, %C[%m0, %n0] : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf16>
    tile.copy %Q[%b, %h, %s0, %c0], %Qs : memref<4x16x1000x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Of, %O[%b, %h, %s0, %c0] : memref<64x64xf32, #tile.fragment>, memref<4x16x1000x64xf16>
    tile.copy %X[%b, %s0, %h, %c0], %Xs dims [1, 3] : memref<8x4096x80x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %Cf, %C[%m0, %n0] atomic <sum> : memref<128x128xf32, #tile.fragment>, memref<4096x4096xf32>
    tile.copy %S, %P saturate : memref<128x128xf32, #tile.fragment>, memref<128x128xf8E4M3FN, #tile.fragment>
    tile.copy %Cf, %C[%row, %n0] limits [%rows, %c256] : memref<128x256xf32, #tile.fragment>, memref<?x?xf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the buffer read", [MemRead]>:$src,
    Arg<Variadic<Index>, "the tile's origin in `src`, one index per dimension of `src`">:$srcOffsets,
    Arg<AnyMemRef, "the buffer written", [MemWrite]>:$dst,
    Arg<Variadic<Index>, "the tile's origin in `dst`, one index per dimension of `dst`">:$dstOffsets,
    Arg<Variadic<Index>, "where the tile written ends, one index per tile dimension (a store into a global tensor)">:$limits,
    OptionalAttr<DenseI64ArrayAttr>:$dims,
    OptionalAttr<Tile_ReductionKindAttr>:$atomic,
    UnitAttr:$saturate);
  let assemblyFormat = [{
    $src (`[` $srcOffsets^ `]`)? `,` $dst (`[` $dstOffsets^ `]`)? (`limits` ` ` `[` $limits^ `]`)? (`dims` $dims^)? (`atomic` $atomic^)? (`saturate` $saturate^)? attr-dict `:` type($src) `,` type($dst)
  }];
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "Tile matrix multiply-accumulate on tensor cores";
  let description = [{
    The `tile.gemm` operation computes `C += op(A) * op(B)`. A is MxK (KxM with `transpose_a`), B is KxN
    (NxK with `transpose_b`) and C is an MxN fragment. A lives in shared memory or in a fragment, B in
    shared memory. A and B have the same element type (f16, bf16, f8E4M3FN, f8E5M2 or i8); C
    accumulates in f32 (i32 for i8 inputs). On sm_90a, 8-bit inputs reach wgmma only K-major (A as MxK
    and B as NxK, both in shared memory); i8 gemms in any other arrangement run on `mma.sync`, 8-bit
    float gemms are refused there and on sm_80 (no matrix instruction of theirs takes them; gfx942
    widens them, exactly, to f16 as they enter its f16 mfma). Hopper's wgmma sums 8-bit float
    products with about 14 bits of mantissa, truncated: results differ from exactly rounded f32 sums
    by up to about 1e-2 relative on long K.

    Example:

    ```mlir
    tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x32xf16, #gpu.address_space<workgroup>>,
        memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "left operand A", [MemRead]>:$a,
    Arg<AnyMemRef, "right operand B", [MemRead]>:$b,
    Arg<AnyMemRef, "accumulator C", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
}

def Tile_MatmulOp : Tile_Op<"matmul"> {
  let summary = "Matrix product of global tensors, tiled by the compiler";
  let description = [{
    The `tile.matmul` operation computes `C = A * op(B)` on whole global tensors, in host code: A is
    MxK, B is KxN (NxK with `transpose_b`, a linear layer's weight), C is MxN; sizes may be known only
    at run time. Batched: A is BxMxK and C BxMxN, each batch multiplied by its own B (BxKxN, or
    BxNxK) or by one B for all (a 2-D B). A and B hold one element type, f16, bf16, f8E4M3FN or
    f8E5M2 (8-bit inputs with B as NxK on sm_90a, where wgmma reads them K-major); products are
    summed in f32 and rounded once to C's element type (f16, bf16 or f32). The compiler writes the kernel: the first of its
    decisions (`tile-expand-matmuls`) replaces the op by a `tile.kernel` whose output tile, K step,
    threads and ring depth come from the target's tiling rule (see the pass), and, where sizes are
    known only at run time, by one kernel per size class under an `scf.if` the host evaluates at
    launch. It is what a frontend hands over when it has no tiling of its own; a program that writes
    its kernel keeps every choice.

    Example:

    ```mlir
    tile.matmul %A, %W, %C {transpose_b} : memref<?x4096xf16>, memref<11008x4096xf16>, memref<?x11008xf16>
    tile.matmul %Q, %K, %S {transpose_b} : memref<32x?x128xbf16>, memref<32x?x128xbf16>, memref<32x?x?xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "left operand A", [MemRead]>:$a,
    Arg<AnyMemRef, "right operand B", [MemRead]>:$b,
    Arg<AnyMemRef, "the product C", [MemWrite]>:$c,
    UnitAttr:$transpose_b);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "Fill of a tile with one value";
  let description = [{
    The `tile.fill` operation writes `value` into every element of the tile `dst`. The value's type is
    the tile's element type.

    Example:

    ```mlir
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the tile written", [MemWrite]>:$dst,
    Arg<AnyType, "the value stored in every element">:$value);
  let assemblyFormat = [{
    $dst `,` $value attr-dict `:` custom<TileAndElementType>(type($dst), type($value))
  }];
  let hasCanonicalizer = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "Reduction of a tile along one dimension";
  let description = [{
    The `tile.reduce` operation combines the elements of `src` along dimension `dim` with the reduction
    `kind` (`sum`, `max`, `min`, `abssum`, `absmax`) and writes the result to `dst`, whose shape is that
    of `src` without `dim`. With `clear = false` the result is also combined with what `dst` already
    holds (the running max and sum of an online softmax); `clear` is true when absent.

    Example:

    ```mlir
    tile.reduce <max> %S, %m dim(1) {clear = true} : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Tile_ReductionKindAttr:$kind,
    Arg<AnyMemRef, "the tile reduced", [MemRead]>:$src,
    Arg<AnyMemRef, "the tile of results", [MemRead, MemWrite]>:$dst,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear);
  let assemblyFormat = [{
    $kind $src `,` $dst `dim` `(` $dim `)` attr-dict `:` type($src) `,` type($dst)
  }];
}

def Tile_ScanOp : Tile_Op<"scan"> {
  let summary = "Prefix combination of a tile along one dimension";
  let description = [{
    The `tile.scan` operation writes to each element of `dst` the combination, by the reduction
    `kind` (`sum`, `max` or `min`), of the elements of `src` along dimension `dim` up to and including
    its own index (the inclusive scan: a cumulative sum), or up to but excluding it with `exclusive`
    (the first element then holds the kind's identity: 0, -inf or +inf). The other indices stay:
    each line along `dim` is scanned on its own. `src` and `dst` are fragments or shared tiles of one
    shape and one float element type; `dst` may be `src` (in place). Each step rounds to the element
    type, in increasing index order; `max` and `min` propagate NaN like `arith.maximumf`.

    Example:

    ```mlir
    tile.scan <sum> %dA, %dA dim(0) : memref<256xf32, #tile.fragment>, memref<256xf32, #tile.fragment>
    tile.scan <max> %S, %M dim(1) {exclusive} : memref<64x64xf32, #tile.fragment>, memref<64x64xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Tile_ReductionKindAttr:$kind,
    Arg<AnyMemRef, "the tile scanned", [MemRead]>:$src,
    Arg<AnyMemRef, "the tile of prefix results", [MemWrite]>:$dst,
    I64Attr:$dim,
    UnitAttr:$exclusive);
  let assemblyFormat = [{
    $kind $src `,` $dst `dim` `(` $dim `)` attr-dict `:` type($src) `,` type($dst)
  }];
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Debug print of a scalar or a tile, once per block";
  let description = [{
    The `tile.print` operation prints `value` with `message` and the block's id, once per block of
    the enclosing `tile.kernel`, when the program reaches it. A scalar (an integer, an index or a
    float) prints one line, `<message> block (x, y, z): <value>`; a fragment or a shared tile prints
    a line per element, in row-major order, `<message> block (x, y, z) [i, j]: <value>`. Floats
    print as C's `%g` (16-bit floats widened first), integers in decimal. The interpreter and the
    CPU reference (`tile-run`) print to standard output in block order; sm_90a and sm_80 print
    through the CUDA runtime's `vprintf` from the block's first thread, whose buffer the host
    receives at the next synchronization (blocks in any order). It is not allowed in a
    `tile.parallel` (its body runs once per element, on many threads). Prints are for debugging:
    a fragment printed in registers goes through a workgroup scratch tile, with a barrier on each
    side.

    Example:

    ```mlir
    tile.print "scores", %S : memref<64x64xf32, #tile.fragment>
    tile.print "step", %k : index
    ```
  }];
  let arguments = (ins StrAttr:$message, AnyType:$value);
  let assemblyFormat = [{
    $message `,` $value attr-dict `:` type($value)
  }];
}

//===----------------------------------------------------------------------===//
// Asynchronous copies (what tile-expand-pipelines writes)
//===----------------------------------------------------------------------===//

def Tile_AllocBarriersOp : Tile_Op<"alloc_barriers"> {
  let summary = "Allocation of completion barriers for asynchronous copies";
  let description = [{
    The `tile.alloc_barriers` operation allocates one barrier per element of its result, a 1-D
    `memref` of `i64` in memory space `#gpu.address_space<workgroup>`. A barrier counts phases from
    0: phase k completes when the block has arrived on it (`tile.arrive`) for the (k+1)-th time and
    every `tile.copy_async` that arrival covers has landed. `tile.wait` waits for one phase. Only the
    phase's parity is kept by the hardware, so a wait may be at most one phase behind the barrier.
    It is only legal inside a `tile.kernel`. `tile-expand-pipelines` writes it; it may also be written
    by hand.

    Example:

    ```mlir
    %full = tile.alloc_barriers : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let results = (outs Res<AnyMemRef, "the barriers", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_SlotOp : Tile_Op<"slot", [Pure]> {
  let summary = "One tile of a ring of shared tiles";
  let description = [{
    The `tile.slot` operation names tile `index` of `ring`, a shared buffer whose leading dimension
    counts the ring's tiles: a `memref<S x T>` ring holds S tiles of shape T, and the result is the
    tile of shape T at position `index` (0 <= index < S). The result aliases the ring; reads and
    writes through it are reads and writes of the ring. Software pipelining keeps the copies of
    later iterations in the other slots of a ring.

    Example:

    ```mlir
    %Ks = tile.slot %ring[%s] : memref<2x64x128xf16, #gpu.address_space<workgroup>> -> memref<64x128xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the ring of shared tiles">:$ring,
    Arg<Index, "the slot">:$index);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $ring `[` $index `]` attr-dict `:` type($ring) `->` type($result)
  }];
}

def Tile_CopyAsyncOp : Tile_Op<"copy_async"> {
  let summary = "Asynchronous copy of a tile from global into shared memory";
  let description = [{
    The `tile.copy_async` operation starts copying the tile at `srcOffsets` of the global tensor
    `src` into the shared tile `dst`, with the semantics of `tile.copy` (clipping, N-D tensors,
    the tile's shape the destination's, `dims`). The copy lands at an unspecified time: its completion is
    counted by barrier `index` of `barriers`, covered by the next `tile.arrive` on that barrier, and
    observed by a `tile.wait` for the phase that arrival completes. Until then `dst` must not be read
    or written. Source and destination have the same element type.

    Example:

    ```mlir
    tile.copy_async %K[%b, %h, %k0, %c0], %Ks, %full[%s] : memref<1x32x4096x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the global tensor read", [MemRead]>:$src,
    Arg<Variadic<Index>, "the tile's origin in `src`, one index per dimension of `src`">:$srcOffsets,
    Arg<AnyMemRef, "the shared tile written", [MemWrite]>:$dst,
    Arg<AnyMemRef, "the barriers counting completion", [MemRead, MemWrite]>:$barriers,
    Arg<Index, "the barrier">:$index,
    OptionalAttr<DenseI64ArrayAttr>:$dims);
  let assemblyFormat = [{
    $src `[` $srcOffsets `]` `,` $dst `,` $barriers `[` $index `]` (`dims` $dims^)? attr-dict `:` type($src) `,` type($dst) `,` type($barriers)
  }];
}

def Tile_ArriveOp : Tile_Op<"arrive"> {
  let summary = "Arrival of the block on a barrier";
  let description = [{
    The `tile.arrive` operation is the block's arrival on barrier `index` of `barriers`: it covers
    every `tile.copy_async` on that barrier since the previous arrival, and, with them landed,
    completes the barrier's current phase. Writes the block made before it are visible to the
    threads that wait for that phase.

    Example:

    ```mlir
    tile.arrive %full[%s] : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the barriers", [MemRead, MemWrite]>:$barriers,
    Arg<Index, "the barrier">:$index);
  let assemblyFormat = [{
    $barriers `[` $index `]` attr-dict `:` type($barriers)
  }];
}

def Tile_WaitOp : Tile_Op<"wait"> {
  let summary = "Wait for a phase of a barrier";
  let description = [{
    The `tile.wait` operation blocks every thread of the block until phase `phase` (counted from 0)
    of barrier `index` of `barriers` has completed: the copies it covers have landed and are visible
    to the block, as are the writes made before its arrival. Only `phase` modulo 2 reaches the
    hardware: the barrier must not be more than one phase ahead.

    Example:

    ```mlir
    tile.wait %full[%s], %round : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the barriers", [MemRead, MemWrite]>:$barriers,
    Arg<Index, "the barrier">:$index,
    Arg<Index, "the phase waited for">:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` type($barriers)
  }];
}

def Tile_ProducerOp : Tile_Op<"producer", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "The asynchronous copies of a kernel, issued by a producer warpgroup of their own";
  let description = [{
    The `tile.producer` operation holds the code that issues a kernel's asynchronous copies into
    rings of shared tiles: it runs on one thread of a warpgroup that the block gets beside the
    kernel's `threads` (the block is launched with `threads` + 128 threads), concurrently with the
    ops after it, which run on the kernel's `threads` only (their block-wide barriers become
    barriers of those threads). The ops before it run on every thread of the block. On sm_90a the
    producer's warpgroup gives up registers for the kernel's threads (`setmaxnreg`). The producer fills a slot
    once the kernel's threads have released it (`tile.wait` on a barrier they arrive on) and
    arrives on the barrier the slot's readers wait for; a barrier the producer arrives on counts
    its arrival alone. Software pipelining writes it (`tile-expand-pipelines`, schedules with
    `producer = "warpgroup"` on sm_90a): a GEMM's or an attention's threads then never wait for each
    other to refill a ring, only for the copies they read.

    It is a direct child of a `tile.kernel` (at most one per kernel, whose `threads` is a multiple
    of 128, whole warpgroups, and at most 896). Its body holds only index arithmetic, loads of global tensors (a block table), `scf.for`, `scf.if`, `tile.slot`,
    `tile.copy_async`, `tile.wait` and `tile.arrive`; the barriers it arrives on are arrived on
    nowhere else. Only sm_90a lowers it (its copies must be TMA copies); elsewhere it is refused.

    Example:

    ```mlir
    tile.producer {
      scf.for %k = %c0 to %c64 step %c1 {
        %s = arith.remui %k, %c4 : index
        %r = arith.divui %k, %c4 : index
        %reuse = arith.cmpi uge, %k, %c4 : index
        scf.if %reuse {
          %released = arith.subi %r, %c1 : index
          tile.wait %empty[%s], %released : memref<4xi64, #gpu.address_space<workgroup>>
        }
        %As = tile.slot %ring[%s] : memref<4x128x64xf16, #gpu.address_space<workgroup>> -> memref<128x64xf16, #gpu.address_space<workgroup>>
        tile.copy_async %A[%m0, %k0], %As, %full[%s] : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<4xi64, #gpu.address_space<workgroup>>
        tile.arrive %full[%s] : memref<4xi64, #gpu.address_space<workgroup>>
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
}

def Tile_SplitSumOp : Tile_Op<"split_sum"> {
  let summary = "Sum of a fragment over the blocks a reduction is split across";
  let description = [{
    The `tile.split_sum` operation adds up the fragment `acc` over the `splits` consecutive blocks
    along the grid's first dimension that each computed one part of the same sum (a GEMM's K split
    across them: `tile-split-k` writes it), through `scratch`, a shared tile of the fragment's
    element type with room for every register of the block's threads. Afterwards the fragment of
    the first of those blocks (`rank` 0) holds the sum of all of theirs, added in the order of
    their ranks, whatever order the blocks finish in; the other blocks' fragments are left as they
    were. `rank` is the block's place among them (its first block index modulo `splits`). Every
    thread of each of the blocks reaches it once, directly in the kernel's body.

    On sm_90a the blocks are one thread block cluster: each stores its fragment into its own shared
    memory, and rank 0 adds the others' from theirs through distributed shared memory, between
    cluster barriers. Only targets with clusters lower it; the CPU reference runs the program as
    written, before any split; the interpreter runs a cluster's blocks from its last rank to its
    first, the first adding the parts the others left.

    Example:

    ```mlir
    tile.split_sum %Cf, %scratch, %rank splits(4) : memref<64x128xf32, #tile.fragment>, memref<8192xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the fragment summed", [MemRead, MemWrite]>:$acc,
    Arg<AnyMemRef, "where the block's registers are exchanged", [MemRead, MemWrite]>:$scratch,
    Arg<Index, "the block's rank among the splits">:$rank,
    I64Attr:$splits);
  let assemblyFormat = [{
    $acc `,` $scratch `,` $rank `splits` `(` $splits `)` attr-dict `:` type($acc) `,` type($scratch)
  }];
}

#endif // TILE_OPS_TD
