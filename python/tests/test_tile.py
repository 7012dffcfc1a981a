"""Tests of the Python package that need no GPU: compiling with the cache, loading what
tile-compile wrote, and the launcher's argument checks on stand-in tensors. (Launches themselves
need the GPU machine: see docs/embedding.md, "Python".)"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import tile  # noqa: E402

SCALE = """
func.func @scale(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.copy %X[%bx, %bx], %F : memref<64x64xf32>, memref<64x64xf32, #tile.fragment>
    tile.copy %F, %Y[%bx, %bx] : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}
"""


class FakeTensor:
    """What the launcher reads of a torch tensor."""

    def __init__(self, shape, dtype="torch.float32", address=0x7F0000000000, stride=None, device=0):
        self.shape, self.dtype, self.address, self.device = tuple(shape), dtype, address, device
        self._stride = stride or tuple(int(eval("*".join(map(str, shape[i + 1:])) or "1")) for i in range(len(shape)))

    def data_ptr(self):
        return self.address

    def stride(self):
        return self._stride

    def get_device(self):
        return self.device


class DLPackTensor(FakeTensor):
    """A tensor that tells its device through DLPack only."""

    get_device = None

    def __getattribute__(self, name):
        if name == "get_device":
            raise AttributeError(name)
        return super().__getattribute__(name)

    def __dlpack_device__(self):
        return (2, self.device) if self.device >= 0 else (1, 0)


def kernel_dirs(cache):
    return sorted(name for name in os.listdir(cache) if name not in ("by-program", "builds", "autotune"))


# A plain-strategy kernel with a dynamic size: Y[n] = f(X[n]), one signature per n.
DYNAMIC = """{"version": 1, "compiler": "%s", "entry": "dyn_0_kernel", "host_function": "dyn", "target": "sm_90a",
 "strategy": "registers", "workgroup_size": [128, 1, 1], "grid": [{"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}, 1, 1],
 "shared_bytes": 0, "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [null], "element": "f32", "written": false},
 {"set": 0, "binding": 1, "host_argument": 1, "shape": [null], "element": "f32", "written": true}]}"""


class CompileAndCheck(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.cache.cleanup()

    def test_compile_caches_by_program_target_and_version(self):
        tile._builds.clear()  # digests another test remembered would leave this cache's builds/ empty
        program = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        # The kernel's twin for 16-byte aligned tensors, then the kernel for any others.
        self.assertEqual([k.name for k in program.kernels], ["scale_0_kernel", "scale_1_kernel"])
        kernel = program.kernels[0]
        self.assertEqual(kernel.manifest["version"], 2)
        self.assertIn("address", json.dumps(kernel.manifest["when"]))
        self.assertEqual(kernel.manifest["compiler"], tile.compiler_version())
        self.assertIn(b".entry scale_0_kernel", kernel.code)
        again = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        self.assertEqual(again.directory, program.directory)
        self.assertEqual(len(kernel_dirs(self.cache.name)), 1)
        tile.compile(SCALE, target="spirv", cache_dir=self.cache.name)
        self.assertEqual(len(kernel_dirs(self.cache.name)), 2)
        # What makes a hit cheap, checked as a property (its time is a benchmark's, not a test's): it
        # loads no compiler and hashes no library, even with the in-memory digests gone (the record
        # under builds/ serves).
        read = []
        read_bytes = pathlib.Path.read_bytes

        def recorded(path):
            read.append(path.name)
            return read_bytes(path)

        tile._builds.clear()
        with unittest.mock.patch.object(tile, "_compile_library", side_effect=AssertionError("a hit loads the compiler")), \
                unittest.mock.patch.object(pathlib.Path, "read_bytes", autospec=True, side_effect=recorded):
            hit = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        self.assertEqual(hit.directory, program.directory)
        self.assertEqual([name for name in read if name.endswith(".so")], [])
        self.assertIn("scale_0_kernel.ptx", read)

    def test_a_rebuilt_compiler_does_not_hit_the_kernels_of_another_build(self):
        program = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        build = tile.compiler_build(self.cache.name)
        self.assertRegex(build, "^[0-9a-f]{32}$")
        plugin = tile._library_path("libtile_plugin.so")
        with tempfile.TemporaryDirectory() as other:
            # The same library, copied: the same build. Rebuilt (other bytes): another one.
            for name in ("libtile_launch.so", "libtile_plugin.so", "libMLIR-C.so"):
                if (plugin.parent / name).exists():
                    shutil.copy(plugin.parent / name, other)
            with environment(TILE_LIB_DIR=other):
                self.assertEqual(tile.compiler_build(self.cache.name), build)
                with open(pathlib.Path(other) / "libtile_plugin.so", "ab") as library:
                    library.write(b"rebuilt")
                rebuilt = tile.compiler_build(self.cache.name)
                self.assertNotEqual(rebuilt, build)
                again = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
            self.assertNotEqual(again.directory, program.directory)
            self.assertEqual(len(kernel_dirs(self.cache.name)), 2)
            self.assertEqual(tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name).directory, program.directory)
        # Where no compiler is found (a machine that only launches), the latest build's kernels.
        with unittest.mock.patch.object(tile, "compiler_build", lambda cache_dir=None: None):
            self.assertEqual(tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name).directory, again.directory)
            with self.assertRaises(tile.TileError) as raised:
                tile.compile(SCALE, target="spirv", cache_dir=self.cache.name)
            self.assertIn("is not in the cache", str(raised.exception))

    def test_compile_errors_carry_located_diagnostics(self):
        with self.assertRaises(tile.TileError) as raised:
            tile.compile(SCALE.replace("threads(64)", "threads(100)"), cache_dir=self.cache.name, name="scale.mlir")
        self.assertIn("scale.mlir:4:3: error: 'tile.kernel' op expects threads", str(raised.exception))

    def test_arguments_are_checked_against_the_manifest(self):
        kernel = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name).kernels[0]
        kernel.check(FakeTensor([64, 64]), FakeTensor([64, 64]))
        with self.assertRaises(tile.TileError) as raised:
            kernel.check(FakeTensor([64, 64]), FakeTensor([64, 64], dtype="torch.float16"))
        self.assertEqual(str(raised.exception), "argument 1 (binding 1 of scale_0_kernel): expects element type f32, but got f16")
        with self.assertRaises(tile.TileError) as raised:
            kernel.check(FakeTensor([64, 64]), FakeTensor([64, 32]))
        self.assertIn("expects shape 64x64, but got 64x32", str(raised.exception))
        with self.assertRaises(tile.TileError) as raised:
            kernel.check(FakeTensor([64, 64]), FakeTensor([64, 64], stride=(128, 1)))
        self.assertIn("row-major contiguous", str(raised.exception))
        with self.assertRaises(tile.TileError) as raised:
            kernel.check(FakeTensor([64, 64]), "nope")
        self.assertEqual(str(raised.exception), "argument 1: expects a tensor or an int, but got str")

    def test_autotune_measures_each_variant_once_and_caches_the_choice(self):
        template = SCALE.replace("threads(64)", "threads({threads})")
        configs = [{"threads": 64}, {"threads": 100}, {"threads": 128}]  # 100 does not compile
        measured = []

        def measure(program, args):
            threads = program.kernels[0].manifest["workgroup_size"][0]
            measured.append(threads)
            return 1.0 / threads  # more threads, faster
        args = [FakeTensor([64, 64]), FakeTensor([64, 64])]
        program, config = tile.autotune(template, configs, args, cache_dir=self.cache.name, measure=measure)
        self.assertEqual((config, measured), ({"threads": 128}, [64, 128]))
        program, config = tile.autotune(template, configs, args, cache_dir=self.cache.name, measure=measure)
        self.assertEqual((config, measured), ({"threads": 128}, [64, 128]))

    def test_launches_check_every_argument_before_launching(self):
        # A dry-run kernel: checked and prepared as on CUDA device 0, nothing launched.
        code = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name).kernels[0]
        kernel = tile.Kernel(code.code, code.manifest_json, dry_run_device=0)
        x, y = FakeTensor([64, 64]), FakeTensor([64, 64], address=0x7F0000100000)
        kernel(x, y)
        kernel(y, x)  # the same signature: prepared once
        self.assertEqual(len(kernel._prepared), 1)
        refusals = {
            "expects a tensor on cuda:0, but got one on cuda:1": FakeTensor([64, 64], device=1),
            "expects a tensor on cuda:0, but got one on the CPU": FakeTensor([64, 64], device=-1),
            "expects element type f32, but got f16": FakeTensor([64, 64], dtype="torch.float16"),
            "expects shape 64x64, but got 64x32": FakeTensor([64, 32]),
            "row-major contiguous": FakeTensor([64, 64], stride=(128, 1)),
            "argument 1: expects a tensor or an int, but got str": "nope",
        }
        for message, bad in refusals.items():
            with self.assertRaises(tile.TileError) as raised:
                kernel(x, bad)
            self.assertIn(message, str(raised.exception))
            kernel(x, y)  # and the good signature still launches after each refusal
        # A tensor that tells its device through DLPack only.
        kernel(DLPackTensor([64, 64]), y)
        with self.assertRaises(tile.TileError) as raised:
            kernel(DLPackTensor([64, 64], device=-1), y)
        self.assertIn("argument 0 of scale_0_kernel: expects a tensor on cuda:0, but got one on the CPU", str(raised.exception))
        # One changed property between two launches of a cached signature is seen.
        y.shape = (64, 32)
        with self.assertRaises(tile.TileError):
            kernel(x, y)

    def test_many_signatures(self):
        kernel = tile.Kernel(b"", DYNAMIC % tile.compiler_version(), dry_run_device=0)
        kernel.MAX_SIGNATURES = 2
        for n in (128, 256, 384, 512, 128, 640):
            kernel(FakeTensor([n]), FakeTensor([n]))
        self.assertEqual(len(kernel._prepared), 2)
        with self.assertRaises(tile.TileError) as raised:
            kernel(FakeTensor([640]), FakeTensor([640], dtype="torch.float64"))
        self.assertIn("expects element type f32, but got f64", str(raised.exception))
        with self.assertRaises(tile.TileError) as raised:
            kernel(FakeTensor([640]), FakeTensor([640], device=3))
        self.assertIn("on cuda:3", str(raised.exception))

    def test_load_reads_what_tile_compile_wrote(self):
        program = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        kernel = tile.load(program.directory / "scale_0_kernel")
        self.assertEqual(kernel.name, "scale_0_kernel")
        self.assertEqual(tile.load(program.directory / "scale_0_kernel.json").code, kernel.code)
        with self.assertRaises(tile.TileError):
            tile.load(pathlib.Path(self.cache.name) / "missing")


class Packaging(unittest.TestCase):
    def test_pip_installs_the_package(self):
        """pip install ./python (here into a folder, from a copy, offline): the installed package
        finds the libraries through TILE_LIB_DIR."""
        source = pathlib.Path(__file__).resolve().parent.parent
        with tempfile.TemporaryDirectory() as scratch:
            copy = pathlib.Path(scratch) / "python"
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
            installed = pathlib.Path(scratch) / "site"
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                            "--disable-pip-version-check", "--target", str(installed), str(copy)], check=True,
                           env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
            self.assertTrue((installed / "tile" / "__init__.py").exists())
            check = "import tile, sys; assert tile.__file__.startswith(sys.argv[1]), tile.__file__; print(tile.compiler_version())"
            libraries = str(tile._library_path("libtile_launch.so").resolve().parent)
            output = subprocess.run([sys.executable, "-c", check, str(installed)], cwd=scratch, capture_output=True,
                                    text=True, env=dict(os.environ, PYTHONPATH=str(installed), TILE_LIB_DIR=libraries))
            self.assertEqual(output.returncode, 0, output.stderr)
            self.assertEqual(output.stdout.strip(), tile.compiler_version())


class environment:
    """Sets environment variables for a `with` block."""

    def __init__(self, **values):
        self.values, self.saved = values, {}

    def __enter__(self):
        for name, value in self.values.items():
            self.saved[name] = os.environ.get(name)
            os.environ[name] = value

    def __exit__(self, *exc):
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


if __name__ == "__main__":
    unittest.main()
