#!/usr/bin/env python3
"""Writes FlashAttention-forward tile programs: Q, K, V, O as [batch, heads, seq, head_dim] tensors,
one block per (64-row query block, head, batch), an online softmax over key blocks."""
import sys

def fp8_ping_pong_small():
    """The fp8 benchmark's FlashAttention-3 schedule (its order, ping-pong warpgroups; 128 query
    rows on two warpgroups, each storing and reading its own rows of P) on 300 tokens in 64-key
    blocks (ragged: the last one masked)."""
    return attention("attention_fp8_pingpong_small", 1, 2, 300, 128, "f16", False, block_m=128, block_n=64, threads=256, stages=3, fp8=True, pingpong=True, p_registers=False)


def attention(name, batch, heads, seq, dim, dtype, causal, block_m=64, block_n=64, threads=128, stages=2, min_blocks=None, overlap=True, producer=None, sparse=None, every_block=False, kv_heads=None, lse=False, varlen=None, total=None, fp8=False, longest_first=None, pingpong=False, persistent=False, p_registers=None, ring_ends=False, saturate=False):
    """`sparse`: block-sparse attention, each query block visiting `sparse` key blocks that a
    table [query blocks, sparse] of i32 lists (an entry taken modulo the key blocks); FA2's order,
    non-causal, a sequence of whole key blocks. The mask runs only on the key blocks that reach
    past the block's first query (causal) or the sequence's end, in an `scf.if`; `every_block`
    masks every key block (the form before). `kv_heads`: grouped-query attention, K and V with
    that many heads, each shared by heads / kv_heads consecutive query heads. `lse`: the rows'
    log-sum-exp of the scaled scores also written, to a [batch, heads, seq] f32 tensor after O
    (what a backward pass reads). `varlen`: sequences of different lengths packed one after another
    (varlen APIs' layout): Q, K, V, O as [tokens, heads, head_dim] tensors of `total` tokens, the
    tiles spanning dimensions 0 and 2; `seq` is the longest sequence. With "offsets" the kernel reads
    the sequences' cumulative offsets (batch + 1 of them, i32, the first 0); with "lengths" (the test
    programs, on random inputs) it reads a length a sequence, made valid as |L| * 13 tokens at most
    `seq`, and sums them. A block past its sequence's end visits no key block (FlashAttention-3's
    order: one); rows past the end are not written. `fp8`: Q, K and V in f8E4M3FN (`dtype` is O's
    type), V given transposed ([batch, heads, head_dim, seq]) so that both gemms read K-major 8-bit
    operands from shared tiles, as wgmma takes them; P rounded to f8E4M3FN (FlashAttention-3's fp8
    path), by default (`p_registers`) an 8-bit fragment that the second gemm reads from registers
    (the compiler exchanges its bytes within lane quads: 4-9% faster than through a shared tile,
    RESULTS run 288), with `p_registers=False` a shared tile. `longest_first`: the grid's slowest
    dimension walks the query blocks from the last (causally the longest: the most key blocks) to
    the first, so that the blocks a multiprocessor starts last are the shortest; by default where
    that measured faster on the H200 (RESULTS run 213: +5-12% for causal kernels of at least 16
    query blocks a head, -3 to -18% below, where other heads' keys come between a head's blocks);
    not for persistent kernels, whose walk the compiler evens out (run 280).
    `pingpong`: the loop's schedule asks for the two consumer warpgroups to issue their gemms in
    turns (FlashAttention-3's ping-pong: one's softmax runs under the other's products; 256
    threads, FlashAttention-3's order). `persistent`: the loop's schedule asks for a persistent kernel
    (one block a multiprocessor walking the (query block, head, batch) items in order, the ring
    running on from one item into the next and each item's Q loaded ahead into a ring of its own:
    short sequences, whose blocks would otherwise each load Q and fill the ring for a few key
    blocks); causal, each item runs its own key blocks (with `longest_first` the walk takes every
    head's longest items first). `ring_ends` (FlashAttention-3's order, fixed lengths; causal and
    persistent too): the first key block's K and the last block's V come through the loop's ring
    instead of tiles of their own, so that larger blocks fit in shared memory (head dim 256; a
    persistent kernel's rings at head dim 128): the loop runs one step more, a step issuing S of
    its own key block and P V of the previous one (P zero at the first step, V's block clamped at
    0), the extra step's keys all past the sequence (causal: past the diagonal) and masked.
    `saturate` (fp8): P rounded by a saturating copy (`tile.copy ... saturate`: values past 448
    become 448, as CUDA's fp8 conversion does) instead of clamping the exponentials at 1 first."""
    assert not (varlen and (sparse or lse)), "varlen with a block table or the log-sum-exp"
    assert not (fp8 and (sparse or varlen or lse)), "fp8 without a block table, varlen or the log-sum-exp"
    assert fp8 or not p_registers, "P in 8-bit registers with fp8 inputs"
    assert not ring_ends or (overlap and not varlen and not sparse), "ring_ends: FlashAttention-3's order, fixed lengths"
    p_registers = fp8 and p_registers is not False
    # The inputs' element type (O's is `dtype`).
    idt = "f8E4M3FN" if fp8 else dtype
    total = total or batch * seq
    # Where the tiles are: [batch, heads, seq, dim] at (%bb, head, row, 0), or packed tokens
    # [total, heads, dim] at (%s0 + row, head, 0) spanning dimensions 0 and 2.
    def load(tensor, head, row, dst, tensor_type, tile_type, indent):
        if not varlen:
            return f"tile.copy %{tensor}[%bb, {head}, {row}, %c0], %{dst} : {tensor_type}, {tile_type}"
        tag = row.lstrip("%")
        return f"%t_{tensor}_{tag} = arith.addi %s0, {row} : index\n{indent}tile.copy %{tensor}[%t_{tensor}_{tag}, {head}, %c0], %{dst} dims [0, 2] : {tensor_type}, {tile_type}"
    t4 = f"memref<{total}x{heads}x{dim}x{dtype}>" if varlen else f"memref<{batch}x{heads}x{seq}x{dim}x{dtype}>"
    tq = f"memref<{batch}x{heads}x{seq}x{dim}x{idt}>" if fp8 else t4
    kv_heads = kv_heads or heads
    kv4 = f"memref<{total}x{kv_heads}x{dim}x{dtype}>" if varlen else f"memref<{batch}x{kv_heads}x{seq}x{dim}x{idt}>"
    vt4 = f"memref<{batch}x{kv_heads}x{dim}x{seq}x{idt}>" if fp8 else kv4
    # The sequence's length and its key blocks: constants, or computed in the kernel (varlen).
    length = "%len" if varlen else "%cseq"
    key_blocks = "%nkv" if varlen else "%cnk"
    # The K/V head of the block's query head.
    grouped = kv_heads != heads
    kv = "%bkv" if grouped else "%bh"
    group_constant = f"\n  %cgroup = arith.constant {heads // kv_heads} : index" if grouped else ""
    kv_index = "\n    %bkv = arith.divui %bh, %cgroup : index" if grouped else ""
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    # A producer warpgroup asked for (or declined) in the loop's schedule, else the plan's choice;
    # the consumer warpgroups' gemms issued in turns (ping-pong) where asked.
    assert not persistent or (not varlen and not sparse), "persistent: fixed lengths"
    entries = ([f'producer = "{producer}"'] if producer else []) + (["pingpong = true"] if pingpong else []) + (["persistent = true"] if persistent else [])
    schedule = f" attributes {{tile.schedule = {{{', '.join(entries)}}}}}" if entries else ""
    nq = -(-seq // block_m)
    if longest_first is None:
        longest_first = causal and not varlen and nq >= 16 and not persistent
    nk = -(-seq // block_n)
    scale = (1.0 / dim ** 0.5) * 1.4426950408889634
    rsqrt_constant = f"\n  %rsqrt_dim = arith.constant {1.0 / dim ** 0.5!r} : f32" if lse else ""
    occupancy = f" attributes {{min_blocks_per_multiprocessor = {min_blocks} : i64}}" if min_blocks else ""
    causal_text = ""
    if causal:
        # Key blocks up to the diagonal: min(nk, ((bq + 1) * block_m + block_n - 1) / block_n).
        causal_text = """
    %qend = arith.addi %q0, %cbm : index
    %qend_up = arith.addi %qend, %cbn_1 : index
    %diag = arith.divui %qend_up, %cbn : index
    %kblocks = arith.minui %diag, KEY_BLOCKS : index
    %q0_1 = arith.addi %q0, %c1 : index
    %mask_limit = arith.minui %q0_1, LENGTH : index""".replace("KEY_BLOCKS", key_blocks).replace("LENGTH", length)
        bound = "%kblocks"
    else:
        bound = key_blocks
    mask_rule = f"%masked = arith.cmpi uge, %key, {length} : index"
    if causal:
        mask_rule += """
        %query = arith.addi %q0, %i : index
        %future = arith.cmpi ugt, %key, %query : index
        %masked_any = arith.ori %masked, %future : i1"""
        masked = "%masked_any"
    else:
        masked = "%masked"
    # Keys past the sequence (and, causally, past the query) do not take part; a non-causal
    # sequence of whole key blocks needs no mask.
    def mask(k0):
        if not causal and seq % block_n == 0 and not varlen and not ring_ends:
            return ""
        parallel = f"""
      tile.parallel (%i, %k) in ({block_m}, {block_n}) {{{{
        %key = arith.addi {k0}, %k : index
        {mask_rule}
        %s = memref.load %S[%i, %k] : memref<{block_m}x{block_n}xf32, {fr}>
        %v = arith.select {masked}, %ninf, %s : f32
        memref.store %v, %S[%i, %k] : memref<{block_m}x{block_n}xf32, {fr}>
      }}}}""".replace("{{", "{").replace("}}", "}")
        if every_block:
            return parallel
        # Only a block whose last key is past the first query (causal) or the sequence's end has
        # keys to mask: the blocks below the diagonal skip the elementwise pass.
        tag = k0.lstrip("%")
        limit = "%mask_limit" if causal else length
        return f"""
      %kend_{tag} = arith.addi {k0}, %cbn : index
      %partial_{tag} = arith.cmpi ugt, %kend_{tag}, {limit} : index
      scf.if %partial_{tag} {{{parallel.replace(chr(10), chr(10) + "  ")}
      }}"""
    # The online softmax of one key block in S: the new row maximum, the exponentials, the running
    # sum, and in %mp the factor that rescales what was accumulated with the old maximum. With fp8
    # the exponentials are clamped at 1, as exact arithmetic has them (s <= m): P's values are then
    # known to stay inside f8E4M3FN's range, and the compiler rounds them without the overflow
    # check (the clamp after exp2 measured faster than one of its argument: run 228); with
    # `saturate` the copy into P saturates instead, which sm_90a's conversion does by itself.
    assert fp8 or not saturate, "saturate: fp8"
    exponential = "%e0" if fp8 and not saturate else "%e"
    clamp = "\n        %pmax = arith.constant 1.0 : f32\n        %e = arith.minimumf %e0, %pmax : f32" if fp8 and not saturate else ""
    # How S becomes P: with `saturate` the copy itself keeps P inside f8E4M3FN's range.
    to_p = " saturate" if saturate else ""
    softmax = f"""
      tile.copy %m, %mp : memref<{block_m}xf32, {fr}>, memref<{block_m}xf32, {fr}>
      tile.reduce <max> %S, %m dim(1) {{clear = false}} : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}xf32, {fr}>
      tile.parallel (%i, %k) in ({block_m}, {block_n}) {{
        %s = memref.load %S[%i, %k] : memref<{block_m}x{block_n}xf32, {fr}>
        %mi = memref.load %m[%i] : memref<{block_m}xf32, {fr}>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        {exponential} = math.exp2 %d fastmath<afn> : f32{clamp}
        memref.store %e, %S[%i, %k] : memref<{block_m}x{block_n}xf32, {fr}>
      }}
      tile.reduce <sum> %S, %rs dim(1) : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}xf32, {fr}>
      tile.parallel (%i) in ({block_m}) {{
        %old = memref.load %mp[%i] : memref<{block_m}xf32, {fr}>
        %new = memref.load %m[%i] : memref<{block_m}xf32, {fr}>
        %diff = arith.subf %old, %new : f32
        %d = arith.mulf %diff, %scale : f32
        %c = math.exp2 %d fastmath<afn> : f32
        %li = memref.load %l[%i] : memref<{block_m}xf32, {fr}>
        %r = memref.load %rs[%i] : memref<{block_m}xf32, {fr}>
        %n = arith.mulf %li, %c : f32
        %n2 = arith.addf %n, %r : f32
        memref.store %n2, %l[%i] : memref<{block_m}xf32, {fr}>
        memref.store %c, %mp[%i] : memref<{block_m}xf32, {fr}>
      }}"""
    shared = lambda rows: f"memref<{rows}x{dim}x{idt}, {ws}>"
    # What the second gemm reads: P (a fragment; with fp8 a shared tile of 8-bit floats) and V
    # (with fp8 transposed: head dim x keys).
    p_tile = f"memref<{block_m}x{block_n}x{idt}, {fr if p_registers else ws}>" if fp8 else f"memref<{block_m}x{block_n}x{dtype}, {fr}>"
    v_tile = f"memref<{dim}x{block_n}x{idt}, {ws}>" if fp8 else shared(block_n)
    def v_load(key, dst, indent):
        if fp8:
            return f"tile.copy %V[%bb, {kv}, %c0, {key}], %{dst} : {vt4}, {v_tile}"
        return load('V', kv, key, dst, kv4, shared(block_n), indent)
    v_copy = v_load('%k0', 'Vs', '      ')
    p_name, pv_transpose = ("%P" if p_registers else "%Ps", " {transpose_b}") if fp8 else ("%P", "")
    rescale = f"""
      tile.parallel (%i, %d) in ({block_m}, {dim}) {{
        %o = memref.load %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
        %c = memref.load %mp[%i] : memref<{block_m}xf32, {fr}>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
      }}"""
    # A step of FlashAttention-3's order: S of the key block at row `k_row`, P V of the one at
    # `v_row` (the previous block), then S's mask, softmax and the rescale, and P.
    def overlapped_step(k_row, v_row):
        return f"""{load('K', kv, k_row, 'Ks', kv4, shared(block_n), '      ')}
      {v_load(v_row, 'Vs', '      ')}
      tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm {p_name}, %Vs, %Acc{pv_transpose} : {p_tile}, {v_tile}, memref<{block_m}x{dim}xf32, {fr}>{mask(k_row)}{softmax}{rescale}
      tile.copy %S, {p_name}{to_p} : memref<{block_m}x{block_n}xf32, {fr}>, {p_tile}"""
    # The loop's last step: a constant where a persistent kernel needs its step count.
    last_key_block = f"%last = arith.constant {nk - 1} : index" if persistent and not causal else f"%last = arith.subi {bound}, %c1 : index"
    if ring_ends:
        beyond = "the diagonal" if causal else "the sequence"
        order = f"""// FlashAttention-3's order through the ring alone: step j issues S = Q K^T of key block j and
// O += P V of block j - 1 (P zero at the first step), and computes block j's softmax while the
// second product runs; the last step's keys lie past {beyond}, all masked."""
        loop = f"""
    {f"%steps = arith.constant {nk + 1} : index" if persistent and not causal else f"%steps = arith.addi {bound}, %c1 : index"}
    tile.fill {p_name}, %zero_p : {p_tile}
    tile.pipelined %j = %c0 to %steps stages({stages}){schedule} {{
      %k0 = arith.muli %j, %cbn : index
      %jp = arith.subi %j, %c1 : index
      %jv = arith.maxsi %jp, %c0 : index
      %kv0 = arith.muli %jv, %cbn : index
      {overlapped_step('%k0', '%kv0')}
    }}
"""
    elif overlap and not sparse:
        order = """// FlashAttention-3's order: an iteration issues S = Q K^T of the next key block and O += P V of
// this one, and computes the softmax of the next block while the second product runs; the first
// block's S is computed before the loop and the last block's P V after it."""
        loop = f"""
    {last_key_block}
    // The first key block's scores and softmax.
    {load('K', kv, '%c0', 'K0s', kv4, shared(block_n), '    ')}
    tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
    tile.gemm %Qs, %K0s, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>{mask("%c0")}{softmax}
    tile.copy %S, {p_name}{to_p} : memref<{block_m}x{block_n}xf32, {fr}>, {p_tile}
    tile.pipelined %j = %c0 to %last stages({stages}){schedule} {{
      %k0 = arith.muli %j, %cbn : index
      %k1 = arith.addi %k0, %cbn : index
      {overlapped_step('%k1', '%k0')}
    }}
    // The last key block's P V.
    %kl = arith.muli %last, %cbn : index
    {v_load('%kl', 'Vls', '    ')}
    tile.gemm {p_name}, %Vls, %Acc{pv_transpose} : {p_tile}, {v_tile}, memref<{block_m}x{dim}xf32, {fr}>
"""
    elif sparse:
        order = f"""// Block-sparse: each query block visits the {sparse} key blocks its row of %Blocks lists (an entry
// modulo the {nk} key blocks), in FlashAttention-2's order."""
        table = f"memref<{nq}x{sparse}xi32>"
        loop = f"""
    tile.pipelined %j = %c0 to %csparse stages({stages}){schedule} {{
      %entry = memref.load %Blocks[%bq, %j] : {table}
      %index = arith.index_cast %entry : i32 to index
      %kb = arith.remui %index, %cnk : index
      %k0 = arith.muli %kb, %cbn : index
      tile.copy %K[%bb, {kv}, %k0, %c0], %Ks : {kv4}, {shared(block_n)}
      tile.copy %V[%bb, {kv}, %k0, %c0], %Vs : {kv4}, {shared(block_n)}
      tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>{softmax}
      tile.copy %S, %P : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}x{block_n}x{dtype}, {fr}>{rescale}
      tile.gemm %P, %Vs, %Acc : memref<{block_m}x{block_n}x{dtype}, {fr}>, {shared(block_n)}, memref<{block_m}x{dim}xf32, {fr}>
    }}
"""
    else:
        order = "// FlashAttention-2's order: an iteration computes S, its softmax, then O += P V."
        loop = f"""
    tile.pipelined %j = %c0 to {bound} stages({stages}){schedule} {{
      %k0 = arith.muli %j, %cbn : index
      {load('K', kv, '%k0', 'Ks', kv4, shared(block_n), '      ')}
      {v_copy}
      tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>{mask("%k0")}{softmax}
      tile.copy %S, {p_name}{to_p} : memref<{block_m}x{block_n}xf32, {fr}>, {p_tile}{rescale}
      tile.gemm {p_name}, %Vs, %Acc{pv_transpose} : {p_tile}, {v_tile}, memref<{block_m}x{dim}xf32, {fr}>
    }}
"""
    table_argument = f"%Blocks: memref<{nq}x{sparse}xi32>, " if sparse else ""
    # The log-sum-exp of row i of the scaled scores: m_i / sqrt(dim) + ln(l_i) (m the running
    # maximum of the unscaled scores, l the sum of exp2((s - m) * scale)).
    t3 = f"memref<{batch}x{heads}x{seq}xf32>"
    lse_argument = f", %LSE: {t3}" if lse else ""
    lse_text = f"""
    %lse = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    tile.parallel (%i) in ({block_m}) {{
      %mi = memref.load %m[%i] : memref<{block_m}xf32, {fr}>
      %li = memref.load %l[%i] : memref<{block_m}xf32, {fr}>
      %logl = math.log %li : f32
      %lse_i = math.fma %mi, %rsqrt_dim, %logl : f32
      memref.store %lse_i, %lse[%i] : memref<{block_m}xf32, {fr}>
    }}
    tile.copy %lse, %LSE[%bb, %bh, %q0] : memref<{block_m}xf32, {fr}>, {t3}""" if lse else ""
    sparse_count = f"\n  %csparse = arith.constant {sparse} : index" if sparse else ""
    grid = f"tile.kernel grid(%cnq, %cheads, %cbatch) threads({threads}) (%bq, %bh, %bb)"
    reverse = ""
    if longest_first:
        grid = f"tile.kernel grid(%cheads, %cbatch, %cnq) threads({threads}) (%bh, %bb, %bz)"
        reverse = f"""%last_q = arith.constant {nq - 1} : index
    %bq = arith.subi %last_q, %bz : index
    """
    # O's rows divided by their sums with `arcp`: a thread takes each of its rows' reciprocal once
    # and multiplies (FlashAttention's epilogue) instead of an IEEE division an element, in the
    # epilogue, which overlaps no gemm.
    epilogue = f"""    tile.parallel (%i, %d) in ({block_m}, {dim}) {{
      %o = memref.load %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
      %li = memref.load %l[%i] : memref<{block_m}xf32, {fr}>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      memref.store %r, %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
    }}
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<{block_m}x{dim}xf32, {fr}>, {t4}"""
    sequence, sequence_argument, varlen_constants = "", "", ""
    if varlen:
        # The sequence's first token and length; blocks past its end do nothing.
        if varlen == "offsets":
            # Offsets that decrease, fall below 0, or run past the packed tokens or the longest
            # sequence, give an empty or a shortened sequence: no block loops on for ever or reads
            # and writes outside its sequence.
            # Declared a partition of Q's tokens: launchers check the offsets before a launch.
            sequence_argument = f"%Offsets: memref<{batch + 1}xi32> {{tile.offsets = array<i64: 0, 0>}}, "
            varlen_constants = f"\n  %ctotal = arith.constant {total} : index"
            sequence = f"""%bb1 = arith.addi %bb, %c1 : index
    %first = memref.load %Offsets[%bb] : memref<{batch + 1}xi32>
    %after = memref.load %Offsets[%bb1] : memref<{batch + 1}xi32>
    %start = arith.index_cast %first : i32 to index
    %s0 = arith.maxsi %start, %c0 : index
    %s1 = arith.index_cast %after : i32 to index
    %end = arith.minsi %s1, %ctotal : index
    %span = arith.subi %end, %s0 : index
    %tokens = arith.maxsi %span, %c0 : index
    %len = arith.minsi %tokens, %cseq : index
"""
        else:
            sequence_argument = f"%Lengths: memref<{batch}xi32>, "
            varlen_constants = "\n  %z32 = arith.constant 0 : i32\n  %c13_i32 = arith.constant 13 : i32"
            sequence = f"""%bb1 = arith.addi %bb, %c1 : index
    %walk:2 = scf.for %b = %c0 to %bb1 step %c1 iter_args(%start = %c0, %length = %c0) -> (index, index) {{
      %lb = memref.load %Lengths[%b] : memref<{batch}xi32>
      %neg = arith.subi %z32, %lb : i32
      %abs = arith.maxsi %lb, %neg : i32
      %tokens = arith.muli %abs, %c13_i32 : i32
      %wide = arith.index_cast %tokens : i32 to index
      %capped = arith.minui %wide, %cseq : index
      %next = arith.addi %start, %length : index
      scf.yield %next, %capped : index, index
    }}
    %s0 = arith.addi %walk#0, %c0 : index
    %len = arith.addi %walk#1, %c0 : index
"""
        # A block past its sequence's end runs no key block (FlashAttention-3's order: one, whose
        # rows it does not write), so that the loop stays at the kernel's top level, where a
        # producer warpgroup can fill its ring.
        sequence += f"""    %len_up = arith.addi %len, %cbn_1 : index
    %nk_len = arith.divui %len_up, %cbn : index
    %active = arith.cmpi ult, %q0, %len : index
    %nkv = arith.select %active, %nk_len, {"%c1" if overlap else "%c0"} : index
    """
        epilogue = f"""    tile.parallel (%i, %d) in ({block_m}, {dim}) {{
      %o = memref.load %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
      %li = memref.load %l[%i] : memref<{block_m}xf32, {fr}>
      %r = arith.divf %o, %li fastmath<arcp> : f32
      %row = arith.addi %q0, %i : index
      %inside = arith.cmpi ult, %row, %len : index
      scf.if %inside {{
        %h = arith.truncf %r : f32 to {dtype}
        %token = arith.addi %s0, %row : index
        memref.store %h, %O[%token, %bh, %d] : {t4}
      }}
    }}"""
    # The overlapped order keeps the first key block and the last value block in tiles of their own.
    p_zero = f"\n  %zero_p = arith.constant 0.0 : {idt if fp8 else dtype}" if ring_ends else ""
    edge_tiles = f"""
    %K0s = tile.alloc_shared : {shared(block_n)}
    %Vls = tile.alloc_shared : {v_tile}""" if overlap and not sparse and not ring_ends else ""
    return f"""
// {name}: {'causal' if causal else 'non-causal'} attention, {batch}x{heads} heads of {'up to ' if varlen else ''}{seq} tokens, head dim {dim}, {'f8E4M3FN Q, K, V (V transposed) into ' if fp8 else ''}{dtype}.
{order}
func.func @{name}(%Q: {tq}, %K: {kv4}, %V: {vt4}, {table_argument}{sequence_argument}%O: {t4}{lse_argument}) {{
  %c0 = arith.constant 0 : index{sparse_count}
  %c1 = arith.constant 1 : index
  %cnq = arith.constant {nq} : index
  %cnk = arith.constant {nk} : index
  %cheads = arith.constant {heads} : index{group_constant}
  %cbatch = arith.constant {batch} : index
  %cbm = arith.constant {block_m} : index
  %cbn = arith.constant {block_n} : index
  %cbn_1 = arith.constant {block_n - 1} : index
  %cseq = arith.constant {seq} : index
  %zero = arith.constant 0.0 : f32{p_zero}
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant {scale!r} : f32
  %nscale = arith.constant {-scale!r} : f32{rsqrt_constant}{varlen_constants}
  {grid}{occupancy} {{
    %Qs = tile.alloc_shared : {shared(block_m)}
    %Ks = tile.alloc_shared : {shared(block_n)}
    %Vs = tile.alloc_shared : {v_tile}{edge_tiles}
    %S = tile.alloc_fragment : memref<{block_m}x{block_n}xf32, {fr}>
    {p_name} = {"tile.alloc_shared" if fp8 and not p_registers else "tile.alloc_fragment"} : {p_tile}
    %Acc = tile.alloc_fragment : memref<{block_m}x{dim}xf32, {fr}>
    %m = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %mp = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %l = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %rs = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    {reverse}%q0 = arith.muli %bq, %cbm : index{kv_index}
    {sequence}{load('Q', '%bh', '%q0', 'Qs', tq, shared(block_m), '    ')}
    tile.fill %Acc, %zero : memref<{block_m}x{dim}xf32, {fr}>
    tile.fill %m, %ninf : memref<{block_m}xf32, {fr}>
    tile.fill %l, %zero : memref<{block_m}xf32, {fr}>{causal_text}{loop}{epilogue}{lse_text}
  }}
  return
}}
"""

if __name__ == "__main__":
    which = sys.argv[1]
    if which == "example":
        print("// FlashAttention forward on [batch, heads, sequence, head dim] tensors (generated by")
        print("// tools/gen/attention.py): head dims 64 and 128, f16 and bf16, causal and not, a sequence of")
        print("// 1000 tokens (not a multiple of the 64-row blocks: the last blocks clip, and keys past the")
        print("// end are masked). Two gemms a loop, the second with its A operand in registers.")
        # Key blocks small enough that the shared tiles fit NVIDIA's Vulkan limit (48 KiB) beside the
        # cooperative matrices' staging; one kernel in FlashAttention-2's order.
        print(attention("attention_d64_f16", 2, 4, 1000, 64, "f16", False, block_n=32))
        print(attention("attention_d64_bf16_causal", 2, 4, 1000, 64, "bf16", True, block_n=32))
        print(attention("attention_d128_f16_causal", 2, 4, 1000, 128, "f16", True, block_n=32, overlap=False))
        print(attention("attention_d128_bf16", 2, 4, 1000, 128, "bf16", False, block_n=32))
    elif which in ("test", "test-causal"):
        causal = which == "test-causal"
        print("// A small FlashAttention forward on 4-D tensors (generated by tools/gen/attention.py): a ragged")
        print("// sequence of 100 tokens in 32-row blocks; checked against an f64 reference (cpu_reference.rs),")
        print("// the interpreter and lavapipe.")
        print(attention("attention_4d_causal" if causal else "attention_4d", 1, 2, 100, 32, "f16", causal, 32, 32, 64))
    elif which == "test-lse":
        print("// A small causal FlashAttention forward that also writes each row's log-sum-exp of the scaled")
        print("// scores (generated by tools/gen/attention.py test-lse; what a backward pass reads): checked")
        print("// against an f64 reference (cpu_reference.rs), the interpreter and lavapipe.")
        print(attention("attention_lse_small", 1, 2, 100, 32, "f16", True, 32, 32, 64, lse=True))
    elif which == "test-varlen":
        print("// FlashAttention forward over sequences of different lengths packed one after another")
        print("// (generated by tools/gen/attention.py test-varlen): Q, K, V, O as [tokens, heads, head dim]")
        print("// tensors of 300 tokens holding 3 sequences of up to 100, in 32-row blocks. The lengths come")
        print("// from the random inputs made valid (|L| * 13 tokens, at most 100; empty sequences and sequences")
        print("// shorter than a block happen); a block past its sequence's end does nothing, and rows past it")
        print("// are not written (they are the next sequence's). Non-causal and causal; checked against an f64")
        print("// reference (cpu_reference.rs), the interpreter and lavapipe.")
        print(attention("attention_varlen_small", 3, 2, 100, 32, "f16", False, 32, 32, 64, varlen="lengths"))
        print(attention("attention_varlen_causal_small", 3, 2, 100, 32, "f16", True, 32, 32, 64, varlen="lengths"))
    elif which == "test-varlen-offsets":
        # The offsets form on 64-row blocks of one warpgroup and 128-key blocks of head dim 128 (a
        # ring that makes the block run alone), asking for a producer warpgroup: what interp.rs
        # runs after sm_90a's loop decisions, on offsets it sets (not random inputs).
        print(attention("attention_varlen_offsets_small", 3, 1, 260, 128, "f16", False, 64, 128, 128, overlap=False, producer="warpgroup", varlen="offsets", total=400))
    elif which == "test-fp8":
        print("// FlashAttention forward on f8E4M3FN Q, K and V (generated by tools/gen/attention.py test-fp8):")
        print("// V given transposed, P rounded to f8E4M3FN into a shared tile, so that both gemms read K-major")
        print("// 8-bit operands (wgmma's e4m3 on sm_90a); O in f16. A ragged sequence of 112 tokens in 64-row")
        print("// blocks, non-causal and causal, and FlashAttention-3's schedule on 300 tokens; then P kept in")
        print("// registers as an 8-bit fragment (on sm_90a wgmma's A operand, its bytes exchanged within lane")
        print("// quads), in FlashAttention-2's order on 64-row blocks and FlashAttention-3's on 128 rows of two")
        print("// warpgroups, causal. Checked against an f64 reference (cpu_reference.rs: all but the")
        print("// ping-pong one) and the interpreter; the first two also fit lavapipe's 32 KiB. Last, P rounded by a")
        print("// saturating copy instead of exponentials clamped at 1, in registers and shared.")
        print(attention("attention_fp8_small", 1, 2, 112, 64, "f16", False, 64, 64, 128, overlap=False, fp8=True, p_registers=False))
        print(attention("attention_fp8_causal_small", 1, 2, 112, 64, "f16", True, 64, 64, 128, overlap=False, fp8=True, p_registers=False))
        print(fp8_ping_pong_small())
        print(attention("attention_fp8_registers_small", 1, 2, 112, 64, "f16", False, 64, 64, 128, overlap=False, fp8=True))
        print(attention("attention_fp8_registers_causal_small", 1, 2, 112, 64, "f16", True, block_m=128, block_n=64, threads=256, stages=2, fp8=True))
        print(attention("attention_fp8_saturate_small", 1, 2, 112, 64, "f16", False, block_m=128, block_n=64, threads=256, stages=2, fp8=True, saturate=True))
        print(attention("attention_fp8_causal_saturate_small", 1, 2, 112, 64, "f16", True, 64, 64, 128, overlap=False, fp8=True, p_registers=False, saturate=True))
    elif which == "test-fp8-pingpong":
        print(fp8_ping_pong_small())
    elif which == "test-fp8-producer":
        # The benchmark's fp8 block shape (128 query rows on two warpgroups, 128-key blocks in a ring
        # of 2) on 384 tokens: its registers make the block run alone, so sm_90a's decisions give it
        # a producer warpgroup; interp.rs runs it after them.
        print(attention("attention_fp8_producer_small", 1, 1, 384, 128, "f16", False, block_m=128, block_n=128, threads=256, stages=2, overlap=False, fp8=True, p_registers=False))
    elif which == "test-persistent":
        print("// Persistent FlashAttention forward (generated by tools/gen/attention.py test-persistent): the")
        print("// loop's schedule asks for a persistent kernel; on sm_90a one block a multiprocessor walks the")
        print("// (query block, head, batch) items in order, each item's Q loaded once into a ring of its own.")
        print("// 136 items (more than the 132 blocks): of 4 key blocks in a ring of 3, head dim 64 (every tile")
        print("// TMA's, so a producer warpgroup issues the copies); and of 2 key blocks, head dim 32 (the ring")
        print("// deeper than an item: Q's ring of 3; V's 64-byte rows the threads' cp.async), the kernel's")
        print("// threads issuing the copies; and FlashAttention-3's schedule on 136 items of 128 rows (its")
        print("// first S and last P V at an item's first and last steps, the warpgroups' turns running on")
        print("// across the items); and causal on 144 items, longest first, each its own number of key blocks")
        print("// (2 to 8: the flattened loop's steps are the block's items' counts summed, a producer")
        print("// warpgroup carrying the item and its count from step to step), in both orders (1 to 7 steps")
        print("// in FlashAttention-3's, whose first and last key blocks' work stands around the loop); and")
        print("// FlashAttention-3's order with the first K and last V through the ring (an item's loop one step")
        print("// longer, P zeroed at its first step), on one warpgroup and on two in ping-pong, and causal.")
        print("// Checked against an f64 reference (cpu_reference.rs) and the interpreter, as written and")
        print("// after each target's loop decisions.")
        print(attention("attention_persistent_small", 17, 4, 128, 64, "f16", False, block_m=64, block_n=32, threads=128, stages=3, overlap=False, persistent=True))
        print(attention("attention_persistent_short_small", 17, 4, 128, 32, "f16", False, block_m=64, block_n=64, threads=128, stages=3, overlap=False, persistent=True, producer="none"))
        print(attention("attention_persistent_pingpong_small", 17, 8, 128, 32, "f16", False, block_m=128, block_n=32, threads=256, stages=2, persistent=True, pingpong=True))
        print(attention("attention_persistent_causal_small", 9, 4, 256, 64, "f16", True, block_m=64, block_n=32, threads=128, stages=3, overlap=False, persistent=True, longest_first=True))
        print(attention("attention_persistent_causal_fa3_small", 9, 4, 256, 64, "f16", True, block_m=64, block_n=32, threads=128, stages=2, persistent=True, longest_first=True))
        print(attention("attention_persistent_ring_ends_small", 17, 4, 128, 64, "f16", False, block_m=64, block_n=32, threads=128, stages=2, persistent=True, ring_ends=True))
        print(attention("attention_persistent_ring_ends_pingpong_small", 17, 8, 128, 32, "f16", False, block_m=128, block_n=32, threads=256, stages=2, persistent=True, pingpong=True, ring_ends=True))
        print(attention("attention_persistent_causal_ring_ends_small", 9, 4, 256, 64, "f16", True, block_m=64, block_n=32, threads=128, stages=2, persistent=True, longest_first=True, ring_ends=True))
    elif which == "test-ring-ends":
        print("// FlashAttention-3's order with the first K and last V through the loop's ring (generated by")
        print("// tools/gen/attention.py test-ring-ends): the loop runs one step more than there are key blocks,")
        print("// a step issuing S of its key block and P V of the previous one; on 300 tokens (the last key")
        print("// block ragged, the extra step's keys all masked), in FlashAttention-3's order on 64x64 blocks")
        print("// and with ping-pong warpgroups on 128x64 blocks; and causal on 64x64 blocks (a query block's")
        print("// loop runs its key blocks up to the diagonal and one more, all past the diagonal).")
        print(attention("attention_ring_ends_small", 1, 2, 300, 64, "f16", False, block_m=64, block_n=64, threads=128, stages=2, ring_ends=True))
        print(attention("attention_ring_ends_pingpong_small", 1, 2, 300, 128, "f16", False, block_m=128, block_n=64, threads=256, stages=2, pingpong=True, ring_ends=True))
        print(attention("attention_causal_ring_ends_small", 1, 2, 300, 64, "f16", True, block_m=64, block_n=64, threads=128, stages=2, ring_ends=True))
    elif which == "test-pingpong":
        # FlashAttention-3's schedule (its order, ping-pong warpgroups) at the benchmark's block
        # shape on 300 tokens (ragged: the last key block masked); interp.rs runs it after sm_90a's
        # decisions, which mark its loop.
        print(attention("attention_pingpong_small", 1, 2, 300, 128, "f16", False, block_m=128, block_n=64, threads=256, stages=3, pingpong=True))
    elif which == "fp8-bench":
        # The attention baseline's shape (batch 1, 32 heads, 4096 tokens, d128) on f8E4M3FN inputs:
        # the f16 benchmark's fastest block shape in FlashAttention-2's order, FlashAttention-3's
        # ("fa3": the next block's S issued before this block's P V, whose product runs under the
        # next softmax) and FlashAttention-3's with ping-pong warpgroups ("pp"); and 64-key blocks
        # two a multiprocessor ("mb2": the other block's warps hide the loop's latencies), P in
        # registers; and FlashAttention-3's order with P through a shared tile ("_ps": 0.95 of the
        # same kernel with P in registers, RESULTS run 288).
        for tag, kw, orders in (("m128n128s2", dict(block_n=128, stages=2), ("", "_fa3", "_pp", "_fa3_ps")), ("m128n64s2_mb2", dict(block_n=64, stages=2, min_blocks=2), ("",))):
            for order in orders:
                flags = dict(overlap=order != "", pingpong=order == "_pp", p_registers=order != "_fa3_ps")
                print(attention(f"attention_fp8_bench_d128_{tag}{order}", 1, 32, 4096, 128, "f16", False, block_m=128, threads=256, fp8=True, **kw, **flags))
        # P rounded by a saturating copy instead of exponentials clamped at 1 (no clamp, no
        # overflow check), in FlashAttention-3's order and ping-pong.
        for order in ("_fa3", "_pp"):
            print(attention(f"attention_fp8_bench_d128_m128n128s2{order}_sat", 1, 32, 4096, 128, "f16", False, block_m=128, block_n=128, threads=256, stages=2, fp8=True, pingpong=order == "_pp", saturate=True))
        # Persistent ping-pong (one block a multiprocessor walking the items, the next item's Q and
        # K loading under this item's last steps): 128 and 192 keys a step, the first K and last V
        # through the ring or in tiles of their own.
        for n, ring_ends in ((128, False), (128, True), (192, False)):
            tag = f"m128n{n}s2_pp{'re' if ring_ends else ''}_persistent"
            print(attention(f"attention_fp8_bench_d128_{tag}", 1, 32, 4096, 128, "f16", False, block_m=128, block_n=n, threads=256, stages=2, fp8=True, pingpong=True, persistent=True, ring_ends=ring_ends))
        # The f16 kernels these are measured against (issue 34's 1.5x), timed in the same run:
        # FlashAttention-3's schedule (ping-pong), one block an item and persistent with the first
        # K and last V through the ring (sm_90a only: the sm_80 benchmark compiles the f16 file).
        for tag, kw in (("m128n128s2_pp", {}), ("m128n128s2_ppre_persistent", dict(ring_ends=True, persistent=True))):
            print(attention(f"attention_bench_d128_f16_{tag}", 1, 32, 4096, 128, "f16", False, block_m=128, block_n=128, threads=256, stages=2, pingpong=True, **kw))
    elif which == "varlen-bench":
        # Sequences of different lengths (up to 4096, 16 of them, 32 heads of dim 128) in
        # FlashAttention-2's order, the fastest spill-free block shapes of RESULTS run 287: 128
        # keys a step non-causal (1.27x torch's FlashAttention-2 varlen kernel), 64 keys in a ring
        # of 3 causal (1.11x, where 128 keys gave 0.88x).
        for causal in (False, True):
            name = "attention_varlen_bench" + ("_causal" if causal else "")
            keys = dict(block_n=64, stages=3) if causal else dict(block_n=128, stages=2)
            print(attention(name, 16, 32, 4096, 128, "f16", causal, block_m=128, threads=256, overlap=False, varlen="offsets", total=16 * 2048, **keys))
    elif which == "sparse-test":
        print("// Block-sparse attention (generated by tools/gen/attention.py sparse-test): 4 query blocks of")
        print("// 32 rows, each visiting 2 of the 4 key blocks that its row of the block table names.")
        print(attention("block_sparse_attention_small", 1, 2, 128, 32, "f16", False, 32, 32, 64, sparse=2))
    elif which in ("sparse-bench", "sparse-example"):
        # The attention baseline's shape, each 128-row query block visiting half of the 32 key
        # blocks of 128 (FA2's order, the fastest dense block shape: RESULTS run 62).
        print(f"// Block-sparse attention at the attention baseline's shape (tools/gen/attention.py {which}).")
        name = "block_sparse_attention_bench" if which == "sparse-bench" else "block_sparse_attention"
        print(attention(name, 1, 32, 4096, 128, "f16", False, block_m=128, block_n=128, threads=256, stages=2, overlap=False, sparse=16))
    elif which == "sm80-bench":
        # sm_80's tilings (FlashAttention-2's own for head dim 128): 128 query rows on 4 warps of
        # 32 rows, 64 or 32 keys a step, a ring of 2, FA2's order; 255 and 237 registers, so two
        # blocks share a multiprocessor (RESULTS run 190).
        for dtype in ("f16", "bf16"):
            for block_n in (64, 32):
                print(attention(f"attention_bench_d128_{dtype}_sm80_m128n{block_n}", 1, 32, 4096, 128, dtype, False, block_m=128, block_n=block_n, threads=128, stages=2, overlap=False))
    elif which == "bench":
        # The baseline's shape in several block shapes (rows a block: 64 on each warpgroup; keys a
        # step; ring depth) and both orders of the loop (RESULTS runs 44-47).
        bench = lambda name, **kw: print(attention(f"attention_bench_d128_f16_{name}", 1, 32, 4096, 128, "f16", False, **kw))
        bench("m64n64", block_n=64)
        bench("m128n32s4_fa2", block_m=128, block_n=32, threads=256, stages=4, overlap=False)
        bench("m128n32s4", block_m=128, block_n=32, threads=256, stages=4)
        bench("m128n64s3", block_m=128, block_n=64, threads=256, stages=3)
        bench("m128n64s3_fa2", block_m=128, block_n=64, threads=256, stages=3, overlap=False)
        # Three and four warpgroups a block: more warps a multiprocessor (168 and 128 registers a
        # thread at most).
        bench("m192n32s4", block_m=192, block_n=32, threads=384, stages=4)
        bench("m192n64s3", block_m=192, block_n=64, threads=384, stages=3)
        bench("m192n64s4", block_m=192, block_n=64, threads=384, stages=4)
        bench("m256n32s3_fa2", block_m=256, block_n=32, threads=512, stages=3, overlap=False)
        bench("m256n32s3", block_m=256, block_n=32, threads=512, stages=3)
        # Key blocks of 128 on two warpgroups, ring of 2, FA2's order: the fastest since the ring
        # refills run on TMA (RESULTS run 62; FA3's order needs 240 registers there).
        bench("m128n128s2_fa2", block_m=128, block_n=128, threads=256, stages=2, overlap=False)
        # The same without a producer warpgroup (the ring of the kernel's threads), to compare.
        bench("m128n128s2_fa2_noproducer", block_m=128, block_n=128, threads=256, stages=2, overlap=False, producer="none")
        bench("m128n64s4", block_m=128, block_n=64, threads=256, stages=4)
        # bf16, in the block shapes that lead in f16 since the ring refills run on TMA (runs 50, 62).
        bench16 = lambda name, **kw: print(attention(f"attention_bench_d128_bf16_{name}", 1, 32, 4096, 128, "bf16", False, **kw))
        bench16("m128n128s2_fa2", block_m=128, block_n=128, threads=256, stages=2, overlap=False)
        bench16("m128n128s2_fa2_noproducer", block_m=128, block_n=128, threads=256, stages=2, overlap=False, producer="none")
        bench16("m192n64s4", block_m=192, block_n=64, threads=384, stages=4)
        bench16("m192n64s3", block_m=192, block_n=64, threads=384, stages=3)
        bench16("m128n64s3_fa2", block_m=128, block_n=64, threads=256, stages=3, overlap=False)
