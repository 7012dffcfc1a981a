#!/usr/bin/env python3
"""GPU machine: our flash decoding (tools/gen/flash_decoding.py: the split kernel, then the combine
kernel, compiled by bench/prepare.sh) against torch's SDPA on the same inputs, every backend that
takes the shape, in alternating rounds (ours, SDPA, ours, ...).

    python3 bench/flash_decoding.py KERNELS_DIR [NAME ...] [--rounds N]

Each program's output is checked element by element against a float64 reference first. SDPA gets
the queries as [batch, heads, 1, dim] and the cache as [batch, kv heads, tokens, dim] (made
contiguous outside the timing) with enable_gqa; a backend that refuses the call is reported and
skipped. Both sides are timed as CUDA graph replays (triton's do_bench_cudagraph medians), so
that what is measured is the GPU's time and not the Python launch path (our launcher's 60
parameters, torch's dispatch), which at these sizes rivals the kernels; the times through plain
launches are printed too. GB/s counts the cache once."""
import argparse
import os
import sys

import numpy
import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "math": SDPBackend.MATH,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernels")
    parser.add_argument("names", nargs="*", default=["flash_decoding"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bench.start()
    failures = 0
    for name in args.names:
        kernels = bench.function_kernels(args.kernels, name)
        if not kernels:
            print(f"{name}: no kernels in {args.kernels}")
            failures += 1
            continue
        shapes = {argument: (binding["shape"], bench.DTYPES[binding["element"]]) for argument, binding in bench.host_bindings(kernels).items()}
        tensors = {
            argument: torch.randn(shape, dtype=dtype, device="cuda") if argument < 3 else torch.full(shape, float("nan"), dtype=dtype, device="cuda")
            for argument, (shape, dtype) in shapes.items()
        }
        launches = [kernel.launcher(tensors) for kernel in kernels]

        def ours():
            for launch in launches:
                launch()

        ours()
        torch.cuda.synchronize()
        q, k, v = (tensors[i].double() for i in range(3))
        parts, lse = bench.flash_decoding_splits(q, k, v, shapes[4][0][-1] if 4 in shapes else 1)
        reference = bench.flash_decoding_combine(parts, lse)
        out = tensors[max(tensors)].double()
        error = float(torch.linalg.norm(out - reference) / torch.linalg.norm(reference))
        nan = int(torch.isnan(out).sum())
        passed = nan == 0 and error < 5e-3
        failures += not passed
        batch, kv_heads, group, dim = shapes[0][0]
        tokens = shapes[1][0][1]
        print(f"{name}: {'PASS' if passed else 'FAIL'} rel_err={error:.2e} nan={nan} (batch {batch}, {kv_heads * group} heads, {kv_heads} KV heads, {tokens} tokens, dim {dim}, {len(kernels)} kernels)", flush=True)
        if not passed:
            continue
        query = tensors[0].reshape(batch, kv_heads * group, 1, dim)
        key = tensors[1].permute(0, 2, 1, 3).contiguous()
        value = tensors[2].permute(0, 2, 1, 3).contiguous()
        cache_bytes = 2 * key.numel() * key.element_size()
        candidates = {}
        for backend, which in BACKENDS.items():
            def sdpa(which=which):
                with sdpa_kernel(which):
                    return torch.nn.functional.scaled_dot_product_attention(query, key, value, enable_gqa=True)
            try:
                got = sdpa().double().reshape(reference.shape)
                torch.cuda.synchronize()
            except RuntimeError as error:
                print(f"  SDPA {backend}: refused ({str(error).splitlines()[0][:100]})")
                continue
            agreement = float(torch.linalg.norm(got - reference) / torch.linalg.norm(reference))
            candidates[backend] = sdpa
            print(f"  SDPA {backend}: rel_err={agreement:.2e}")
        plain = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")  # noqa: E731
        graph = lambda fn: triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median")  # noqa: E731
        alone = [graph(launch) for launch in launches]
        print("  our kernels alone (graphs): " + ", ".join(f"{ms * 1e3:.1f} us" for ms in alone))
        print(f"  plain launches: ours {plain(ours) * 1e3:.1f} us, " + ", ".join(f"SDPA {backend} {plain(fn) * 1e3:.1f} us" for backend, fn in candidates.items()))
        times = {backend: graph(fn) for backend, fn in candidates.items()}
        for backend, ms in sorted(times.items(), key=lambda item: item[1]):
            print(f"  SDPA {backend} (graph): {ms * 1e3:.1f} us ({cache_bytes / ms / 1e6:.0f} GB/s of cache)")
        best = min(times, key=times.get)
        mine, ratios = bench.alternating_rounds(ours, candidates[best], args.rounds, graph)
        print(f"  ours {mine * 1e3:.1f} us ({cache_bytes / mine / 1e6:.0f} GB/s of cache), best SDPA backend {best}: speed ratio {numpy.median(ratios):.3f} (median of {args.rounds} alternating rounds, range {ratios[0]:.3f}-{ratios[-1]:.3f})", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
