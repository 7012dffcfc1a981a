#!/usr/bin/env python3
"""Writes FlashMLA decode tile programs (DeepSeek's multi-head latent attention, one query token a
sequence): Q [batch, heads, latent], Q_pe [batch, heads, rotary], the compressed KV cache
[batch, tokens, latent] with its rotary keys K_pe [batch, tokens, rotary], O [batch, heads, latent].

    tools/gen/mla.py NAME BATCH HEADS TOKENS [LATENT ROTARY DTYPE] [--paged]

A block takes 64 heads of one sequence on two warpgroups, which split the columns of the scores and
of the 64 x latent output. Each step reads a 64-token tile of the latent cache once, as the keys
(S = Q KV^T + Q_pe K_pe^T) and as the values (O += P KV): one shared tile in two gemm roles, P
stored by the threads into a shared tile for the second gemm."""
import sys


def mla(name, batch, heads, tokens, latent=512, rotary=64, dtype="bf16", block_h=64, block_n=64, stages=2, paged=False):
    """`paged`: the cache is pages of `block_n` tokens ([pages, block_n, *], pages = batch x
    tokens / block_n), a sequence's pages listed in a block table [batch, tokens / block_n] of i32."""
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    scale = 1.4426950408889634 / (latent + rotary) ** 0.5
    q = f"memref<{batch}x{heads}x{latent}x{dtype}>"
    q_pe = f"memref<{batch}x{heads}x{rotary}x{dtype}>"
    pages = batch * tokens // block_n
    if paged:
        kv = f"memref<{pages}x{block_n}x{latent}x{dtype}>"
        k_pe = f"memref<{pages}x{block_n}x{rotary}x{dtype}>"
        table = f"memref<{batch}x{tokens // block_n}xi32>"
    else:
        kv = f"memref<{batch}x{tokens}x{latent}x{dtype}>"
        k_pe = f"memref<{batch}x{tokens}x{rotary}x{dtype}>"
    tile = lambda rows, columns: f"memref<{rows}x{columns}x{dtype}, {ws}>"
    s = f"memref<{block_h}x{block_n}xf32, {fr}>"
    acc = f"memref<{block_h}x{latent}xf32, {fr}>"
    row = f"memref<{block_h}xf32, {fr}>"
    if paged:
        # An entry is taken modulo the pages, so that any table (the tests' random ones too) names
        # pages of the cache.
        table_argument = f"%Table: {table}, "
        cache_step = f"""      %entry = memref.load %Table[%bb, %j] : {table}
      %index = arith.index_cast %entry : i32 to index
      %page = arith.remui %index, %cpages : index
      tile.copy %KV[%page, %c0, %c0], %KVs : {kv}, {tile(block_n, latent)}
      tile.copy %Kpe[%page, %c0, %c0], %Kpes : {k_pe}, {tile(block_n, rotary)}"""
    else:
        table_argument = ""
        cache_step = f"""      %t0 = arith.muli %j, %cbn : index
      tile.copy %KV[%bb, %t0, %c0], %KVs : {kv}, {tile(block_n, latent)}
      tile.copy %Kpe[%bb, %t0, %c0], %Kpes : {k_pe}, {tile(block_n, rotary)}"""
    layout = f"paged ({block_n}-token pages of {pages}, a block table per sequence)" if paged else "contiguous"
    return f"""// FlashMLA decode ({name}): {batch} sequences x {heads} query heads of one token each against
// {tokens} cached tokens (latent {latent} + rotary {rotary}, one KV head for all query heads), {dtype},
// the cache {layout}.
// Written by tools/gen/mla.py: {block_h} heads a block on two warpgroups that split the columns of
// the scores and of the output; each {block_n}-token tile of the latent cache is read as the keys
// and as the values, with the online softmax between the gemms.
func.func @{name}(%Q: {q}, %Qpe: {q_pe}, %KV: {kv}, %Kpe: {k_pe}, {table_argument}%O: {q}) {{
  %c0 = arith.constant 0 : index
  %cbh = arith.constant {block_h} : index
  %cbn = arith.constant {block_n} : index
  %csteps = arith.constant {tokens // block_n} : index
  %cheads = arith.constant {heads // block_h} : index
  %cbatch = arith.constant {batch} : index
  %cpages = arith.constant {pages} : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant {scale!r} : f32
  %nscale = arith.constant {-scale!r} : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {{
    %Qs = tile.alloc_shared : {tile(block_h, latent)}
    %Qpes = tile.alloc_shared : {tile(block_h, rotary)}
    %KVs = tile.alloc_shared : {tile(block_n, latent)}
    %Kpes = tile.alloc_shared : {tile(block_n, rotary)}
    %Ps = tile.alloc_shared : {tile(block_h, block_n)}
    %S = tile.alloc_fragment : {s}
    %Acc = tile.alloc_fragment : {acc}
    %m = tile.alloc_fragment : {row}
    %mp = tile.alloc_fragment : {row}
    %l = tile.alloc_fragment : {row}
    %rs = tile.alloc_fragment : {row}
    %h0 = arith.muli %bh, %cbh : index
    tile.copy %Q[%bb, %h0, %c0], %Qs : {q}, {tile(block_h, latent)}
    tile.copy %Qpe[%bb, %h0, %c0], %Qpes : {q_pe}, {tile(block_h, rotary)}
    tile.fill %Acc, %zero : {acc}
    tile.fill %m, %ninf : {row}
    tile.fill %l, %zero : {row}
    tile.pipelined %j = %c0 to %csteps stages({stages}) {{
{cache_step}
      tile.fill %S, %zero : {s}
      tile.gemm %Qs, %KVs, %S {{transpose_b}} : {tile(block_h, latent)}, {tile(block_n, latent)}, {s}
      tile.gemm %Qpes, %Kpes, %S {{transpose_b}} : {tile(block_h, rotary)}, {tile(block_n, rotary)}, {s}
{online_softmax(block_h, block_n, latent, s, row, acc)}      tile.copy %S, %Ps : {s}, {tile(block_h, block_n)}
      tile.gemm %Ps, %KVs, %Acc : {tile(block_h, block_n)}, {tile(block_n, latent)}, {acc}
    }}
{normalize(block_h, latent, row, acc)}    tile.copy %Acc, %O[%bb, %h0, %c0] : {acc}, {q}
  }}
  return
}}
"""


def online_softmax(block_h, block_n, columns, s, row, acc):
    """One step of the online softmax (FlashAttention's) of the scores %S (`s`, block_h x block_n)
    against the running row maximum %m and sum %l (`row`): %mp keeps the old maximum, then the
    factor that rescales what %Acc (`acc`, block_h x columns) accumulated, which it rescales; %S
    becomes the exponentials, base 2, of the scores times %scale less the maximum's (%nscale is
    -%scale)."""
    return f"""      tile.copy %m, %mp : {row}, {row}
      tile.reduce <max> %S, %m dim(1) {{clear = false}} : {s}, {row}
      tile.parallel (%i, %k) in ({block_h}, {block_n}) {{
        %v = memref.load %S[%i, %k] : {s}
        %mi = memref.load %m[%i] : {row}
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %v, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
        memref.store %e, %S[%i, %k] : {s}
      }}
      tile.reduce <sum> %S, %rs dim(1) : {s}, {row}
      tile.parallel (%i) in ({block_h}) {{
        %old = memref.load %mp[%i] : {row}
        %new = memref.load %m[%i] : {row}
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : {row}
        %r = memref.load %rs[%i] : {row}
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : {row}
        memref.store %c, %mp[%i] : {row}
      }}
      tile.parallel (%i, %d) in ({block_h}, {columns}) {{
        %o = memref.load %Acc[%i, %d] : {acc}
        %c = memref.load %mp[%i] : {row}
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : {acc}
      }}
"""


def normalize(block_h, columns, row, acc):
    """%Acc divided by the running sum %l, row by row: the online softmax's end (`arcp`: each row's
    reciprocal once, then a multiply an element)."""
    return f"""    tile.parallel (%i, %d) in ({block_h}, {columns}) {{
      %o = memref.load %Acc[%i, %d] : {acc}
      %li = memref.load %l[%i] : {row}
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %Acc[%i, %d] : {acc}
    }}
"""


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    paged = "--paged" in sys.argv
    arguments = [argument for argument in sys.argv[1:] if argument != "--paged"]
    name, batch, heads, tokens = arguments[0], *map(int, arguments[1:4])
    latent, rotary = (int(arguments[4]), int(arguments[5])) if len(arguments) > 5 else (512, 64)
    dtype = arguments[6] if len(arguments) > 6 else "bf16"
    sys.stdout.write(mla(name, batch, heads, tokens, latent, rotary, dtype, paged=paged))
