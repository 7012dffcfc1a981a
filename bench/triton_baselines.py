#!/usr/bin/env python3
"""GPU machine: our Mamba-2 and linear attention kernels (compiled by bench/prepare.sh) against the
Triton kernels their users run today, on the same inputs, in alternating rounds (ours, theirs, ours,
...):

    python3 bench/triton_baselines.py KERNELS_DIR MAMBA_SSM_DIR [ROUNDS]

- `mamba2_chunk_scan`, `mamba2_chunk_state`, `mamba2_state_passing` against mamba-ssm's
  `_chunk_scan_fwd`, `_chunk_state_fwd` and `_state_passing_fwd` (the three forward steps of its
  SSD), which take the same tensors in the same layouts;
- `linear_attention` against flash-linear-attention's `chunk_linear_attn` (scale 1, no
  normalization: the same causal, decay-free product), on Q, K, V in its [batch, tokens, heads, dim]
  layout (transposed once, before timing).

The Mamba-2 inputs are made what the SSD's cumulative-sum step writes (dt > 0, dA_cumsum
non-increasing along a chunk, which mamba-ssm's kernels assume), and mamba-ssm gets dt and
dA_cumsum in f32, as that step writes them (ours read them in f16). MAMBA_SSM_DIR is the
`mamba_ssm` folder of mamba-ssm's source release (`ops/triton` and `utils` are enough): its Triton
kernels are plain Python, loaded here without the package's compiled extensions.
flash-linear-attention is imported as installed: carry fla-core's wheel (pure Python; `pip
download --no-deps fla-core`) and install it with `pip install --no-deps --target DIR`, DIR on
PYTHONPATH. Each output is checked against bench.py's torch reference in float64; each round
times one kernel with triton's do_bench (median of its repetitions)."""
import importlib
import os
import sys
import types

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def load_mamba_ssm(folder):
    """mamba-ssm's Triton SSD kernels, without running the package's `__init__` (which loads its CUDA
    extensions): the packages on the way are registered as bare modules over their folders."""
    for name, path in (
        ("mamba_ssm", folder),
        ("mamba_ssm.ops", os.path.join(folder, "ops")),
        ("mamba_ssm.ops.triton", os.path.join(folder, "ops", "triton")),
        ("mamba_ssm.utils", os.path.join(folder, "utils")),
    ):
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    scan = importlib.import_module("mamba_ssm.ops.triton.ssd_chunk_scan")
    state = importlib.import_module("mamba_ssm.ops.triton.ssd_chunk_state")
    passing = importlib.import_module("mamba_ssm.ops.triton.ssd_state_passing")
    return scan._chunk_scan_fwd, state._chunk_state_fwd, passing._state_passing_fwd


def relative_error(out, reference):
    return float(torch.linalg.norm(out.double() - reference.double()) / torch.linalg.norm(reference.double()))


def compare(label, flops, bytes_moved, ours, theirs, baseline, rounds):
    """Alternating rounds of `ours` and `theirs` (each a launch), printed with their median times."""
    times = {"ours": [], baseline: []}
    for _ in range(rounds):
        for name, launch in (("ours", ours), (baseline, theirs)):
            times[name].append(triton.testing.do_bench(launch, warmup=20, rep=200, return_mode="median"))
    median = {name: sorted(values)[len(values) // 2] for name, values in times.items()}
    rates = ""
    for name in ("ours", baseline):
        ms = median[name]
        rate = f"{flops / ms / 1e9:.1f} TFLOP/s" if flops else f"{bytes_moved / ms / 1e6:.0f} GB/s"
        rates += f" {name} {ms * 1e3:.1f} us ({rate});"
    rounds_text = " ".join(f"{a * 1e3:.1f}/{b * 1e3:.1f}" for a, b in zip(times["ours"], times[baseline]))
    print(
        f"{label}: median of {rounds} alternating rounds:{rates} ours/{baseline} {median[baseline] / median['ours']:.3f}"
        f" (rounds, us ours/{baseline}: {rounds_text})",
        flush=True,
    )


def ssd_inputs(t, dt_at, dA_at):
    """Makes dt and dA_cumsum what the SSD's cumulative-sum step writes: dt > 0 (a softplus) and
    dA_cumsum non-increasing along each chunk (A < 0), as mamba-ssm's kernels assume (they clamp
    exp(dA[last] - dA[k]) at 1, which random values would meet)."""
    dt = torch.nn.functional.softplus(t[dt_at].float())
    t[dt_at].copy_(dt)
    t[dA_at].copy_(torch.cumsum(-0.25 * dt, dim=-1))


def chunk_scan(kernels, scan_fwd, rounds):
    ours = bench.function_kernels(kernels, "mamba2_chunk_scan")[0]
    t = ours.tensors()
    ssd_inputs(t, 2, 3)
    launch = ours.launcher(t)
    cb, x, dt, dA, c, prev, d = (t[i] for i in range(7))
    # mamba-ssm's dt and dA_cumsum are f32 (what its cumulative-sum kernel writes).
    dt32, dA32 = dt.float(), dA.float()
    theirs = lambda: scan_fwd(cb, x, dt32, dA32, c, prev, D=d)  # noqa: E731
    launch()
    out, _ = theirs()
    torch.cuda.synchronize()
    reference = bench.mamba2_chunk_scan({k: v.double() for k, v in t.items()})
    print(f"mamba2_chunk_scan: relative error ours {relative_error(t[7], reference):.2e}, mamba-ssm {relative_error(out, reference):.2e}")
    compare("mamba2_chunk_scan", bench.mamba2_flops(ours), 0, launch, theirs, "mamba-ssm", rounds)


def chunk_state(kernels, state_fwd, rounds, name="mamba2_chunk_state"):
    ours = bench.function_kernels(kernels, name)[0]
    t = ours.tensors()
    ssd_inputs(t, 2, 3)
    launch = ours.launcher(t)
    x, b, dt, dA = (t[i] for i in range(4))
    dt32, dA32 = dt.float(), dA.float()
    theirs = lambda: state_fwd(b, x, dt32, dA32, states_in_fp32=True)  # noqa: E731
    launch()
    out = theirs()
    torch.cuda.synchronize()
    reference = bench.mamba2_chunk_state({k: v.double() for k, v in t.items()})
    print(f"{name}: relative error ours {relative_error(t[4], reference):.2e}, mamba-ssm {relative_error(out, reference):.2e}")
    # Each chunk's state: x^T (B scaled per token), headdim x dstate x chunk multiply-adds a chunk.
    batch, tokens, heads, headdim = x.shape
    flops = 2 * batch * tokens * heads * headdim * b.shape[3]
    compare(name, flops, 0, launch, theirs, "mamba-ssm", rounds)


def state_passing(kernels, passing_fwd, rounds, name="mamba2_state_passing"):
    ours = bench.function_kernels(kernels, name)[0]
    t = ours.tensors()
    launch = ours.launcher(t)
    states, dA = t[0], t[1]
    batch, chunks, heads, headdim, dstate = states.shape
    flat = states.reshape(batch, chunks, heads, headdim * dstate)
    decay = dA[:, :, :, -1].float().contiguous()
    theirs = lambda: passing_fwd(flat, decay, out_dtype=torch.float16)  # noqa: E731
    launch()
    out, final = theirs()
    torch.cuda.synchronize()
    reference = bench.mamba2_state_passing({k: v.double() for k, v in t.items()})
    errors = [
        relative_error(t[2], reference[2]),
        relative_error(t[3], reference[3]),
        relative_error(out.reshape(t[2].shape), reference[2]),
        relative_error(final.reshape(t[3].shape), reference[3]),
    ]
    print(
        f"{name}: relative error ours {{:.2e}} / {{:.2e}}, mamba-ssm {{:.2e}} / {{:.2e}} (entering states / final)".format(*errors)
    )
    # Read the f32 states, write the f16 entering states and the f32 final state.
    moved = states.numel() * (4 + 2) + t[3].numel() * 4
    compare(name, 0, moved, launch, theirs, "mamba-ssm", rounds)


def linear_attention(kernels, rounds):
    from fla.ops.linear_attn import chunk_linear_attn

    ours = bench.function_kernels(kernels, "linear_attention")[0]
    t = ours.tensors()
    launch = ours.launcher(t)
    q, k, v = (t[i].transpose(1, 2).contiguous() for i in range(3))
    theirs = lambda: chunk_linear_attn(q, k, v, scale=1.0, normalize=False)  # noqa: E731
    launch()
    out, _ = theirs()
    torch.cuda.synchronize()
    reference = bench.masked_linear_attention(*(t[i].double() for i in range(3)))
    print(
        f"linear_attention: relative error ours {relative_error(t[3], reference):.2e}, "
        f"flash-linear-attention {relative_error(out.transpose(1, 2), reference):.2e}"
    )
    batch, heads, tokens, dim = t[0].shape
    # The chunked form's FLOPs at chunks of 64: the masked chunk products and the state's two.
    chunk = 64
    flops = 2 * batch * heads * tokens * dim * (chunk + 2 * dim)
    compare("linear_attention", flops, 0, launch, theirs, "flash-linear-attention", rounds)


def main():
    kernels, mamba_ssm = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    torch.manual_seed(0)
    torch.empty(1, device="cuda")  # make the primary context current (bench.Kernel loads into it)
    scan_fwd, state_fwd, passing_fwd = load_mamba_ssm(mamba_ssm)
    chunk_scan(kernels, scan_fwd, rounds)
    chunk_state(kernels, state_fwd, rounds)
    state_passing(kernels, passing_fwd, rounds)
    linear_attention(kernels, rounds)


if __name__ == "__main__":
    main()
