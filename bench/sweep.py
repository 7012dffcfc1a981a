#!/usr/bin/env python3
"""Issue 35's GEMM shape sweep: the shapes a frontend hands us (square, LLM prefill with N or K up to
28672, decode-like M of 16 to 256, ragged sizes), f16 or bf16, each against cuBLAS (torch.matmul) in
the same run (fp8: f8E4M3FN with B as N x K, into f32, against `torch._scaled_mm` with unit scales,
static kernels only), every output checked against a float64 product first.

    python3 bench/sweep.py prepare DIR [--dtype f16|bf16|fp8]   # build machine: writes and compiles the kernels (sm_90a)
    python3 bench/sweep.py run DIR [--dtype f16|bf16|fp8] [--rounds N] [--confirm N] [--filter S,...]   # GPU machine

For each shape, a static kernel per tiling (sizes compiled in: `bench/variants.py`'s program; the
wide and larger tilings also on clusters of two blocks sharing B's tiles, `multicast = 2`) and
one dynamic kernel per tiling for all shapes (`examples/gemm_dynamic.mlir`'s form: sizes, grid and
trip count from the tensors at run time). The run times every kernel of a shape and cuBLAS in
alternating rounds (do_bench medians) and reports, per shape, the best static and the best dynamic
tiling against cuBLAS; then the geometric mean and the worst ratio of each over the shapes. Two
more kinds leave the tiling to the compiler (`tile.matmul`): one program per shape with its sizes
compiled in, and one of run-time sizes for every shape, whose kernels (one per size class) each
launch where their manifest's `when` holds. With `--confirm N` each kind's choice for a shape is
timed again in N alternating rounds and reported from those: the best of several kernels timed
once each is biased upwards by the rounds' spread.
"""
import argparse
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# (M, N, K): the shapes of issue 35's table.
SHAPES = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 12288, 4096),
    (4096, 14336, 4096),
    (4096, 4096, 14336),
    (2048, 2048, 8192),
    (128, 28672, 4096),
    (16, 4096, 4096),
    (64, 4096, 4096),
    (128, 4096, 14336),
    (256, 4096, 14336),
    (3001, 2056, 1544),
    (1999, 3000, 1032),
    (5000, 5000, 5000),
]

# (tag, block M, block N, block K, threads, stages): the five tilings, 128x192 (ragged
# sizes: a last wave that idles less, e.g. 264 tiles of 3001x2056 on 132 multiprocessors where
# 128x256 gives 216), and 64x128 with a ring of 8 (few tiles and a long K wait on memory: a deeper
# ring keeps more of it in flight), and 64x64 so (twice the blocks where the tiles are few, each
# streaming half the columns of B); a warpgroup takes 64 rows (or a 128-row block splits N over two);
# and the larger tiles `tile.matmul` takes where rows are not whole 128-byte lines (192x256 on three
# warpgroups, 256x192 on two; rings of 3: fewer bytes loaded a flop, run 233).
TILINGS = [
    ("128x256", 128, 256, 64, 256, 4),
    ("192x256", 192, 256, 64, 384, 3),
    ("256x192", 256, 192, 64, 256, 3),
    ("128x192", 128, 192, 64, 256, 4),
    ("256x128", 256, 128, 64, 256, 4),
    ("128x128", 128, 128, 64, 256, 4),
    ("64x128", 64, 128, 64, 128, 4),
    ("64x256", 64, 256, 64, 128, 4),
    ("64x128r8", 64, 128, 64, 128, 8),
    ("64x64r8", 64, 64, 64, 128, 8),
]

# Static kernels only: the wide and the larger tilings on clusters of two blocks that load their
# B tiles once (`multicast = 2`: pairs of grid rows; RESULTS run 258, rows off 128-byte lines).
MULTICAST_TILINGS = [
    ("128x256mc", 128, 256, 64, 256, 4),
    ("192x256mc", 192, 256, 64, 384, 3),
    ("256x192mc", 256, 192, 64, 256, 3),
]

# fp8 (f8E4M3FN x f8E4M3FN -> f32, B given as N x K: wgmma reads 8-bit operands K-major only):
# K tiles of 128 (128-byte rows), the same output tiles; static kernels only.
FP8_TILINGS = [
    ("128x256", 128, 256, 128, 256, 3),
    ("128x128", 128, 128, 128, 256, 4),
    ("64x128", 64, 128, 128, 128, 4),
    ("64x128r8", 64, 128, 128, 128, 8),
]

# The program's element type for each --dtype.
ELEMENTS = {"f16": "f16", "bf16": "bf16", "fp8": "f8E4M3FN"}

DYNAMIC = """// {name}: C = A * B on tensors of run-time sizes ({dtype}), tile {bm}x{bn}x{bk}, {threads} threads, {stages} stages.
func.func @{name}(%A: memref<?x?x{dtype}>, %B: memref<?x?x{dtype}>, %C: memref<?x?x{dtype}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbk = arith.constant {bk} : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?x{dtype}>
  %k = memref.dim %A, %c1 : memref<?x?x{dtype}>
  %n = memref.dim %B, %c1 : memref<?x?x{dtype}>
  %gx = arith.ceildivui %n, %cbn : index
  %gy = arith.ceildivui %m, %cbm : index
  %ktiles = arith.ceildivui %k, %cbk : index
  tile.kernel grid(%gx, %gy) threads({threads}) (%bx, %by) {{
    %As = tile.alloc_shared : memref<{bm}x{bk}x{dtype}, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<{bk}x{bn}x{dtype}, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<{bm}x{bn}xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<{bm}x{bn}xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages({stages}){schedule} {{
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<?x?x{dtype}>, memref<{bm}x{bk}x{dtype}, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<?x?x{dtype}>, memref<{bk}x{bn}x{dtype}, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<{bm}x{bk}x{dtype}, #gpu.address_space<workgroup>>,
          memref<{bk}x{bn}x{dtype}, #gpu.address_space<workgroup>>, memref<{bm}x{bn}xf32, #tile.fragment>
    }}
    tile.copy %Cf, %C[%m0, %n0] : memref<{bm}x{bn}xf32, #tile.fragment>, memref<?x?x{dtype}>
  }}
  return
}}
"""


MATMUL = """// {name}: C = A * B ({dtype}), the kernels and their tiling the compiler's choice.
func.func @{name}(%A: memref<{a}x{dtype}>, %B: memref<{b}x{dtype}>, %C: memref<{c}x{out}>) {{
  tile.matmul %A, %B, %C{flag} : memref<{a}x{dtype}>, memref<{b}x{dtype}>, memref<{c}x{out}>
  return
}}
"""


def matmul_program(dtype, shape=None):
    """A `tile.matmul` of `shape` (run-time sizes without one); fp8 as the sweep's fp8 kernels
    take it: B as N x K, into f32."""
    element = ELEMENTS[dtype]
    m, n, k = shape or ("?", "?", "?")
    fp8 = dtype == "fp8"
    return MATMUL.format(
        name=matmul_name(dtype, shape), dtype=element, out="f32" if fp8 else element,
        a=f"{m}x{k}", b=f"{n}x{k}" if fp8 else f"{k}x{n}", c=f"{m}x{n}", flag=" {transpose_b}" if fp8 else "",
    )


def matmul_name(dtype, shape=None):
    return f"sweep_{dtype}_matmul_" + ("{}x{}x{}".format(*shape) if shape else "dynamic")


def static_name(shape, tag, dtype):
    return "sweep_{}_{}x{}x{}_{}".format(dtype, *shape, tag)


def whole_name(shape, tag, dtype):
    return static_name(shape, tag, dtype) + "_whole"


def dynamic_name(tag, dtype, persistent=False, split=None):
    kind = "persistent_" if persistent else f"split{split}_" if split else ""
    return f"sweep_{dtype}_dynamic_{kind}{tag}"


# The dynamic kernels' schedule entry: one tile a block (as written), or a persistent kernel whose
# tile count the host gives (tile-persistent-kernels takes dynamic sizes on request only).
PERSISTENT = " attributes {tile.schedule = {persistent = true}}"
# The dynamic kernels split across clusters on request (tile-split-k splits run-time steps into
# parts of ceil(steps / S)), for the tilings with few tiles: what a host-side choice (an scf.if on
# the sizes, each kernel's manifest `when`) would launch for small M.
SPLITS = (2, 4)
SPLIT_TILINGS = ("128x128", "64x128", "64x128r8")


def split_kernel(directory, name):
    """Whether the kernel of `name` in `directory` was split across clusters (tile-split-k)."""
    ptx = os.path.join(directory, name + "_0_kernel.ptx")
    return os.path.exists(ptx) and ".reqnctapercluster" in open(ptx).read()


def prepare(directory, dtype):
    """Writes every kernel's program (inputs and output of `dtype`) and compiles it for sm_90a into
    `directory`."""
    import variants

    os.makedirs(directory, exist_ok=True)
    programs = []
    fp8 = dtype == "fp8"
    element = ELEMENTS[dtype]
    for shape in SHAPES:
        for tag, bm, bn, bk, threads, stages in FP8_TILINGS if fp8 else TILINGS:
            name = static_name(shape, tag, dtype)
            m, n, k = shape
            programs.append((name, variants.program(name, m, n, k, element, bm, bn, bk, threads, stages, transpose_b=fp8)))
            # Its twin with the loop kept whole, where tile-split-k splits it (timed beside it).
            whole = whole_name(shape, tag, dtype)
            programs.append((whole, variants.program(whole, m, n, k, element, bm, bn, bk, threads, stages, transpose_b=fp8, split=1)))
        for tag, bm, bn, bk, threads, stages in [] if fp8 else MULTICAST_TILINGS:
            name = static_name(shape, tag, dtype)
            m, n, k = shape
            programs.append((name, variants.program(name, m, n, k, element, bm, bn, bk, threads, stages, multicast=2)))
    for tag, bm, bn, bk, threads, stages in [] if fp8 else TILINGS:
        for persistent in (False, True):
            name = dynamic_name(tag, dtype, persistent)
            schedule = PERSISTENT if persistent else ""
            programs.append((name, DYNAMIC.format(name=name, dtype=dtype, bm=bm, bn=bn, bk=bk, threads=threads, stages=stages, schedule=schedule)))
        for split in SPLITS if tag in SPLIT_TILINGS else ():
            name = dynamic_name(tag, dtype, split=split)
            schedule = f" attributes {{tile.schedule = {{split = {split}}}}}"
            programs.append((name, DYNAMIC.format(name=name, dtype=dtype, bm=bm, bn=bn, bk=bk, threads=threads, stages=stages, schedule=schedule)))
    for shape in SHAPES:
        programs.append((matmul_name(dtype, shape), matmul_program(dtype, shape)))
    programs.append((matmul_name(dtype), matmul_program(dtype)))
    compiler = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "tile-compile")
    for name, text in programs:
        path = os.path.join(directory, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        result = subprocess.run([compiler, path, "--target", "sm_90a", "-o", directory], capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{name}: not compiled: {result.stderr.strip()[:300]}")
        elif name.endswith("_whole") and not split_kernel(directory, name[: -len("_whole")]):
            for produced in os.listdir(directory):
                if produced.startswith(name + "_"):
                    os.remove(os.path.join(directory, produced))
    print(f"{len(programs)} kernels written to {directory}")


def run(directory, dtype, rounds, name_filter, confirm=0):
    import numpy
    import torch
    import triton

    import bench

    bench.start()
    timer = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=150)  # noqa: E731
    dynamic = {}
    for tag, *_ in TILINGS:
        for kind, persistent in (("dynamic", False), ("persistent", True)):
            kernels = bench.function_kernels(directory, dynamic_name(tag, dtype, persistent))
            if kernels:
                dynamic[(kind, tag)] = kernels[0]
        for split in SPLITS:
            kernels = bench.function_kernels(directory, dynamic_name(tag, dtype, split=split))
            if kernels:
                dynamic[("split", f"{tag}s{split}")] = kernels[0]
    chosen_dynamic = bench.function_kernels(directory, matmul_name(dtype))
    rows, failures = [], 0
    for shape in SHAPES:
        label = "{}x{}x{}".format(*shape)
        if not any(part in label for part in name_filter.split(",")):
            continue
        m, n, k = shape
        if dtype == "fp8":
            # B as N x K; torch._scaled_mm (cuBLASLt, unit scales) takes it as the K x N
            # column-major view.
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            b_nk = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
            one = torch.ones((), device="cuda")
            reference = a.double() @ b_nk.double().T
            arguments = {0: a, 1: b_nk}
            output = torch.float32

            def baseline():
                return torch._scaled_mm(a, b_nk.T, scale_a=one, scale_b=one, out_dtype=torch.float32)
        else:
            element = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
            a = torch.randn(m, k, dtype=element, device="cuda")
            b = torch.randn(k, n, dtype=element, device="cuda")
            reference = a.double() @ b.double()
            arguments = {0: a, 1: b}
            output = element

            def baseline():
                return torch.matmul(a, b)
        contenders = []
        for tag, *_ in FP8_TILINGS if dtype == "fp8" else TILINGS + MULTICAST_TILINGS:
            kernels = bench.function_kernels(directory, static_name(shape, tag, dtype))
            if kernels:
                contenders.append(("static", tag, kernels[0]))
            whole = bench.function_kernels(directory, whole_name(shape, tag, dtype))
            if whole:
                contenders.append(("whole", tag, whole[0]))
            for kind in ("dynamic", "persistent"):
                if (kind, tag) in dynamic:
                    contenders.append((kind, tag, dynamic[(kind, tag)]))
            for split in SPLITS:
                if ("split", f"{tag}s{split}") in dynamic:
                    contenders.append(("split", f"{tag}s{split}", dynamic[("split", f"{tag}s{split}")]))
        # The compiler's tiling: the kernels of the program, each launched where its `when` holds.
        contenders.append(("matmul", "chosen", bench.function_kernels(directory, matmul_name(dtype, shape))))
        contenders.append(("matmul_dynamic", "chosen", chosen_dynamic))
        best, launches = {}, {}
        for kind, tag, kernel in contenders:
            if not kernel:
                continue
            c = torch.full((m, n), float("nan"), dtype=output, device="cuda")
            launch = launch_all(kernel if isinstance(kernel, list) else [kernel], {**arguments, 2: c})
            passed, error = bench.launch_and_check(launch, c, reference, dtype == "bf16")
            if not passed:
                print(f"{label} {kind} {tag}: FAIL rel_err={error:.2e}", flush=True)
                failures += 1
                continue
            mine, ratios = bench.alternating_rounds(launch, baseline, rounds, timer)
            ratio = float(numpy.median(ratios))
            print(f"{label} {kind} {tag}: PASS rel_err={error:.1e} {2 * m * n * k / mine / 1e9:.0f} TFLOP/s, {ratio:.3f} of cuBLAS", flush=True)
            launches[(kind, tag)] = launch
            if kind not in best or ratio > best[kind][1]:
                best[kind] = (tag, ratio, 2 * m * n * k / mine / 1e9)
        # The best of several kernels timed once each is biased upwards (the same PTX measured
        # 0.943 and 1.043 of cuBLAS in one run: RESULTS run 216): each kind's choice timed again.
        for kind, (tag, _, _) in list(best.items()) if confirm else []:
            mine, ratios = bench.alternating_rounds(launches[(kind, tag)], baseline, confirm, timer)
            best[kind] = (tag, float(numpy.median(ratios)), 2 * m * n * k / mine / 1e9)
            print(f"{label} {kind} {tag}: confirmed {best[kind][2]:.0f} TFLOP/s, {best[kind][1]:.3f} of cuBLAS (median of {confirm} alternating rounds)", flush=True)
        cublas = 2 * m * n * k / timer(baseline) / 1e9
        # What a host-side choice among the dynamic kernels (tile-wise, persistent, split) gets.
        chosen = max((best[kind] for kind in ("dynamic", "persistent", "split") if kind in best), key=lambda b: b[1], default=None)
        rows.append((label, cublas, best.get("static"), best.get("dynamic"), best.get("whole"), best.get("persistent"), best.get("split"), chosen, best.get("matmul"), best.get("matmul_dynamic")))
    confirmed = f", each kind's choice timed again in {confirm}" if confirm else ""
    print(f"\n{dtype} GEMMs against cuBLAS (torch.matmul), the best tiling of each kind, medians of {rounds} alternating round(s){confirmed}\n")
    print("| M x N x K | cuBLAS TFLOP/s | static: tiling, TFLOP/s, ratio | dynamic: tiling, TFLOP/s, ratio | static, split loops kept whole | dynamic persistent | dynamic split | dynamic, best kind | tile.matmul, static | tile.matmul, dynamic |\n|---|---|---|---|---|---|---|---|---|---|")
    cell = lambda best: f"{best[0]}, {best[2]:.0f}, {best[1]:.3f}" if best else "none"  # noqa: E731
    for label, cublas, *kinds in rows:
        print(f"| {label} | {cublas:.0f} | " + " | ".join(cell(best) for best in kinds) + " |")
    for kind, index in (("static", 2), ("dynamic", 3), ("dynamic persistent", 5), ("dynamic split", 6), ("dynamic, best kind (a host-side choice)", 7), ("tile.matmul, static (the compiler's tiling)", 8), ("tile.matmul, dynamic (the compiler's kernels, chosen at launch)", 9)):
        ratios = [row[index][1] for row in rows if row[index]]
        if ratios:
            mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            worst = min(zip(ratios, [row[0] for row in rows if row[index]]))
            print(f"{kind}: geometric mean {mean:.3f}x cuBLAS over {len(ratios)} shapes, worst {worst[0]:.3f} ({worst[1]})")
    sys.exit(1 if failures else 0)


def launch_all(kernels, tensors):
    """One launch of a host function's `kernels` on `tensors`: each launches where its `when` holds."""
    launches = [kernel.launcher(tensors) for kernel in kernels]
    if len(launches) == 1:
        return launches[0]

    def launch():
        for each in launches:
            each()

    return launch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("prepare", "run"))
    parser.add_argument("directory")
    parser.add_argument("--dtype", choices=("f16", "bf16", "fp8"), default="f16")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--filter", default="")
    parser.add_argument("--confirm", type=int, default=0)
    args = parser.parse_args()
    if args.action == "prepare":
        prepare(args.directory, args.dtype)
    else:
        run(args.directory, args.dtype, args.rounds, args.filter, args.confirm)


if __name__ == "__main__":
    main()
