#!/usr/bin/env python3
"""Writes FlashAttention-forward tile programs: Q, K, V, O as [batch, heads, seq, head_dim] tensors,
one block per (64-row query block, head, batch), an online softmax over key blocks."""
import sys

def attention(name, batch, heads, seq, dim, dtype, causal, block_m=64, block_n=64, threads=128, stages=2, min_blocks=None, overlap=True, producer=None, sparse=None, every_block=False, kv_heads=None, lse=False):
    """`sparse`: block-sparse attention, each query block visiting `sparse` key blocks that a
    table [query blocks, sparse] of i32 lists (an entry taken modulo the key blocks); FA2's order,
    non-causal, a sequence of whole key blocks. The mask runs only on the key blocks that reach
    past the block's first query (causal) or the sequence's end, in an `scf.if`; `every_block`
    masks every key block (the form before). `kv_heads`: grouped-query attention, K and V with
    that many heads, each shared by heads / kv_heads consecutive query heads. `lse`: the rows'
    log-sum-exp of the scaled scores also written, to a [batch, heads, seq] f32 tensor after O
    (what a backward pass reads)."""
    t4 = f"memref<{batch}x{heads}x{seq}x{dim}x{dtype}>"
    kv_heads = kv_heads or heads
    kv4 = f"memref<{batch}x{kv_heads}x{seq}x{dim}x{dtype}>"
    # The K/V head of the block's query head.
    grouped = kv_heads != heads
    kv = "%bkv" if grouped else "%bh"
    group_constant = f"\n  %cgroup = arith.constant {heads // kv_heads} : index" if grouped else ""
    kv_index = "\n    %bkv = arith.divui %bh, %cgroup : index" if grouped else ""
    ws = "#gpu.address_space<workgroup>"
    fr = "#tile.fragment"
    # A producer warpgroup asked for (or declined) in the loop's schedule, else the plan's choice.
    schedule = f' attributes {{tile.schedule = {{producer = "{producer}"}}}}' if producer else ""
    nq = -(-seq // block_m)
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
    %kblocks = arith.minui %diag, %cnk : index
    %q0_1 = arith.addi %q0, %c1 : index
    %mask_limit = arith.minui %q0_1, %cseq : index"""
        bound = "%kblocks"
    else:
        bound = "%cnk"
    mask_rule = "%masked = arith.cmpi uge, %key, %cseq : index"
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
        if not causal and seq % block_n == 0:
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
        limit = "%mask_limit" if causal else "%cseq"
        return f"""
      %kend_{tag} = arith.addi {k0}, %cbn : index
      %partial_{tag} = arith.cmpi ugt, %kend_{tag}, {limit} : index
      scf.if %partial_{tag} {{{parallel.replace(chr(10), chr(10) + "  ")}
      }}"""
    # The online softmax of one key block in S: the new row maximum, the exponentials, the running
    # sum, and in %mp the factor that rescales what was accumulated with the old maximum.
    softmax = f"""
      tile.copy %m, %mp : memref<{block_m}xf32, {fr}>, memref<{block_m}xf32, {fr}>
      tile.reduce <max> %S, %m dim(1) {{clear = false}} : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}xf32, {fr}>
      tile.parallel (%i, %k) in ({block_m}, {block_n}) {{
        %s = memref.load %S[%i, %k] : memref<{block_m}x{block_n}xf32, {fr}>
        %mi = memref.load %m[%i] : memref<{block_m}xf32, {fr}>
        %shift = arith.mulf %mi, %nscale : f32
        %d = math.fma %s, %scale, %shift : f32
        %e = math.exp2 %d fastmath<afn> : f32
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
    shared = lambda rows: f"memref<{rows}x{dim}x{dtype}, {ws}>"
    rescale = f"""
      tile.parallel (%i, %d) in ({block_m}, {dim}) {{
        %o = memref.load %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
        %c = memref.load %mp[%i] : memref<{block_m}xf32, {fr}>
        %r = arith.mulf %o, %c : f32
        memref.store %r, %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
      }}"""
    if overlap and not sparse:
        order = """// FlashAttention-3's order: an iteration issues S = Q K^T of the next key block and O += P V of
// this one, and computes the softmax of the next block while the second product runs; the first
// block's S is computed before the loop and the last block's P V after it."""
        loop = f"""
    %last = arith.subi {bound}, %c1 : index
    // The first key block's scores and softmax.
    tile.copy %K[%bb, {kv}, %c0, %c0], %K0s : {kv4}, {shared(block_n)}
    tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
    tile.gemm %Qs, %K0s, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>{mask("%c0")}{softmax}
    tile.copy %S, %P : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}x{block_n}x{dtype}, {fr}>
    tile.pipelined %j = %c0 to %last stages({stages}){schedule} {{
      %k0 = arith.muli %j, %cbn : index
      %k1 = arith.addi %k0, %cbn : index
      tile.copy %K[%bb, {kv}, %k1, %c0], %Ks : {kv4}, {shared(block_n)}
      tile.copy %V[%bb, {kv}, %k0, %c0], %Vs : {kv4}, {shared(block_n)}
      tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %P, %Vs, %Acc : memref<{block_m}x{block_n}x{dtype}, {fr}>, {shared(block_n)}, memref<{block_m}x{dim}xf32, {fr}>{mask("%k1")}{softmax}{rescale}
      tile.copy %S, %P : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}x{block_n}x{dtype}, {fr}>
    }}
    // The last key block's P V.
    %kl = arith.muli %last, %cbn : index
    tile.copy %V[%bb, {kv}, %kl, %c0], %Vls : {kv4}, {shared(block_n)}
    tile.gemm %P, %Vls, %Acc : memref<{block_m}x{block_n}x{dtype}, {fr}>, {shared(block_n)}, memref<{block_m}x{dim}xf32, {fr}>
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
      tile.copy %K[%bb, {kv}, %k0, %c0], %Ks : {kv4}, {shared(block_n)}
      tile.copy %V[%bb, {kv}, %k0, %c0], %Vs : {kv4}, {shared(block_n)}
      tile.fill %S, %zero : memref<{block_m}x{block_n}xf32, {fr}>
      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {shared(block_m)}, {shared(block_n)}, memref<{block_m}x{block_n}xf32, {fr}>{mask("%k0")}{softmax}
      tile.copy %S, %P : memref<{block_m}x{block_n}xf32, {fr}>, memref<{block_m}x{block_n}x{dtype}, {fr}>{rescale}
      tile.gemm %P, %Vs, %Acc : memref<{block_m}x{block_n}x{dtype}, {fr}>, {shared(block_n)}, memref<{block_m}x{dim}xf32, {fr}>
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
    # The overlapped order keeps the first key block and the last value block in tiles of their own.
    edge_tiles = f"""
    %K0s = tile.alloc_shared : {shared(block_n)}
    %Vls = tile.alloc_shared : {shared(block_n)}""" if overlap and not sparse else ""
    return f"""
// {name}: {'causal' if causal else 'non-causal'} attention, {batch}x{heads} heads of {seq} tokens, head dim {dim}, {dtype}.
{order}
func.func @{name}(%Q: {t4}, %K: {kv4}, %V: {kv4}, {table_argument}%O: {t4}{lse_argument}) {{
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
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant {scale!r} : f32
  %nscale = arith.constant {-scale!r} : f32{rsqrt_constant}
  tile.kernel grid(%cnq, %cheads, %cbatch) threads({threads}) (%bq, %bh, %bb){occupancy} {{
    %Qs = tile.alloc_shared : {shared(block_m)}
    %Ks = tile.alloc_shared : {shared(block_n)}
    %Vs = tile.alloc_shared : {shared(block_n)}{edge_tiles}
    %S = tile.alloc_fragment : memref<{block_m}x{block_n}xf32, {fr}>
    %P = tile.alloc_fragment : memref<{block_m}x{block_n}x{dtype}, {fr}>
    %Acc = tile.alloc_fragment : memref<{block_m}x{dim}xf32, {fr}>
    %m = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %mp = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %l = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %rs = tile.alloc_fragment : memref<{block_m}xf32, {fr}>
    %q0 = arith.muli %bq, %cbm : index{kv_index}
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : {t4}, {shared(block_m)}
    tile.fill %Acc, %zero : memref<{block_m}x{dim}xf32, {fr}>
    tile.fill %m, %ninf : memref<{block_m}xf32, {fr}>
    tile.fill %l, %zero : memref<{block_m}xf32, {fr}>{causal_text}{loop}    tile.parallel (%i, %d) in ({block_m}, {dim}) {{
      %o = memref.load %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
      %li = memref.load %l[%i] : memref<{block_m}xf32, {fr}>
      %r = arith.divf %o, %li : f32
      memref.store %r, %Acc[%i, %d] : memref<{block_m}x{dim}xf32, {fr}>
    }}
    tile.copy %Acc, %O[%bb, %bh, %q0, %c0] : memref<{block_m}x{dim}xf32, {fr}>, {t4}{lse_text}
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
