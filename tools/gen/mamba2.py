#!/usr/bin/env python3
"""Writes Mamba-2 chunk scan tile programs (the SSD output step of mamba-ssm's `_chunk_scan_fwd`,
the kernel TileLang's example times):

    tools/gen/mamba2.py NAME BATCH HEADS GROUPS TOKENS CHUNK HEADDIM DSTATE [--block MxN] [--stages S]

Inputs as mamba-ssm lays them out, all f16: cb [batch, chunks, groups, chunk, chunk] (C B^T within
each chunk), x [batch, tokens, heads, headdim], dt and dA_cumsum [batch, heads, chunks, chunk],
C [batch, tokens, groups, dstate], prev_states [batch, chunks, heads, headdim, dstate] (the state
entering each chunk), D [heads]. Output y [batch, tokens, heads, headdim], f16:

    y[t] = exp(dA[t]) C[t] . prev_state  +  sum over s <= t in the chunk of
           cb[t, s] exp(dA[t] - dA[s]) dt[s] x[s]  +  D x[t]

A block takes an M x N tile of one head's chunk (M tokens, N channels): the state's part by a
pipelined loop over dstate in steps of 64, then the chunk's causal part as a pipelined loop over the K-token steps up to the
diagonal, whose A operand (cb decayed and masked) is computed in registers. x and C are read as
tiles across the middle of their tensors (`dims [1, 3]`: the tokens and channels of one head)."""
import sys

LOG2E = 1.4426950408889634


def mamba2_chunk_scan(name, batch, heads, groups, tokens, chunk, headdim, dstate, block_m=64, block_n=64, stages=2):
    assert tokens % chunk == 0 and chunk % block_m == 0 and headdim % block_n == 0 and heads % groups == 0
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    chunks = tokens // chunk
    block_k = block_m
    m_blocks, n_blocks = chunk // block_m, headdim // block_n
    cb = f"memref<{batch}x{chunks}x{groups}x{chunk}x{chunk}xf16>"
    x = f"memref<{batch}x{tokens}x{heads}x{headdim}xf16>"
    steps = f"memref<{batch}x{heads}x{chunks}x{chunk}xf16>"
    c = f"memref<{batch}x{tokens}x{groups}x{dstate}xf16>"
    prev = f"memref<{batch}x{chunks}x{heads}x{headdim}x{dstate}xf16>"
    d = f"memref<{heads}xf16>"
    state_step = min(dstate, 64)
    assert dstate % state_step == 0
    c_tile = f"memref<{block_m}x{state_step}xf16, {ws}>"
    state_tile = f"memref<{block_n}x{state_step}xf16, {ws}>"
    cb_tile = f"memref<{block_m}x{block_k}xf16, {ws}>"
    cb_regs = f"memref<{block_m}x{block_k}xf16, {fr}>"
    x_tile = f"memref<{block_k}x{block_n}xf16, {ws}>"
    acc = f"memref<{block_m}x{block_n}xf32, {fr}>"
    rows = f"memref<{block_m}xf32, {fr}>"
    columns = f"memref<{block_k}xf32, {fr}>"
    column_tile = f"memref<{block_k}xf16, {ws}>"
    return f"""// Mamba-2 chunk scan ({name}): batch {batch}, {heads} heads in {groups} group(s), {tokens} tokens in
// chunks of {chunk}, head dim {headdim}, state {dstate}, f16. Written by tools/gen/mamba2.py: a block
// computes {block_m} tokens x {block_n} channels of one head's chunk: the entering state's part, then the
// chunk's causal part over {block_k}-token steps up to the diagonal, then D x.
func.func @{name}(%cb: {cb}, %x: {x}, %dt: {steps}, %dA: {steps}, %C: {c}, %prev: {prev}, %D: {d}, %y: {x}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cheads = arith.constant {heads} : index
  %cgroup_heads = arith.constant {heads // groups} : index
  %ctiles = arith.constant {m_blocks * n_blocks} : index
  %cn_blocks = arith.constant {n_blocks} : index
  %cbatch_chunks = arith.constant {batch * chunks} : index
  %cbatch = arith.constant {batch} : index
  %cchunk = arith.constant {chunk} : index
  %cbm = arith.constant {block_m} : index
  %cbn = arith.constant {block_n} : index
  %cbk = arith.constant {block_k} : index
  %cstate_step = arith.constant {state_step} : index
  %cstate_steps = arith.constant {dstate // state_step} : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant {LOG2E!r} : f32
  tile.kernel grid(%cheads, %ctiles, %cbatch_chunks) threads(128) (%h, %tile, %bc) {{
    %Cs = tile.alloc_shared : {c_tile}
    %Ss = tile.alloc_shared : {state_tile}
    %CBs = tile.alloc_shared : {cb_tile}
    %Xs = tile.alloc_shared : {x_tile}
    %dAks = tile.alloc_shared : {column_tile}
    %dtks = tile.alloc_shared : {column_tile}
    %CB = tile.alloc_fragment : {cb_regs}
    %Acc = tile.alloc_fragment : {acc}
    %R = tile.alloc_fragment : {acc}
    %dAm = tile.alloc_fragment : {rows}
    %dAk = tile.alloc_fragment : {columns}
    %dtk = tile.alloc_fragment : {columns}
    %b = arith.remui %bc, %cbatch : index
    %ch = arith.divui %bc, %cbatch : index
    %mi = arith.divui %tile, %cn_blocks : index
    %ni = arith.remui %tile, %cn_blocks : index
    %g = arith.divui %h, %cgroup_heads : index
    %m0 = arith.muli %mi, %cbm : index
    %n0 = arith.muli %ni, %cbn : index
    %chunk0 = arith.muli %ch, %cchunk : index
    %t0 = arith.addi %chunk0, %m0 : index
    // The residual's loads first: nothing waits for them until D x is added.
    tile.copy %x[%b, %t0, %h, %n0], %R dims [1, 3] : {x}, {acc}
    // The entering state's part: exp(dA[t]) C[t] . prev_state.
    tile.copy %dA[%b, %h, %ch, %m0], %dAm : {steps}, {rows}
    // Over the state in steps of {state_step}, so that its tiles arrive asynchronously (by TMA on
    // sm_90a), the next step's while this one's product runs.
    tile.fill %Acc, %zero : {acc}
    tile.pipelined %s = %c0 to %cstate_steps stages(2) {{
      %d0 = arith.muli %s, %cstate_step : index
      tile.copy %C[%b, %t0, %g, %d0], %Cs dims [1, 3] : {c}, {c_tile}
      tile.copy %prev[%b, %ch, %h, %n0, %d0], %Ss : {prev}, {state_tile}
      tile.gemm %Cs, %Ss, %Acc {{transpose_b}} : {c_tile}, {state_tile}, {acc}
    }}
    tile.parallel (%i, %j) in ({block_m}, {block_n}) {{
      %a = memref.load %dAm[%i] : {rows}
      %al = arith.mulf %a, %log2e : f32
      %scale = math.exp2 %al : f32
      %v = memref.load %Acc[%i, %j] : {acc}
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %Acc[%i, %j] : {acc}
    }}
    // The chunk's causal part, over the steps up to the diagonal.
    %steps = arith.addi %mi, %c1 : index
    tile.pipelined %k = %c0 to %steps stages({stages}) {{
      %k0 = arith.muli %k, %cbk : index
      %s0 = arith.addi %chunk0, %k0 : index
      tile.copy %cb[%b, %ch, %g, %m0, %k0], %CBs : {cb}, {cb_tile}
      tile.copy %x[%b, %s0, %h, %n0], %Xs dims [1, 3] : {x}, {x_tile}
      tile.copy %dA[%b, %h, %ch, %k0], %dAks : {steps}, {column_tile}
      tile.copy %dt[%b, %h, %ch, %k0], %dtks : {steps}, {column_tile}
      tile.copy %CBs, %CB : {cb_tile}, {cb_regs}
      tile.copy %dAks, %dAk : {column_tile}, {columns}
      tile.copy %dtks, %dtk : {column_tile}, {columns}
      tile.parallel (%i, %j) in ({block_m}, {block_k}) {{
        %am = memref.load %dAm[%i] : {rows}
        %ak = memref.load %dAk[%j] : {columns}
        %step = memref.load %dtk[%j] : {columns}
        %diff = arith.subf %am, %ak : f32
        %dl = arith.mulf %diff, %log2e : f32
        %decay = math.exp2 %dl : f32
        %w = memref.load %CB[%i, %j] : {cb_regs}
        %wf = arith.extf %w : f16 to f32
        %wd = arith.mulf %wf, %decay : f32
        %ws = arith.mulf %wd, %step : f32
        %row = arith.addi %m0, %i : index
        %col = arith.addi %k0, %j : index
        %past = arith.cmpi uge, %row, %col : index
        %kept = arith.select %past, %ws, %zero : f32
        %kh = arith.truncf %kept : f32 to f16
        memref.store %kh, %CB[%i, %j] : {cb_regs}
      }}
      tile.gemm %CB, %Xs, %Acc : {cb_regs}, {x_tile}, {acc}
    }}
    // D x, and out.
    tile.parallel (%i, %j) in ({block_m}, {block_n}) {{
      %dh = memref.load %D[%h] : {d}
      %df = arith.extf %dh : f16 to f32
      %r = memref.load %R[%i, %j] : {acc}
      %v = memref.load %Acc[%i, %j] : {acc}
      %rd = arith.mulf %r, %df : f32
      %o = arith.addf %v, %rd : f32
      memref.store %o, %Acc[%i, %j] : {acc}
    }}
    tile.copy %Acc, %y[%b, %t0, %h, %n0] dims [1, 3] : {acc}, {x}
  }}
  return
}}
"""


def flops(batch, heads, tokens, chunk, headdim, dstate):
    """The FLOPs TileLang's example counts: the causal half of each chunk's product and the
    state's product."""
    return 2.0 * batch * tokens * chunk * heads * headdim * 0.5 + 2.0 * batch * tokens * heads * headdim * dstate


if __name__ == "__main__":
    args = sys.argv[1:]
    options = {}
    while len(args) >= 2 and args[-2].startswith("--"):
        options[args[-2]] = args[-1]
        args = args[:-2]
    if len(args) != 8:
        sys.exit(__doc__)
    name, numbers = args[0], list(map(int, args[1:]))
    block_m, block_n = map(int, options.get("--block", "64x64").split("x"))
    stages = int(options.get("--stages", "2"))
    sys.stdout.write(mamba2_chunk_scan(name, *numbers, block_m=block_m, block_n=block_n, stages=stages))
