#!/usr/bin/env python3
"""Writes W4A16 GEMM tile programs: C = A * dequant(B)^T, A f16 [M, K], B signed 4-bit weights
[N, K] stored two to a byte (tile-pack-narrow-types), an f16 scale per 128 weights of a row
[N, K / 128], C f16 [M, N]. Each K step copies a tile of A, a tile of packed weights and the
tile's column of scales, widens and scales the weights in a tile.parallel into the f16 tile the
gemm reads (wgmma on sm_90a). With --split S, S blocks share each output tile's K and add their
products into an f32 C atomically (decode shapes: few output tiles, a long K). With --scales-kn
the scales are stored [K / 128, N] (a group's scales of all rows together, as GPTQ and Marlin keep
them): a tile's scales are then one row of 16-byte pieces rather than a column of 2-byte rows.

With --registers the weights are widened into a register tile that the gemm reads as A (wgmma
takes A from registers, never B): the product is computed transposed, C^T = dequant(B) * A^T, an
output tile's weight rows as the instruction's M (64 a warpgroup) and its activation rows as N (as
few as 8: decode shapes waste no tensor-core rows), and written out through a shared tile in C's
orientation. No widened tile goes through shared memory, so no fence or barrier sits between the
widening and the gemm. Scales are stored [K / 128, N]. --split S then asks `tile-split-k` for S
blocks of a cluster a tile (their sums added in the cluster, C stays f16). BM is the activation
rows of a tile, BN its weight rows. --unroll U takes U K steps an iteration, each widened into a
register tile of its own, so that one step's widening runs beside the previous step's products.

usage: dequant.py NAME M N K [--block BMxBNxBK] [--threads T] [--stages S] [--split S] [--scales-kn]
       dequant.py NAME M N K --registers [--block BMxBNxBK] [--threads T] [--stages S] [--split S] [--unroll U]
"""
import argparse

GROUP = 128


def widening(rows, columns, q_tile, s_tile, scale_index, widened, w_tile, packed="%Bq", scales="%Ss"):
    """The loop that widens and scales a tile of 4-bit weights (`packed`, one scale a row in
    `scales`) into `widened` (a shared tile, or a register tile wgmma reads as A)."""
    return f"""      tile.parallel (%i, %j) in ({rows}, {columns}) {{
        %q = memref.load {packed}[%i, %j] : {q_tile}
        %w = arith.sitofp %q : i4 to f16
        %scale = memref.load {scales}[{scale_index}] : {s_tile}
        %d = arith.mulf %w, %scale : f16
        memref.store %d, {widened}[%i, %j] : {w_tile}
      }}
"""


def program(name, m, n, k, bm, bn, bk, threads, stages, split, scales_kn=False):
    assert n % bn == 0 and k % (bk * split) == 0 and k % GROUP == 0 and GROUP % bk == 0
    shared = "#gpu.address_space<workgroup>"
    a_tile = f"memref<{bm}x{bk}xf16, {shared}>"
    q_tile = f"memref<{bn}x{bk}xi4, {shared}>"
    d_tile = f"memref<{bn}x{bk}xf16, {shared}>"
    s_tile = f"memref<1x{bn}xf16, {shared}>" if scales_kn else f"memref<{bn}x1xf16, {shared}>"
    acc = f"memref<{bm}x{bn}xf32, #tile.fragment>"
    out = "f32" if split > 1 else "f16"
    a, b, s, c = (f"memref<{m}x{k}xf16>", f"memref<{n}x{k}xi4>", f"memref<{k // GROUP}x{n}xf16>" if scales_kn else f"memref<{n}x{k // GROUP}xf16>", f"memref<{m}x{n}x{out}>")
    scales = ", scales stored [K/128, N]" if scales_kn else ""
    scale_offsets, scale_index = ("%g, %n0", "%c0, %i") if scales_kn else ("%n0, %g", "%i, %c0")
    steps = k // bk // split
    if split > 1:
        grid = "%gn, %gm, %gs"
        ids = "%bn, %bm, %bs"
        first = "    %kb = arith.muli %bs, %csteps : index\n"
        step = "%kstep = arith.addi %kb, %k : index\n      %k0 = arith.muli %kstep, %cbk : index"
        store = f"tile.copy %Cf, %C[%m0, %n0] atomic <sum> : {acc}, {c}"
        what = f"; {split} blocks split K, adding into C atomically"
    else:
        grid, ids, first = "%gn, %gm", "%bn, %bm", ""
        step = "%k0 = arith.muli %k, %cbk : index"
        store = f"tile.copy %Cf, %C[%m0, %n0] : {acc}, {c}"
        what = ""
    return f"""// W4A16 GEMM {m}x{n}x{k} (tools/gen/dequant.py): {bm}x{bn}x{bk} tiles, {threads} threads, {stages} stages{what};
// B's signed 4-bit weights widened and scaled (one f16 scale a {GROUP} weights of a row{scales}) into
// the f16 tile the gemm reads.
func.func @{name}(%A: {a}, %B: {b}, %S: {s}, %C: {c}) {{
  %c0 = arith.constant 0 : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %cbk = arith.constant {bk} : index
  %cgroup = arith.constant {GROUP} : index
  %csteps = arith.constant {steps} : index
  %gn = arith.constant {n // bn} : index
  %gm = arith.constant {(m + bm - 1) // bm} : index
  %gs = arith.constant {split} : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid({grid}) threads({threads}) ({ids}) {{
    %As = tile.alloc_shared : {a_tile}
    %Bq = tile.alloc_shared : {q_tile}
    %Ss = tile.alloc_shared : {s_tile}
    %Bd = tile.alloc_shared : {d_tile}
    %Cf = tile.alloc_fragment : {acc}
    tile.fill %Cf, %zero : {acc}
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
{first}    tile.pipelined %k = %c0 to %csteps stages({stages}) {{
      {step}
      %g = arith.divui %k0, %cgroup : index
      tile.copy %A[%m0, %k0], %As : {a}, {a_tile}
      tile.copy %B[%n0, %k0], %Bq : {b}, {q_tile}
      tile.copy %S[{scale_offsets}], %Ss : {s}, {s_tile}
{widening(bn, bk, q_tile, s_tile, scale_index, "%Bd", d_tile)}      tile.gemm %As, %Bd, %Cf {{transpose_b}} : {a_tile}, {d_tile}, {acc}
    }}
    {store}
  }}
  return
}}
"""


def registers_program(name, m, n, k, bm, bn, bk, threads, stages, split, unroll=1):
    """`unroll` K steps an iteration, each widened into a register tile of its own: the tensor cores
    multiply one step's weights while the threads widen the next (with one tile, the widening waits
    for the previous step's products, which read the registers it overwrites)."""
    assert n % bn == 0 and k % (bk * unroll) == 0 and GROUP % bk == 0
    shared = "#gpu.address_space<workgroup>"
    a_tile = f"memref<{bm}x{bk}xf16, {shared}>"
    q_tile = f"memref<{bn}x{bk}xi4, {shared}>"
    s_tile = f"memref<1x{bn}xf16, {shared}>"
    w_tile = f"memref<{bn}x{bk}xf16, #tile.fragment>"
    acc = f"memref<{bn}x{bm}xf32, #tile.fragment>"
    c_tile = f"memref<{bm}x{bn}xf16, {shared}>"
    a, b, s, c = (f"memref<{m}x{k}xf16>", f"memref<{n}x{k}xi4>", f"memref<{k // GROUP}x{n}xf16>", f"memref<{m}x{n}xf16>")
    schedule = f" attributes {{tile.schedule = {{split = {split}}}}}" if split > 1 else ""
    what = f"; K split over the {split} blocks of a cluster" if split > 1 else ""
    what += f";\n// {unroll} K steps an iteration, each widened into a register tile of its own" if unroll > 1 else ""
    names = [""] if unroll == 1 else [str(u) for u in range(unroll)]
    tiles = "".join(f"""    %As{u} = tile.alloc_shared : {a_tile}
    %Bq{u} = tile.alloc_shared : {q_tile}
    %Ss{u} = tile.alloc_shared : {s_tile}
    %Wd{u} = tile.alloc_fragment : {w_tile}
""" for u in names)
    body = "      %kfirst = arith.muli %k, %cunroll : index\n" if unroll > 1 else ""
    for index, u in enumerate(names):
        step = f"%kstep{u} = arith.addi %kfirst, %c{index} : index\n      %k0{u} = arith.muli %kstep{u}, %cbk : index" if unroll > 1 else "%k0 = arith.muli %k, %cbk : index"
        body += f"""      {step}
      %g{u} = arith.divui %k0{u}, %cgroup : index
      tile.copy %A[%m0, %k0{u}], %As{u} : {a}, {a_tile}
      tile.copy %B[%n0, %k0{u}], %Bq{u} : {b}, {q_tile}
      tile.copy %S[%g{u}, %n0], %Ss{u} : {s}, {s_tile}
"""
    for u in names:
        body += widening(bn, bk, q_tile, s_tile, "%c0, %i", f"%Wd{u}", w_tile, f"%Bq{u}", f"%Ss{u}")
        body += f"      tile.gemm %Wd{u}, %As{u}, %Ct {{transpose_b}} : {w_tile}, {a_tile}, {acc}\n"
    constants = "".join(f"  %c{u} = arith.constant {u} : index\n" for u in range(1, unroll)) + (f"  %cunroll = arith.constant {unroll} : index\n" if unroll > 1 else "")
    return f"""// W4A16 GEMM {m}x{n}x{k} (tools/gen/dequant.py --registers): tiles of {bm} activation rows, {bn}
// weight rows and {bk} of K, {threads} threads, {stages} stages{what}; B's signed 4-bit weights
// widened and scaled (one f16 scale a {GROUP} weights of a row, scales stored [K/128, N]) into a
// register tile, wgmma's A; the product computed transposed and written out through shared memory.
func.func @{name}(%A: {a}, %B: {b}, %S: {s}, %C: {c}) {{
  %c0 = arith.constant 0 : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %cbk = arith.constant {bk} : index
  %cgroup = arith.constant {GROUP} : index
  %csteps = arith.constant {k // bk // unroll} : index
  %gn = arith.constant {n // bn} : index
  %gm = arith.constant {(m + bm - 1) // bm} : index
  %zero = arith.constant 0.0 : f32
{constants}  tile.kernel grid(%gn, %gm) threads({threads}) (%bn, %bm) {{
{tiles}    %Ct = tile.alloc_fragment : {acc}
    %Cs = tile.alloc_shared : {c_tile}
    tile.fill %Ct, %zero : {acc}
    %m0 = arith.muli %bm, %cbm : index
    %n0 = arith.muli %bn, %cbn : index
    tile.pipelined %k = %c0 to %csteps stages({stages}){schedule} {{
{body}    }}
    tile.parallel (%i, %j) in ({bn}, {bm}) {{
      %v = memref.load %Ct[%i, %j] : {acc}
      %h = arith.truncf %v : f32 to f16
      memref.store %h, %Cs[%j, %i] : {c_tile}
    }}
    tile.copy %Cs, %C[%m0, %n0] : {c_tile}, {c}
  }}
  return
}}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("m", type=int)
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("--block", default="64x64x128")
    parser.add_argument("--threads", type=int, default=128)
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--split", type=int, default=1)
    parser.add_argument("--scales-kn", action="store_true")
    parser.add_argument("--registers", action="store_true")
    parser.add_argument("--unroll", type=int, default=1, help="--registers: K steps an iteration, each widened into its own register tile")
    args = parser.parse_args()
    bm, bn, bk = (int(x) for x in args.block.split("x"))
    if args.registers:
        print(registers_program(args.name, args.m, args.n, args.k, bm, bn, bk, args.threads, args.stages, args.split, args.unroll), end="")
        return
    print(program(args.name, args.m, args.n, args.k, bm, bn, bk, args.threads, args.stages, args.split, args.scales_kn), end="")


if __name__ == "__main__":
    main()
