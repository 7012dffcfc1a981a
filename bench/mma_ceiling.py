#!/usr/bin/env python3
"""The mma.sync ceiling of the chip this runs on: what an sm_80 kernel's tensor cores can reach at best.

Each warp holds its A and B fragments in registers and issues back-to-back `mma.sync` on several
independent accumulators (no memory traffic in the loop), the grid filling every SM. The sm_80 GEMM's
target is a fraction of this figure (issue 33); reported beside cuBLAS and the sm_90a kernels.

The PTX is written here (it is the measuring instrument, not compiler output) for sm_80 and loaded
through the driver, which compiles it for the chip at hand, as it does our sm_80 kernels. Every
thread's accumulators are checked against numpy: each lane's registers are loaded from inputs
placed by the documented fragment layouts, so a wrong layout or a lost instruction fails the check.

Usage (GPU machine): python3 bench/mma_ceiling.py [--rounds 5]
"""
import argparse

import numpy
import torch
from cuda.bindings import driver as cu

# (name, PTX shape and types, k, A/B element numpy type, accumulator: PTX register type, numpy type)
VARIANTS = [
    ("f16", "m16n8k16.row.col.f32.f16.f16.f32", 16, numpy.float16, "f32", numpy.float32),
    ("bf16", "m16n8k16.row.col.f32.bf16.bf16.f32", 16, "bf16", "f32", numpy.float32),
    ("i8", "m16n8k32.row.col.s32.s8.s8.s32", 32, numpy.int8, "s32", numpy.int32),
]
ACCUMULATORS = 8  # independent accumulator sets per warp: enough to cover the instruction's latency
ITERATIONS = 4096


def ok(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err}")
    return rest[0] if len(rest) == 1 else rest


def ptx(shape, accumulator):
    """A kernel: load the lane's A (4 words) and B (2 words), run ITERATIONS x ACCUMULATORS mma.sync,
    store the sum of the accumulator sets (4 values a thread)."""
    add = "add.f32" if accumulator == "f32" else "add.s32"
    zero = "0f00000000" if accumulator == "f32" else "0"
    d = [[f"%d{i}_{j}" for j in range(4)] for i in range(ACCUMULATORS)]
    lines = [
        ".version 7.8",
        ".target sm_80",
        ".address_size 64",
        ".visible .entry mma_ceiling(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 iterations)",
        "{",
        "  .reg .b32 %a<4>, %b<2>, %lane, %thread, %threads, %block, %i, %n;",
        "  .reg .b64 %pa, %pb, %po, %offset;",
        "  .reg .pred %more;",
        f"  .reg .{accumulator} " + ", ".join(x for row in d for x in row) + ", %s<4>;",
        "  ld.param.u64 %pa, [a];",
        "  ld.param.u64 %pb, [b];",
        "  ld.param.u64 %po, [out];",
        "  ld.param.u32 %n, [iterations];",
        "  mov.u32 %thread, %tid.x;",
        "  mov.u32 %threads, %ntid.x;",
        "  mov.u32 %block, %ctaid.x;",
        "  and.b32 %lane, %thread, 31;",
        "  mul.wide.u32 %offset, %lane, 16;",
        "  add.u64 %pa, %pa, %offset;",
        "  ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%pa];",
        "  mul.wide.u32 %offset, %lane, 8;",
        "  add.u64 %pb, %pb, %offset;",
        "  ld.global.v2.b32 {%b0, %b1}, [%pb];",
    ]
    lines += [f"  mov.{accumulator} {x}, {zero};" for row in d for x in row]
    lines += ["  mov.u32 %i, 0;", "LOOP:"]
    for row in d:
        regs = "{" + ", ".join(row) + "}"
        lines.append(f"  mma.sync.aligned.{shape} {regs}, {{%a0, %a1, %a2, %a3}}, {{%b0, %b1}}, {regs};")
    lines += [
        "  add.u32 %i, %i, 1;",
        "  setp.lt.u32 %more, %i, %n;",
        "  @%more bra LOOP;",
    ]
    for j in range(4):
        lines.append(f"  mov.{accumulator} %s{j}, {d[0][j]};")
        lines += [f"  {add} %s{j}, %s{j}, {d[i][j]};" for i in range(1, ACCUMULATORS)]
    lines += [
        "  mad.lo.u32 %thread, %block, %threads, %thread;",
        "  mul.wide.u32 %offset, %thread, 16;",
        "  add.u64 %po, %po, %offset;",
        "  st.global.v4.b32 [%po], {%s0, %s1, %s2, %s3};",
        "  ret;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def fragments(k, rng):
    """Random small-integer A (16 x k) and B (k x 8) and each lane's registers, placed by the
    m16n8k16 (16-bit) / m16n8k32 (8-bit) fragment layouts: lane = 4 * group + t; A word w holds row
    group (+8 for words 1 and 3), columns from t * per_word (+k/2 for words 2 and 3); B word w holds
    column group, rows from t * per_word (+k/2 for word 1)."""
    a = rng.integers(-2, 3, size=(16, k))
    b = rng.integers(-2, 3, size=(k, 8))
    per_word = 32 // (16 if k == 16 else 8)
    a_lanes = numpy.zeros((32, 4, per_word), dtype=numpy.int64)
    b_lanes = numpy.zeros((32, 2, per_word), dtype=numpy.int64)
    for lane in range(32):
        group, t = divmod(lane, 4)
        for word in range(4):
            row = group + 8 * (word % 2)
            column = t * per_word + (k // 2) * (word // 2)
            a_lanes[lane, word] = a[row, column : column + per_word]
        for word in range(2):
            row = t * per_word + (k // 2) * word
            b_lanes[lane, word] = b[row : row + per_word, group]
    return a, b, a_lanes, b_lanes


def expected(a, b):
    """Each lane's 4 accumulator values of A @ B: rows group and group + 8, columns 2t and 2t + 1."""
    product = a @ b
    out = numpy.zeros((32, 4), dtype=numpy.int64)
    for lane in range(32):
        group, t = divmod(lane, 4)
        out[lane] = [product[group, 2 * t], product[group, 2 * t + 1], product[group + 8, 2 * t], product[group + 8, 2 * t + 1]]
    return out


def device_words(lanes, element):
    """The lanes' registers as a uint32 CUDA tensor."""
    if element == "bf16":
        values = torch.tensor(lanes.reshape(-1), dtype=torch.bfloat16)
    elif element == numpy.int8:
        values = torch.tensor(lanes.reshape(-1), dtype=torch.int8)
    else:
        values = torch.tensor(lanes.reshape(-1), dtype=torch.float16)
    return values.view(torch.int32).cuda()


def run(variant, warps, blocks_per_sm, rounds):
    name, shape, k, element, accumulator, numpy_acc = variant
    module = ok(cu.cuModuleLoadData(ptx(shape, accumulator).encode() + b"\0"))
    function = ok(cu.cuModuleGetFunction(module, b"mma_ceiling"))
    rng = numpy.random.default_rng(7)
    a, b, a_lanes, b_lanes = fragments(k, rng)
    a_words, b_words = device_words(a_lanes, element), device_words(b_lanes, element)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    grid, threads = sms * blocks_per_sm, 32 * warps
    out = torch.empty(grid * threads * 4, dtype=torch.int32, device="cuda")
    args = [numpy.array([t.data_ptr()], dtype=numpy.uint64) for t in (a_words, b_words, out)]
    args.append(numpy.array([ITERATIONS], dtype=numpy.uint32))
    pointers = numpy.array([x.ctypes.data for x in args], dtype=numpy.uint64)
    stream = torch.cuda.current_stream().cuda_stream

    def launch():
        ok(cu.cuLaunchKernel(function, grid, 1, 1, threads, 1, 1, 0, stream, pointers.ctypes.data, 0))

    launch()
    torch.cuda.synchronize()
    got = out.view(torch.float32 if accumulator == "f32" else torch.int32).cpu().numpy().reshape(-1, 32, 4)
    want = (expected(a, b) * ACCUMULATORS * ITERATIONS).astype(numpy_acc)
    wrong = int((got != want[None]).sum())
    times = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    flops = grid * warps * ITERATIONS * ACCUMULATORS * 2 * 16 * 8 * k
    return wrong, sorted(flops / t / 1e12 for t in times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    torch.zeros(1, device="cuda")  # makes torch's context current for the driver calls below
    print(f"device: {torch.cuda.get_device_name(0)}; {ACCUMULATORS} accumulator sets x {ITERATIONS} iterations a warp")
    for variant in VARIANTS:
        best = None
        for warps in (4, 8):
            for blocks_per_sm in (1, 2, 4):
                wrong, rates = run(variant, warps, blocks_per_sm, options.rounds)
                median = rates[len(rates) // 2]
                status = "PASS" if wrong == 0 else f"FAIL ({wrong} wrong values)"
                print(f"  {variant[0]:5s} {warps} warps x {blocks_per_sm} blocks/SM: median {median:7.1f} TOPS ({status})")
                if wrong == 0 and (best is None or median > best[0]):
                    best = (median, warps, blocks_per_sm)
        if best:
            print(f"mma.sync ceiling {variant[0]}: {best[0]:.1f} TFLOP/s ({best[1]} warps x {best[2]} blocks/SM)")


if __name__ == "__main__":
    main()
