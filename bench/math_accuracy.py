#!/usr/bin/env python3
"""Runs the sm_90a kernel of test/programs/math_functions.mlir on the GPU and prints, per math
function, the worst error against float64 (|got - want| / max(|want|, 1), as tile-run --check
measures), so that the accuracy of tile-math-to-nvptx's lowering is measured, not assumed.

Usage (GPU machine, no MLIR needed): python3 bench/math_accuracy.py KERNEL_DIR
KERNEL_DIR holds math_functions_0_kernel.ptx + .json from
`tile-compile test/programs/math_functions.mlir --target sm_90a -o KERNEL_DIR`, and optionally the
same for test/programs/math_functions_f16.mlir.
"""
import ctypes
import json
import os
import sys

import torch
from cuda.bindings import driver as cu

# Row k of the output: what the program computes from x (its comments give the same list).
FUNCTIONS = [
    ("exp", lambda x, p, w, h: torch.exp(w)),
    ("exp2", lambda x, p, w, h: torch.exp2(w)),
    ("expm1", lambda x, p, w, h: torch.expm1(h)),
    ("log", lambda x, p, w, h: torch.log(p)),
    ("log2", lambda x, p, w, h: torch.log2(p)),
    ("log10", lambda x, p, w, h: torch.log10(p)),
    ("log1p", lambda x, p, w, h: torch.log1p(h)),
    ("rsqrt", lambda x, p, w, h: torch.rsqrt(p)),
    ("sqrt", lambda x, p, w, h: torch.sqrt(p)),
    ("tanh", lambda x, p, w, h: torch.tanh(w)),
    ("erf", lambda x, p, w, h: torch.erf(w)),
    ("sin", lambda x, p, w, h: torch.sin(w)),
    ("cos", lambda x, p, w, h: torch.cos(w)),
    ("tan", lambda x, p, w, h: torch.tan(x)),
    ("atan", lambda x, p, w, h: torch.atan(w)),
    ("atan2", lambda x, p, w, h: torch.atan2(x, h)),
    ("powf", lambda x, p, w, h: torch.pow(p, w)),
    ("fpowi 3", lambda x, p, w, h: w ** 3),
    ("absf", lambda x, p, w, h: torch.abs(x)),
    ("floor", lambda x, p, w, h: torch.floor(w)),
    ("ceil", lambda x, p, w, h: torch.ceil(w)),
    ("round", lambda x, p, w, h: torch.sign(w) * torch.floor(torch.abs(w) + 0.5)),
    ("fma", lambda x, p, w, h: x * w + h),
    ("copysign", lambda x, p, w, h: torch.copysign(p, x)),
    ("cbrt", lambda x, p, w, h: torch.sign(w) * torch.abs(w) ** (1.0 / 3.0)),
    ("erfc", lambda x, p, w, h: torch.erfc(x)),
    ("trunc", lambda x, p, w, h: torch.trunc(w)),
    ("roundeven", lambda x, p, w, h: torch.round(w)),
    ("asin", lambda x, p, w, h: torch.asin(h)),
    ("acos", lambda x, p, w, h: torch.acos(h)),
    ("sinh", lambda x, p, w, h: torch.sinh(x)),
    ("cosh", lambda x, p, w, h: torch.cosh(x)),
    ("powf int", lambda x, p, w, h: torch.pow(w, torch.trunc(4 * x))),
    ("fpowi", lambda x, p, w, h: torch.pow(w, torch.trunc(4 * x))),
    ("ctlz", lambda x, p, w, h: bits(x, lambda n: 32 - n.bit_length() if n >= 0 else 0)),
    ("cttz", lambda x, p, w, h: bits(x, lambda n: (n & -n).bit_length() - 1 if n else 32)),
    ("ctpop", lambda x, p, w, h: bits(x, lambda n: bin(n & 0xFFFFFFFF).count("1"))),
    ("absi", lambda x, p, w, h: bits(x, abs)),
    ("classes", lambda x, p, w, h: torch.full_like(x, 1.0)),
]


def bits(x, count):
    """Applies `count` to trunc(1000 x) computed in f32, as the program does."""
    n = (x.float() * 1000).to(torch.int32).tolist()
    return torch.tensor([float(count(v)) for v in n], dtype=torch.float64)


# Rows of test/programs/math_functions_f16.mlir (same shifts, computed in f16 there).
FUNCTIONS_F16 = [
    ("exp", lambda x, p, w, h: torch.exp(w)),
    ("log", lambda x, p, w, h: torch.log(p)),
    ("tanh", lambda x, p, w, h: torch.tanh(w)),
    ("erf", lambda x, p, w, h: torch.erf(w)),
    ("sin", lambda x, p, w, h: torch.sin(w)),
    ("rsqrt", lambda x, p, w, h: torch.rsqrt(p)),
    ("powf", lambda x, p, w, h: torch.pow(p, w)),
    ("atan2", lambda x, p, w, h: torch.atan2(x, h)),
    ("cbrt", lambda x, p, w, h: torch.sign(w) * torch.abs(w) ** (1.0 / 3.0)),
    ("exp2", lambda x, p, w, h: torch.exp2(w)),
]


def ok(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err}")
    return rest[0] if len(rest) == 1 else rest


def run(directory, name, functions, dtype):
    """Runs kernel `name` on 64 inputs uniform in [-1, 1) of `dtype`; prints each row's worst error."""
    manifest = json.load(open(os.path.join(directory, name + ".json")))
    with open(os.path.join(directory, name + ".ptx"), "rb") as f:
        module = ok(cu.cuModuleLoadData(f.read() + b"\0"))
    function = ok(cu.cuModuleGetFunction(module, manifest["entry"].encode()))
    generator = torch.Generator().manual_seed(7)
    x = (torch.rand(64, generator=generator, dtype=torch.float64) * 2 - 1).to(dtype).cuda()
    y = torch.full((len(functions), 64), float("nan"), dtype=dtype, device="cuda")
    values, types = [], []
    for t in (x, y):
        values += [t.data_ptr(), t.data_ptr(), 0, *t.shape, *t.stride()]
        types += [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * t.dim())
    stream = torch.cuda.current_stream().cuda_stream
    ok(cu.cuLaunchKernel(function, *manifest["grid"], *manifest["workgroup_size"], 0, stream,
                         (tuple(values), tuple(types)), 0))
    torch.cuda.synchronize()
    # The program's shifts, rounded as the kernel rounds them.
    xd = x.double().cpu()
    p, w, h = [v.to(dtype).double() for v in (x.abs() + 0.25, x * 3, x * 0.5)]
    p, w, h = p.cpu(), w.cpu(), h.cpu()
    got = y.double().cpu()
    worst_all = 0.0
    print(f"{name} ({dtype}):")
    for row, (label, reference) in enumerate(functions):
        want = reference(xd, p, w, h)
        error = ((got[row] - want).abs() / want.abs().clamp(min=1.0)).max().item()
        nan = int(torch.isnan(got[row]).sum())
        worst_all = max(worst_all, error)
        print(f"  {label:10s} worst error {error:.3e}{'  NaN: ' + str(nan) if nan else ''}")
    print(f"  all        worst error {worst_all:.3e}")


def main():
    directory = sys.argv[1]
    torch.zeros(1, device="cuda")  # creates the primary context the driver calls use
    run(directory, "math_functions_0_kernel", FUNCTIONS, torch.float32)
    if os.path.exists(os.path.join(directory, "math_functions_f16_0_kernel.ptx")):
        run(directory, "math_functions_f16_0_kernel", FUNCTIONS_F16, torch.float16)


if __name__ == "__main__":
    main()
