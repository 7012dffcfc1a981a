#!/usr/bin/env python3
"""GPU machine: our FlashAttention backward (tools/gen/attention_bwd.py: the Delta kernel, then the
main kernel, compiled by bench/prepare.sh) against torch's SDPA backward on the same inputs, every
backend that takes the shape, in alternating rounds (ours, SDPA, ours, ...).

    python3 bench/attention_bwd.py KERNELS_DIR [NAME ...] [--rounds N]

The forward (O, and the base-2 log-sum-exp our kernels take) is torch's; dQ, dK and dV are checked
element by element against float64 autograd of the attention's definition. Times are triton's
do_bench medians of the backward alone (SDPA's: `torch.autograd.grad` of its output); FLOPs are
2.5 times the forward's 4 * batch * heads * seq^2 * dim, as FlashAttention counts them."""
import argparse
import math
import os
import sys

import numpy
import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernels")
    parser.add_argument("names", nargs="*", default=["attention_bwd"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bench.start()
    failures = 0
    for name in args.names:
        kernels = bench.function_kernels(args.kernels, name)
        # The Delta kernel (and its twin for aligned tensors, each launched where its condition
        # holds), then the main kernel.
        if len(kernels) < 2:
            print(f"{name}: kernels missing in {args.kernels}")
            failures += 1
            continue
        batch, heads, seq, dim = bench.host_bindings(kernels)[0]["shape"]
        q, k, v, do = (torch.randn(batch, heads, seq, dim, dtype=torch.float16, device="cuda") for _ in range(4))
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        lse = (torch.logsumexp((q.float() @ k.float().transpose(-1, -2)) / dim**0.5, dim=-1) / math.log(2)).contiguous()
        tensors = {0: q, 1: k, 2: v, 3: o, 4: do, 5: lse,
                   6: torch.full((batch, heads, seq), float("nan"), device="cuda"),
                   7: torch.full((batch, heads, seq, dim), float("nan"), device="cuda"),
                   8: torch.full_like(q, float("nan")), 9: torch.full_like(q, float("nan"))}
        launches = [kernel.launcher(tensors) for kernel in kernels]

        def ours():
            for launch in launches:
                launch()

        ours()
        torch.cuda.synchronize()
        # float64 autograd of softmax(Q K^T / sqrt(d)) V.
        q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
        out = torch.softmax(q64 @ k64.transpose(-1, -2) / dim**0.5, dim=-1) @ v64
        references = torch.autograd.grad(out, (q64, k64, v64), do.double())
        worst, nan = 0.0, 0
        for got, want in zip((tensors[7], tensors[8], tensors[9]), references):
            nan += int(torch.isnan(got).sum())
            worst = max(worst, float(torch.linalg.norm(got.double() - want) / torch.linalg.norm(want)))
        passed = nan == 0 and worst < 1e-2
        failures += not passed
        print(f"{name}: {'PASS' if passed else 'FAIL'} rel_err={worst:.2e} nan={nan} (batch {batch}, {heads} heads, {seq} tokens, dim {dim})", flush=True)
        if not passed:
            continue
        flops = 2.5 * 4 * batch * heads * seq * seq * dim
        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
        candidates = {}
        for backend, which in BACKENDS.items():
            try:
                with sdpa_kernel(which):
                    out = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg)
                grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                torch.cuda.synchronize()
            except RuntimeError as error:
                print(f"  SDPA {backend}: refused ({str(error).splitlines()[0][:100]})")
                continue
            agreement = max(float(torch.linalg.norm(g.double() - r) / torch.linalg.norm(r)) for g, r in zip(grads, references))
            candidates[backend] = (lambda out=out: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True))
            print(f"  SDPA {backend}: rel_err={agreement:.2e}")
        times = {backend: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") for backend, fn in candidates.items()}
        for backend, ms in sorted(times.items(), key=lambda item: item[1]):
            print(f"  SDPA {backend} backward: {ms * 1e3:.1f} us ({flops / ms / 1e9:.0f} TFLOP/s)")
        alone = [triton.testing.do_bench(launch, warmup=25, rep=100, return_mode="median") for launch in launches]
        print("  our kernels alone: " + ", ".join(f"{ms * 1e3:.1f} us" for ms in alone))
        best = min(times, key=times.get)
        timer = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")  # noqa: E731
        mine, ratios = bench.alternating_rounds(ours, candidates[best], args.rounds, timer)
        print(f"  ours {mine * 1e3:.1f} us ({flops / mine / 1e9:.0f} TFLOP/s), best SDPA backend {best}: speed ratio {numpy.median(ratios):.3f} (median of {args.rounds} alternating rounds, range {ratios[0]:.3f}-{ratios[-1]:.3f})", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
