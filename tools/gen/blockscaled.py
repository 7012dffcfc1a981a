#!/usr/bin/env python3
"""Writes block-scaled fp8 GEMM tile programs (DeepSeek-V3's quantization): C = sum over K blocks
of 128 of (A_b B_b^T) * scale_a * scale_b, A f8E4M3FN [M, K] with a scale per row and 128-wide K
block (stored [K / 128, M], a block's scales of all rows together, as DeepGEMM keeps them), B
f8E4M3FN [N, K] with a scale per 128 x 128 block [N / 128, K / 128], C bf16 [M, N].

usage: blockscaled.py NAME M N K [--block BMxBN] [--threads T] [--stages S] [--unroll U] [--shared-scales]

A block takes a BM x 128 output tile (BN is 128: one weight scale a step). Each K step copies a
128-wide tile of A and of B and the step's column of activation scales, multiplies the tiles into
a fresh f32 fragment on the tensor cores (wgmma's fp8 accumulation is about 14 bits, so each
block's product is promoted to f32 before the next is added), and adds it scaled into the
running f32 accumulator."""
import argparse

GROUP = 128


def program(name, m, n, k, bm, bn, threads, stages, unroll=1, shared_scales=False):
    """`unroll` K blocks a step, each into a product fragment of its own: the tensor cores work on
    a later block's product while the threads add an earlier one's. `shared_scales`: each step's
    activation scales (a different one for each row a thread holds) are copied into a shared tile
    of the ring with its A and B tiles (issued ahead, as they are), so that the threads read them
    from shared memory rather than waiting on global loads a step; the step's one weight scale,
    the same address for every thread, stays a global load (a copy before the loop would keep the
    kernel from being made persistent)."""
    assert bn == GROUP and m % bm == 0 and n % bn == 0 and k % (GROUP * unroll) == 0
    shared = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    a, b = f"memref<{m}x{k}xf8E4M3FN>", f"memref<{n}x{k}xf8E4M3FN>"
    sa, sb, c = f"memref<{k // GROUP}x{m}xf32>", f"memref<{n // GROUP}x{k // GROUP}xf32>", f"memref<{m}x{n}xbf16>"
    a_tile, b_tile = f"memref<{bm}x{GROUP}xf8E4M3FN, {shared}>", f"memref<{bn}x{GROUP}xf8E4M3FN, {shared}>"
    acc, row = f"memref<{bm}x{bn}xf32, {fr}>", f"memref<{bm}xf32, {fr}>"
    tiles = "".join(f"    %As{u} = tile.alloc_shared : {a_tile}\n    %Bs{u} = tile.alloc_shared : {b_tile}\n" for u in range(unroll))
    parts = "".join(f"    %Part{u} = tile.alloc_fragment : {acc}\n" for u in range(unroll))
    sa_tile = f"memref<1x{bm}xf32, {shared}>"
    if shared_scales:
        rows = "".join(f"    %Sa{u} = tile.alloc_shared : {sa_tile}\n" for u in range(unroll))
    else:
        rows = "".join(f"    %Sa{u} = tile.alloc_fragment : {row}\n" for u in range(unroll))
    loads, products, sums = "", "", ""
    for u in range(unroll):
        loads += f"""      %kb{u} = arith.addi %kfirst, %c{u} : index
      %k{u} = arith.muli %kb{u}, %cbk : index
      tile.copy %A[%m0, %k{u}], %As{u} : {a}, {a_tile}
      tile.copy %B[%n0, %k{u}], %Bs{u} : {b}, {b_tile}
      tile.copy %SA[%kb{u}, %m0], %Sa{u} : {sa}, {sa_tile if shared_scales else row}
      %sb{u} = memref.load %SB[%bn, %kb{u}] : {sb}
"""
        products += f"""      tile.fill %Part{u}, %zero : {acc}
      tile.gemm %As{u}, %Bs{u}, %Part{u} {{transpose_b}} : {a_tile}, {b_tile}, {acc}
"""
        sums += f"""      tile.parallel (%i, %j) in ({bm}, {bn}) {{
        %p = memref.load %Part{u}[%i, %j] : {acc}
        {f"%s = memref.load %Sa{u}[%c0, %i] : {sa_tile}" if shared_scales else f"%s = memref.load %Sa{u}[%i] : {row}"}
        %o = memref.load %Acc[%i, %j] : {acc}
        %scale = arith.mulf %s, %sb{u} : f32
        %r = math.fma %p, %scale, %o : f32
        memref.store %r, %Acc[%i, %j] : {acc}
      }}
"""
    constants = "".join(f"  %c{u} = arith.constant {u} : index\n" for u in range(1, unroll))
    # Two or more product fragments beside the accumulator leave no registers for a producer
    # warpgroup (with one, 100 bytes spill at 128x128): the threads issue the ring's copies.
    schedule = ' attributes {tile.schedule = {producer = "none"}}' if unroll > 1 else ""
    loop = f"""    tile.pipelined %k = %c0 to %csteps stages({stages}){schedule} {{
      %kfirst = arith.muli %k, %cunroll : index
{loads}{products}{sums}    }}
"""
    return f"""// Block-scaled fp8 GEMM ({name}): {m}x{n}x{k}, A and B f8E4M3FN (B given N x K), a scale per
// row of A and 128-wide K block ([K/128, M]) and per 128 x 128 block of B ([N/128, K/128]), C bf16.
// Written by tools/gen/blockscaled.py: {bm}x{bn} output tiles on {threads} threads, K steps of 128 in a
// ring of {stages}, each step's product promoted to f32 and added scaled{"; the activation scales read from a shared tile of the ring" if shared_scales else ""}.
func.func @{name}(%A: {a}, %B: {b}, %SA: {sa}, %SB: {sb}, %C: {c}) {{
  %c0 = arith.constant 0 : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %cbk = arith.constant {GROUP} : index
  %csteps = arith.constant {k // GROUP // unroll} : index
  %cunroll = arith.constant {unroll} : index
  %gm = arith.constant {m // bm} : index
  %gn = arith.constant {n // bn} : index
  %zero = arith.constant 0.0 : f32
{constants}  tile.kernel grid(%gn, %gm) threads({threads}) (%bn, %bm) {{
{tiles}{parts}    %Acc = tile.alloc_fragment : {acc}
{rows}    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.fill %Acc, %zero : {acc}
{loop}    tile.copy %Acc, %C[%m0, %n0] : {acc}, {c}
  }}
  return
}}
"""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name")
    parser.add_argument("m", type=int)
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("--block", default="128x128")
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--unroll", type=int, default=1)
    parser.add_argument("--shared-scales", action="store_true")
    args = parser.parse_args()
    bm, bn = map(int, args.block.split("x"))
    print(program(args.name, args.m, args.n, args.k, bm, bn, args.threads, args.stages, args.unroll, args.shared_scales), end="")
