#!/usr/bin/env python3
"""Issue 34's attention shapes: our FlashAttention forward kernels (tools/gen/attention.py) against
torch SDPA's cuDNN and flash backends on the same inputs, f16 and bf16, causal and not, with
grouped-query and head-dim-256 rows; every output checked first against SDPA's math backend in
float32.

    python3 bench/attention_forward.py prepare DIR              # build machine: writes and compiles the kernels (sm_90a)
    python3 bench/attention_forward.py run DIR [--rounds N] [--filter S,...]   # GPU machine

Per shape and type, each kernel (block shapes; for causal shapes also each block shape with its
query blocks launched longest first: the grid's slowest dimension walks them from the last) and
cuDNN alternate for N rounds (do_bench medians); the flash backend is timed once. The table gives the best kernel of each shape against both.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "gen"))

# (batch, heads, K/V heads, tokens, head dim): the rows of issue 34's table, then its
# grouped-query shape (8 query heads on each K/V head) and head dim 256.
SHAPES = [
    (4, 8, 8, 4096, 128),
    (8, 16, 16, 2048, 64),
    (1, 16, 16, 16384, 128),
    (16, 16, 16, 1024, 128),
    (16, 16, 16, 512, 128),
    (2, 32, 4, 4096, 128),
    (4, 8, 8, 4096, 256),
]

# (tag, options of tools/gen/attention.py's `attention`) by head dim: 128 query rows on two
# warpgroups, keys of 128 a step in FlashAttention-2's order with a ring of 2 (the fastest at head
# dim 128, RESULTS run 62), or 64 a step in FlashAttention-3's order with a ring of 3, or 64 a step
# in FlashAttention-2's order with two blocks a multiprocessor (short sequences: one block's Q load
# and ring fill under the other's work, RESULTS run 209); at head dim 256 (a 128x256
# accumulator), 64 keys a step in FlashAttention-2's order, on 128 or 64 rows.
TWO_BLOCKS = ("m128n64s2_fa2_mb2", dict(block_m=128, block_n=64, threads=256, stages=2, overlap=False, min_blocks=2))
# FlashAttention-3's schedule: its order, the two consumer warpgroups issuing their gemms in turns
# (ping-pong), 128 or 64 keys a step (head dims 64 and 128).
PING_PONG = [
    ("m128n128s2_pp", dict(block_m=128, block_n=128, threads=256, stages=2, pingpong=True)),
    ("m128n64s3_pp", dict(block_m=128, block_n=64, threads=256, stages=3, pingpong=True)),
]
# A persistent kernel: one block a multiprocessor walks the (query block, head, batch) items, its
# ring and the next item's Q loading under this item's steps (short sequences: RESULTS run 265,
# 0.77 of cuDNN at 512 tokens where two blocks a multiprocessor give 0.72); causal ones, each item
# running its own key blocks, timed in FlashAttention-2's order only (FlashAttention-3's compiles
# for them too, not timed here).
PERSISTENT = [
    ("m128n64s3_persistent", dict(block_m=128, block_n=64, threads=256, stages=3, overlap=False, persistent=True)),
    # 128 keys a step: causal, the fastest persistent kernel (RESULTS run 280: 0.996 of cuDNN at 512
    # and 1024 tokens, 1.07 at 4096, walking the items in the grid's order, back and forth).
    ("m128n128s2_fa2_persistent", dict(block_m=128, block_n=128, threads=256, stages=2, overlap=False, persistent=True)),
    # FlashAttention-3's order (an item's first S and last P V at its first and last steps), its
    # warpgroups' turns also (RESULTS run 269: 0.85 at 1024 tokens).
    ("m128n64s2_fa3_persistent", dict(block_m=128, block_n=64, threads=256, stages=2, persistent=True)),
    ("m128n64s2_pp_persistent", dict(block_m=128, block_n=64, threads=256, stages=2, pingpong=True, persistent=True)),
]
# FlashAttention-3's order with the first K and last V through the loop's ring (no tiles of their
# own: larger blocks fit; causal too): ping-pong or not, persistent or not (without the edge
# tiles a persistent ping-pong kernel's rings fit beside 128-key steps at head dim 128).
def ring_ends(n, stages=2, pingpong=True, persistent=False):
    tag = f"m128n{n}s{stages}_{'pp' if pingpong else 'fa3'}re{'_persistent' if persistent else ''}"
    return (tag, dict(block_m=128, block_n=n, threads=256, stages=stages, pingpong=pingpong, ring_ends=True, persistent=persistent))


TILINGS = {
    64: [
        ("m128n128s2_fa2", dict(block_m=128, block_n=128, threads=256, stages=2, overlap=False)),
        ("m128n64s3", dict(block_m=128, block_n=64, threads=256, stages=3)),
        TWO_BLOCKS,
        *PING_PONG,
        *PERSISTENT,
        # Ping-pong persistent on 128-key steps: its rings fit at head dim 64 only (RESULTS run
        # 284: 1.003 of cuDNN non-causal).
        ("m128n128s2_pp_persistent", dict(block_m=128, block_n=128, threads=256, stages=2, pingpong=True, persistent=True)),
        ring_ends(128),
        ring_ends(128, persistent=True),
    ],
    128: [
        ("m128n128s2_fa2", dict(block_m=128, block_n=128, threads=256, stages=2, overlap=False)),
        ("m128n64s3", dict(block_m=128, block_n=64, threads=256, stages=3)),
        TWO_BLOCKS,
        *PING_PONG,
        *PERSISTENT,
        ring_ends(128),
        ring_ends(176),
        ring_ends(128, persistent=True),
        ring_ends(128, pingpong=False, persistent=True),
    ],
    256: [
        ("m128n64s2_fa2", dict(block_m=128, block_n=64, threads=256, stages=2, overlap=False)),
        ("m128n80s2_fa2", dict(block_m=128, block_n=80, threads=256, stages=2, overlap=False)),
        ("m64n64s2_fa2", dict(block_m=64, block_n=64, threads=128, stages=2, overlap=False)),
        # 32 keys a step: FlashAttention-3's order and ping-pong beside a producer, without spills
        # (at 64 keys those orders need 255 registers and spill).
        ("m128n32s3", dict(block_m=128, block_n=32, threads=256, stages=3)),
        ("m128n32s3_pp", dict(block_m=128, block_n=32, threads=256, stages=3, pingpong=True)),
        ("m128n32s3_fa2", dict(block_m=128, block_n=32, threads=256, stages=3, overlap=False)),
        ring_ends(64),
        ring_ends(64, pingpong=False),
        ring_ends(80),
        ring_ends(80, pingpong=False),
    ],
}


def label(shape):
    batch, heads, kv_heads, seq, dim = shape
    group = f"kv{kv_heads}" if kv_heads != heads else ""
    return f"b{batch}h{heads}{group}s{seq}d{dim}"


def kernel_name(shape, causal, dtype, tag, longest_first=False):
    kind = "causal" if causal else "full"
    suffix = "_lpt" if longest_first else ""
    return f"attention_{kind}_{dtype}_{label(shape)}_{tag}{suffix}"


def variants():
    """Every kernel: (name, shape, causal, dtype, options)."""
    for shape in SHAPES:
        for causal in (False, True):
            for dtype in ("f16", "bf16"):
                for tag, options in TILINGS[shape[4]]:
                    if causal and options.get("persistent") and options.get("overlap", True):
                        continue
                    # Each causal kernel beside its twin launched longest first.
                    yield kernel_name(shape, causal, dtype, tag), shape, causal, dtype, dict(options, longest_first=False)
                    if causal:
                        yield kernel_name(shape, causal, dtype, tag, True), shape, causal, dtype, dict(options, longest_first=True)


def prepare(directory):
    from attention import attention

    os.makedirs(directory, exist_ok=True)
    compiler = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "tile-compile")
    count = 0
    for name, (batch, heads, kv_heads, seq, dim), causal, dtype, options in variants():
        path = os.path.join(directory, name + ".mlir")
        with open(path, "w") as f:
            f.write(attention(name, batch, heads, seq, dim, dtype, causal, kv_heads=kv_heads, **options))
        result = subprocess.run([compiler, path, "--target", "sm_90a", "-o", directory], capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{name}: not compiled: {result.stderr.strip()[:300]}")
        count += 1
    print(f"{count} kernels written to {directory}")


def run(directory, rounds, name_filter):
    import numpy
    import torch
    import triton
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    import bench

    bench.start()
    timer = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=150)  # noqa: E731
    rows, failures = [], 0
    for shape in SHAPES:
        batch, heads, kv_heads, seq, dim = shape
        for causal in (False, True):
            for dtype in ("f16", "bf16"):
                row = f"{label(shape)} {'causal' if causal else 'full'} {dtype}"
                if not any(part in row for part in name_filter.split(",")):
                    continue
                element = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
                q = torch.randn(batch, heads, seq, dim, dtype=element, device="cuda")
                k, v = (torch.randn(batch, kv_heads, seq, dim, dtype=element, device="cuda") for _ in range(2))
                # The baselines get K and V with a head for each query head (cuDNN's grouped-query
                # path through SDPA takes them so); the expansion is not timed.
                group = heads // kv_heads
                k_full, v_full = (t.repeat_interleave(group, dim=1) if group > 1 else t for t in (k, v))
                reference = torch.empty(batch, heads, seq, dim, dtype=torch.float32, device="cuda")
                with sdpa_kernel(SDPBackend.MATH):
                    for b in range(batch):
                        reference[b] = sdpa(q[b : b + 1].float(), k_full[b : b + 1].float(), v_full[b : b + 1].float(), is_causal=causal)[0]
                flops = 4 * batch * heads * seq * seq * dim / (2 if causal else 1)

                def cudnn():
                    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                        return sdpa(q, k_full, v_full, is_causal=causal)

                def flash():
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        return sdpa(q, k_full, v_full, is_causal=causal)

                best = None
                for name, _, kernel_causal, kernel_dtype, _ in variants():
                    if kernel_causal != causal or kernel_dtype != dtype or f"_{label(shape)}_" not in name:
                        continue
                    kernels = bench.function_kernels(directory, name)
                    if not kernels:
                        continue
                    o = torch.full_like(q, float("nan"))
                    launch = kernels[0].launcher({0: q, 1: k, 2: v, 3: o})
                    passed, error = bench.launch_and_check(launch, o, reference, dtype == "bf16")
                    if not passed:
                        print(f"{name}: FAIL rel_err={error:.2e}", flush=True)
                        failures += 1
                        continue
                    mine, ratios = bench.alternating_rounds(launch, cudnn, rounds, timer)
                    ratio = float(numpy.median(ratios))
                    print(f"{name}: PASS rel_err={error:.1e} {flops / mine / 1e9:.0f} TFLOP/s, {ratio:.3f} of cuDNN (rounds {', '.join(f'{r:.3f}' for r in ratios)})", flush=True)
                    if best is None or ratio > best[1]:
                        best = (name.split(f"_{label(shape)}_")[1], ratio, flops / mine / 1e9, mine)
                cudnn_ms = timer(cudnn)
                try:
                    flash_ms = timer(flash)
                except RuntimeError:
                    flash_ms = float("nan")  # the flash backend takes head dims up to 256 on some builds only
                rows.append((row, flops / cudnn_ms / 1e9, flops / flash_ms / 1e9, best, flash_ms))
    print(f"\nAttention forward against SDPA, medians of {rounds} alternating round(s) against cuDNN\n")
    print("| shape | cuDNN TFLOP/s | flash TFLOP/s | ours: kernel, TFLOP/s | / cuDNN | / flash |\n|---|---|---|---|---|---|")
    for row, cudnn_tf, flash_tf, best, flash_ms in rows:
        if best:
            print(f"| {row} | {cudnn_tf:.0f} | {flash_tf:.0f} | {best[0]}, {best[2]:.0f} | {best[1]:.3f} | {flash_ms / best[3]:.3f} |")
        else:
            print(f"| {row} | {cudnn_tf:.0f} | {flash_tf:.0f} | none | | |")
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("prepare", "run"))
    parser.add_argument("directory")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    if args.action == "prepare":
        prepare(args.directory)
    else:
        run(args.directory, args.rounds, args.filter)


if __name__ == "__main__":
    main()
