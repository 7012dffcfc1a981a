#!/usr/bin/env python3
"""Build machine (no GPU, no torch): the Python-side cost of one launch through the package, with
the driver calls stubbed out by a dry-run kernel (Kernel(..., dry_run_device=0): every check and
the prepared launch's parameters as for a real launch, then no cuLaunchKernel). Stand-in tensors
answer dtype, shape, stride(), get_device() and data_ptr() through C-level callables, as torch's
do. Usage (a release build of the launcher gives the numbers that matter):

    cargo build --release -p tile-launch
    TILE_LIB_DIR=target/release python3 python/tests/launch_overhead_cpu.py

Rows: the package's launch (fast path); the same signature-compare-then-one-C-call path the
package had before (the cached ctypes description, tileLaunchRun re-checking every argument), for
comparison; the bare ctypes call of the fast path (its floor); and a Python call doing nothing.
Not measured here: the current stream lookup (torch's C getter on the GPU machine) and the driver's
cuLaunchKernel."""

import ctypes
import itertools
import os
import pathlib
import sys
import timeit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import tile  # noqa: E402

# test/programs/tiny_scale.mlir's manifest: one block of 128 threads, two f32[128] tensors.
MANIFEST = """{"version": 1, "compiler": "%s", "entry": "tiny_scale_0_kernel", "host_function": "tiny_scale",
 "target": "sm_90a", "strategy": "registers", "workgroup_size": [128, 1, 1], "grid": [1, 1, 1], "shared_bytes": 0,
 "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [128], "element": "f32", "written": false},
              {"set": 0, "binding": 1, "host_argument": 1, "shape": [128], "element": "f32", "written": true}]}"""


class Tensor:
    """What the launcher reads of a torch tensor, each through a C-level callable."""

    def __init__(self, address):
        self.dtype = "torch.float32"
        self.shape = (128,)
        self.stride = itertools.repeat((1,)).__next__
        self.get_device = itertools.repeat(0).__next__
        self.data_ptr = itertools.repeat(address).__next__


def per_call(function, number=200_000, repeat=7):
    """Best of `repeat` rounds, in microseconds a call."""
    function()
    return min(timeit.repeat(function, number=number, repeat=repeat)) / number * 1e6


def old_launcher(kernel):
    """The launch path before prepared launches (RESULTS run 38b): the signature tuple compared,
    the cached ctypes description's addresses refreshed, tileLaunchRun checking every argument."""
    lib = tile._launch_library()
    handle = kernel._load()
    state = {"signature": None, "described": None, "kernel": kernel}  # the kernel outlives its handle's use
    error = ctypes.create_string_buffer(4096)

    def launch(*args, stream=0):
        signature = tuple(arg if isinstance(arg, int) else (arg.dtype, tuple(arg.shape), tuple(arg.stride()))
                          if hasattr(arg, "stride") else type(arg) for arg in args)
        if signature == state["signature"]:
            described, _ = state["described"]
            for index, arg in enumerate(args):
                if not isinstance(arg, int):
                    described[index].address = arg.data_ptr()
        else:
            state["described"] = tile._arguments(args)
            state["signature"] = signature
            described = state["described"][0]
        if lib.tileLaunchRun(handle, described, len(args), ctypes.c_void_p(stream), error, len(error)):
            raise tile.TileError(error.value.decode())

    return launch


def main():
    kernel = tile.Kernel(b"", MANIFEST % tile.compiler_version(), dry_run_device=0)
    x, y = Tensor(0x7F0000000000), Tensor(0x7F0000001000)
    kernel(x, y)
    old = old_launcher(tile.Kernel(b"", MANIFEST % tile.compiler_version(), dry_run_device=0))
    packed = kernel._fast[2](x.data_ptr(), y.data_ptr())
    run, launch = tile._run_prepared, kernel._fast[1]
    rows = [
        ("tile kernel(x, y), fast path (dry run)", per_call(lambda: kernel(x, y))),
        ("before: signature tuple + tileLaunchRun (dry run)", per_call(lambda: old(x, y))),
        ("floor: tileLaunchPreparedRun through ctypes alone", per_call(lambda: run(launch, packed, 0))),
        ("a Python call that does nothing", per_call(lambda: None)),
    ]
    print(f"launcher: {os.environ.get('TILE_LIB_DIR', '(default search)')}")
    for name, micros in rows:
        print(f"{name:<52} {micros:6.2f} us")


if __name__ == "__main__":
    main()
