"""Launch tile kernels from Python on PyTorch tensors, and compile tile programs with a cache.

    import tile
    kernel = tile.load("out/gemm_relu_0_kernel")   # out/gemm_relu_0_kernel.ptx + .json (tile-compile)
    kernel(a, b, c)                                 # torch CUDA tensors, on the current stream

    program = tile.compile(source, target="sm_90a") # cached by program, target and compiler version
    program(a, b, c)                                # its only kernel (program.kernels: all of them)

A thin layer over two C ABIs, loaded with ctypes: ``libtile_launch.so`` (the launcher: CUDA driver,
no MLIR; every argument checked against the manifest before launch) and, for ``compile`` only,
``libtile_plugin.so`` (the compiler's ``tileCompile``). They are looked up in ``$TILE_LIB_DIR``, next
to this package, then in the repository's ``target/release`` and ``target/debug``.
"""

import ctypes
import hashlib
import json
import os
import pathlib
import shutil

__all__ = ["Kernel", "Program", "TileError", "autotune", "compile", "compiler_version", "load"]


class TileError(RuntimeError):
    """A kernel that does not load, an argument that does not match its manifest, a program that
    does not compile (the message holds the compiler's located diagnostics)."""


def _library(name):
    here = pathlib.Path(__file__).resolve().parent
    places = [os.environ.get("TILE_LIB_DIR"), here, here.parent.parent / "target" / "release",
              here.parent.parent / "target" / "debug"]
    for place in places:
        if place and (pathlib.Path(place) / name).exists():
            return ctypes.CDLL(str(pathlib.Path(place) / name))
    raise TileError(f"{name} not found (set TILE_LIB_DIR, or build it with cargo build --release)")


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("element", ctypes.c_char_p), ("address", ctypes.c_uint64),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("value", ctypes.c_int64)]


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    @staticmethod
    def of(data):
        buffer = ctypes.create_string_buffer(data, len(data))
        ref = _StringRef(ctypes.cast(buffer, ctypes.c_void_p), len(data))
        ref.keep = buffer
        return ref

    def bytes(self):
        return ctypes.string_at(self.data, self.length) if self.length else b""


_launcher = None


def _launch_library():
    global _launcher
    if _launcher is None:
        lib = _library("libtile_launch.so")
        lib.tileLaunchLoad.restype = ctypes.c_void_p
        lib.tileLaunchLoad.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchRun.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.c_void_p,
                                      ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchCheck.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchDestroy.argtypes = [ctypes.c_void_p]
        lib.tileLaunchCompilerVersion.restype = ctypes.c_char_p
        _launcher = lib
    return _launcher


def compiler_version():
    """The compiler version whose manifests this launcher takes (and the compile cache's key)."""
    return _launch_library().tileLaunchCompilerVersion().decode()


# torch dtypes by name (str(torch.float16) == "torch.float16"), so that torch is only needed for
# the tensors themselves.
_ELEMENTS = {"torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float32": "f32", "torch.float64": "f64",
             "torch.int8": "i8", "torch.int16": "i16", "torch.int32": "i32", "torch.int64": "i64"}


def _arguments(args):
    """Describes each argument for the launcher: tensors (anything with data_ptr, shape, stride and
    dtype: torch tensors) and integers."""
    described = (_Arg * max(len(args), 1))()
    keep = []
    for index, arg in enumerate(args):
        if isinstance(arg, int):
            described[index] = _Arg(kind=1, value=arg)
            continue
        if not all(hasattr(arg, name) for name in ("data_ptr", "shape", "stride", "dtype")):
            raise TileError(f"argument {index}: expects a tensor or an int, but got {type(arg).__name__}")
        element = _ELEMENTS.get(str(arg.dtype), str(arg.dtype))
        shape = (ctypes.c_int64 * max(len(arg.shape), 1))(*arg.shape)
        strides = (ctypes.c_int64 * max(len(arg.shape), 1))(*arg.stride())
        name = element.encode()
        keep += [shape, strides, name]
        described[index] = _Arg(kind=0, element=name, address=arg.data_ptr(), rank=len(arg.shape),
                                shape=shape, strides=strides)
    return described, keep


class Kernel:
    """One compiled kernel: its code and manifest; loaded into CUDA at the first launch."""

    def __init__(self, code, manifest):
        self.code = code
        self.manifest_json = manifest if isinstance(manifest, str) else manifest.decode()
        self.manifest = json.loads(self.manifest_json)
        self.name = self.manifest["entry"]
        self._handle = None
        # Launches repeat their argument signatures: the ctypes description of the last one is kept
        # and only the addresses and integer values are refreshed (a launch is a few microseconds).
        self._signature = None
        self._described = None
        self._error = ctypes.create_string_buffer(4096)

    def check(self, *args):
        """Checks the arguments against the manifest as a launch does (no GPU needed)."""
        described, keep = _arguments(args)
        error = ctypes.create_string_buffer(4096)
        if _launch_library().tileLaunchCheck(self.manifest_json.encode(), described, len(args), error, len(error)):
            raise TileError(error.value.decode())

    def _load(self):
        if self._handle is None:
            error = ctypes.create_string_buffer(4096)
            handle = _launch_library().tileLaunchLoad(self.code, len(self.code), self.manifest_json.encode(), error, len(error))
            if not handle:
                raise TileError(error.value.decode())
            self._handle = handle
        return self._handle

    def __call__(self, *args, stream=None):
        """Launches the kernel on the arguments of its host function, on `stream` (a CUstream
        handle; the current PyTorch stream by default). Returns once the launch is queued."""
        handle = self._load()
        if stream is None:
            import torch
            stream = torch.cuda.current_stream().cuda_stream
        signature = tuple(arg if isinstance(arg, int) else (arg.dtype, tuple(arg.shape), tuple(arg.stride())) if hasattr(arg, "stride") else type(arg) for arg in args)
        if signature == self._signature:
            described, _ = self._described
            for index, arg in enumerate(args):
                if not isinstance(arg, int):
                    described[index].address = arg.data_ptr()
        else:
            self._described = _arguments(args)
            self._signature = signature
            described = self._described[0]
        error = self._error
        if _launch_library().tileLaunchRun(handle, described, len(args), ctypes.c_void_p(stream), error, len(error)):
            raise TileError(error.value.decode())

    def __del__(self):
        if getattr(self, "_handle", None) and _launcher is not None:
            _launcher.tileLaunchDestroy(self._handle)
            self._handle = None

    def __repr__(self):
        return f"tile.Kernel({self.name!r}, target={self.manifest.get('target')!r})"


def load(path):
    """Loads a kernel tile-compile wrote: `path` is `DIR/NAME` (NAME.ptx + NAME.json), NAME.json,
    or a directory holding exactly one kernel."""
    path = pathlib.Path(path)
    if path.is_dir():
        manifests = sorted(path.glob("*.json"))
        if len(manifests) != 1:
            raise TileError(f"{path}: expects one kernel, but got {[m.stem for m in manifests]}; name one")
        path = manifests[0]
    stem = path.with_suffix("") if path.suffix == ".json" else path
    manifest_path = stem.parent / (stem.name + ".json")
    if not manifest_path.exists():
        raise TileError(f"{manifest_path}: no such manifest")
    manifest = manifest_path.read_text()
    extension = {"sm": ".ptx", "gf": ".hsaco"}.get(json.loads(manifest).get("target", "sm")[:2], ".spv")
    code = (stem.parent / (stem.name + extension)).read_bytes()
    return Kernel(code, manifest)


class Program:
    """The kernels one tile program compiled to, in program order; callable when it has one."""

    def __init__(self, kernels, directory):
        self.kernels = kernels
        self.directory = directory

    def __getitem__(self, name):
        return next(kernel for kernel in self.kernels if kernel.name == name)

    def __call__(self, *args, **options):
        if len(self.kernels) != 1:
            raise TileError(f"the program has {len(self.kernels)} kernels; call one of program.kernels")
        return self.kernels[0](*args, **options)


_compiler = None


def _compile_library():
    global _compiler
    if _compiler is None:
        lib = _library("libtile_plugin.so")
        lib.tileCompile.restype = ctypes.c_void_p
        lib.tileCompile.argtypes = [_StringRef, _StringRef, _StringRef]
        for name in ("tileCompilationGetKernelName", "tileCompilationGetKernelCode", "tileCompilationGetKernelManifest",
                     "tileCompilationGetDiagnostic"):
            getattr(lib, name).restype = _StringRef
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
        lib.tileCompilationSucceeded.restype = ctypes.c_bool
        lib.tileCompilationSucceeded.argtypes = [ctypes.c_void_p]
        lib.tileCompilationGetNumKernels.restype = ctypes.c_ssize_t
        lib.tileCompilationGetNumKernels.argtypes = [ctypes.c_void_p]
        lib.tileCompilationGetNumDiagnostics.restype = ctypes.c_ssize_t
        lib.tileCompilationGetNumDiagnostics.argtypes = [ctypes.c_void_p]
        lib.tileCompilationDestroy.argtypes = [ctypes.c_void_p]
        _compiler = lib
    return _compiler


def _cache_dir(cache_dir):
    if cache_dir is not None:
        return pathlib.Path(cache_dir)
    if os.environ.get("TILE_CACHE_DIR"):
        return pathlib.Path(os.environ["TILE_CACHE_DIR"])
    return pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "tile"


def compile(source, target="sm_90a", cache_dir=None, name="program.mlir"):
    """Compiles the tile program `source` (text) for `target` and returns its kernels as a
    Program. Results are cached under `cache_dir` (default $TILE_CACHE_DIR, else ~/.cache/tile) by
    program text, target and compiler version; a hit needs neither the compiler nor MLIR."""
    version = compiler_version()
    key = hashlib.sha256("\0".join([version, target, source]).encode()).hexdigest()[:32]
    directory = _cache_dir(cache_dir) / key
    index = directory / "kernels.json"
    extension = {"sm": ".ptx", "gf": ".s"}.get(target[:2], ".spv")
    if not index.exists():
        lib = _compile_library()
        result = lib.tileCompile(_StringRef.of(source.encode()), _StringRef.of(name.encode()), _StringRef.of(target.encode()))
        try:
            if not lib.tileCompilationSucceeded(result):
                diagnostics = [lib.tileCompilationGetDiagnostic(result, i).bytes().decode()
                               for i in range(lib.tileCompilationGetNumDiagnostics(result))]
                raise TileError("\n".join(diagnostics))
            names = []
            staging = directory.with_name(directory.name + f".{os.getpid()}")
            staging.mkdir(parents=True, exist_ok=True)
            for i in range(lib.tileCompilationGetNumKernels(result)):
                kernel_name = lib.tileCompilationGetKernelName(result, i).bytes().decode()
                (staging / (kernel_name + extension)).write_bytes(lib.tileCompilationGetKernelCode(result, i).bytes())
                (staging / (kernel_name + ".json")).write_bytes(lib.tileCompilationGetKernelManifest(result, i).bytes())
                names.append(kernel_name)
            (staging / "kernels.json").write_text(json.dumps({"compiler": version, "target": target, "kernels": names}))
            try:
                staging.rename(directory)  # atomic: another process may have won the race
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)
        finally:
            lib.tileCompilationDestroy(result)
    names = json.loads(index.read_text())["kernels"]
    kernels = [Kernel((directory / (n + extension)).read_bytes(), (directory / (n + ".json")).read_text()) for n in names]
    return Program(kernels, directory)


def _cuda_time(program, args, repeat=20):
    """Median seconds of one launch of `program` on `args`, by CUDA events on the current stream."""
    import torch
    program(*args)  # warm-up (and the first load)
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        program(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return sorted(times)[len(times) // 2]


def _signature(args):
    return [[list(a.shape), str(a.dtype), list(a.stride())] if hasattr(a, "shape") else a for a in args]


def _instantiate(template, config):
    """The template with each `{name}` of the config replaced (MLIR's own braces are left alone)."""
    for name, value in config.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def autotune(template, configs, args, target="sm_90a", cache_dir=None, measure=None):
    """The autotuning hook: compiles `template` with each `{name}` replaced by the value in each of
    `configs` (dicts, e.g.
    tile sizes and stages), measures each on `args` with `measure(program, args) -> seconds` (CUDA
    events by default), and returns (best program, its config). Variants that do not compile are
    skipped. The choice is cached with the kernels, keyed by template, configs, target, compiler
    version and the arguments' shapes, dtypes and strides, so a later call measures nothing."""
    measure = measure or _cuda_time
    key_text = json.dumps([compiler_version(), target, template, configs, _signature(args)], sort_keys=True)
    record = _cache_dir(cache_dir) / "autotune" / (hashlib.sha256(key_text.encode()).hexdigest()[:32] + ".json")
    if record.exists():
        best = json.loads(record.read_text())["best"]
        return compile(_instantiate(template, configs[best]), target, cache_dir), configs[best]
    results = []
    for index, config in enumerate(configs):
        try:
            program = compile(_instantiate(template, config), target, cache_dir)
        except TileError:
            continue
        results.append((measure(program, args), index, program))
    if not results:
        raise TileError("autotune: no configuration compiled")
    seconds, best, program = min(results, key=lambda result: result[0])
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"best": best, "seconds": seconds, "config": configs[best]}))
    return program, configs[best]
