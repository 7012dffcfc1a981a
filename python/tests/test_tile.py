"""Tests of the Python package that need no GPU: compiling with the cache, loading what
tile-compile wrote, and the launcher's argument checks on stand-in tensors. (Launches themselves
need the GPU machine: see README, "Python".)"""

import os
import pathlib
import sys
import tempfile
import unittest

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

    def __init__(self, shape, dtype="torch.float32", address=0x7F0000000000, stride=None):
        self.shape, self.dtype, self.address = tuple(shape), dtype, address
        self._stride = stride or tuple(int(eval("*".join(map(str, shape[i + 1:])) or "1")) for i in range(len(shape)))

    def data_ptr(self):
        return self.address

    def stride(self):
        return self._stride


class CompileAndCheck(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.cache.cleanup()

    def test_compile_caches_by_program_target_and_version(self):
        program = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        self.assertEqual([k.name for k in program.kernels], ["scale_0_kernel"])
        kernel = program.kernels[0]
        self.assertEqual(kernel.manifest["version"], 1)
        self.assertEqual(kernel.manifest["compiler"], tile.compiler_version())
        self.assertIn(b".entry scale_0_kernel", kernel.code)
        again = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        self.assertEqual(again.directory, program.directory)
        self.assertEqual(len(os.listdir(self.cache.name)), 1)
        tile.compile(SCALE, target="spirv", cache_dir=self.cache.name)
        self.assertEqual(len(os.listdir(self.cache.name)), 2)

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

    def test_load_reads_what_tile_compile_wrote(self):
        program = tile.compile(SCALE, target="sm_90a", cache_dir=self.cache.name)
        kernel = tile.load(program.directory / "scale_0_kernel")
        self.assertEqual(kernel.name, "scale_0_kernel")
        self.assertEqual(tile.load(program.directory / "scale_0_kernel.json").code, kernel.code)
        with self.assertRaises(tile.TileError):
            tile.load(pathlib.Path(self.cache.name) / "missing")


if __name__ == "__main__":
    unittest.main()
