"""The launcher and the Python package on a real GPU (run on the GPU machine; not part of
`cargo test`, which has no GPU). Prepare on the build machine with python/tests/gpu_prepare.sh, then:

    TILE_LIB_DIR=target/gpu-check python3 python/tests/gpu_check.py target/gpu-check

Each kernel runs through tile.load + kernel(...) on PyTorch tensors and is compared with a float64
reference; then the checks that must refuse before launching (wrong dtype, shape, another chip,
another compiler version) are exercised. Exit status 0 when everything passed."""

import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tile  # noqa: E402

directory = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/gpu-check")
failures = 0


def report(name, ok, detail=""):
    global failures
    failures += 0 if ok else 1
    print(f"{'PASS' if ok else 'FAIL'} {name} {detail}")


def compare(name, got, want, tolerance):
    error = ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-6)).item()
    report(name, error < tolerance and not torch.isnan(got).any().item(), f"max relative error {error:.2e}")


def randn(*shape, dtype=torch.float16):
    return torch.randn(*shape, device="cuda").to(dtype)


def gemm(name, m, n, k, transpose_b=False, relu=False):
    kernel = tile.load(directory / name)
    a = randn(m, k)
    b = randn(n, k) if transpose_b else randn(k, n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    kernel(a, b, c)
    torch.cuda.synchronize()
    want = a.double() @ (b.double().t() if transpose_b else b.double())
    compare(name, c, torch.relu(want) if relu else want, 2e-2)
    return kernel, (a, b, c)


kernel, (a, b, c) = gemm("gemm_relu_0_kernel", 4096, 4096, 4096, relu=True)
gemm("gemm_transpose_b_0_kernel", 4096, 4096, 4096, transpose_b=True)
# Host-computed grid and scalars: the manifest's expressions over the tensors' sizes.
gemm("gemm_dynamic_0_kernel", 1999, 3000, 1032)

softmax = tile.load(directory / "softmax_0_kernel")
x = randn(4096, 1024)
y = torch.full_like(x, float("nan"))
softmax(x, y)
torch.cuda.synchronize()
compare("softmax_0_kernel", y, torch.softmax(x.double(), dim=1), 1e-2)

# On an explicit stream.
stream = torch.cuda.Stream()
c.fill_(float("nan"))
with torch.cuda.stream(stream):
    kernel(a, b, c)
stream.synchronize()
compare("gemm_relu_0_kernel on a side stream", c, torch.relu(a.double() @ b.double()), 2e-2)


def refused(name, call, expected):
    try:
        call()
    except tile.TileError as error:
        report(name, expected in str(error), f"({error})")
    else:
        report(name, False, "(launched)")


refused("wrong dtype", lambda: kernel(a, b.float(), c), "argument 1 (B of gemm_relu_0_kernel): expects element type f16, but got f32")
refused("wrong shape", lambda: kernel(a, b[:, :2048], c), "expects shape 4096x4096, but got 4096x2048")
refused("transposed view", lambda: kernel(a, b.t(), c), "unit stride in the inner dimension")
manifest = json.loads(kernel.manifest_json)
other_chip = dict(manifest, target="sm_100a")
refused("another chip", lambda: tile.Kernel(kernel.code, json.dumps(other_chip))(a, b, c), "compiled for sm_100a")
other_compiler = dict(manifest, compiler="0.0.0")
refused("another compiler", lambda: tile.Kernel(kernel.code, json.dumps(other_compiler))(a, b, c), "compiled by tile 0.0.0")

# The autotuning hook, over variants gpu_prepare.sh compiled into the cache (no MLIR here).
from gpu_check_variants import CONFIGS, TEMPLATE  # noqa: E402

c.fill_(float("nan"))
program, config = tile.autotune(TEMPLATE, CONFIGS, [a, b, c], cache_dir=directory / "cache")
program(a, b, c)
torch.cuda.synchronize()
compare(f"autotuned gemm_relu {config}", c, torch.relu(a.double() @ b.double()), 2e-2)

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
