#!/usr/bin/env python3
"""GPU machine: our Mamba-2 chunk scan (examples/mamba2_chunk_scan.mlir, compiled by bench/prepare.sh)
against TileLang's on the same inputs, in alternating rounds (ours, TileLang, ours, ...).

    python3 bench/tilelang_mamba2.py KERNELS_DIR [ROUNDS]

TileLang (0.1.15, carried as wheels: bench/RESULTS.md says how) compiles its kernel here, written the
way its chunk scan example is: the same block (64 tokens x 64 channels of one head's chunk, K steps
of 64, the state in one step of 128), two stages, 128 threads, the same grid order. Both outputs are
checked against bench.py's torch reference; each round times one kernel with triton's do_bench
(median of its repetitions) and prints TFLOP/s by the FLOP count TileLang's example uses."""
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

import tilelang  # noqa: E402
import tilelang.language as T  # noqa: E402


def tilelang_chunk_scan(batch, tokens, chunk, groups, heads, headdim, dstate, block_m=64, block_n=64, block_k=64, stages=2, threads=128):
    chunks = tokens // chunk
    log2e = 1.44269504
    f16, f32 = "float16", "float"

    @T.prim_func
    def chunk_scan(
        cb: T.Tensor((batch, chunks, groups, chunk, chunk), f16),
        x: T.Tensor((batch, tokens, heads, headdim), f16),
        dt: T.Tensor((batch, heads, chunks, chunk), f16),
        dA: T.Tensor((batch, heads, chunks, chunk), f16),
        C: T.Tensor((batch, tokens, groups, dstate), f16),
        prev: T.Tensor((batch, chunks, heads, headdim, dstate), f16),
        D: T.Tensor((heads,), f16),
        y: T.Tensor((batch, tokens, heads, headdim), f16),
    ):
        with T.Kernel(heads, T.ceildiv(chunk, block_m) * T.ceildiv(headdim, block_n), batch * chunks, threads=threads) as (h, tile, bc):
            acc = T.alloc_fragment((block_m, block_n), f32)
            out_shared = T.alloc_shared((block_m, block_n), f16)
            cb_shared = T.alloc_shared((block_m, block_k), f16, scope="shared.dyn")
            cb_regs = T.alloc_fragment((block_m, block_k), f16)
            dak_shared = T.alloc_shared((block_k,), f16, scope="shared")
            dak = T.alloc_fragment((block_k,), f32)
            dam_shared = T.alloc_shared((block_m,), f16, scope="shared")
            dam = T.alloc_fragment((block_m,), f32)
            dt_shared = T.alloc_shared((block_k,), f16, scope="shared")
            dtk = T.alloc_fragment((block_k,), f32)
            x_shared = T.alloc_shared((block_k, block_n), f16, scope="shared.dyn")
            scale = T.alloc_fragment((block_m,), f32)
            c_shared = T.alloc_shared((block_m, dstate), f16)
            state_shared = T.alloc_shared((block_n, dstate), f16)
            d = T.alloc_fragment((1,), f32)
            residual_shared = T.alloc_shared((block_m, block_n), f16, scope="shared.dyn")
            residual = T.alloc_fragment((block_m, block_n), f32)

            b = bc % batch
            c = bc // batch
            m = tile // T.ceildiv(headdim, block_n)
            n = tile % T.ceildiv(headdim, block_n)
            g = h // (heads // groups)
            t0 = c * chunk + m * block_m

            T.copy(dA[b, h, c, m * block_m:(m + 1) * block_m], dam_shared)
            T.copy(dam_shared, dam)
            T.clear(acc)
            for i in T.Parallel(block_m):
                scale[i] = T.exp2(dam[i] * log2e)
            T.copy(C[b, t0:t0 + block_m, g, 0:dstate], c_shared)
            T.copy(prev[b, c, h, n * block_n:(n + 1) * block_n, 0:dstate], state_shared)
            T.gemm(c_shared, state_shared, acc, transpose_B=True)
            for i, j in T.Parallel(block_m, block_n):
                acc[i, j] *= scale[i]

            for k in T.Pipelined(T.ceildiv((m + 1) * block_m, block_k), num_stages=stages):
                s0 = c * chunk + k * block_k
                T.copy(cb[b, c, g, m * block_m:(m + 1) * block_m, k * block_k:(k + 1) * block_k], cb_shared)
                T.copy(cb_shared, cb_regs)
                T.copy(dA[b, h, c, k * block_k:(k + 1) * block_k], dak_shared)
                T.copy(dak_shared, dak)
                for i, j in T.Parallel(block_m, block_k):
                    cb_regs[i, j] = cb_regs[i, j] * T.exp2(dam[i] * log2e - dak[j] * log2e)
                T.copy(dt[b, h, c, k * block_k:(k + 1) * block_k], dt_shared)
                T.copy(dt_shared, dtk)
                for i, j in T.Parallel(block_m, block_k):
                    cb_regs[i, j] *= dtk[j]
                for i, j in T.Parallel(block_m, block_k):
                    cb_regs[i, j] = T.if_then_else(m * block_m + i >= k * block_k + j, cb_regs[i, j], 0)
                T.copy(x[b, s0:s0 + block_k, h, n * block_n:(n + 1) * block_n], x_shared)
                T.gemm(cb_regs, x_shared, acc)

            d[0] = D[h]
            T.copy(x[b, t0:t0 + block_m, h, n * block_n:(n + 1) * block_n], residual_shared)
            T.copy(residual_shared, residual)
            for i, j in T.Parallel(block_m, block_n):
                acc[i, j] += residual[i, j] * d[0]
            T.copy(acc, out_shared)
            T.copy(out_shared, y[b, t0:t0 + block_m, h, n * block_n:(n + 1) * block_n])

    return tilelang.compile(chunk_scan)


def main():
    kernels = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    torch.manual_seed(0)
    torch.empty(1, device="cuda")  # make the primary context current (bench.Kernel loads into it)
    ptx = os.path.join(kernels, "mamba2_chunk_scan_0_kernel.ptx")
    manifest = bench.read_manifest(ptx[: -len(".ptx")] + ".json")
    ours = bench.Kernel(ptx, manifest)
    t = ours.tensors()
    cb, x = t[0], t[1]
    batch, chunks, groups, chunk, _ = cb.shape
    _, tokens, heads, headdim = x.shape
    dstate = t[4].shape[3]
    theirs = tilelang_chunk_scan(batch, tokens, chunk, groups, heads, headdim, dstate)
    y = torch.empty_like(x)
    launch_ours = ours.launcher(t)
    launch_theirs = lambda: theirs(t[0], t[1], t[2], t[3], t[4], t[5], t[6], y)  # noqa: E731
    launch_ours()
    launch_theirs()
    torch.cuda.synchronize()
    reference = bench.mamba2_chunk_scan({k: v.double() for k, v in t.items()})
    for name, out in (("ours", t[7]), ("TileLang", y)):
        error = float(torch.linalg.norm(out.double() - reference) / torch.linalg.norm(reference))
        print(f"{name}: relative error {error:.2e} against torch (float64)", flush=True)
    flops = bench.mamba2_flops(ours)
    times = {"ours": [], "TileLang": []}
    for _ in range(rounds):
        for name, launch in (("ours", launch_ours), ("TileLang", launch_theirs)):
            ms = triton.testing.do_bench(launch, warmup=20, rep=200, return_mode="median")
            times[name].append(ms)
            print(f"  {name}: {ms * 1e3:.1f} us, {flops / ms / 1e9:.1f} TFLOP/s", flush=True)
    median = {name: sorted(values)[len(values) // 2] for name, values in times.items()}
    print(
        f"median of {rounds} alternating rounds: ours {flops / median['ours'] / 1e9:.1f} TFLOP/s, "
        f"TileLang {flops / median['TileLang'] / 1e9:.1f} TFLOP/s, ours/TileLang {median['TileLang'] / median['ours']:.3f}"
    )


if __name__ == "__main__":
    main()
