#!/usr/bin/env python3
"""Writes FlashAttention backward tile programs (non-causal): Q, K, V, O, dO as
[batch, heads, seq, head_dim] f16, the forward's log-sum-exp LSE [batch, heads, seq] f32 in base 2
of the scaled scores (lse = log2 sum_j 2^(q.k_j log2(e) / sqrt(d))), outputs dQ (f32, added
atomically), dK and dV (f16), and Delta [batch, heads, seq] f32 (rowsum(dO * O), scratch).

    tools/gen/attention_bwd.py NAME BATCH HEADS SEQ DIM [--block-n N] [--threads T] [--stages S]

The first kernel computes Delta for each 64-row query block and zeroes its rows of dQ. The second
gives each (key block, head, sequence) a block that walks the query blocks: S^T = K Q^T (so that P^T
and dS^T are accumulator tiles whose columns are the queries: LSE and Delta are column
statistics), P^T = 2^(S^T scale - lse), dV += P^T dO, dP^T = V dO^T, dS^T = P^T (dP^T - Delta) /
sqrt(d), dK += dS^T Q, and dQ += dS K into a fresh fragment added atomically to dQ. Q and dO are
each read by two gemms in two roles (B, and B transposed); the dS^T tile as A and A transposed."""
import argparse


def attention_bwd(name, batch, heads, seq, dim, block_m=64, block_n=64, threads=256, stages=2):
    assert seq % block_m == 0 and seq % block_n == 0
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    t4 = f"memref<{batch}x{heads}x{seq}x{dim}xf16>"
    g4 = f"memref<{batch}x{heads}x{seq}x{dim}xf32>"
    t3 = f"memref<{batch}x{heads}x{seq}xf32>"
    log2e = 1.4426950408889634
    scale2 = log2e / dim**0.5
    inverse = 1.0 / dim**0.5
    tile = lambda rows, columns: f"memref<{rows}x{columns}xf16, {ws}>"  # noqa: E731
    frag = lambda rows, columns, ty="f32": f"memref<{rows}x{columns}x{ty}, {fr}>"  # noqa: E731
    row = lambda rows: f"memref<{rows}xf32, {fr}>"  # noqa: E731
    return f"""// FlashAttention backward ({name}): {batch} x {heads} heads of {seq} tokens, head dim {dim}, f16,
// non-causal. Written by tools/gen/attention_bwd.py: Delta = rowsum(dO O) (and dQ zeroed) by one
// kernel; then a block a {block_n}-key block walks the {block_m}-query blocks, accumulating dK and dV in
// registers and adding each step's dQ atomically.
func.func @{name}(%Q: {t4}, %K: {t4}, %V: {t4}, %O: {t4}, %dO: {t4}, %LSE: {t3}, %Delta: {t3}, %dQ: {g4}, %dK: {t4}, %dV: {t4}) {{
  %c0 = arith.constant 0 : index
  %cbm = arith.constant {block_m} : index
  %cbn = arith.constant {block_n} : index
  %cqblocks = arith.constant {seq // block_m} : index
  %ckblocks = arith.constant {seq // block_n} : index
  %cheads = arith.constant {heads} : index
  %cbatch = arith.constant {batch} : index
  %zero = arith.constant 0.0 : f32
  %scale2 = arith.constant {scale2!r} : f32
  %inverse = arith.constant {inverse!r} : f32
  tile.kernel grid(%cqblocks, %cheads, %cbatch) threads(128) (%bq, %bh, %bb) {{
    %Of = tile.alloc_fragment : {frag(block_m, dim, "f16")}
    %dOf = tile.alloc_fragment : {frag(block_m, dim, "f16")}
    %Prod = tile.alloc_fragment : {frag(block_m, dim)}
    %D = tile.alloc_fragment : {row(block_m)}
    %q0 = arith.muli %bq, %cbm : index
    tile.copy %O[%bb, %bh, %q0, %c0], %Of : {t4}, {frag(block_m, dim, "f16")}
    tile.copy %dO[%bb, %bh, %q0, %c0], %dOf : {t4}, {frag(block_m, dim, "f16")}
    tile.parallel (%i, %d) in ({block_m}, {dim}) {{
      %o = memref.load %Of[%i, %d] : {frag(block_m, dim, "f16")}
      %g = memref.load %dOf[%i, %d] : {frag(block_m, dim, "f16")}
      %o32 = arith.extf %o : f16 to f32
      %g32 = arith.extf %g : f16 to f32
      %p = arith.mulf %o32, %g32 : f32
      memref.store %p, %Prod[%i, %d] : {frag(block_m, dim)}
    }}
    tile.reduce <sum> %Prod, %D dim(1) : {frag(block_m, dim)}, {row(block_m)}
    tile.copy %D, %Delta[%bb, %bh, %q0] : {row(block_m)}, {t3}
    tile.fill %Prod, %zero : {frag(block_m, dim)}
    tile.copy %Prod, %dQ[%bb, %bh, %q0, %c0] : {frag(block_m, dim)}, {g4}
  }}
  tile.kernel grid(%ckblocks, %cheads, %cbatch) threads({threads}) (%bk, %bh, %bb) {{
    %Ks = tile.alloc_shared : {tile(block_n, dim)}
    %Vs = tile.alloc_shared : {tile(block_n, dim)}
    %Qs = tile.alloc_shared : {tile(block_m, dim)}
    %dOs = tile.alloc_shared : {tile(block_m, dim)}
    %Ps = tile.alloc_shared : {tile(block_n, block_m)}
    %dSs = tile.alloc_shared : {tile(block_n, block_m)}
    %St = tile.alloc_fragment : {frag(block_n, block_m)}
    %dPt = tile.alloc_fragment : {frag(block_n, block_m)}
    %dKacc = tile.alloc_fragment : {frag(block_n, dim)}
    %dVacc = tile.alloc_fragment : {frag(block_n, dim)}
    %dQacc = tile.alloc_fragment : {frag(block_m, dim)}
    %L = tile.alloc_fragment : {row(block_m)}
    %Dl = tile.alloc_fragment : {row(block_m)}
    %k0 = arith.muli %bk, %cbn : index
    tile.copy %K[%bb, %bh, %k0, %c0], %Ks : {t4}, {tile(block_n, dim)}
    tile.copy %V[%bb, %bh, %k0, %c0], %Vs : {t4}, {tile(block_n, dim)}
    tile.fill %dKacc, %zero : {frag(block_n, dim)}
    tile.fill %dVacc, %zero : {frag(block_n, dim)}
    tile.pipelined %m = %c0 to %cqblocks stages({stages}) {{
      %q0 = arith.muli %m, %cbm : index
      tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : {t4}, {tile(block_m, dim)}
      tile.copy %dO[%bb, %bh, %q0, %c0], %dOs : {t4}, {tile(block_m, dim)}
      tile.copy %LSE[%bb, %bh, %q0], %L : {t3}, {row(block_m)}
      tile.copy %Delta[%bb, %bh, %q0], %Dl : {t3}, {row(block_m)}
      tile.fill %St, %zero : {frag(block_n, block_m)}
      tile.gemm %Ks, %Qs, %St {{transpose_b}} : {tile(block_n, dim)}, {tile(block_m, dim)}, {frag(block_n, block_m)}
      tile.parallel (%j, %i) in ({block_n}, {block_m}) {{
        %s = memref.load %St[%j, %i] : {frag(block_n, block_m)}
        %l = memref.load %L[%i] : {row(block_m)}
        %nl = arith.negf %l : f32
        %x = math.fma %s, %scale2, %nl : f32
        %p = math.exp2 %x fastmath<afn> : f32
        memref.store %p, %St[%j, %i] : {frag(block_n, block_m)}
      }}
      tile.copy %St, %Ps : {frag(block_n, block_m)}, {tile(block_n, block_m)}
      tile.gemm %Ps, %dOs, %dVacc : {tile(block_n, block_m)}, {tile(block_m, dim)}, {frag(block_n, dim)}
      tile.fill %dPt, %zero : {frag(block_n, block_m)}
      tile.gemm %Vs, %dOs, %dPt {{transpose_b}} : {tile(block_n, dim)}, {tile(block_m, dim)}, {frag(block_n, block_m)}
      tile.parallel (%j, %i) in ({block_n}, {block_m}) {{
        %p = memref.load %St[%j, %i] : {frag(block_n, block_m)}
        %dp = memref.load %dPt[%j, %i] : {frag(block_n, block_m)}
        %delta = memref.load %Dl[%i] : {row(block_m)}
        %diff = arith.subf %dp, %delta : f32
        %ds = arith.mulf %p, %diff : f32
        %scaled = arith.mulf %ds, %inverse : f32
        memref.store %scaled, %dPt[%j, %i] : {frag(block_n, block_m)}
      }}
      tile.copy %dPt, %dSs : {frag(block_n, block_m)}, {tile(block_n, block_m)}
      tile.gemm %dSs, %Qs, %dKacc : {tile(block_n, block_m)}, {tile(block_m, dim)}, {frag(block_n, dim)}
      tile.fill %dQacc, %zero : {frag(block_m, dim)}
      tile.gemm %dSs, %Ks, %dQacc {{transpose_a}} : {tile(block_n, block_m)}, {tile(block_n, dim)}, {frag(block_m, dim)}
      tile.copy %dQacc, %dQ[%bb, %bh, %q0, %c0] atomic <sum> : {frag(block_m, dim)}, {g4}
    }}
    tile.copy %dKacc, %dK[%bb, %bh, %k0, %c0] : {frag(block_n, dim)}, {t4}
    tile.copy %dVacc, %dV[%bb, %bh, %k0, %c0] : {frag(block_n, dim)}, {t4}
  }}
  return
}}
"""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name")
    for size in ("batch", "heads", "seq", "dim"):
        parser.add_argument(size, type=int)
    parser.add_argument("--block-n", type=int, default=64)
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--stages", type=int, default=2)
    args = parser.parse_args()
    print(attention_bwd(args.name, args.batch, args.heads, args.seq, args.dim, block_n=args.block_n, threads=args.threads, stages=args.stages), end="")
