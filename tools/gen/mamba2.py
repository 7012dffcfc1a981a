#!/usr/bin/env python3
"""Writes Mamba-2 chunk scan tile programs (the SSD output step of mamba-ssm's `_chunk_scan_fwd`,
the kernel TileLang's example times):

    tools/gen/mamba2.py NAME BATCH HEADS GROUPS TOKENS CHUNK HEADDIM DSTATE [--kernel scan|state|passing]
        [--block MxN] [--stages S] [--rows R]

`--kernel state` writes the chunk state step instead (each chunk's contribution to the SSM state,
mamba-ssm's `_chunk_state_fwd`) and `--kernel passing` the state passing step (the state entering
each chunk, `_state_passing_fwd`, a block carrying R rows of a head's state, all by default),
whose prev_states the chunk scan reads.

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


def mamba2_chunk_state(name, batch, heads, groups, tokens, chunk, headdim, dstate, stages=2):
    """The state each chunk adds (mamba-ssm's `_chunk_state_fwd`): for every chunk and head,
    states[p, n] = sum over the chunk's tokens l of x[l, p] B[l, n] exp(dA[last] - dA[l]) dt[l],
    in f32. A block takes a P x N tile of one head's chunk: x's tile, each token's row decayed and
    scaled, goes transposed into the register tile the gemm reads as A, and B's tile is read from
    shared memory as the TMA copy left it (RESULTS run 276: 1.37x mamba-ssm, where the threads'
    scaling of B into a shared tile for the gemm ran at 0.73x)."""
    block_p, block_n = min(headdim, 64), min(dstate, 128)
    assert tokens % chunk == 0 and chunk % 64 == 0 and headdim % block_p == 0 and dstate % block_n == 0
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    chunks = tokens // chunk
    block_l = 64
    p_blocks, n_blocks = headdim // block_p, dstate // block_n
    x = f"memref<{batch}x{tokens}x{heads}x{headdim}xf16>"
    b_tensor = f"memref<{batch}x{tokens}x{groups}x{dstate}xf16>"
    steps = f"memref<{batch}x{heads}x{chunks}x{chunk}xf16>"
    states = f"memref<{batch}x{chunks}x{heads}x{headdim}x{dstate}xf32>"
    x_tile = f"memref<{block_l}x{block_p}xf16, {ws}>"
    b_tile = f"memref<{block_l}x{block_n}xf16, {ws}>"
    column_tile = f"memref<{block_l}xf16, {ws}>"
    x_registers = f"memref<{block_p}x{block_l}xf16, {fr}>"
    acc = f"memref<{block_p}x{block_n}xf32, {fr}>"
    return f"""// Mamba-2 chunk state ({name}): batch {batch}, {heads} heads in {groups} group(s), {tokens} tokens in chunks
// of {chunk}, head dim {headdim}, state {dstate}. Written by tools/gen/mamba2.py: a block sums one head's chunk
// into a {block_p} x {block_n} tile of its state, {block_l} tokens a step.
func.func @{name}(%x: {x}, %B: {b_tensor}, %dt: {steps}, %dA: {steps}, %states: {states}) {{
  %c0 = arith.constant 0 : index
  %cheads = arith.constant {heads} : index
  %cgroup_heads = arith.constant {heads // groups} : index
  %ctiles = arith.constant {p_blocks * n_blocks} : index
  %cn_blocks = arith.constant {n_blocks} : index
  %cbatch_chunks = arith.constant {batch * chunks} : index
  %cbatch = arith.constant {batch} : index
  %cchunk = arith.constant {chunk} : index
  %clast = arith.constant {chunk - 1} : index
  %csteps = arith.constant {chunk // block_l} : index
  %cbp = arith.constant {block_p} : index
  %cbn = arith.constant {block_n} : index
  %cbl = arith.constant {block_l} : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant {LOG2E!r} : f32
  tile.kernel grid(%cheads, %ctiles, %cbatch_chunks) threads(128) (%h, %tile, %bc) {{
    %Xs = tile.alloc_shared : {x_tile}
    %Bs = tile.alloc_shared : {b_tile}
    %Xw = tile.alloc_fragment : {x_registers}
    %dAks = tile.alloc_shared : {column_tile}
    %dtks = tile.alloc_shared : {column_tile}
    %Acc = tile.alloc_fragment : {acc}
    %b = arith.remui %bc, %cbatch : index
    %ch = arith.divui %bc, %cbatch : index
    %pi = arith.divui %tile, %cn_blocks : index
    %ni = arith.remui %tile, %cn_blocks : index
    %g = arith.divui %h, %cgroup_heads : index
    %p0 = arith.muli %pi, %cbp : index
    %n0 = arith.muli %ni, %cbn : index
    %chunk0 = arith.muli %ch, %cchunk : index
    %last16 = memref.load %dA[%b, %h, %ch, %clast] : {steps}
    %last = arith.extf %last16 : f16 to f32
    tile.fill %Acc, %zero : {acc}
    tile.pipelined %k = %c0 to %csteps stages({stages}) {{
      %k0 = arith.muli %k, %cbl : index
      %l0 = arith.addi %chunk0, %k0 : index
      tile.copy %x[%b, %l0, %h, %p0], %Xs dims [1, 3] : {x}, {x_tile}
      tile.copy %B[%b, %l0, %g, %n0], %Bs dims [1, 3] : {b_tensor}, {b_tile}
      tile.copy %dA[%b, %h, %ch, %k0], %dAks : {steps}, {column_tile}
      tile.copy %dt[%b, %h, %ch, %k0], %dtks : {steps}, {column_tile}
      // x's rows (tokens) decayed to the chunk's end and scaled by the step, transposed into the
      // register tile the gemm reads as A.
      tile.parallel (%p, %l) in ({block_p}, {block_l}) {{
        %a = memref.load %dAks[%l] : {column_tile}
        %step = memref.load %dtks[%l] : {column_tile}
        %af = arith.extf %a : f16 to f32
        %stepf = arith.extf %step : f16 to f32
        %diff = arith.subf %last, %af : f32
        %dl = arith.mulf %diff, %log2e : f32
        %decay = math.exp2 %dl : f32
        %w = arith.mulf %decay, %stepf : f32
        %v = memref.load %Xs[%l, %p] : {x_tile}
        %vf = arith.extf %v : f16 to f32
        %vw = arith.mulf %vf, %w : f32
        %vh = arith.truncf %vw : f32 to f16
        memref.store %vh, %Xw[%p, %l] : {x_registers}
      }}
      tile.gemm %Xw, %Bs, %Acc : {x_registers}, {b_tile}, {acc}
    }}
    tile.copy %Acc, %states[%b, %ch, %h, %p0, %n0] : {acc}, {states}
  }}
  return
}}
"""


def mamba2_state_passing(name, batch, heads, tokens, chunk, headdim, dstate, block_p=None):
    """The state entering each chunk (mamba-ssm's `_state_passing_fwd`): s_0 = 0, and s_{c+1} =
    exp(dA_c[last]) s_c + states_c; prev_states[c] = s_c in f16 (what the chunk scan reads), the
    final state in f32. A block carries `block_p` rows (the whole head by default) of one head's
    headdim x dstate state across the chunks."""
    fr = "#tile.fragment"
    block_p = block_p or headdim
    assert headdim % block_p == 0
    chunks = tokens // chunk
    steps = f"memref<{batch}x{heads}x{chunks}x{chunk}xf16>"
    states = f"memref<{batch}x{chunks}x{heads}x{headdim}x{dstate}xf32>"
    prev = f"memref<{batch}x{chunks}x{heads}x{headdim}x{dstate}xf16>"
    final = f"memref<{batch}x{heads}x{headdim}x{dstate}xf32>"
    state = f"memref<{block_p}x{dstate}xf32, {fr}>"
    return f"""// Mamba-2 state passing ({name}): batch {batch}, {heads} heads, {chunks} chunks of {chunk} tokens, head dim
// {headdim}, state {dstate}. Written by tools/gen/mamba2.py: a block carries {block_p} rows of one head's state across the chunks.
func.func @{name}(%states: {states}, %dA: {steps}, %prev: {prev}, %final: {final}) {{
  %c0 = arith.constant 0 : index
  %cheads = arith.constant {heads} : index
  %cbatch = arith.constant {batch} : index
  %cchunks = arith.constant {chunks} : index
  %clast = arith.constant {chunk - 1} : index
  %csplits = arith.constant {headdim // block_p} : index
  %cbp = arith.constant {block_p} : index
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant {LOG2E!r} : f32
  tile.kernel grid(%cheads, %cbatch, %csplits) threads(128) (%h, %b, %r) {{
    %S = tile.alloc_fragment : {state}
    %T = tile.alloc_fragment : {state}
    %p0 = arith.muli %r, %cbp : index
    tile.fill %S, %zero : {state}
    tile.pipelined %c = %c0 to %cchunks stages(1) {{
      tile.copy %S, %prev[%b, %c, %h, %p0, %c0] : {state}, {prev}
      tile.copy %states[%b, %c, %h, %p0, %c0], %T : {states}, {state}
      %a16 = memref.load %dA[%b, %h, %c, %clast] : {steps}
      %a = arith.extf %a16 : f16 to f32
      %al = arith.mulf %a, %log2e : f32
      %decay = math.exp2 %al : f32
      tile.parallel (%p, %n) in ({block_p}, {dstate}) {{
        %s = memref.load %S[%p, %n] : {state}
        %t = memref.load %T[%p, %n] : {state}
        %sd = arith.mulf %s, %decay : f32
        %u = arith.addf %sd, %t : f32
        memref.store %u, %S[%p, %n] : {state}
      }}
    }}
    tile.copy %S, %final[%b, %h, %p0, %c0] : {state}, {final}
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
    kind = options.get("--kernel", "scan")
    if len(args) != 8 or kind not in ("scan", "state", "passing"):
        sys.exit(__doc__)
    name, numbers = args[0], list(map(int, args[1:]))
    stages = int(options.get("--stages", "2"))
    if kind == "state":
        sys.stdout.write(mamba2_chunk_state(name, *numbers, stages=stages))
    elif kind == "passing":
        batch, heads, _, tokens, chunk, headdim, dstate = numbers
        rows = int(options["--rows"]) if "--rows" in options else None
        sys.stdout.write(mamba2_state_passing(name, batch, heads, tokens, chunk, headdim, dstate, block_p=rows))
    else:
        block_m, block_n = map(int, options.get("--block", "64x64").split("x"))
        sys.stdout.write(mamba2_chunk_scan(name, *numbers, block_m=block_m, block_n=block_n, stages=stages))
