#!/usr/bin/env python3
"""GPU machine: the host cost of one launch through the Python package (tile.load(...)(x, y): the
argument signature compared with the checked one, the current stream, then the prepared launch's
cuLaunchKernel) against a plain cuLaunchKernel from Python with prepacked arguments (cuda-bindings),
for a tiny kernel, on the same stream. Also: the package's launch on an explicit stream (no stream
lookup), and the same launch path with the driver call skipped (a dry-run kernel: the Python side
alone). Issue 12's target: ratio <= 1.10. Usage:
TILE_LIB_DIR=target/gpu-check python3 python/tests/launch_overhead.py target/gpu-check"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tile  # noqa: E402
from bench.bench import PlainKernel, ok  # noqa: E402
from cuda.bindings import driver as cu  # noqa: E402

directory = sys.argv[1]
stem = os.path.join(directory, "tiny_scale_0_kernel")
ok(cu.cuInit(0))
x = torch.randn(128, device="cuda")
y = torch.empty(128, device="cuda")
kernel = tile.load(stem)
with open(stem + ".json") as f:
    raw = PlainKernel(stem + ".ptx", json.load(f)).launcher({0: x, 1: y})


def per_launch(launch, count=20000):
    for _ in range(200):
        launch()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(count):
        launch()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / count * 1e6


kernel(x, y)
torch.cuda.synchronize()
assert torch.allclose(y, 2 * x), "tiny_scale computes 2x"
stream = torch.cuda.current_stream().cuda_stream
dry = tile.load(stem, dry_run_device=x.get_device())
rounds = [(per_launch(lambda: kernel(x, y)), per_launch(raw), per_launch(lambda: kernel(x, y, stream=stream)),
           per_launch(lambda: dry(x, y))) for _ in range(3)]
ours, theirs, explicit, python_side = (sorted(r[i] for r in rounds)[1] for i in range(4))
print(f"tile.load(...)(x, y): {ours:.2f} us a launch; plain cuLaunchKernel: {theirs:.2f} us; ratio {ours / theirs:.3f} "
      f"(target <= 1.10: {'met' if ours <= 1.10 * theirs else 'missed'})")
print(f"  on an explicit stream: {explicit:.2f} us; the Python side alone (dry run, no driver call): {python_side:.2f} us")
