#!/usr/bin/env python3
"""Writes flash decoding tile programs (grouped-query attention of one query token a sequence
against a long KV cache, the cache split over blocks and the splits combined):
Q and O [batch, kv_heads, group, dim] (that is [batch, heads, dim], a KV head's queries
together), K and V [batch, tokens, kv_heads, dim].

    tools/gen/flash_decoding.py NAME BATCH HEADS KV_HEADS TOKENS DIM SPLITS [DTYPE] [--stages N] [--block-n N] [--producer]

The first kernel gives each (sequence, KV head, split) a block: the group's queries as the rows
of a 64-row tile (the rows past the group are outside the tensor, so they read zeros and are
never written), the split's tokens in 64-token tiles read with `dims [1, 3]`, the online
softmax between the two gemms. It writes each split's normalized output and its log-sum-exp
(base 2) to f32 scratch tensors. The second kernel gives each query head a block that weighs
the splits by their log-sum-exps. With SPLITS 1 there is one kernel, writing O."""
import sys

from mla import normalize, online_softmax


def flash_decoding(name, batch, heads, kv_heads, tokens, dim, splits, dtype="f16", block_n=64, block_h=64, stages=2, producer=False):
    assert heads % kv_heads == 0 and tokens % (splits * block_n) == 0
    group = heads // kv_heads
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    scale = 1.4426950408889634 / dim**0.5
    q = f"memref<{batch}x{kv_heads}x{group}x{dim}x{dtype}>"
    kv = f"memref<{batch}x{tokens}x{kv_heads}x{dim}x{dtype}>"
    part = f"memref<{batch}x{splits}x{kv_heads}x{group}x{dim}xf32>"
    lse = f"memref<{batch}x{kv_heads}x{group}x{splits}xf32>"
    tile = lambda rows, columns: f"memref<{rows}x{columns}x{dtype}, {ws}>"
    s = f"memref<{block_h}x{block_n}xf32, {fr}>"
    acc = f"memref<{block_h}x{dim}xf32, {fr}>"
    row = f"memref<{block_h}xf32, {fr}>"
    column = f"memref<{block_h}x1xf32, {fr}>"
    steps = tokens // splits // block_n
    # A producer warpgroup asked for in the loop's schedule, else the plan's choice.
    schedule = ' attributes {tile.schedule = {producer = "warpgroup"}}' if producer else ""
    if splits == 1:
        arguments = f"%O: {q}"
        grid, ids = "%ckv, %cbatch", "%bg, %bb"
        first_token = "%c0"
        epilogue = f"""    tile.copy %Acc, %O[%bb, %bg, %c0, %c0] : {acc}, {q}"""
    else:
        arguments = f"%Part: {part}, %Lse: {lse}, %O: {q}"
        grid, ids = "%ckv, %cbatch, %csplits", "%bg, %bb, %bs"
        first_token = "%first"
        epilogue = f"""    tile.copy %Acc, %Part[%bb, %bs, %bg, %c0, %c0] : {acc}, {part}
    tile.parallel (%i, %z) in ({block_h}, 1) {{
      %li = memref.load %l[%i] : {row}
      %mi = memref.load %m[%i] : {row}
      %log = math.log2 %li : f32
      %shift = arith.mulf %mi, %scale : f32
      %e = arith.addf %log, %shift : f32
      memref.store %e, %L[%i, %z] : {column}
    }}
    tile.copy %L, %Lse[%bb, %bg, %c0, %bs] dims [2, 3] : {column}, {lse}"""
    split_start = "" if splits == 1 else f"""    %split_tokens = arith.constant {tokens // splits} : index
    %first = arith.muli %bs, %split_tokens : index
"""
    stats = "" if splits == 1 else f"""    %L = tile.alloc_fragment : {column}
"""
    kernel = f"""  tile.kernel grid({grid}) threads(128) ({ids}) {{
    %Qs = tile.alloc_shared : {tile(block_h, dim)}
    %Ks = tile.alloc_shared : {tile(block_n, dim)}
    %Vs = tile.alloc_shared : {tile(block_n, dim)}
    %Ps = tile.alloc_shared : {tile(block_h, block_n)}
    %S = tile.alloc_fragment : {s}
    %Acc = tile.alloc_fragment : {acc}
    %m = tile.alloc_fragment : {row}
    %mp = tile.alloc_fragment : {row}
    %l = tile.alloc_fragment : {row}
    %rs = tile.alloc_fragment : {row}
{stats}{split_start}    tile.copy %Q[%bb, %bg, %c0, %c0], %Qs : {q}, {tile(block_h, dim)}
    tile.fill %Acc, %zero : {acc}
    tile.fill %m, %ninf : {row}
    tile.fill %l, %zero : {row}
    tile.pipelined %j = %c0 to %csteps stages({stages}){schedule} {{
      %t = arith.muli %j, %cbn : index
      %t0 = arith.addi {first_token}, %t : index
      tile.copy %K[%bb, %t0, %bg, %c0], %Ks dims [1, 3] : {kv}, {tile(block_n, dim)}
      tile.copy %V[%bb, %t0, %bg, %c0], %Vs dims [1, 3] : {kv}, {tile(block_n, dim)}
      tile.fill %S, %zero : {s}
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {tile(block_h, dim)}, {tile(block_n, dim)}, {s}
{online_softmax(block_h, block_n, dim, s, row, acc)}      tile.copy %S, %Ps : {s}, {tile(block_h, block_n)}
      tile.gemm %Ps, %Vs, %Acc : {tile(block_h, block_n)}, {tile(block_n, dim)}, {acc}
    }}
{normalize(block_h, dim, row, acc)}{epilogue}
  }}"""
    combine = "" if splits == 1 else combine_kernel(batch, kv_heads, group, dim, splits, dtype, part, lse, q)
    return f"""// Flash decoding ({name}): {batch} sequences x {heads} query heads of one token each in groups of
// {group} sharing a KV head, against {tokens} cached tokens of {kv_heads} KV heads, dim {dim}, {dtype}.
// Written by tools/gen/flash_decoding.py: the cache split {splits} ways over blocks of one KV head's
// {group} queries (a 64-row tile), {block_n}-token tiles in a ring of {stages}{", the splits combined by a second kernel" if splits > 1 else ""}.
func.func @{name}(%Q: {q}, %K: {kv}, %V: {kv}, {arguments}) {{
  %c0 = arith.constant 0 : index
  %cbn = arith.constant {block_n} : index
  %csteps = arith.constant {steps} : index
  %ckv = arith.constant {kv_heads} : index
  %cgroup = arith.constant {group} : index
  %cbatch = arith.constant {batch} : index
  %csplits = arith.constant {splits} : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant {scale!r} : f32
  %nscale = arith.constant {-scale!r} : f32
{kernel}
{combine}  return
}}
"""


def combine_kernel(batch, kv_heads, group, dim, splits, dtype, part, lse, q):
    """A block a query head: the splits' log-sum-exps give each split's weight
    2^(lse_s - lse), lse = log2 sum 2^lse_s; the output is the weighted sum of the splits'
    outputs. The weights are summed as a tile of the outputs' shape (each column sums them), so
    that every tile keeps the layout of the loop over the splits' outputs."""
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    weights = f"memref<{splits}xf32, {fr}>"
    one = f"memref<f32, {fr}>"
    parts = f"memref<{splits}x{dim}xf32, {fr}>"
    out = f"memref<{dim}xf32, {fr}>"
    return f"""  tile.kernel grid(%cgroup, %ckv, %cbatch) threads(128) (%bh, %bg, %bb) {{
    %L = tile.alloc_fragment : {weights}
    %top = tile.alloc_fragment : {one}
    %P = tile.alloc_fragment : {parts}
    %E = tile.alloc_fragment : {parts}
    %Out = tile.alloc_fragment : {out}
    %Total = tile.alloc_fragment : {out}
    tile.copy %Lse[%bb, %bg, %bh, %c0], %L : {lse}, {weights}
    tile.copy %Part[%bb, %c0, %bg, %bh, %c0], %P dims [1, 4] : {part}, {parts}
    tile.reduce <max> %L, %top dim(0) : {weights}, {one}
    tile.parallel (%d, %s) in ({dim}, {splits}) {{
      %p = memref.load %P[%s, %d] : {parts}
      %e = memref.load %L[%s] : {weights}
      %t = memref.load %top[] : {one}
      %x = arith.subf %e, %t : f32
      %w = math.exp2 %x : f32
      %r = arith.mulf %p, %w : f32
      memref.store %r, %P[%s, %d] : {parts}
      memref.store %w, %E[%s, %d] : {parts}
    }}
    tile.reduce <sum> %P, %Out dim(0) : {parts}, {out}
    tile.reduce <sum> %E, %Total dim(0) : {parts}, {out}
    tile.parallel (%d) in ({dim}) {{
      %o = memref.load %Out[%d] : {out}
      %n = memref.load %Total[%d] : {out}
      %r = arith.divf %o, %n : f32
      memref.store %r, %Out[%d] : {out}
    }}
    tile.copy %Out, %O[%bb, %bg, %bh, %c0] : {out}, {q}
  }}
"""


if __name__ == "__main__":
    arguments = sys.argv[1:]
    producer = "--producer" in arguments
    arguments = [argument for argument in arguments if argument != "--producer"]
    options = {"--stages": 2, "--block-n": 64}
    for option in options:
        if option in arguments:
            at = arguments.index(option)
            options[option] = int(arguments[at + 1])
            del arguments[at : at + 2]
    if len(arguments) < 7:
        sys.exit(__doc__)
    name, batch, heads, kv_heads, tokens, dim, splits = arguments[0], *map(int, arguments[1:7])
    dtype = arguments[7] if len(arguments) > 7 else "f16"
    sys.stdout.write(flash_decoding(name, batch, heads, kv_heads, tokens, dim, splits, dtype, block_n=options["--block-n"], stages=options["--stages"], producer=producer))
