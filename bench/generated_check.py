#!/usr/bin/env python3
"""Checks generated tile programs on the GPU against the reference interpreter (issue 11).

Build machine (MLIR, Rust): `tile-fuzz --generate N --seed S --gpu-cases DIR` (bench/generated_prepare.sh)
writes one case per generated program: its sm_90a kernels (PTX + launch manifest, in launch order),
the initial contents of every host argument (seeded random inputs; written arguments start as NaN,
or 0 for integers, as tile-run fills them) and the interpreter's result in each written argument,
as raw little-endian row-major files, described by DIR/<case>/case.json; DIR/index.json lists the
cases and the programs skipped there, with why.

GPU machine (Python 3 and cuda-python; no MLIR, no Rust, no torch needed):
    python3 bench/generated_check.py DIR
loads each case, launches its kernels in order on the inputs (memref descriptors for the plain and
registers strategies, tensor maps for the tensor-core lowerings, as the manifests say), and compares
every written tensor element by element with the interpreter's: relative error with a floor of 1 on
the magnitude, NaN only where the interpreter has NaN (an unwritten element), the tolerance by
element type that `tile-run --check` uses (written into case.json). Prints one line per case
(PASS/FAIL, the worst error) and "N cases, P pass, F fail, S skipped"; exit status 1 on any FAIL.
The cases run in a worker process: a kernel that breaks the CUDA context fails its case, and a new
worker carries on with the next one.

Without a GPU: `--dry-run interp` (or `cpu`, for cases written with --with-cpu) takes the
interpreter's (or the CPU reference's) results as the device's, after building every launch from
the manifests with stand-in pointers: it checks the case files, the launch plans and the comparison.
"""
import argparse
import ctypes
import json
import math
import os
import struct
import subprocess
import sys
import threading

import tensor_maps

# The tolerance of tile-run's --check by element type (tile_run::tolerance); case.json carries the
# value the case writer used, this is the fallback.
TOLERANCE = {"f32": 1e-4, "i32": 1e-4, "i8": 1e-4, "f16": 4e-3, "bf16": 4e-3, "f8E4M3FN": 4e-3, "f8E5M2": 4e-3}
BYTES = {"f32": 4, "i32": 4, "i8": 1, "f16": 2, "bf16": 2, "f8E4M3FN": 1, "f8E5M2": 1}


def f8e4m3fn(bits):
    """The value of an f8E4M3FN code (no infinities; S.1111.111 is NaN)."""
    sign = -1.0 if bits & 0x80 else 1.0
    exponent, mantissa = (bits >> 3) & 0xF, bits & 0x7
    if exponent == 0xF and mantissa == 0x7:
        return math.nan
    if exponent == 0:
        return sign * mantissa / 8.0 * 2.0 ** -6
    return sign * (1.0 + mantissa / 8.0) * 2.0 ** (exponent - 7)


F8_TABLE = [f8e4m3fn(bits) for bits in range(256)]
# An f8E5M2 code is the high byte of an f16.
E5M2_TABLE = [struct.unpack("<e", bytes([0, bits]))[0] for bits in range(256)]


def decode(element, raw):
    """The elements of a raw little-endian buffer as Python floats."""
    count = len(raw) // BYTES[element]
    if element == "f32":
        return list(struct.unpack(f"<{count}f", raw))
    if element == "f16":
        return list(struct.unpack(f"<{count}e", raw))
    if element == "bf16":
        # A bf16 is the high half of an f32.
        wide = bytearray(4 * count)
        wide[2::4], wide[3::4] = raw[0::2], raw[1::2]
        return list(struct.unpack(f"<{count}f", wide))
    if element == "i32":
        return [float(v) for v in struct.unpack(f"<{count}i", raw)]
    if element == "i8":
        return [float(v) for v in struct.unpack(f"<{count}b", raw)]
    if element == "f8E4M3FN":
        return [F8_TABLE[b] for b in raw]
    if element == "f8E5M2":
        return [E5M2_TABLE[b] for b in raw]
    raise ValueError(f"unknown element type {element}")


def fill(element, count, how):
    """A buffer of `count` elements all NaN (floats) or zero, as tile-run poisons outputs."""
    if how == "zero" or element in ("i32", "i8"):
        return bytearray(count * BYTES[element])
    pattern = {"f32": struct.pack("<f", math.nan), "f16": struct.pack("<e", math.nan),
               "bf16": b"\xc0\x7f", "f8E4M3FN": b"\x7f", "f8E5M2": b"\x7e"}[element]
    return bytearray(pattern * count)


def compare(got, expected, tolerance):
    """tile_run::compare: (worst relative error, number over tolerance, first few (index, got,
    expected)); the error is infinite where exactly one is NaN, 0 where both are."""
    worst, bad, first = 0.0, 0, []
    for index, (g, e) in enumerate(zip(got, expected)):
        if math.isnan(g) or math.isnan(e):
            error = 0.0 if math.isnan(g) and math.isnan(e) else math.inf
        elif g == e:
            error = 0.0
        else:
            error = abs(g - e) / max(abs(e), 1.0)
            if math.isnan(error):  # infinities of opposite signs
                error = math.inf
        worst = max(worst, error)
        if error > tolerance:
            bad += 1
            if len(first) < 4:
                first.append((index, g, e))
    return worst, bad, first


def evaluate(expression, shapes, pointers=None):
    """A manifest launch value: a number, a host tensor's size or device address (`pointers`), or
    integer arithmetic over those (tile_manifest::Expr)."""
    if isinstance(expression, int):
        return expression
    if "dim" in expression:
        argument, dim = expression["dim"]
        return shapes[argument][dim]
    if "argument" in expression:
        raise ValueError("the launch reads a scalar host argument, which a case does not have")
    if "address" in expression:
        if pointers is None:
            raise ValueError("the launch reads a tensor's address, which is not known here")
        return pointers[expression["address"]]
    a, b = (evaluate(arg, shapes, pointers) for arg in expression["args"])
    op = expression["op"]
    if op in ("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.divui", "arith.remui", "arith.ceildivui") and b == 0:
        raise ValueError(f"{op} by zero in the launch")
    return {
        "arith.addi": lambda: a + b, "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
        "arith.divui": lambda: a // b, "arith.divsi": lambda: int(a / b),
        "arith.ceildivui": lambda: -(-a // b), "arith.ceildivsi": lambda: -(-a // b),
        "arith.remui": lambda: a % b, "arith.remsi": lambda: int(math.fmod(a, b)),
        "arith.minui": lambda: min(a, b), "arith.maxui": lambda: max(a, b),
        "arith.minsi": lambda: min(a, b), "arith.maxsi": lambda: max(a, b),
        "arith.andi": lambda: a & b, "arith.ori": lambda: a | b, "arith.xori": lambda: a ^ b,
        "arith.cmpi eq": lambda: int(a == b), "arith.cmpi ne": lambda: int(a != b),
        "arith.cmpi ult": lambda: int(a < b), "arith.cmpi ule": lambda: int(a <= b),
        "arith.cmpi ugt": lambda: int(a > b), "arith.cmpi uge": lambda: int(a >= b),
        "arith.cmpi slt": lambda: int(a < b), "arith.cmpi sle": lambda: int(a <= b),
        "arith.cmpi sgt": lambda: int(a > b), "arith.cmpi sge": lambda: int(a >= b),
    }[op]()


def row_major_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= size
    return strides


def launch_plan(manifest, shapes, pointers, tensor_map):
    """The launch a manifest describes over the case's buffers: (grid, block, dynamic shared bytes,
    argument values, ctypes types). `pointers[i]` is host argument i's device address;
    `tensor_map(param)` returns the device address of the param's encoded tensor map."""
    grid = [evaluate(size, shapes) for size in manifest["grid"]] + [1] * (3 - len(manifest["grid"]))
    block = manifest.get("block") or manifest.get("workgroup_size")
    shared = manifest.get("dynamic_shared_bytes") or 0
    values, types = [], []

    def descriptor(argument):
        # An MLIR memref descriptor: allocated and aligned pointers, offset, sizes, strides.
        if not 0 <= argument < len(shapes):
            raise ValueError(f"the manifest names host argument {argument}, which does not exist")
        shape = shapes[argument]
        values.extend([pointers[argument], pointers[argument], 0, *shape, *row_major_strides(shape)])
        types.extend([ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * len(shape)))

    if manifest.get("bindings") is not None:
        # Plain and registers strategies: one descriptor per binding, in binding (argument) order.
        for binding in sorted(manifest["bindings"], key=lambda b: (b["set"], b["binding"])):
            declared = [s for s in binding["shape"]]
            actual = shapes[binding["host_argument"]] if 0 <= binding["host_argument"] < len(shapes) else None
            if actual is not None and any(d is not None and d != a for d, a in zip(declared, actual)):
                raise ValueError(f"binding {binding['binding']} is {declared}, the case's buffer {actual}")
            descriptor(binding["host_argument"])
    for param in manifest.get("params") or []:
        if param["kind"] == "tensor_map":
            values.append(tensor_map(param))
            types.append(ctypes.c_void_p)
        elif param["kind"] == "memref":
            descriptor(param["host_argument"])
        elif param["kind"] == "scalar":
            values.append(evaluate(param["value"], shapes))
            types.append(ctypes.c_int64)
        else:
            raise ValueError(f"a kernel parameter of kind {param['kind']}")
    if manifest.get("bindings") is None and manifest.get("params") is None:
        raise ValueError("the manifest has neither bindings nor params")
    return grid, block, shared, values, types


class CudaError(RuntimeError):
    """An error of the CUDA driver: the context may be unusable after it."""


class Gpu:
    """Runs a case's kernels through the CUDA driver (cuda-python), no torch."""

    def __init__(self):
        from cuda.bindings import driver as cu
        self.cu = cu
        self.ok(cu.cuInit(0))
        device = self.ok(cu.cuDeviceGet(0))
        self.context = self.ok(cu.cuDevicePrimaryCtxRetain(device))
        self.ok(cu.cuCtxSetCurrent(self.context))
        self.name = self.ok(cu.cuDeviceGetName(128, device)).split(b"\0")[0].decode()

    def ok(self, result):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise CudaError(f"CUDA driver error {err}")
        return rest[0] if len(rest) == 1 else (rest or None)

    def tensor_map(self, param, pointer, shape, allocations):
        cu = self.cu
        rank, width = len(shape), BYTES[param["element"]]
        strides = row_major_strides(shape)
        # The driver wants dimensions innermost first, and byte strides of all but the innermost.
        tmap = self.ok(cu.cuTensorMapEncodeTiled(
            tensor_maps.data_types(cu)[param["element"]], rank, pointer,
            [cu.cuuint64_t(size) for size in reversed(shape)],
            [cu.cuuint64_t(strides[dim] * width) for dim in reversed(range(rank - 1))],
            [cu.cuuint32_t(size) for size in reversed(param["box"])], [cu.cuuint32_t(1)] * rank,
            cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, tensor_maps.swizzles(cu)[param["swizzle"]],
            tensor_maps.l2_promotion(cu),
            cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
        # The kernel takes a pointer to the map in global memory.
        device = self.ok(cu.cuMemAlloc(128))
        allocations.append(device)
        self.ok(cu.cuMemcpyHtoD(device, tmap.getPtr(), 128))
        return int(device)

    def run(self, case_dir, function, buffers):
        """Copies `buffers` (one bytearray per host argument) to the device, launches the
        function's kernels in order, and copies every buffer back."""
        cu = self.cu
        shapes = [argument["shape"] for argument in function["arguments"]]
        allocations, modules = [], []
        try:
            pointers = []
            for data in buffers:
                device = self.ok(cu.cuMemAlloc(max(len(data), 1)))
                allocations.append(device)
                pointers.append(int(device))
                if data:
                    host = (ctypes.c_char * len(data)).from_buffer(data)
                    self.ok(cu.cuMemcpyHtoD(device, ctypes.addressof(host), len(data)))
            for kernel in function["kernels"]:
                with open(os.path.join(case_dir, kernel + ".json")) as f:
                    manifest = json.load(f)
                # A kernel launched under a condition (a size class, an alignment twin) where it holds.
                if "when" in manifest and not evaluate(manifest["when"], shapes, pointers):
                    continue
                with open(os.path.join(case_dir, kernel + ".ptx"), "rb") as f:
                    module = self.ok(cu.cuModuleLoadData(f.read() + b"\0"))
                modules.append(module)
                entry = self.ok(cu.cuModuleGetFunction(module, manifest["entry"].encode()))
                grid, block, shared, values, types = launch_plan(
                    manifest, shapes, pointers,
                    lambda p: self.tensor_map(p, pointers[p["host_argument"]], shapes[p["host_argument"]], allocations))
                if shared > 0:  # the default 48 KiB counts static shared memory too
                    self.ok(cu.cuFuncSetAttribute(entry, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared))
                self.ok(cu.cuLaunchKernel(entry, *grid, *block, shared, 0, (tuple(values), tuple(types)), 0))
                self.ok(cu.cuCtxSynchronize())
            for data, device in zip(buffers, allocations):
                if data:
                    host = (ctypes.c_char * len(data)).from_buffer(data)
                    self.ok(cu.cuMemcpyDtoH(ctypes.addressof(host), device, len(data)))
        finally:
            for device in allocations:
                cu.cuMemFree(device)
            for module in modules:
                cu.cuModuleUnload(module)


class DryRun:
    """No GPU: builds every launch from the manifests with stand-in addresses, then takes the
    interpreter's (or CPU reference's) results as the device's."""

    def __init__(self, source):
        self.source = source
        self.name = f"dry run: the {source} results as the device's"

    def run(self, case_dir, function, buffers):
        shapes = [argument["shape"] for argument in function["arguments"]]
        pointers = [0x10000 * (index + 1) for index in range(len(buffers))]
        for kernel in function["kernels"]:
            with open(os.path.join(case_dir, kernel + ".json")) as f:
                manifest = json.load(f)
            if not os.path.getsize(os.path.join(case_dir, kernel + ".ptx")):
                raise ValueError(f"{kernel}.ptx is empty")
            grid, block, _, values, types = launch_plan(manifest, shapes, pointers, lambda p: 0xDEAD0000)
            if len(values) != len(types) or min(grid) < 1 or not block or min(block) < 1:
                raise ValueError(f"{kernel}: a malformed launch {grid} x {block}")
        for data, argument in zip(buffers, function["arguments"]):
            if argument["written"]:
                if self.source not in argument:
                    raise ValueError(f"the case has no {self.source} results (write it with --with-cpu)")
                with open(os.path.join(case_dir, argument[self.source]), "rb") as f:
                    data[:] = f.read()


def stored(argument):
    """An argument as the kernels take it: 4-bit elements as the bytes that hold two along the last
    dimension (tile-pack-narrow-types), which is how the case's files hold them too."""
    if argument["element"] not in ("i4", "f4E2M1FN"):
        return argument
    return dict(argument, element="i8", shape=argument["shape"][:-1] + [argument["shape"][-1] // 2])


def check_case(device, cases, name):
    """Runs one case; returns (passed, worst error, detail lines)."""
    case_dir = os.path.join(cases, name)
    with open(os.path.join(case_dir, "case.json")) as f:
        case = json.load(f)
    for function in case["functions"]:
        function["arguments"] = [stored(argument) for argument in function["arguments"]]
    worst, details, passed = 0.0, [], True
    for function in case["functions"]:
        buffers = []
        for argument in function["arguments"]:
            count = math.prod(argument["shape"])
            # An argument updated atomically starts from its input, as the interpreter's did.
            if "input" in argument:
                with open(os.path.join(case_dir, argument["input"]), "rb") as f:
                    buffers.append(bytearray(f.read()))
            else:
                buffers.append(fill(argument["element"], count, argument.get("fill", "nan")))
            if len(buffers[-1]) != count * BYTES[argument["element"]]:
                raise ValueError(f"@{function['name']}: a buffer of {len(buffers[-1])} bytes for {argument['shape']} {argument['element']}")
        device.run(case_dir, function, buffers)
        for index, (argument, data) in enumerate(zip(function["arguments"], buffers)):
            if not argument["written"]:
                continue
            with open(os.path.join(case_dir, argument["interp"]), "rb") as f:
                expected = decode(argument["element"], f.read())
            tolerance = argument.get("tolerance", TOLERANCE[argument["element"]])
            error, bad, first = compare(decode(argument["element"], bytes(data)), expected, tolerance)
            worst = max(worst, error)
            if bad:
                passed = False
                details.append(f"  @{function['name']} %arg{index} {argument['shape']} {argument['element']}: "
                               f"{bad} element(s) over {tolerance:.0e}, worst {error:.3e}")
                columns = argument["shape"][-1] if argument["shape"] else 1
                for element, got, want in first:
                    where = [element // columns, element % columns] if len(argument["shape"]) > 1 else [element]
                    details.append(f"    at {where}: device {got!r}, interpreter {want!r}")
    return passed, worst, case.get("summary", ""), details


def worker(args, names):
    """Runs cases from --start on, one protocol line each (BEGIN, RESULT, detail lines)."""
    device = DryRun(args.dry_run) if args.dry_run else Gpu()
    print(f"DEVICE {device.name}", flush=True)
    crash = os.environ.get("TILE_CHECK_CRASH_IN")  # tests: a worker that dies in this case
    for name in names[args.start:]:
        print(f"BEGIN {name}", flush=True)
        if name == crash:
            os._exit(9)
        try:
            passed, worst, summary, details = check_case(device, args.cases, name)
            verdict = "PASS" if passed else "FAIL"
            print(f"RESULT {name} {verdict} {worst!r} {summary}", flush=True)
            for line in details:
                print(f"DETAIL {line}", flush=True)
        except CudaError as error:
            # The context may be broken: this worker stops, a new one carries on.
            print(f"RESULT {name} FAIL inf {error}", flush=True)
            sys.exit(3)
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"RESULT {name} FAIL inf {type(error).__name__}: {error}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", help="the folder tile-fuzz --gpu-cases wrote (with index.json)")
    parser.add_argument("--dry-run", choices=("interp", "cpu"), help="no GPU: take these results as the device's")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--limit", type=int, default=0, help="at most this many cases")
    parser.add_argument("--quiet", action="store_true", help="print only failing cases and the summary")
    parser.add_argument("--case-timeout", type=float, default=60.0,
                        help="seconds a case may run before it counts as hung and its worker is killed")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    with open(os.path.join(args.cases, "index.json")) as f:
        index = json.load(f)
    names = [name for name in index["cases"] if args.filter in name]
    if args.limit:
        names = names[: args.limit]
    if args.worker:
        return worker(args, names)
    skipped = [entry for entry in index["skipped"] if args.filter in entry["name"]]
    results = {}
    start, device = 0, None
    while start < len(names):
        command = [sys.executable, os.path.abspath(__file__), args.cases, "--worker", "--start", str(start),
                   "--filter", args.filter, "--limit", str(args.limit)]
        if args.dry_run:
            command += ["--dry-run", args.dry_run]
        worker_process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        current, before = None, len(results)
        # A kernel that never finishes (an mbarrier nobody arrives on) must not stall the whole run:
        # a watchdog kills the worker when a case outlives --case-timeout, and the case fails as hung.
        watchdog, hung = None, []

        def kill_hung(name):
            hung.append(name)
            worker_process.kill()

        for line in worker_process.stdout:
            line = line.rstrip("\n")
            if watchdog is not None:
                watchdog.cancel()
                watchdog = None
            if line.startswith("DEVICE "):
                if device is None:
                    device = line[len("DEVICE "):]
                    print(f"device: {device}", flush=True)
            elif line.startswith("BEGIN "):
                current = line[len("BEGIN "):]
                watchdog = threading.Timer(args.case_timeout, kill_hung, (current,))
                watchdog.start()
            elif line.startswith("RESULT "):
                _, name, verdict, worst, summary = (line.split(" ", 4) + [""])[:5]
                results[name] = (verdict == "PASS", float(worst))
                current = None
                if verdict != "PASS" or not args.quiet:
                    print(f"{name}: {verdict} worst {float(worst):.3e}  ({summary})", flush=True)
            elif line.startswith("DETAIL "):
                print(line[len("DETAIL "):], flush=True)
            else:
                print(line, flush=True)
        code = worker_process.wait()
        if watchdog is not None:
            watchdog.cancel()
        if current is not None:
            # The worker died inside this case (a signal, a broken driver, the watchdog): the case fails.
            results[current] = (False, math.inf)
            why = (f"no result within {args.case_timeout:g} s: hung" if current in hung
                   else f"the worker died with status {code} in this case")
            print(f"{current}: FAIL worst inf  ({why})", flush=True)
        if code == 0 or len(results) == before:
            if code != 0:
                print(f"the worker exited with status {code} before running a case; stopping", flush=True)
            break
        # Carry on after the last case that has a result.
        start = max(names.index(name) for name in results) + 1
    passed = sum(1 for ok, _ in results.values() if ok)
    failed = len(results) - passed
    missing = len(names) - len(results)
    worst = max((w for ok, w in results.values() if ok), default=0.0)
    if missing:
        print(f"{missing} case(s) did not run (counted as failures)")
    reasons = {}
    for entry in skipped:
        reason = entry["reason"].split(":")[0]
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items()):
        print(f"skipped {count}: {reason}")
    total = len(names) + len(skipped)
    print(f"{total} cases, {passed} pass, {failed + missing} fail, {len(skipped)} skipped"
          f" (seed {index.get('seed')}, worst error among passes {worst:.3e}; {device})")
    return 1 if failed + missing else 0


if __name__ == "__main__":
    sys.exit(main())
