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


def guarded(name, check):
    """Runs one check; an exception is a failure of that check, not the end of the run."""
    try:
        return check()
    except Exception as error:  # noqa: BLE001 - report and go on
        report(name, False, f"({type(error).__name__}: {error})")


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


def epilogue_reads():
    # Epilogue tensors passed as memref descriptors after the tensor maps: C = relu(A B + bias) + R.
    kernel = tile.load(directory / "gemm_epilogue_reads_0_kernel")
    a, b, r = randn(200, 64), randn(64, 192), randn(200, 192)
    bias = torch.randn(192, device="cuda")
    c = torch.full((200, 192), float("nan"), device="cuda", dtype=torch.float16)
    kernel(a, b, bias, r, c)
    torch.cuda.synchronize()
    compare("gemm_epilogue_reads_0_kernel", c, torch.relu(a.double() @ b.double() + bias.double()) + r.double(), 2e-2)


def multi_head_scores():
    # 4-D tensor maps: S = Q K^T / 8 per (batch, head), a ragged sequence.
    kernel = tile.load(directory / "multi_head_scores_0_kernel")
    q, k = randn(2, 3, 104, 64), randn(2, 3, 104, 64)
    s = torch.full((2, 3, 104, 104), float("nan"), device="cuda", dtype=torch.float16)
    kernel(q, k, s)
    torch.cuda.synchronize()
    compare("multi_head_scores_0_kernel", s, q.double() @ k.double().transpose(-1, -2) * 0.125, 2e-2)


def softmax():
    kernel = tile.load(directory / "softmax_0_kernel")
    x = randn(4096, 1024)
    y = torch.full_like(x, float("nan"))
    kernel(x, y)
    torch.cuda.synchronize()
    compare("softmax_0_kernel", y, torch.softmax(x.double(), dim=1), 1e-2)


def refused(name, call, expected):
    try:
        call()
    except tile.TileError as error:
        report(name, expected in str(error), f"({error})")
    else:
        report(name, False, "(launched)")


def gemm_relu_extras():
    kernel, (a, b, c) = gemm("gemm_relu_0_kernel", 4096, 4096, 4096, relu=True)
    # On an explicit stream.
    stream = torch.cuda.Stream()
    c.fill_(float("nan"))
    with torch.cuda.stream(stream):
        kernel(a, b, c)
    stream.synchronize()
    compare("gemm_relu_0_kernel on a side stream", c, torch.relu(a.double() @ b.double()), 2e-2)
    # Refused before launching.
    refused("wrong dtype", lambda: kernel(a, b.float(), c), "argument 1 (B of gemm_relu_0_kernel): expects element type f16, but got f32")
    refused("wrong shape", lambda: kernel(a, b[:, :2048], c), "expects shape 4096x4096, but got 4096x2048")
    refused("transposed view", lambda: kernel(a, b.t(), c), "unit stride in the inner dimension")
    manifest = json.loads(kernel.manifest_json)
    other_chip = json.dumps(dict(manifest, target="sm_100a"))
    refused("another chip", lambda: tile.Kernel(kernel.code, other_chip)(a, b, c), "compiled for sm_100a")
    other_compiler = json.dumps(dict(manifest, compiler="0.0.0"))
    refused("another compiler", lambda: tile.Kernel(kernel.code, other_compiler)(a, b, c), "compiled by tile 0.0.0")
    # The autotuning hook, over variants gpu_prepare.sh compiled into the cache (no MLIR here).
    from gpu_check_variants import CONFIGS, TEMPLATE

    c.fill_(float("nan"))
    program, config = tile.autotune(TEMPLATE, CONFIGS, [a, b, c], cache_dir=directory / "cache")
    program(a, b, c)
    torch.cuda.synchronize()
    compare(f"autotuned gemm_relu {config}", c, torch.relu(a.double() @ b.double()), 2e-2)


guarded("gemm_relu_0_kernel and the refusals", gemm_relu_extras)
guarded("gemm_transpose_b_0_kernel", lambda: gemm("gemm_transpose_b_0_kernel", 4096, 4096, 4096, transpose_b=True))
# Host-computed grid and scalars: the manifest's expressions over the tensors' sizes.
guarded("gemm_dynamic_0_kernel", lambda: gemm("gemm_dynamic_0_kernel", 1999, 3000, 1032))
guarded("gemm_epilogue_reads_0_kernel", epilogue_reads)
guarded("multi_head_scores_0_kernel", multi_head_scores)
guarded("softmax_0_kernel", softmax)

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
