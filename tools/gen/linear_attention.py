#!/usr/bin/env python3
"""Writes chunked linear attention tile programs (causal, no decay or normalization:
o_t = sum over s <= t of (q_t . k_s) v_s): Q, K, V as [batch, heads, tokens, dim], O the same in f32.

    tools/gen/linear_attention.py NAME BATCH HEADS TOKENS DIM [DTYPE]

A block takes one head of one sequence and walks its chunks of 64 tokens on two warpgroups,
carrying the dim x dim state H = sum of K^T V over the chunks before: a chunk's output is
Q H + mask(Q K^T) V, then H += K^T V. K is read by two gemms in two roles (B transposed for the
scores, A transposed for the state); the state goes from its f32 fragment into a shared tile (the
threads' stores) that the next chunk's gemm reads."""
import sys


def linear_attention(name, batch, heads, tokens, dim, dtype="f16", chunk=64):
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    tensor = f"memref<{batch}x{heads}x{tokens}x{dim}x{dtype}>"
    out = f"memref<{batch}x{heads}x{tokens}x{dim}xf32>"
    tile = f"memref<{chunk}x{dim}x{dtype}, {ws}>"
    square = f"memref<{chunk}x{chunk}x{dtype}, {ws}>"
    state_tile = f"memref<{dim}x{dim}x{dtype}, {ws}>"
    scores = f"memref<{chunk}x{chunk}xf32, {fr}>"
    acc = f"memref<{chunk}x{dim}xf32, {fr}>"
    state = f"memref<{dim}x{dim}xf32, {fr}>"
    return f"""// Chunked linear attention ({name}): {batch} x {heads} heads of {tokens} tokens, dim {dim},
// {dtype}, causal, no decay. Written by tools/gen/linear_attention.py: one block a head walks
// its chunks of {chunk} tokens carrying the state H = K^T V of the chunks before.
func.func @{name}(%Q: {tensor}, %K: {tensor}, %V: {tensor}, %O: {out}) {{
  %c0 = arith.constant 0 : index
  %cchunk = arith.constant {chunk} : index
  %cchunks = arith.constant {tokens // chunk} : index
  %cheads = arith.constant {heads} : index
  %cbatch = arith.constant {batch} : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%cheads, %cbatch) threads(256) (%bh, %bb) {{
    %Qs = tile.alloc_shared : {tile}
    %Ks = tile.alloc_shared : {tile}
    %Vs = tile.alloc_shared : {tile}
    %Ps = tile.alloc_shared : {square}
    %Hs = tile.alloc_shared : {state_tile}
    %S = tile.alloc_fragment : {scores}
    %Acc = tile.alloc_fragment : {acc}
    %H = tile.alloc_fragment : {state}
    tile.fill %H, %zero : {state}
    tile.copy %H, %Hs : {state}, {state_tile}
    tile.pipelined %c = %c0 to %cchunks stages(2) {{
      %t0 = arith.muli %c, %cchunk : index
      tile.copy %Q[%bb, %bh, %t0, %c0], %Qs : {tensor}, {tile}
      tile.copy %K[%bb, %bh, %t0, %c0], %Ks : {tensor}, {tile}
      tile.copy %V[%bb, %bh, %t0, %c0], %Vs : {tensor}, {tile}
      tile.fill %S, %zero : {scores}
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {tile}, {tile}, {scores}
      tile.parallel (%i, %j) in ({chunk}, {chunk}) {{
        %s = memref.load %S[%i, %j] : {scores}
        %future = arith.cmpi ugt, %j, %i : index
        %masked = arith.select %future, %zero, %s : f32
        memref.store %masked, %S[%i, %j] : {scores}
      }}
      tile.copy %S, %Ps : {scores}, {square}
      tile.fill %Acc, %zero : {acc}
      tile.gemm %Qs, %Hs, %Acc : {tile}, {state_tile}, {acc}
      tile.gemm %Ps, %Vs, %Acc : {square}, {tile}, {acc}
      tile.copy %Acc, %O[%bb, %bh, %t0, %c0] : {acc}, {out}
      tile.gemm %Ks, %Vs, %H {{transpose_a}} : {tile}, {tile}, {state}
      tile.copy %H, %Hs : {state}, {state_tile}
    }}
  }}
  return
}}
"""


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    name, batch, heads, tokens, dim = sys.argv[1], *map(int, sys.argv[2:6])
    dtype = sys.argv[6] if len(sys.argv) > 6 else "f16"
    sys.stdout.write(linear_attention(name, batch, heads, tokens, dim, dtype))
