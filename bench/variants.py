#!/usr/bin/env python3
"""Writes the tile programs the benchmark compiles: one GEMM per (shape, type, tile config).

Each is the contract's GEMM (optionally with the ReLU epilogue, optionally with B given as NxK),
written out for one static shape. Run by bench/prepare.sh on the build machine.
"""
import itertools
import os
import sys

TEMPLATE = """// {name}: C = {relu_open}{fill} + A * {b_desc}{relu_close}, {m}x{n}x{k} {dtype}, tile {bm}x{bn}x{bk}, {threads} threads, {stages} stages.
func.func @{name}(%A: memref<{a_shape}x{dtype}>, %B: memref<{b_shape}x{dtype}>, %C: memref<{m}x{n}x{out}>) {{
  %c0 = arith.constant 0 : index
  %cbk = arith.constant {bk} : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %ktiles = arith.constant {ktiles} : index
  %gx = arith.constant {gx} : index
  %gy = arith.constant {gy} : index
{zero}  %start = arith.constant {fill} : {acc}
  tile.kernel grid(%gx, %gy) threads({threads}) (%bx, %by) {{
    %As = tile.alloc_shared : memref<{as_shape}x{dtype}, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<{bs_shape}x{dtype}, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<{bm}x{bn}x{acc}, #tile.fragment>
    tile.fill %Cf, %start : memref<{bm}x{bn}x{acc}, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages({stages}){schedule} {{
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[{a_offsets}], %As : memref<{a_shape}x{dtype}>, memref<{as_shape}x{dtype}, #gpu.address_space<workgroup>>
      tile.copy %B[{b_offsets}], %Bs : memref<{b_shape}x{dtype}>, memref<{bs_shape}x{dtype}, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf{transpose} : memref<{as_shape}x{dtype}, #gpu.address_space<workgroup>>,
          memref<{bs_shape}x{dtype}, #gpu.address_space<workgroup>>, memref<{bm}x{bn}x{acc}, #tile.fragment>
    }}
{epilogue}    tile.copy %Cf, %C[%m0, %n0] : memref<{bm}x{bn}x{acc}, #tile.fragment>, memref<{m}x{n}x{out}>
  }}
  return
}}
"""

RELU = """    tile.parallel (%i, %j) in ({bm}, {bn}) {{
      %v = memref.load %Cf[%i, %j] : memref<{bm}x{bn}xf32, #tile.fragment>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<{bm}x{bn}xf32, #tile.fragment>
    }}
"""


def schedule(persistent, split, multicast=None):
    """The main loop's `tile.schedule` entries: none where the compiler decides (persistent, and
    split where tile-split-k would), else the ones asked for (`multicast`: clusters of that many
    blocks sharing B's tiles)."""
    entries = ([] if persistent else ["persistent = false"]) + ([] if split is None else [f"split = {split}"])
    entries += [] if multicast is None else [f"multicast = {multicast}"]
    return " attributes {tile.schedule = {" + ", ".join(entries) + "}}" if entries else ""


def program(name, m, n, k, dtype, bm, bn, bk, threads, stages, relu=False, transpose_b=False, fill=0.0, transpose_a=False, persistent=True, split=None, multicast=None):
    ceil = lambda a, b: (a + b - 1) // b
    fields = dict(
        name=name, m=m, n=n, k=k, dtype=dtype, bm=bm, bn=bn, bk=bk, threads=threads, stages=stages,
        ktiles=ceil(k, bk), gx=ceil(n, bn), gy=ceil(m, bm),
        b_shape=f"{n}x{k}" if transpose_b else f"{k}x{n}",
        bs_shape=f"{bn}x{bk}" if transpose_b else f"{bk}x{bn}",
        b_offsets="%n0, %k0" if transpose_b else "%k0, %n0",
        b_desc="B^T" if transpose_b else "B",
        transpose=" {" + ", ".join(flag for flag, on in (("transpose_a", transpose_a), ("transpose_b", transpose_b)) if on) + "}" if (transpose_a or transpose_b) else "",
        a_shape=f"{k}x{m}" if transpose_a else f"{m}x{k}",
        as_shape=f"{bk}x{bm}" if transpose_a else f"{bm}x{bk}",
        a_offsets="%k0, %m0" if transpose_a else "%m0, %k0",
        relu_open="relu(" if relu else "", relu_close=")" if relu else "", fill=fill,
        schedule=schedule(persistent, split, multicast),
        # i8 products sum into i32 (the dialect's rule), the others into f32.
        acc="i32" if dtype == "i8" else "f32",
        # f8E4M3FN products leave as f32.
        out={"i8": "i32", "f8E4M3FN": "f32"}.get(dtype, dtype),
    )
    fields["zero"] = "" if dtype == "i8" else "  %zero = arith.constant 0.0 : f32\n"
    if dtype == "i8":
        fields["fill"] = int(fill)
    fields["epilogue"] = RELU.format(**fields) if relu else ""
    return TEMPLATE.format(**fields)


# (tag, bm, bn, bk, threads, stages)
CONFIGS = [
    ("t128x128x64w1s4", 128, 128, 64, 128, 4),
    ("t128x256x64w2s4", 128, 256, 64, 256, 4),
    ("t128x256x64w2s3", 128, 256, 64, 256, 3),
    ("t128x128x64w2s4", 128, 128, 64, 256, 4),
]

# sm_80's mma.sync tilings (tag, bm, bn, bk, threads, stages): warps of 64x64 (4 or 8 a block).
SM80_CONFIGS = [
    ("t128x128x32w4s3", 128, 128, 32, 128, 3),
    ("t128x128x32w4s4", 128, 128, 32, 128, 4),
    ("t128x128x64w4s3", 128, 128, 64, 128, 3),
    ("t128x256x32w8s3", 128, 256, 32, 256, 3),
    ("t256x128x32w8s3", 256, 128, 32, 256, 3),
    ("t128x256x64w8s3", 128, 256, 64, 256, 3),
]

WIDE_CONFIGS = [
    ("t192x256x64w3s3", 192, 256, 64, 384, 3),
    ("t192x256x64w3s4", 192, 256, 64, 384, 4),
    ("t256x128x64w2s4", 256, 128, 64, 256, 4),
]


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for size, dtype, (tag, bm, bn, bk, threads, stages) in itertools.product((4096, 8192), ("f16", "bf16"), CONFIGS):
        name = f"gemm_{dtype}_{size}_{tag}"
        written.append(name)
        with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
            f.write(program(name, size, size, size, dtype, bm, bn, bk, threads, stages))
    # The same 128x256 kernels with one output tile per block (sm_90a makes them persistent).
    # Three warpgroups on 192x256 tiles: 22% fewer bytes from L2 a flop than 128x256 (run 26).
    for size, dtype, (tag, bm, bn, bk, threads, stages) in itertools.product((4096, 8192), ("f16", "bf16"), WIDE_CONFIGS):
        name = f"gemm_{dtype}_{size}_{tag}"
        written.append(name)
        with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
            f.write(program(name, size, size, size, dtype, bm, bn, bk, threads, stages))
    for size, dtype, (tag, bm, bn, bk, threads, stages) in itertools.product((4096, 8192), ("f16", "bf16"), CONFIGS):
        name = f"gemm_{dtype}_{size}_{tag}_tilewise"
        written.append(name)
        with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
            f.write(program(name, size, size, size, dtype, bm, bn, bk, threads, stages, persistent=False))
    # Correctness shapes: not tile multiples, ReLU, transpose_b.
    extra = [
        ("check_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=3, relu=True)),
        ("check_tb_bf16_777x640x320", dict(m=777, n=640, k=320, dtype="bf16", bm=128, bn=256, bk=64, threads=256, stages=3, transpose_b=True)),
        ("check_bias_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=3, relu=True, fill=-0.5)),
        ("check_ta_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=3, relu=True, transpose_a=True)),
        ("check_ta_tb_bf16_784x640x320", dict(m=784, n=640, k=320, dtype="bf16", bm=128, bn=256, bk=64, threads=256, stages=3, transpose_a=True, transpose_b=True)),
        ("gemm_ta_f16_4096_t128x256x64w2s4", dict(m=4096, n=4096, k=4096, dtype="f16", bm=128, bn=256, bk=64, threads=256, stages=4, transpose_a=True)),
        # Persistent walks: several tiles a block with fewer steps than stages, and ragged edges.
        ("check_persist_f16_2048x4096x128", dict(m=2048, n=4096, k=128, dtype="f16", bm=128, bn=256, bk=64, threads=256, stages=4)),
        ("check_persist_relu_bf16_3000x3000x200", dict(m=3000, n=3000, k=200, dtype="bf16", bm=128, bn=256, bk=64, threads=256, stages=4, relu=True)),
        ("check_k32_relu_f16_512x512x512", dict(m=512, n=512, k=512, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=3, relu=True)),
        # K tiles of 128, which the template refuses: the per-op rules, persistent (more tiles than
        # multiprocessors; ragged edges, an epilogue loop, B given as NxK).
        ("check_perop_persist_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=64, bn=128, bk=128, threads=128, stages=3, relu=True)),
        ("check_perop_persist_tb_bf16_3000x3000x200", dict(m=3000, n=3000, k=200, dtype="bf16", bm=128, bn=128, bk=128, threads=128, stages=3, transpose_b=True)),
    ]
    # Debug shapes: one tile, few iterations, each operand layout alone.
    extra += [
        ("debug_k64_f16_128x128x64", dict(m=128, n=128, k=64, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=1)),
        ("debug_tb_k64_f16_128x128x64", dict(m=128, n=128, k=64, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=1, transpose_b=True)),
        ("debug_k32_f16_128x128x32", dict(m=128, n=128, k=32, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=1)),
        ("debug_tb_k32_f16_128x128x32", dict(m=128, n=128, k=32, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=1, transpose_b=True)),
        ("debug_tb_k16_f16_128x128x16", dict(m=128, n=128, k=16, dtype="f16", bm=128, bn=128, bk=16, threads=128, stages=1, transpose_b=True)),
        ("debug_iter_f16_128x128x256", dict(m=128, n=128, k=256, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=2)),
        ("debug_w2_f16_128x256x64", dict(m=128, n=256, k=64, dtype="f16", bm=128, bn=256, bk=64, threads=256, stages=1)),
    ]
    # Vulkan cooperative-matrix kernels (f16 only; 48 KiB of workgroup memory at most): prepare.sh
    # compiles the vk_ programs for spirv-coopmat.
    extra += [
        ("vk_gemm_f16_4096_t128x128x32w4", dict(m=4096, n=4096, k=4096, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=2)),
        ("vk_gemm_f16_4096_t128x128x32w8", dict(m=4096, n=4096, k=4096, dtype="f16", bm=128, bn=128, bk=32, threads=256, stages=2)),
        ("vk_gemm_f16_4096_t128x256x32w8", dict(m=4096, n=4096, k=4096, dtype="f16", bm=128, bn=256, bk=32, threads=256, stages=2)),
        ("vk_gemm_f16_8192_t128x256x32w8", dict(m=8192, n=8192, k=8192, dtype="f16", bm=128, bn=256, bk=32, threads=256, stages=2)),
        ("vk_check_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=2, relu=True)),
        ("vk_check_bias_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=2, relu=True, fill=-0.5)),
        ("vk_check_tb_f16_777x640x320", dict(m=777, n=640, k=320, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=2, transpose_b=True)),
        ("vk_check_narrow_f16_100x90x70", dict(m=100, n=90, k=70, dtype="f16", bm=64, bn=64, bk=16, threads=128, stages=2)),
        ("vk_check_tb_narrow_f16_100x90x70", dict(m=100, n=90, k=70, dtype="f16", bm=64, bn=64, bk=16, threads=128, stages=2, transpose_b=True)),
    ]
    # i8 x i8 -> i32 with B given as NxK (K-major, what wgmma reads 8-bit operands as): K tiles of
    # 128 i8 (128-byte rows, as 64 of f16), timed against torch._int_mm.
    extra += [
        (f"gemm_i8w_{size}_{tag}", dict(m=size, n=size, k=size, dtype="i8", bm=bm, bn=bn, bk=128, threads=threads, stages=stages, transpose_b=True))
        for size, (tag, bm, bn, threads, stages) in itertools.product(
            (4096, 8192),
            [("t128x256x128w2s4", 128, 256, 256, 4), ("t128x256x128w2s3", 128, 256, 256, 3), ("t256x128x128w2s4", 256, 128, 256, 4), ("t128x128x128w2s4", 128, 128, 256, 4)],
        )
    ]
    # 8-bit checks on ragged sizes, B given as NxK (bench.py asks for exact results: i8 sums, and
    # f8E4M3FN products of the small integers it fills them with).
    extra += [
        ("check_i8w_tb_1000x1000x640", dict(m=1000, n=1000, k=640, dtype="i8", bm=128, bn=256, bk=128, threads=256, stages=3, transpose_b=True)),
        ("check_f8w_tb_1000x1000x640", dict(m=1000, n=1000, k=640, dtype="f8E4M3FN", bm=128, bn=256, bk=128, threads=256, stages=3, transpose_b=True)),
        ("check_f8w_tb_k32_300x260x96", dict(m=300, n=260, k=96, dtype="f8E4M3FN", bm=64, bn=128, bk=32, threads=128, stages=2, transpose_b=True)),
    ]
    # f8E4M3FN x f8E4M3FN -> f32, B given as NxK, against torch._scaled_mm (cuBLASLt, unit scales).
    extra += [
        (f"gemm_f8w_{size}_{tag}", dict(m=size, n=size, k=size, dtype="f8E4M3FN", bm=bm, bn=bn, bk=128, threads=threads, stages=stages, transpose_b=True))
        for size, (tag, bm, bn, threads, stages) in itertools.product(
            (4096, 8192),
            [("t128x256x128w2s4", 128, 256, 256, 4), ("t128x256x128w2s3", 128, 256, 256, 3), ("t256x128x128w2s4", 256, 128, 256, 4)],
        )
    ]
    for name, kw in extra:
        written.append(name)
        with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
            f.write(program(name, **kw))
    # sm_80 (prepare.sh compiles sm80/ for it): mma.sync tilings of 4096^3 f16 against cuBLAS and
    # the mma.sync ceiling, and ragged shapes whose edge tiles take the rings' synchronous path.
    sm80_dir = os.path.join(out_dir, "sm80")
    os.makedirs(sm80_dir, exist_ok=True)
    sm80 = [
        (f"gemm_sm80_f16_4096_{tag}", dict(m=4096, n=4096, k=4096, dtype="f16", bm=bm, bn=bn, bk=bk, threads=threads, stages=stages))
        for tag, bm, bn, bk, threads, stages in SM80_CONFIGS
    ]
    sm80 += [
        ("check_sm80_relu_f16_1000x1504x704", dict(m=1000, n=1504, k=704, dtype="f16", bm=128, bn=128, bk=32, threads=128, stages=3, relu=True)),
        ("check_sm80_tb_bf16_777x640x320", dict(m=777, n=640, k=320, dtype="bf16", bm=128, bn=256, bk=32, threads=256, stages=4, transpose_b=True)),
        ("check_sm80_ta_f16_1000x1504x712", dict(m=1000, n=1504, k=712, dtype="f16", bm=128, bn=128, bk=64, threads=128, stages=3, transpose_a=True)),
    ]
    for name, kw in sm80:
        written.append(name)
        with open(os.path.join(sm80_dir, name + ".mlir"), "w") as f:
            f.write(program(name, **kw))
    print("\n".join(written))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/programs")
