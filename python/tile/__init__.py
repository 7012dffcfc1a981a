"""Launch tile kernels from Python on PyTorch tensors, and compile tile programs with a cache.

    import tile
    kernel = tile.load("out/gemm_relu_0_kernel")   # out/gemm_relu_0_kernel.ptx + .json (tile-compile)
    kernel(a, b, c)                                 # torch CUDA tensors, on the current stream

    program = tile.compile(source, target="sm_90a") # cached by program, target and compiler build
    program(a, b, c)                                # its host function's kernels (program.kernels: each)

A thin layer over two C ABIs, loaded with ctypes: ``libtile_launch.so`` (the launcher: CUDA driver,
no MLIR; every argument checked against the manifest before launch) and, for ``compile`` only,
``libtile_plugin.so`` (the compiler's ``tileCompile``). They are looked up in ``$TILE_LIB_DIR``, next
to this package, in the repository's ``target/release`` and ``target/debug``, then in
``$LD_LIBRARY_PATH``'s folders and ``/usr/local/lib``.

A launch checks every argument (dtype, shape, strides, device) before launching: in full the first
time a kernel sees an argument signature (``tileLaunchPrepare``), by comparing the signature with
the checked one after that, passing only the tensors' addresses and the stream to the launcher
(``tileLaunchPreparedRun``).
"""

import ctypes
import hashlib
import json
import os
import pathlib
import shutil
import struct

__all__ = ["Kernel", "Program", "TileError", "autotune", "compile", "compiler_build", "compiler_version", "load"]


class TileError(RuntimeError):
    """A kernel that does not load, an argument that does not match its manifest, a program that
    does not compile (the message holds the compiler's located diagnostics)."""


def _library_path(name):
    """Where the shared library `name` is: $TILE_LIB_DIR, next to this package, the repository's
    target/release and target/debug (a source checkout), then $LD_LIBRARY_PATH's folders and
    /usr/local/lib; None if nowhere."""
    here = pathlib.Path(__file__).resolve().parent
    places = [os.environ.get("TILE_LIB_DIR"), here, here.parent.parent / "target" / "release",
              here.parent.parent / "target" / "debug", *os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep),
              "/usr/local/lib"]
    for place in places:
        if place and (pathlib.Path(place) / name).is_file():
            return pathlib.Path(place) / name
    return None


def _library(name):
    path = _library_path(name)
    if path is None:
        raise TileError(f"{name} not found (set TILE_LIB_DIR to its folder, or build it with cargo build --release)")
    return ctypes.CDLL(str(path))


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
    global _launcher, _run_prepared, _last_error
    if _launcher is None:
        lib = _library("libtile_launch.so")
        lib.tileLaunchLoad.restype = ctypes.c_void_p
        lib.tileLaunchLoad.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchLoadDryRun.restype = ctypes.c_void_p
        lib.tileLaunchLoadDryRun.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchGetDevice.restype = ctypes.c_int32
        lib.tileLaunchGetDevice.argtypes = [ctypes.c_void_p]
        lib.tileLaunchRun.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.c_void_p,
                                      ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchPrepare.restype = ctypes.c_void_p
        lib.tileLaunchPrepare.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.c_char_p,
                                          ctypes.c_size_t]
        # The hot call: the prepared launch, the addresses packed in a bytes object (immutable, so
        # no other thread can change them under the call), the stream.
        lib.tileLaunchPreparedRun.restype = ctypes.c_int
        lib.tileLaunchPreparedRun.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        lib.tileLaunchLastError.restype = ctypes.c_char_p
        lib.tileLaunchLastError.argtypes = []
        lib.tileLaunchPreparedDestroy.argtypes = [ctypes.c_void_p]
        lib.tileLaunchCheck.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Arg), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
        lib.tileLaunchDestroy.argtypes = [ctypes.c_void_p]
        lib.tileLaunchCompilerVersion.restype = ctypes.c_char_p
        _run_prepared = lib.tileLaunchPreparedRun
        _last_error = lib.tileLaunchLastError
        _launcher = lib
    return _launcher


def compiler_version():
    """The compiler version whose manifests this launcher takes (and part of the compile cache's key)."""
    return _launch_library().tileLaunchCompilerVersion().decode()


# torch dtypes by name (str(torch.float16) == "torch.float16"), so that torch is only needed for
# the tensors themselves.
_ELEMENTS = {"torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float32": "f32", "torch.float64": "f64",
             "torch.float8_e4m3fn": "f8E4M3FN", "torch.float8_e5m2": "f8E5M2",
             "torch.int8": "i8", "torch.int16": "i16", "torch.int32": "i32", "torch.int64": "i64"}


def _arguments(args):
    """Describes each argument for the launcher: tensors (anything with data_ptr, shape, stride and
    dtype: torch tensors) and integers (int64)."""
    described = (_Arg * max(len(args), 1))()
    keep = []
    for index, arg in enumerate(args):
        if isinstance(arg, int):
            if not -(1 << 63) <= arg < 1 << 63:
                raise TileError(f"argument {index}: expects a 64-bit integer, but got {arg}")
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


def _device(arg):
    """The CUDA device ordinal of a tensor, -1 on the CPU, None when it does not say: torch's
    get_device(), else DLPack's __dlpack_device__() (2: CUDA, 1: CPU)."""
    get_device = getattr(arg, "get_device", None)
    if get_device is not None:
        return get_device()
    dlpack_device = getattr(arg, "__dlpack_device__", None)
    if dlpack_device is not None:
        kind, ordinal = dlpack_device()
        return {2: ordinal, 1: -1}.get(int(kind), ("dlpack device", int(kind), ordinal))
    return None


def _describe(args):
    """The signature of `args` (one entry per argument: an int itself, a tensor's (dtype, shape,
    strides, device)) and their addresses. Kernel.__call__ computes the same inline for torch
    tensors; this is the general form, for other tensor types and for errors."""
    key, addresses = [], []
    for index, arg in enumerate(args):
        if isinstance(arg, int):
            key.append(arg)
            addresses.append(0)
        elif all(hasattr(arg, name) for name in ("data_ptr", "shape", "stride", "dtype")):
            key.append((arg.dtype, arg.shape, arg.stride(), _device(arg)))
            addresses.append(arg.data_ptr())
        else:
            raise TileError(f"argument {index}: expects a tensor or an int, but got {type(arg).__name__}")
    return key, addresses


def _device_name(device):
    return "the CPU" if device == -1 else f"cuda:{device}" if isinstance(device, int) else "an unknown device"


def _stream_getter(device):
    """A function from a device ordinal to its current CUDA stream (a CUstream as an int): torch's
    raw getter (one C call) where it answers as torch.cuda.current_stream does, else
    torch.cuda.current_stream; the default stream (0) without torch."""
    try:
        import torch
    except ImportError:
        return _no_stream

    def current(device):
        return torch.cuda.current_stream(device).cuda_stream

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    try:
        if raw is not None and raw(device) == current(device):
            return raw
    except Exception:  # noqa: BLE001 - another torch: take the public getter
        pass
    return current


def _no_stream(device):
    return 0


class Kernel:
    """One compiled kernel: its code and manifest; loaded into CUDA at the first launch.

    With `dry_run_device=N`, launches are checked and prepared as for a kernel loaded on CUDA device
    N, but nothing is loaded or launched (no GPU needed): for tests and for measuring the host-side
    cost of a launch."""

    # Argument signatures whose prepared launches a kernel keeps; past that, a new signature is
    # prepared, launched and freed at each call.
    MAX_SIGNATURES = 64

    def __init__(self, code, manifest, dry_run_device=None):
        self.code = code
        self.manifest_json = manifest if isinstance(manifest, str) else manifest.decode()
        self.manifest = json.loads(self.manifest_json)
        self.name = self.manifest["entry"]
        self.dry_run_device = dry_run_device
        self._handle = None
        self._device = None
        self._stream = None
        # Launches repeat their argument signatures. Each signature is checked once, in full, by
        # the launcher (tileLaunchPrepare), which keeps everything of the launch but the tensors'
        # addresses; a launch of the same signature then compares it (one list compare) and
        # passes only the addresses and the stream (tileLaunchPreparedRun).
        self._fast = None  # (signature, prepared launch, address packer) of the last launch
        self._prepared = {}  # the same by signature, for kernels launched with several

    def check(self, *args):
        """Checks the arguments against the manifest as a launch does (no GPU needed; the device
        the tensors are on is not checked: a launch checks it)."""
        described, keep = _arguments(args)
        error = ctypes.create_string_buffer(4096)
        if _launch_library().tileLaunchCheck(self.manifest_json.encode(), described, len(args), error, len(error)):
            raise TileError(error.value.decode())

    def _load(self):
        if self._handle is None:
            lib = _launch_library()
            error = ctypes.create_string_buffer(4096)
            if self.dry_run_device is None:
                handle = lib.tileLaunchLoad(self.code, len(self.code), self.manifest_json.encode(), error, len(error))
            else:
                handle = lib.tileLaunchLoadDryRun(self.manifest_json.encode(), self.dry_run_device, error, len(error))
            if not handle:
                raise TileError(error.value.decode())
            self._device = lib.tileLaunchGetDevice(handle)
            self._stream = _no_stream if self.dry_run_device is not None else _stream_getter(self._device)
            self._handle = handle
        return self._handle

    def _prepare(self, args, key):
        """The prepared launch of the signature `key` of `args`: checks every argument (device
        here, the rest in the launcher) and keeps the result. Returns (key, handle, packer, owned):
        `owned` when the caller must free it (past MAX_SIGNATURES)."""
        prepared = self._prepared.get(tuple(key))
        if prepared is not None:
            self._fast = prepared
            return prepared + (False,)
        handle = self._load()
        for index, (entry, arg) in enumerate(zip(key, args)):
            if not isinstance(arg, int) and entry[3] != self._device:
                raise TileError(f"argument {index} of {self.name}: expects a tensor on {_device_name(self._device)}, "
                                f"but got one on {_device_name(entry[3])}")
        described, keep = _arguments(args)
        error = ctypes.create_string_buffer(4096)
        launch = _launcher.tileLaunchPrepare(handle, described, len(args), error, len(error))
        if not launch:
            raise TileError(error.value.decode())
        prepared = (key, launch, struct.Struct(f"={max(len(args), 1)}Q").pack)
        if len(self._prepared) >= self.MAX_SIGNATURES:
            return prepared + (True,)
        self._prepared[tuple(key)] = prepared
        self._fast = prepared
        return prepared + (False,)

    def __call__(self, *args, stream=None):
        """Launches the kernel on the arguments of its host function, on `stream` (a CUstream
        handle; the current PyTorch stream of the kernel's device by default). Every argument is
        checked before the launch (dtype, shape, strides, device: a signature seen before is
        compared with the one checked then). Returns once the launch is queued."""
        # The fast path, for torch tensors and ints: the signature read with one attribute access
        # or call each.
        try:
            key, addresses = [], []
            for arg in args:
                if type(arg) is int:
                    key.append(arg)
                    addresses.append(0)
                else:
                    key.append((arg.dtype, arg.shape, arg.stride(), arg.get_device()))
                    addresses.append(arg.data_ptr())
        except AttributeError:  # not a torch tensor: the general form (or its error)
            key, addresses = _describe(args)
        fast = self._fast
        if fast is None or key != fast[0]:
            *fast, owned = self._prepare(args, key)
            if owned:
                try:
                    self._run(fast, addresses, stream)
                finally:
                    _launcher.tileLaunchPreparedDestroy(fast[1])
                return
        if stream is None:
            stream = self._stream(self._device)
        if _run_prepared(fast[1], fast[2](*addresses) if addresses else None, stream):
            raise TileError(_last_error().decode())

    def _run(self, prepared, addresses, stream):
        if stream is None:
            stream = self._stream(self._device)
        if _run_prepared(prepared[1], prepared[2](*addresses) if addresses else None, stream):
            raise TileError(_last_error().decode())

    def __del__(self):
        if _launcher is None:
            return
        for _, launch, _ in getattr(self, "_prepared", {}).values():
            _launcher.tileLaunchPreparedDestroy(launch)
        self._prepared, self._fast = {}, None
        if getattr(self, "_handle", None):
            _launcher.tileLaunchDestroy(self._handle)
            self._handle = None

    def __repr__(self):
        return f"tile.Kernel({self.name!r}, target={self.manifest.get('target')!r})"


def load(path, dry_run_device=None):
    """Loads a kernel tile-compile wrote: `path` is `DIR/NAME` (NAME.ptx + NAME.json), NAME.json,
    or a directory holding exactly one kernel. `dry_run_device`: see Kernel."""
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
    return Kernel(code, manifest, dry_run_device)


class Program:
    """The kernels one tile program compiled to, in program order; callable when they are one host
    function's (its launches in order, each where its launch condition holds: a kernel and its
    twin for 16-byte aligned tensors, say)."""

    def __init__(self, kernels, directory):
        self.kernels = kernels
        self.directory = directory

    def __getitem__(self, name):
        return next(kernel for kernel in self.kernels if kernel.name == name)

    def __call__(self, *args, **options):
        functions = sorted({kernel.manifest.get("host_function", kernel.name) for kernel in self.kernels})
        if len(functions) != 1:
            raise TileError(f"the program's kernels are those of {len(functions)} host functions ({', '.join(functions)}); call one of program.kernels")
        for kernel in self.kernels:
            kernel(*args, **options)


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


_builds = {}


def _write_atomically(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    staging.write_text(text)
    os.replace(staging, path)


def compiler_build(cache_dir=None):
    """The build of the compiler `compile` would use: the SHA-256 of its library (libtile_plugin.so,
    found as the launcher is) and of the libMLIR-C.so beside it, so that a rebuilt compiler, even
    from the same commit, never hits the kernels of another build. None where the compiler library
    is not found (a machine that only launches). The digest is remembered per file identity (path,
    size, modification time, inode), in memory and under the cache's `builds/`, so a hit hashes
    nothing."""
    plugin = _library_path("libtile_plugin.so")
    if plugin is None:
        return None
    files = [plugin] + [path for path in [plugin.parent / "libMLIR-C.so"] if path.is_file()]
    identity = []
    for path in files:
        stat = path.stat()
        identity.append([str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev])
    identity = json.dumps(identity)
    build = _builds.get(identity)
    if build is None:
        record = _cache_dir(cache_dir) / "builds" / hashlib.sha256(identity.encode()).hexdigest()[:32]
        try:
            build = record.read_text()
        except OSError:
            digest = hashlib.sha256()
            for path in files:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            build = digest.hexdigest()[:32]
            _write_atomically(record, build)
        _builds[identity] = build
    return build


def compile(source, target="sm_90a", cache_dir=None, name="program.mlir"):
    """Compiles the tile program `source` (text) for `target` and returns its kernels as a
    Program. Results are cached under `cache_dir` (default $TILE_CACHE_DIR, else ~/.cache/tile) by
    program text, target, compiler version and compiler build (see compiler_build); a hit needs
    neither MLIR nor loading the compiler. Where the compiler library is not found (a machine that
    only launches), the kernels the latest build compiled for the program and target are taken."""
    version = compiler_version()
    build = compiler_build(cache_dir)
    root = _cache_dir(cache_dir)
    program_key = hashlib.sha256("\0".join([version, target, source]).encode()).hexdigest()[:32]
    latest = root / "by-program" / program_key
    if build is None:
        try:
            directory = root / latest.read_text()
        except OSError:
            raise TileError(f"the program is not in the cache ({root}) for {target}, and the compiler "
                            f"(libtile_plugin.so) is not found to compile it") from None
    else:
        directory = root / hashlib.sha256("\0".join([version, build, target, source]).encode()).hexdigest()[:32]
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
            (staging / "kernels.json").write_text(
                json.dumps({"compiler": version, "build": build, "target": target, "kernels": names}))
            try:
                staging.rename(directory)  # atomic: another process may have won the race
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)
        finally:
            lib.tileCompilationDestroy(result)
        _write_atomically(latest, directory.name)
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
    version (and build, where the compiler is found) and the arguments' shapes, dtypes and strides,
    so a later call measures nothing."""
    measure = measure or _cuda_time
    key = [compiler_version(), target, template, configs, _signature(args)]
    build = compiler_build(cache_dir)
    key_text = json.dumps(key + [build] if build else key, sort_keys=True)
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
