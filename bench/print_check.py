#!/usr/bin/env python3
"""GPU machine: runs kernels that print (`tile.print`, through CUDA's printf) and writes what they
printed, for a comparison with the interpreter's lines (`tile-run --target interp`).

    python3 bench/print_check.py KERNEL.ptx... > printed.txt

Each kernel runs once on fresh inputs; the device's printf buffer reaches this process's standard
output at the synchronization after it. The lines of different blocks interleave in any order, so
compare them sorted (a block's lines of one tile keep their order)."""
import os
import sys

import torch
from cuda.bindings import driver as cu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    bench.ok(cu.cuInit(0))
    torch.empty(1, device="cuda")
    for ptx in sys.argv[1:]:
        kernel = bench.Kernel(ptx, bench.read_manifest(ptx[: -len(".ptx")] + ".json"))
        tensors = kernel.tensors()
        kernel.launcher(tensors)()
        torch.cuda.synchronize()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
