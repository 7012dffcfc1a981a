#!/usr/bin/env python3
"""GPU machine: issue 33's sm_80 comparisons. Our sm_80 kernels (Ampere PTX, which the driver
compiles for the chip at hand) against the baselines the issue names, in alternating rounds.

    python3 bench/sm80.py KERNELS_DIR [--rounds N] [--filter S] [--part gemm|attention|all]

GEMM (f16 4096^3): our kernels in KERNELS_DIR/sm_80 whose names hold --filter (bench/variants.py's
tilings), Triton's own Ampere GEMM (its tutorial-style matmul, f32 sums, grouped tile order,
compiled here for `GPUTarget("cuda", 80, 32)` and loaded through the driver like ours) and cuBLAS.
Attention (f16, batch 1, 32 heads, 4096 tokens, head dim 128, non-causal): our kernels in
KERNELS_DIR/sm_80 whose names start with `attention_bench` against torch SDPA's flash backend
(FlashAttention-2, an sm_80-style kernel). Every output is checked against a float64 reference
first; each table row is the median of the alternating rounds (do_bench medians) and the ratio to
the baseline."""
import argparse
import ctypes
import glob
import os
import sys

import numpy
import torch
import triton
import triton.language as tl
from cuda.bindings import driver as cu
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

SIZE = 4096
# (block M, N, K, warps, stages): Triton's usual Ampere tilings.
TILINGS = [(128, 128, 32, 4, 3), (128, 128, 32, 4, 4), (128, 256, 32, 8, 3), (256, 128, 32, 8, 3), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    width = GROUP * (N // BN)
    pid_m = (pid // width) * GROUP + pid % GROUP
    pid_n = (pid % width) // GROUP
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK
        b += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def triton_kernel(bm, bn, bk, warps, stages):
    """Triton's sm_80 PTX for one tiling, loaded through the driver: (function, grid, threads,
    shared bytes, module)."""
    pointer = "*fp16"
    source = triton.compiler.ASTSource(
        fn=matmul,
        signature={"a_ptr": pointer, "b_ptr": pointer, "c_ptr": pointer, **{name: "constexpr" for name in ("M", "N", "K", "BM", "BN", "BK", "GROUP")}},
        constexprs={"M": SIZE, "N": SIZE, "K": SIZE, "BM": bm, "BN": bn, "BK": bk, "GROUP": 8},
        attrs={name: [["tt.divisibility", 16]] for name in ("a_ptr", "b_ptr", "c_ptr")},
    )
    compiled = triton.compile(source, target=GPUTarget("cuda", 80, 32), options={"num_warps": warps, "num_stages": stages})
    module = bench.ok(cu.cuModuleLoadData(compiled.asm["ptx"].encode() + b"\0"))
    function = bench.ok(cu.cuModuleGetFunction(module, compiled.metadata.name.encode()))
    shared = compiled.metadata.shared
    if shared > 48 * 1024:
        bench.ok(cu.cuFuncSetAttribute(function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared))
    return function, (SIZE // bm) * (SIZE // bn), 32 * warps, shared, module


def check_and_time(contenders, reference, baseline, flops, rounds, what):
    """Checks each contender's output against `reference` (float64), then times it against
    `baseline` in alternating rounds; prints the table. Returns the failures."""
    failures = 0
    for name, (launch, out) in contenders.items():
        launch()
        torch.cuda.synchronize()
        error = float(torch.linalg.norm(out.double() - reference) / torch.linalg.norm(reference))
        passed = not torch.isnan(out).any() and error < (1e-2 if out.dtype == torch.bfloat16 else 5e-3)
        failures += not passed
        print(f"{name}: {'PASS' if passed else 'FAIL'} rel_err={error:.2e}", flush=True)
    timer = lambda fn: triton.testing.do_bench(fn, warmup=50, rep=300)  # noqa: E731
    rows = []
    for name, (launch, _) in contenders.items():
        mine, ratios = bench.alternating_rounds(launch, baseline, rounds, timer)
        rows.append((name, mine, flops / mine / 1e9, float(numpy.median(ratios)), ratios[0], ratios[-1]))
    print(f"\n{what}, medians of {rounds} alternating rounds\n")
    print("| kernel | ms | TFLOP/s | / baseline (median) | range |\n|---|---|---|---|---|")
    for name, ms, rate, ratio, low, high in rows:
        print(f"| {name} | {ms:.3f} | {rate:.0f} | {ratio:.3f} | {low:.3f}-{high:.3f} |")
    return failures


def gemm(kernels, name_filter, rounds):
    a = torch.randn(SIZE, SIZE, dtype=torch.float16, device="cuda")
    b = torch.randn(SIZE, SIZE, dtype=torch.float16, device="cuda")
    contenders = {}
    for tiling in TILINGS:
        name = "triton sm_80 {}x{}x{}, {} warps, {} stages".format(*tiling)
        try:
            function, grid, threads, shared, module = triton_kernel(*tiling)
        except Exception as error:  # a tiling Triton or the driver refuses is reported, not fatal
            print(f"{name}: not compiled ({str(error).splitlines()[0][:120]})")
            continue
        c = torch.full((SIZE, SIZE), float("nan"), dtype=torch.float16, device="cuda")
        values = (a.data_ptr(), b.data_ptr(), c.data_ptr(), 0, 0)
        types = (ctypes.c_void_p,) * 5

        def launch(function=function, grid=grid, threads=threads, shared=shared, values=values, types=types):
            bench.ok(cu.cuLaunchKernel(function, grid, 1, 1, threads, 1, 1, shared, torch.cuda.current_stream().cuda_stream, (values, types), 0))

        launch.keep = module
        contenders[name] = (launch, c)
    for ptx in sorted(glob.glob(os.path.join(kernels, "sm_80", "*.ptx"))):
        if name_filter in ptx and os.path.basename(ptx).startswith("gemm"):
            kernel = bench.Kernel(ptx, bench.read_manifest(ptx[: -len(".ptx")] + ".json"))
            c = torch.full((SIZE, SIZE), float("nan"), dtype=torch.float16, device="cuda")
            contenders["ours " + kernel.name] = (kernel.launcher({0: a, 1: b, 2: c}), c)
    return check_and_time(contenders, a.double() @ b.double(), lambda: torch.matmul(a, b), 2 * SIZE**3, rounds,
                          f"f16 {SIZE}^3 GEMM against cuBLAS (torch.matmul)")


def attention(kernels, name_filter, rounds):
    shape = (1, 32, SIZE, 128)
    failures = 0
    for dtype, element in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        paths = [ptx for ptx in sorted(glob.glob(os.path.join(kernels, "sm_80", f"attention_bench_d128_{element}*.ptx"))) if name_filter in ptx]
        if not paths:
            continue
        q, k, v = (torch.randn(shape, dtype=dtype, device="cuda") for _ in range(3))
        contenders = {}
        for ptx in paths:
            kernel = bench.Kernel(ptx, bench.read_manifest(ptx[: -len(".ptx")] + ".json"))
            o = torch.full(shape, float("nan"), dtype=dtype, device="cuda")
            contenders["ours " + kernel.name] = (kernel.launcher({0: q, 1: k, 2: v, 3: o}), o)
        scores = (q.double() @ k.double().transpose(-1, -2)) / 128**0.5
        reference = torch.softmax(scores, -1) @ v.double()
        del scores

        def flash(q=q, k=k, v=v):
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v)

        flops = 4 * shape[0] * shape[1] * SIZE * SIZE * 128
        failures += check_and_time(contenders, reference, flash, flops, rounds,
                                   f"{element} attention (1 x 32 heads, 4096 tokens, d128) against SDPA's flash backend")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernels")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--filter", default="")
    parser.add_argument("--part", choices=("gemm", "attention", "all"), default="all")
    args = parser.parse_args()
    bench.start()
    failures = 0
    if args.part in ("gemm", "all"):
        failures += gemm(args.kernels, args.filter or "gemm_sm80_f16_4096", args.rounds)
    if args.part in ("attention", "all"):
        failures += attention(args.kernels, args.filter, args.rounds)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
