#!/usr/bin/env python3
"""Runs tile-compiled kernels on the GPU machine: checks every output element against torch, then
times our kernel, torch.matmul (cuBLAS) and a Triton GEMM on the same inputs in the same run.

Usage (on the GPU machine, no MLIR needed): python3 bench/bench.py KERNEL_DIR [--filter SUBSTRING]
KERNEL_DIR holds NAME.ptx + NAME.json pairs written by tile-compile (see bench/prepare.sh), and
KERNEL_DIR/vulkan the spirv-coopmat kernels (NAME.spv + NAME.json) with tile-vulkan-run, which
launches them through NVIDIA's Vulkan driver (the Vulkan loader must be installed).
"""
import argparse
import math
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy
import torch
import triton
import triton.language as tl
from cuda.bindings import driver as cu

import tensor_maps

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "i8": torch.int8, "i32": torch.int32, "f8E4M3FN": torch.float8_e4m3fn, "f8E5M2": torch.float8_e5m2}
TMA_TYPES = tensor_maps.data_types(cu)
# bench/variants.py's 8-bit GEMMs (B given N x K), timed against torch's i8 and fp8 GEMMs.
EIGHT_BIT_VARIANTS = ("gemm_i8w_", "gemm_f8w_")
SWIZZLES = tensor_maps.swizzles(cu)


def ok(result):
    """Unwraps a cuda-bindings result tuple, raising on any error code."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err}")
    return rest[0] if len(rest) == 1 else rest


class Kernel:
    """One PTX kernel and its manifest, loaded through the CUDA driver: tensors passed as MLIR memref
    descriptors (allocated pointer, aligned pointer, offset, sizes, strides), then the manifest's
    parameters (a pointer to each tensor map, an int64 per scalar); its tiles in dynamic shared
    memory (`dynamic_shared_bytes`)."""

    def __init__(self, ptx_path, manifest):
        self.name = os.path.basename(ptx_path)[: -len(".ptx")]
        self.manifest = manifest
        with open(ptx_path, "rb") as f:
            self.module = ok(cu.cuModuleLoadData(f.read() + b"\0"))
        self.function = ok(cu.cuModuleGetFunction(self.module, manifest["entry"].encode()))
        self.shared = manifest.get("dynamic_shared_bytes") or 0
        # The default limit (48 KiB) counts the static byte of the dynamic array's symbol too.
        if self.shared > 0:
            ok(cu.cuFuncSetAttribute(self.function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.shared))

    def shape(self, position, binding):
        """A binding's shape, its dynamic sizes taken from DYNAMIC_MNK: a GEMM's A, B (the first two
        tensors) and result (the last)."""
        m, n, k = DYNAMIC_MNK
        transpose_a, transpose_b = transposes(self.name)
        last = len(self.manifest["bindings"]) - 1
        if self.name.startswith("grouped_gemm"):
            # examples/grouped_gemm.mlir: A (M x K), B (G x K x N), the group sizes (G), C (M x N),
            # by argument (the bindings come in the kernel's order of use).
            role = {0: (m, k), 1: (GROUPS, k, n), 2: (GROUPS,), 3: (m, n)}[binding["host_argument"]]
            return [size if size is not None else fallback for size, fallback in zip(binding["shape"], role)]
        role = {0: (k, m) if transpose_a else (m, k), 1: (n, k) if transpose_b else (k, n), last: (m, n)}.get(position, (m, n))
        default = (2,) * (len(binding["shape"]) - 2) + role
        return [size if size is not None else fallback for size, fallback in zip(binding["shape"], default)]

    def tensors(self):
        out = {}
        # What the programs that update an output atomically found there (test/programs/split_k_atomic.mlir).
        self.initial = {}
        for position, binding in enumerate(self.manifest["bindings"]):
            dtype = DTYPES[binding["element"]]
            shape = self.shape(position, binding)
            if binding["written"] and self.name.startswith(UPDATED):
                out[binding["host_argument"]] = torch.randn(shape, dtype=dtype, device="cuda")
                self.initial[binding["host_argument"]] = out[binding["host_argument"]].clone()
            elif dtype.is_floating_point:
                out[binding["host_argument"]] = (
                    torch.full(shape, float("nan"), dtype=dtype, device="cuda") if binding["written"]
                    # fp8 attention: normal inputs rounded to f8E4M3FN (integers would make every
                    # softmax one-hot).
                    else torch.randn(shape, device="cuda").to(dtype) if self.name.startswith("attention_fp8")
                    # 8-bit floats: small integers (exact in them), so that the products' sums are
                    # integers that wgmma's fp8 accumulation (about 14 bits, truncating) holds
                    # exactly and the check can ask for equality.
                    else torch.randint(-4, 5, shape, device="cuda").to(dtype) if dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
                    else torch.randn(shape, dtype=dtype, device="cuda")
                )
            elif "block_sparse" in self.name and not binding["written"]:
                # A block-sparse table [query blocks, count]: distinct key blocks in random order, of
                # the sequence's blocks (square blocks: as many key blocks as query blocks).
                rows, count = shape
                out[binding["host_argument"]] = torch.argsort(torch.rand(rows, rows, device="cuda"), dim=1)[:, :count].to(dtype).contiguous()
            elif "paged" in self.name and not binding["written"]:
                # A paged cache's block table: every page once, in random order.
                count = math.prod(shape)
                out[binding["host_argument"]] = torch.randperm(count, device="cuda").to(dtype).reshape(shape)
            else:
                # Integers: outputs poisoned with a value no product here reaches, inputs i8-wide.
                out[binding["host_argument"]] = (
                    torch.full(shape, -2**31 if dtype == torch.int32 else -128, dtype=dtype, device="cuda") if binding["written"]
                    else torch.randint(-128, 128, shape, dtype=dtype, device="cuda")
                )
        if self.manifest["host_function"] in GROUPED_EXAMPLES:
            out[2] = group_sizes(out[0].shape[0], out[2].shape[0])
        if self.manifest["host_function"].startswith("attention_varlen_bench"):
            out[3] = sequence_offsets(out[0].shape[0], out[3].shape[0] - 1, VARLEN_LONGEST)
        if self.name.startswith("mamba2_state_passing"):
            # dA's cumulative sums fall along a chunk (dt > 0, A < 0), so a chunk's decay exp(dA[last])
            # is at most 1; positive ones would grow the carried state past f16 over 16 chunks.
            out[1] = -out[1].abs()
        when = self.manifest.get("when")
        if when is not None and reads_addresses(when) and not evaluate(when, out):
            # The twin for tensors off 16-byte boundaries (tile-specialize-alignment): each tensor
            # one element into an allocation of its own.
            for argument, tensor in list(out.items()):
                shifted = torch.empty(tensor.numel() + 16, dtype=tensor.dtype, device="cuda")[1 : 1 + tensor.numel()]
                out[argument] = shifted.view(tensor.shape).copy_(tensor)
                if argument in self.initial:
                    self.initial[argument] = out[argument].clone()
        return out

    def launcher(self, tensors):
        values, types = [], []
        for binding in self.manifest["bindings"]:
            t = tensors[binding["host_argument"]]
            values += [t.data_ptr(), t.data_ptr(), 0, *t.shape, *t.stride()]
            types += [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * t.dim())
        # Then the parameters in the manifest's order: a pointer to each tensor map, an int64 per
        # scalar the host computes.
        maps = encode_tensor_maps(self.manifest, tensors)
        next_map = iter(maps)
        for param in self.manifest.get("params") or []:
            if param["kind"] == "tensor_map":
                values.append(next(next_map).data_ptr())
                types.append(ctypes.c_void_p)
            else:
                values.append(evaluate(param["value"], tensors))
                types.append(ctypes.c_int64)
        # A kernel the host function launches under a condition that does not hold launches nothing.
        if "when" in self.manifest and not evaluate(self.manifest["when"], tensors):
            def skipped():
                pass
            skipped.keep = maps
            return skipped
        grid = [evaluate(size, tensors) for size in self.manifest["grid"]]
        block = self.manifest["workgroup_size"]
        args = (tuple(values), tuple(types))

        def launch():
            # The stream current at the launch: a CUDA graph captures on a stream of its own.
            ok(cu.cuLaunchKernel(self.function, *grid, *block, self.shared, torch.cuda.current_stream().cuda_stream, args, 0))

        launch.keep = maps
        return launch


def start():
    """Readies the GPU for a benchmark: the driver initialized, torch's random numbers seeded (the
    same inputs every run), torch's primary context current for the driver calls."""
    ok(cu.cuInit(0))
    torch.manual_seed(0)
    torch.empty(1, device="cuda")


def host_bindings(kernels):
    """The bindings of `kernels` (one host function's, `function_kernels`) by host argument."""
    return {binding["host_argument"]: binding for kernel in kernels for binding in kernel.manifest["bindings"]}


def function_kernels(directory, name):
    """The kernels of host function `name` compiled into `directory` (NAME_0_kernel.ptx, NAME_1_...),
    in launch order."""
    kernels = []
    while os.path.exists(ptx := os.path.join(directory, f"{name}_{len(kernels)}_kernel.ptx")):
        kernels.append(Kernel(ptx, read_manifest(ptx[: -len(".ptx")] + ".json")))
    return kernels


def alternating_rounds(ours, theirs, rounds, timer):
    """Times `ours` and `theirs` alternately `rounds` times each with `timer` (ms); returns our
    median time and the sorted ratios theirs / ours of the rounds."""
    pairs = [(timer(ours), timer(theirs)) for _ in range(rounds)]
    return float(numpy.median([mine for mine, _ in pairs])), sorted(theirs / mine for mine, theirs in pairs)


def table_entries(entries, count):
    """The indices the programs take from an i32 table (tools/gen/mla.py's pages,
    tools/gen/attention.py's key blocks): each entry as an unsigned index, modulo `count`."""
    return torch.where(entries < 0, torch.remainder(entries + 2**64 % count, count), entries % count)


# Programs whose outputs are updated atomically: they start random, and the reference adds to that.
UPDATED = ("split_k", "row_sums", "dequant_gemm_w4a16_m16_split", "attention_bwd", "flash_attention_bwd")  # prefixes: row_sums_sliced too


def four_bit_codes(packed):
    """The 4-bit codes of a tensor of bytes that holds two a byte (tile-pack-narrow-types: element
    2i in the low half of byte i), as integers 0-15, the last dimension doubled."""
    b = packed.to(torch.int16) & 0xFF
    return torch.stack([b & 15, b >> 4], -1).flatten(-2)


def signed_four_bit(packed):
    codes = four_bit_codes(packed).double()
    return torch.where(codes >= 8, codes - 16, codes)


F4E2M1FN = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def f4e2m1fn(packed):
    return torch.tensor(F4E2M1FN, dtype=torch.float64, device=packed.device)[four_bit_codes(packed).long()]


def dequantized_weights(t):
    """tools/gen/dequant.py's weights as f16 [N, K]: 4-bit codes times one scale a 128 of a row
    (scales [N, K / 128], or [K / 128, N] with --scales-kn: told apart by their first dimension)."""
    scales = t[2] if t[2].shape[0] == t[1].shape[0] else t[2].T
    return (signed_four_bit(t[1]) * scales.double().repeat_interleave(128, dim=1)).half()


def dequantized_matmul():
    """torch's f16 matmul on the weights dequantized once, outside the timing (what the W4A16
    kernels are measured against)."""
    weights = {}

    def run(t):
        if "w" not in weights:
            weights["w"] = dequantized_weights(t)
        return t[0] @ weights["w"].T
    return run


# examples/grouped_gemm.mlir, its one-tile-a-block forms on 128x256 tiles (128
# and 64 rows a tile) and that form made persistent by the compiler.
GROUPED_EXAMPLES = ("grouped_gemm", "grouped_gemm_tiles", "grouped_gemm_tiles64", "grouped_gemm_walk")

# Experts of examples/grouped_gemm.mlir when its sizes are dynamic (Mixtral's 8).
GROUPS = 8
# Groups of equal size in whole 128-row tiles instead of a router's random partition (`--even-groups`):
# every output tile of a grouped GEMM whole, to tell what the partial tiles cost.
EVEN_GROUPS = False


def group_sizes(m, groups):
    """A random partition of m rows into `groups` group sizes (i32 on the GPU) with one empty group
    and groups of every size, as a router hands them to an expert layer (or, with EVEN_GROUPS, equal
    groups of whole 128-row tiles, the rows left over in the last)."""
    if EVEN_GROUPS:
        sizes = torch.full((groups,), m // groups // 128 * 128)
        sizes[-1] = m - int(sizes[:-1].sum())
        return sizes.to(torch.int32).cuda()
    # Its own seed: every grouped kernel of a run, and of every run, gets the same partition, so
    # that kernels and rounds compare on the same groups.
    cuts = torch.sort(torch.randint(0, m + 1, (groups - 1,), generator=torch.Generator().manual_seed(groups))).values
    cuts[1] = cuts[0]
    edges = torch.cat([torch.tensor([0]), cuts, torch.tensor([m])])
    return torch.diff(edges).to(torch.int32).cuda()


def grouped_rows(name, sizes, m):
    """The rows of each group of a grouped GEMM: `sizes` as given (examples/grouped_gemm.mlir), or as
    test/programs/grouped_gemm_small.mlir makes random ones valid (|s| * 9 rows, at most what is
    left, the rest for the last group)."""
    if name not in ("grouped_gemm_small", "grouped_gemm_walk_small"):
        return sizes
    rows, start = [], 0
    for g, size in enumerate(sizes):
        count = m - start if g + 1 == len(sizes) else min(abs(size) * 9, m - start)
        rows.append(count)
        start += count
    return rows


def grouped_reference(name, t):
    """C = A B[g] on the rows of each group g, in float64."""
    a, b = t[0], t[1]
    out = torch.empty(a.shape[0], b.shape[2], dtype=a.dtype, device=a.device)
    start = 0
    for g, count in enumerate(grouped_rows(name, [int(x) for x in t[2].tolist()], a.shape[0])):
        out[start:start + count] = a[start:start + count] @ b[g]
        start += count
    return out


# The longest sequence tools/gen/attention.py varlen-bench's kernels take.
VARLEN_LONGEST = 4096


def sequence_offsets(tokens, count, longest):
    """Cumulative offsets (count + 1, i32, the first 0) of `count` sequences of random lengths from
    1 to `longest` whose sum is at most `tokens`, as a varlen API takes them."""
    lengths = torch.randint(1, longest + 1, (count,))
    while lengths.sum() > tokens:
        lengths = torch.div(lengths + 1, 2, rounding_mode="floor")
    return torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)]).to(torch.int32).cuda()


def varlen_sequences(name, t):
    """(first token, length) of each sequence of a varlen attention kernel: from its offsets
    (varlen-bench), or as tools/gen/attention.py test-varlen makes random lengths valid (|L| * 13
    tokens, at most 100)."""
    if "small" in name:
        lengths = [min(abs(int(x)) * 13, 100) for x in t[3].tolist()]
        firsts = [sum(lengths[:b]) for b in range(len(lengths))]
        return list(zip(firsts, lengths))
    offsets = [int(x) for x in t[3].tolist()]
    return [(offsets[b], offsets[b + 1] - offsets[b]) for b in range(len(offsets) - 1)]


def varlen_attention(name, t):
    """Attention of each packed sequence on its own ([tokens, heads, dim] tensors), float64; rows
    of no sequence stay NaN (unwritten)."""
    q, k, v = t[0], t[1], t[2]
    out = torch.full_like(q, float("nan"))
    for first, length in varlen_sequences(name, t):
        if length == 0:
            continue
        rows = slice(first, first + length)
        qs, ks, vs = (x[rows].transpose(0, 1) for x in (q, k, v))
        scores = qs @ ks.transpose(-1, -2) / q.shape[-1] ** 0.5
        if "causal" in name:
            scores = scores.masked_fill(torch.ones(length, length, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        out[rows] = (torch.softmax(scores, dim=-1) @ vs).transpose(0, 1)
    return out


def fp8_attention_in_f16(t):
    """SDPA (cuDNN) on the fp8 kernel's inputs in f16: what the fp8 kernel is timed against."""
    q, k, v = (x.to(torch.float16) for x in (t[0], t[1], t[2].transpose(-1, -2).contiguous()))
    return lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)


def grouped_matmul_loop():
    """torch's matmul per group on views of A split by the sizes (read on the host once, outside
    the timing): what a frontend without a grouped kernel launches."""
    split = {}

    def run(t):
        if "rows" not in split:
            split["rows"] = [int(x) for x in t[2].tolist()]
        return [a @ t[1][g] for g, a in enumerate(torch.split(t[0], split["rows"]))]
    return run


def plain_reference(kernel, tensors):
    """What the test programs compute (test/programs/*.mlir), in float64."""
    name = kernel.manifest["host_function"]
    t = {k: v.double() for k, v in tensors.items()}
    # test/programs/dequant_gemm_w4.mlir: 4-bit arguments arrive as the bytes that hold them.
    if name == "dequant_gemm_i4":
        weights = signed_four_bit(tensors[1]) * t[2].repeat_interleave(128, dim=1)
        return {3: t[0] @ weights.T}
    if name == "dequant_gemm_f4":
        weights = f4e2m1fn(tensors[1]) * t[2].repeat_interleave(32)[:, None]
        return {3: t[0] @ weights.T}
    if name == "widen_4_bit":
        unsigned = four_bit_codes(tensors[0]).double()
        return {2: unsigned, 3: unsigned + signed_four_bit(tensors[0]), 4: f4e2m1fn(tensors[1])}
    if name == "move_packed_tile":
        return {1: t[0][32:64, 16:48]}
    if name.startswith("dequant_gemm_w4a16"):
        product = t[0] @ dequantized_weights(tensors).double().T
        return {3: kernel.initial[3].double() + product if 3 in kernel.initial else product}
    if name == "split_k":
        return {2: kernel.initial[2].double() + t[0] @ t[1]}
    if name == "two_layouts":
        return {3: t[2] - (t[0] @ t[1]).max(1, keepdim=True).values}
    if name == "row_sums_sliced":
        return {1: kernel.initial[1].double() + t[0].sum(1)}
    if name == "row_sums":
        sums = (t[0] @ t[1]).sum(1)
        return {2: kernel.initial[2].double() + sums, 3: kernel.initial[3].double() + sums}
    if name in ("row_softmax", "softmax", "row_softmax_64x128", "row_softmax_64x128_large"):
        return {1: torch.softmax(t[0], dim=1)}
    if name == "bias_fill":
        return {2: 0.5 + t[0] @ t[1]}
    if name in ("gemm_i8", "gemm_i8_large", "gemm_i8_wide", "gemm_i8_warps") or name.startswith(EIGHT_BIT_VARIANTS):
        # i8 x i8 (B given N x K) into i32: exact in float64 at these sizes.
        return {2: t[0] @ t[1].T}
    if name == "gemm_i8_kn":
        return {2: t[0] @ t[1]}
    if name == "i8_scaled":
        return {2: 0.125 * (t[0] @ t[1].T)}
    if name == "small":
        return {2: torch.relu(t[0] @ t[1])}
    if name == "reduce_kinds":
        x = t[0]
        return {1: torch.stack([x.sum(0), x.max(0).values, x.min(0).values, x.abs().sum(0), x.abs().max(0).values, 2 * x.sum(0)])}
    if name.startswith("block_sparse_attention"):
        # tools/gen/attention.py sparse: each query block attends to the key blocks its table row
        # lists (entries modulo the key blocks; square blocks).
        q, k, v, blocks = t[0], t[1], t[2], t[3].long()
        rows, count = blocks.shape
        block = q.shape[-2] // rows
        entries = table_entries(blocks, rows)
        out = torch.empty_like(q)
        for row in range(rows):
            keys = torch.cat([torch.arange(b * block, (b + 1) * block, device="cuda") for b in entries[row].tolist()])
            rows_q = q[..., row * block:(row + 1) * block, :]
            scores = rows_q @ k[..., keys, :].transpose(-1, -2) / q.shape[-1] ** 0.5
            out[..., row * block:(row + 1) * block, :] = torch.softmax(scores, dim=-1) @ v[..., keys, :]
        return {4: out}
    if name.startswith(("attention_bwd", "flash_attention_bwd")):
        return attention_bwd_reference(kernel, t)
    if name.startswith("attention_varlen"):
        return {4: varlen_attention(name, t)}
    if name.startswith("attention_") and name != "attention_scores":
        # examples/flash_attention.mlir, test/programs/attention_4d*.mlir: Q, K, V, O as
        # [batch, heads, sequence, head dim]; causal when the name says so. tools/gen/attention.py
        # fp8 gives V transposed ([batch, heads, head dim, sequence]).
        q, k, v = t[0], t[1], t[2].transpose(-1, -2) if name.startswith("attention_fp8") else t[2]
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if "causal" in name or "lse" in name:
            seq = q.shape[-2]
            scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
        outputs = {3: torch.softmax(scores, dim=-1) @ v}
        if "lse" in name:
            # tools/gen/attention.py test-lse (causal): each row's log-sum-exp after O.
            outputs[4] = torch.logsumexp(scores, dim=-1)
        return outputs
    if name in ("shared_kv_attention", "shared_p_attention"):
        # test/programs/shared_{kv,p}_attention.mlir: one KV tensor as keys and values, head dim 64.
        q, kv = t[0], t[1]
        return {2: torch.softmax(q @ kv.T / 8, dim=-1) @ kv}
    if name.startswith(("flash_mla_decode", "mla_decode")):
        # tools/gen/mla.py: Q, Q_pe [batch, heads, *], the latent cache KV and K_pe [batch, tokens, *].
        q, q_pe, kv, k_pe = t[0], t[1], t[2], t[3]
        if "paged" in name:
            # Pages of 64 tokens; the program takes each table entry (as an unsigned index)
            # modulo the pages.
            table = table_entries(t[4].long(), kv.shape[0])
            kv, k_pe = kv[table].flatten(1, 2), k_pe[table].flatten(1, 2)
        scores = (q @ kv.transpose(-1, -2) + q_pe @ k_pe.transpose(-1, -2)) / (q.shape[-1] + q_pe.shape[-1]) ** 0.5
        return {len(t) - 1: torch.softmax(scores, dim=-1) @ kv}
    if name.startswith("flash_decoding"):
        return flash_decoding_reference(kernel.manifest, t)
    if name.startswith("grouped_gemm"):
        return {3: grouped_reference(name, t)}
    # test/programs/f8e5m2_values.mlir: f8E5M2 rounded (to nearest even, past 57344 to infinity),
    # widened, moved through shared memory, multiplied on wgmma.
    e5m2 = lambda x: x.float().to(torch.float8_e5m2).double()  # noqa: E731
    if name == "e5m2_round_trip":
        # Scaled in f32, as the kernel does (a product rounded once more would move ties).
        x = tensors[0].float()
        scaled = torch.stack([x * torch.tensor(scale, dtype=torch.float32, device=x.device) for scale in (0.0001, 3.0, 50000.0, 90000.0)])
        return {1: e5m2(scaled), 2: e5m2(scaled)}
    # test/programs/f8e4m3_values.mlir: f8E4M3FN rounded (to nearest even, subnormals below 2^-6).
    if name == "e4m3_round_trip":
        x = tensors[0].float()
        scaled = torch.stack([x * torch.tensor(scale, dtype=torch.float32, device=x.device) for scale in (0.001, 3.0, 90.0)])
        rounded = scaled.to(torch.float8_e4m3fn).double()
        return {1: rounded, 2: rounded}
    # test/programs/f8_saturate.mlir: copies that saturate, values past the largest finite one
    # becoming it (torch's conversion does not saturate: clamp first).
    if name in ("e4m3_saturate", "e5m2_saturate"):
        scale, largest, dtype = (1000.0, 448.0, torch.float8_e4m3fn) if name == "e4m3_saturate" else (100000.0, 57344.0, torch.float8_e5m2)
        scaled = tensors[0].float() * torch.tensor(scale, dtype=torch.float32, device=tensors[0].device)
        rounded = scaled.clamp(-largest, largest).to(dtype).double()
        return {1: rounded, 2: rounded}
    if name == "e5m2_through_shared":
        return {1: t[0] * 1.75, 2: e5m2(t[0] * 1.75)}
    if name == "e5m2_gemm":
        product = t[0] @ t[1].T
        return {2: product, 3: e5m2(product)}
    if name.startswith("blockscaled_fp8_gemm"):
        return {4: blockscaled_reference(t)}
    if name.startswith("linear_attention"):
        # tools/gen/linear_attention.py: causal, no decay: O = mask(Q K^T) V.
        return {3: masked_linear_attention(t[0], t[1], t[2])}
    if name.startswith("mamba2_chunk_scan"):
        return {7: mamba2_chunk_scan(t)}
    if name.startswith("mamba2_chunk_state"):
        return {4: mamba2_chunk_state(t)}
    if name.startswith("mamba2_state_passing"):
        return mamba2_state_passing(t)
    if name == "scan_kinds":
        # test/programs/scan_kinds.mlir: row sums, exclusive column maxima, row minima, exclusive
        # column sums of X.
        x = t[0]
        shifted = lambda y, fill: torch.cat([torch.full_like(y[:1], fill), y[:-1]])  # noqa: E731
        return {1: torch.stack([
            x.cumsum(1),
            shifted(x.cummax(0).values, float("-inf")),
            x.cummin(1).values,
            shifted(x.cumsum(0), 0.0),
        ])}
    if name == "scan_registers":
        # test/programs/scan_registers.mlir: per 32-row block, row cumulative sums plus the
        # exclusive column maxima (0 in the block's first row), and the exclusive cumulative sums
        # of the rows' totals.
        x = t[0].reshape(-1, 32, t[0].shape[1])
        maxima = x.cummax(1).values
        shifted = torch.cat([torch.zeros_like(maxima[:, :1]), maxima[:, :-1]], dim=1)
        y = x.cumsum(2) + shifted
        totals = y.sum(2)
        return {1: y.reshape(t[0].shape), 2: (totals.cumsum(1) - totals).reshape(-1)}
    if name == "head_tiles":
        # test/programs/head_tiles.mlir: per head, Y = W X + X / 2 on (batch, sequence, head, channel).
        x = t[1].permute(0, 2, 1, 3)
        return {2: (t[0] @ x + x / 2).permute(0, 2, 1, 3)}
    if name == "layer_norm":
        x = t[0]
        mean = x.mean(1, keepdim=True)
        var = ((x - mean) ** 2).mean(1, keepdim=True)
        return {3: (x - mean) / torch.sqrt(var + 1e-5) * t[1] + t[2]}
    if name == "linear_layer":
        # examples/linear_layer.mlir: Y = X W^T (W as PyTorch stores a weight).
        return {2: t[0] @ t[1].T}
    if name == "mlp_chain":
        return {3: torch.relu(t[0] @ t[1]).half().double() @ t[2]}
    if name.startswith(("gemm", "check_", "batched_gemm", "multi_head_scores", "attention_scores", "debug_")):
        return gemm_reference(kernel, t)
    raise RuntimeError(f"no reference for {name}")


def tolerance(bf16):
    """The relative error (the norm of the difference over the reference's) an output may have
    against a float64 reference: bf16 operands land between 1e-3 and 1e-2 (METHOD.md), and the
    output's rounding adds ~1e-3."""
    return 1e-2 if bf16 else 5e-3


def launch_and_check(launch, out, reference, bf16):
    """Runs `launch` once, which writes `out` (filled with NaN before), and compares `out` with
    `reference`: (whether it passes: no NaN and within `tolerance`, its relative error)."""
    launch()
    torch.cuda.synchronize()
    error = float(torch.linalg.norm(out.double() - reference.double()) / torch.linalg.norm(reference.double()))
    return not bool(torch.isnan(out).any()) and error < tolerance(bf16), error


def check_plain(kernel):
    tensors = kernel.tensors()
    kernel.launcher(tensors)()
    torch.cuda.synchronize()
    worst, nan = 0.0, 0
    try:
        references = plain_reference(kernel, tensors)
    except KeyError as missing:
        # A kernel that no longer reads an argument (the compiler dropped its binding) is not
        # checked against a reference that needs it: a failure of this kernel, not of the run.
        raise RuntimeError(f"{kernel.name}: its reference needs host argument {missing}, which the kernel does not bind") from None
    for argument, ref in references.items():
        out = tensors[argument].double()
        if kernel.name.startswith("attention_varlen"):
            # Rows of no sequence (past the last one's end) are not written: NaN in both.
            unwritten = torch.isnan(ref)
            if not bool(torch.isnan(out[unwritten]).all()):
                raise RuntimeError(f"{kernel.name}: a row of no sequence was written")
            out, ref = out[~unwritten], ref[~unwritten]
        nan += int(torch.isnan(out).sum())
        # Equal infinities (an exclusive scan's first maximum) agree; the rest is measured.
        difference = torch.where(out == ref, torch.zeros_like(out), out - ref)
        scale = torch.linalg.norm(torch.where(torch.isfinite(ref), ref, torch.zeros_like(ref)))
        worst = max(worst, float(torch.linalg.norm(difference) / scale))
    # 8-bit float inputs are small integers: their products sum exactly.
    # (Block-scaled fp8 GEMMs scale them by random floats into bf16: not exact.)
    # (Block-scaled fp8 GEMMs scale them by random floats into bf16, and fp8 attention rounds P to
    # f8E4M3FN: neither is exact.)
    fp8_attention = kernel.name.startswith("attention_fp8")
    exact = any(binding["element"] in ("f8E4M3FN", "f8E5M2") for binding in kernel.manifest["bindings"]) and not kernel.name.startswith("blockscaled") and not fp8_attention
    bf16 = "bf16" in kernel.name or any(binding["element"] == "bf16" for binding in kernel.manifest["bindings"])
    # fp8 attention: P's rounding to 3 mantissa bits, about 1% of the output's norm.
    limit = 3e-2 if fp8_attention else tolerance(bf16)
    passed = nan == 0 and (worst == 0.0 if exact else worst < limit)
    return passed, worst, nan


# What torch does for the plain-strategy programs that have a torch counterpart worth timing.
TORCH_EQUIVALENT = {
    "softmax": lambda t: torch.softmax(t[0], dim=1),
    "row_softmax_64x128": lambda t: torch.softmax(t[0], dim=1),
    "row_softmax_64x128_large": lambda t: torch.softmax(t[0], dim=1),
    "layer_norm": lambda t: torch.nn.functional.layer_norm(t[0], (t[0].shape[1],), t[1].to(t[0].dtype), t[2].to(t[0].dtype), 1e-5),
    "attention_bench_d128_f16": lambda t: torch.nn.functional.scaled_dot_product_attention(t[0], t[1], t[2]),
    "bias_fill": lambda t: torch.addmm(torch.full((1,), 0.5, dtype=t[0].dtype, device="cuda"), t[0], t[1]),
    "gemm_i8_large": lambda t: torch._int_mm(t[0], t[1].T),
}


def mla_sdpa(t):
    """MLA decode through torch's SDPA: the heads of one token as the queries of one head, keys
    the latent cache with its rotary part, values the latent cache."""
    kv, k_pe = t[2], t[3]
    if len(t) == 6:
        # A paged cache: torch gathers each sequence's pages first (timed with it).
        batch = t[0].shape[0]
        kv, k_pe = kv[t[4].long()].reshape(batch, -1, kv.shape[-1]), k_pe[t[4].long()].reshape(batch, -1, k_pe.shape[-1])
    q = torch.cat([t[0], t[1]], dim=-1).unsqueeze(1)
    k = torch.cat([kv, k_pe], dim=-1).unsqueeze(1)
    return torch.nn.functional.scaled_dot_product_attention(q, k, kv.unsqueeze(1))


def attention_bwd_parts(q, k, v, do, lse, delta):
    """tools/gen/attention_bwd.py's second kernel: with P = 2^(Q K^T log2(e)/sqrt(d) - lse) and
    dS = P (dO V^T - delta) / sqrt(d): dQ's addition dS K, dK = dS^T Q, dV = P^T dO."""
    dim = q.shape[-1]
    p = torch.exp2(q @ k.transpose(-1, -2) * (math.log2(math.e) / dim**0.5) - lse[..., None])
    ds = p * (do @ v.transpose(-1, -2) - delta[..., None]) / dim**0.5
    return ds @ k, ds.transpose(-1, -2) @ q, p.transpose(-1, -2) @ do


def written_arguments(manifest):
    """The host arguments a kernel writes: what tells apart the kernels of a function (their
    numbers shift where one of them has a twin for aligned tensors)."""
    return {binding["host_argument"] for binding in manifest["bindings"] if binding["written"]}


def attention_bwd_reference(kernel, t):
    """The kernels of tools/gen/attention_bwd.py (Q, K, V, O, dO, LSE, Delta, dQ, dK, dV): the first
    writes Delta and zeroes dQ, the second adds to dQ and writes dK, dV from its inputs."""
    if 8 not in written_arguments(kernel.manifest):
        return {6: (t[4] * t[3]).sum(-1), 7: torch.zeros_like(t[7])}
    dq, dk, dv = attention_bwd_parts(t[0], t[1], t[2], t[4], t[5], t[6])
    return {7: kernel.initial[7].double() + dq, 8: dk, 9: dv}


def blockscaled_reference(t):
    """tools/gen/blockscaled.py: A [M, K], B [N, K], scales of A [K/128, M] and of B
    [N/128, K/128], each 128-wide K block's product scaled by both."""
    a, b, sa, sb = t[0], t[1], t[2], t[3]
    blocks = a.shape[1] // 128
    out = torch.zeros(a.shape[0], b.shape[0], dtype=a.dtype, device=a.device)
    for kb in range(blocks):
        part = a[:, kb * 128:(kb + 1) * 128] @ b[:, kb * 128:(kb + 1) * 128].T
        out += part * sa[kb][:, None] * sb[:, kb].repeat_interleave(128)[None, :]
    return out


def scaled_mm_rowwise(t):
    """torch._scaled_mm at the same shape with a scale per row of A and per column of B (cuBLASLt's
    rowwise fp8 GEMM, the issue's baseline for block-scaled GEMMs), bf16 out."""
    if not hasattr(scaled_mm_rowwise, "scales"):
        scaled_mm_rowwise.scales = {}
    m, n = t[0].shape[0], t[1].shape[0]
    if (m, n) not in scaled_mm_rowwise.scales:
        scaled_mm_rowwise.scales[(m, n)] = (torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5)
    scale_a, scale_b = scaled_mm_rowwise.scales[(m, n)]
    return torch._scaled_mm(t[0], t[1].T, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)


def flash_decoding_splits(q, k, v, splits):
    """tools/gen/flash_decoding.py's split kernel: each split's normalized output
    [batch, splits, kv heads, group, dim] and log-sum-exp in base 2 [batch, kv heads, group, splits]
    of Q [batch, kv heads, group, dim] against K, V [batch, tokens, kv heads, dim]."""
    batch, tokens, kv_heads, dim = k.shape
    scores = torch.einsum("bghd,btgd->bght", q, k) / dim**0.5
    scores = scores.unflatten(3, (splits, tokens // splits))
    weights = torch.softmax(scores, dim=-1)
    parts = torch.einsum("bghst,bstgd->bsghd", weights, v.unflatten(1, (splits, tokens // splits)))
    return parts, torch.logsumexp(scores, dim=-1) / math.log(2)


def flash_decoding_combine(parts, lse):
    """The combine kernel: the splits' outputs weighed by 2^lse, normalized."""
    weights = torch.softmax(lse * math.log(2), dim=-1)
    return torch.einsum("bsghd,bghs->bghd", parts, weights)


def flash_decoding_reference(manifest, t):
    """The kernels of tools/gen/flash_decoding.py (Q, K, V, then Part, Lse, O, or O alone with one
    split): the split kernel checked against Q, K, V, the combine kernel against its random inputs."""
    if written_arguments(manifest) == {5}:
        return {5: flash_decoding_combine(t[3], t[4])}
    if 4 in t:
        parts, lse = flash_decoding_splits(t[0], t[1], t[2], t[4].shape[-1])
        return {3: parts, 4: lse}
    parts, _ = flash_decoding_splits(t[0], t[1], t[2], 1)
    return {3: parts[:, 0]}


def masked_linear_attention(q, k, v):
    """Causal linear attention as its masked quadratic form, at the inputs' precision."""
    causal = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool, device="cuda").tril()
    return ((q @ k.transpose(-1, -2)) * causal) @ v


def mamba2_chunk_scan(t):
    """Mamba-2's chunk scan output (tools/gen/mamba2.py) in torch at the inputs' precision: per chunk,
    the causal part cb[t, s] exp(dA[t] - dA[s]) dt[s] x[s], the entering state's part
    exp(dA[t]) C[t] . prev_state, and D x[t]; one batch at a time."""
    cb, x, dt, dA, c, prev, d = (t[i] for i in range(7))
    batch, chunks, groups, chunk, _ = cb.shape
    tokens, heads, headdim = x.shape[1:]
    per_group = heads // groups
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device="cuda").tril()
    out = torch.empty_like(x)
    for b in range(batch):
        xc = x[b].reshape(chunks, chunk, heads, headdim)
        cc = c[b].reshape(chunks, chunk, groups, -1).repeat_interleave(per_group, dim=2)
        a = dA[b].permute(1, 0, 2)
        weights = cb[b].repeat_interleave(per_group, dim=1) * torch.exp(a[..., :, None] - a[..., None, :])
        weights = weights * dt[b].permute(1, 0, 2)[..., None, :] * causal
        inside = torch.einsum("chls,cshp->clhp", weights, xc)
        entering = torch.einsum("clhn,chpn->clhp", cc, prev[b]) * torch.exp(a).permute(0, 2, 1)[..., None]
        out[b] = (inside + entering + xc * d[None, None, :, None]).reshape(tokens, heads, headdim)
    return out


def mamba2_chunk_state(t):
    """Each chunk's contribution to the state (tools/gen/mamba2.py --kernel state): the sum over the
    chunk's tokens l of x[l] B[l]^T exp(dA[last] - dA[l]) dt[l]."""
    x, b, dt, dA = t[0], t[1], t[2], t[3]
    batch, tokens, heads, headdim = x.shape
    chunks, chunk = dA.shape[2], dA.shape[3]
    groups = b.shape[2]
    xc = x.reshape(batch, chunks, chunk, heads, headdim)
    bc = b.reshape(batch, chunks, chunk, groups, -1).repeat_interleave(heads // groups, dim=3)
    a = dA.permute(0, 2, 3, 1)
    weights = torch.exp(a[:, :, -1:, :] - a) * dt.permute(0, 2, 3, 1)
    return torch.einsum("bclhp,bclhn,bclh->bchpn", xc, bc, weights)


def mamba2_state_passing(t):
    """The state entering each chunk and the final one (tools/gen/mamba2.py --kernel passing)."""
    states, dA = t[0], t[1]
    state = torch.zeros_like(states[:, 0])
    entering = torch.empty_like(states)
    for c in range(states.shape[1]):
        entering[:, c] = state
        state = state * torch.exp(dA[:, :, c, -1])[:, :, None, None] + states[:, c]
    return {2: entering, 3: state}


def mamba2_flops(kernel):
    """The FLOPs TileLang's chunk scan example counts: the causal half of each chunk's product and
    the entering state's product."""
    shapes = {binding["host_argument"]: binding["shape"] for binding in kernel.manifest["bindings"]}
    chunk = shapes[0][3]
    batch, tokens, heads, headdim = shapes[1]
    dstate = shapes[4][3]
    return 2 * batch * tokens * chunk * heads * headdim * 0.5 + 2 * batch * tokens * heads * headdim * dstate


def linear_attention_torch(t):
    """Causal linear attention in torch on the kernel's inputs, into f32 as the kernel writes it."""
    return masked_linear_attention(t[0], t[1], t[2]).float()


def mla_flops(kernel):
    """FLOPs of an MLA decode kernel: QK^T over latent + rotary, PV over the latent."""
    shapes = {binding["host_argument"]: binding["shape"] for binding in kernel.manifest["bindings"]}
    batch, heads, latent = shapes[0]
    rotary = shapes[1][2]
    tokens = math.prod(shapes[2]) // latent // batch
    return 2 * batch * heads * tokens * (latent + rotary + latent)


def time_plain(kernel):
    """Times a plain-strategy kernel against its torch counterpart on the same inputs; returns
    (ours ms, torch ms, GB/s of ours counting each tensor read or written once) or None."""
    name = kernel.manifest["host_function"]
    equivalent = TORCH_EQUIVALENT.get(name)
    if equivalent is None and name.startswith("gemm_i8w_"):
        # bench/variants.py's i8 tile variants (B given N x K).
        equivalent = TORCH_EQUIVALENT["gemm_i8_large"]
    if equivalent is None and name.startswith("gemm_f8w_"):
        # f8E4M3FN x f8E4M3FN (B given N x K) into f32: cuBLASLt's fp8 GEMM through torch, unscaled.
        one = torch.ones((), device="cuda")

        def equivalent(t):
            return torch._scaled_mm(t[0], t[1].T, scale_a=one, scale_b=one, out_dtype=torch.float32)
    if equivalent is None and name == "block_sparse_attention_bench":
        # Dense attention at the same shape: what skipping half the key blocks is measured against.
        equivalent = lambda t: torch.nn.functional.scaled_dot_product_attention(t[0], t[1], t[2])
    if equivalent is None and name == "linear_attention":
        equivalent = linear_attention_torch
    if equivalent is None and name.startswith("mamba2_chunk_scan") and "small" not in name:
        equivalent = mamba2_chunk_scan
    if equivalent is None and name.startswith("flash_mla_decode"):
        equivalent = mla_sdpa
    if equivalent is None and name.startswith("blockscaled_fp8_gemm") and "small" not in name:
        equivalent = scaled_mm_rowwise
    if equivalent is None and name.startswith("dequant_gemm_w4a16"):
        equivalent = dequantized_matmul()
    if equivalent is None and name in GROUPED_EXAMPLES:
        equivalent = grouped_matmul_loop()
    if equivalent is None and name.startswith("attention_fp8_bench"):
        built = {}

        def equivalent(t):
            if "sdpa" not in built:
                built["sdpa"] = fp8_attention_in_f16(t)
            return built["sdpa"]()
    if equivalent is None and name.startswith("attention_varlen_bench"):
        equivalent = flash_varlen("causal" in name)
    if equivalent is None and name.startswith("attention_bench"):
        equivalent = TORCH_EQUIVALENT["attention_bench_d128_f16"]
    if equivalent is None:
        return None
    tensors = kernel.tensors()
    launch = kernel.launcher(tensors)
    if ROUNDS > 1:
        ours, theirs, spread = time_pair(launch, lambda: equivalent(tensors))
        print(f"  rounds: ours/torch speed {theirs / ours:.3f}{spread}", flush=True)
    else:
        ours = triton.testing.do_bench(launch, warmup=20, rep=200, return_mode="median")
        theirs = triton.testing.do_bench(lambda: equivalent(tensors), warmup=20, rep=200, return_mode="median")
    moved = sum(t.numel() * t.element_size() for t in tensors.values())
    return ours, theirs, moved / ours / 1e6


def flash_varlen(causal):
    """torch's FlashAttention-2 varlen kernel on the same packed tensors and offsets."""
    def run(t):
        offsets = t[3].to(torch.int32)
        longest = int((offsets[1:] - offsets[:-1]).max())
        return torch.ops.aten._flash_attention_forward(t[0], t[1], t[2], offsets, offsets, longest, longest, 0.0, causal, False)[0]
    return run


def time_varlen(kernel, ours):
    """Prints a varlen attention kernel's TFLOP/s (the products of each sequence's scores and
    output, half of them causally) beside torch's jagged-tensor SDPA under each backend that takes
    it."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    t = kernel.tensors()
    heads, dim = t[0].shape[1], t[0].shape[2]
    sequences = varlen_sequences(kernel.manifest["host_function"], t)
    causal = "causal" in kernel.manifest["host_function"]
    flops = sum(4 * heads * dim * length * length for _, length in sequences) / (2 if causal else 1)
    offsets = t[3].to(torch.int64)
    line = f"  varlen attention, {len(sequences)} sequences of {min(n for _, n in sequences)}-{max(n for _, n in sequences)} tokens: ours {flops / ours / 1e9:.0f} TFLOP/s"
    nested = [torch.nested.nested_tensor_from_jagged(x, offsets).transpose(1, 2) for x in (t[0], t[1], t[2])]
    for backend, which in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        def sdpa(which=which):
            with sdpa_kernel(which):
                return torch.nn.functional.scaled_dot_product_attention(*nested, is_causal=causal)
        try:
            ms = triton.testing.do_bench(sdpa, warmup=20, rep=200, return_mode="median")
            line += f", SDPA {backend} (jagged) {flops / ms / 1e9:.0f} (ours/it speed {ms / ours:.3f})"
        except RuntimeError as error:
            line += f", SDPA {backend} refused ({str(error).splitlines()[0][:60]})"
    print(line, flush=True)


def time_grouped(kernel, ours, loop):
    """Prints a grouped GEMM's TFLOP/s beside torch's loop over the groups, torch._grouped_mm where
    this torch has it for the inputs' type, and cuBLAS on one dense GEMM of the same M, N, K (the
    speed a grouped GEMM would have if its groups cost nothing)."""
    t = kernel.tensors()
    m, k = t[0].shape
    n = t[1].shape[2]
    flops = 2 * m * n * k
    dense = triton.testing.do_bench(lambda: t[0] @ t[1][0], warmup=20, rep=200, return_mode="median")
    line = f"  grouped GEMM {m}x{n}x{k} over {t[1].shape[0]} groups: ours {flops / ours / 1e9:.0f} TFLOP/s, torch loop over groups {flops / loop / 1e9:.0f}, cuBLAS dense {flops / dense / 1e9:.0f} (ours/dense {dense / ours:.3f})"
    try:
        offsets = torch.cumsum(t[2], 0, dtype=torch.int32)
        grouped = triton.testing.do_bench(lambda: torch._grouped_mm(t[0], t[1], offs=offsets), warmup=20, rep=200, return_mode="median")
        line += f", torch._grouped_mm {flops / grouped / 1e9:.0f}"
    except (AttributeError, RuntimeError) as error:
        line += f", torch._grouped_mm refused ({str(error).splitlines()[0][:80]})"
    print(line, flush=True)


MANIFEST_VERSION = 1
# A manifest whose launch has a condition (`when`: the host function's scf.if) says version 2.
CONDITIONAL_MANIFEST_VERSION = 2


def read_manifest(path):
    """Reads a launch manifest (tile-manifest schema, version 1; the unversioned manifests of older
    compilers too, which have the same fields). Fields this launcher does not know are ignored."""
    with open(path) as f:
        manifest = json.load(f)
    version = manifest.get("version")
    if version not in (None, MANIFEST_VERSION, CONDITIONAL_MANIFEST_VERSION) or ("when" in manifest and version != CONDITIONAL_MANIFEST_VERSION):
        raise SystemExit(f"{path}: expects manifest version {MANIFEST_VERSION} or {CONDITIONAL_MANIFEST_VERSION}, but got {version}; recompile")
    return manifest


def encode_tensor_maps(manifest, tensors):
    """Encodes one tensor map per tensor_map parameter of `manifest` (in device memory, 64-byte
    aligned), in the manifest's order."""
    maps = []
    for param in manifest.get("params") or []:
        if param["kind"] != "tensor_map":
            continue
        t = tensors[param["host_argument"]]
        # Rank 2 to 5: "shape" and "box" list the dimensions outermost first (an N-D tensor's
        # box is 1 in its leading dimensions); the driver wants them innermost first, and the
        # byte strides of every dimension but the innermost.
        rank = t.dim()
        assert len(param["box"]) == rank, (param["box"], t.shape)
        tmap = ok(cu.cuTensorMapEncodeTiled(
            TMA_TYPES[param["element"]], rank, t.data_ptr(),
            [cu.cuuint64_t(size) for size in reversed(t.shape)],
            [cu.cuuint64_t(t.stride(dim) * t.element_size()) for dim in reversed(range(rank - 1))],
            [cu.cuuint32_t(size) for size in reversed(param["box"])], [cu.cuuint32_t(1)] * rank,
            cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, SWIZZLES[param["swizzle"]],
            tensor_maps.l2_promotion(cu),
            cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
        raw = ctypes.string_at(tmap.getPtr(), 128)
        maps.append(torch.frombuffer(bytearray(raw), dtype=torch.uint8).cuda())
    return maps


# Sizes for tensors whose shapes the program leaves dynamic: M, N and K of the GEMM (N and K keep
# rows 16-byte aligned, as TMA needs; M is odd so the last tile row is clipped).
DYNAMIC_MNK = (1999, 3000, 1032)


def evaluate(expression, tensors):
    """Computes a manifest value: a number, a tensor size or address, or integer arithmetic over those."""
    if isinstance(expression, int):
        return expression
    if "dim" in expression:
        argument, dim = expression["dim"]
        return tensors[argument].shape[dim]
    if "argument" in expression:
        raise RuntimeError("scalar host arguments are not supported by this launcher")
    if "address" in expression:
        return tensors[expression["address"]].data_ptr()
    a, b = (evaluate(arg, tensors) for arg in expression["args"])
    ops = {
        "arith.addi": a + b, "arith.subi": a - b, "arith.muli": a * b,
        "arith.divui": a // b if b else 0, "arith.divsi": int(a / b) if b else 0,
        "arith.ceildivui": -(-a // b) if b else 0, "arith.ceildivsi": -(-a // b) if b else 0,
        "arith.remui": a % b if b else 0, "arith.remsi": a % b if b else 0,
        "arith.minui": min(a, b), "arith.maxui": max(a, b), "arith.minsi": min(a, b), "arith.maxsi": max(a, b),
        "arith.andi": a & b, "arith.ori": a | b, "arith.xori": a ^ b,
        "arith.cmpi eq": int(a == b), "arith.cmpi ne": int(a != b),
        # (Sizes and these launchers' scalars are non-negative: signed and unsigned agree.)
        "arith.cmpi slt": int(a < b), "arith.cmpi sle": int(a <= b), "arith.cmpi sgt": int(a > b), "arith.cmpi sge": int(a >= b),
        "arith.cmpi ult": int(a < b), "arith.cmpi ule": int(a <= b), "arith.cmpi ugt": int(a > b), "arith.cmpi uge": int(a >= b),
    }
    return ops[expression["op"]]


def reads_addresses(expression):
    """Whether a manifest value reads a tensor's address (a condition on alignment)."""
    if isinstance(expression, int) or "dim" in expression or "argument" in expression:
        return False
    return "address" in expression or any(reads_addresses(arg) for arg in expression["args"])


def epilogue(name, product):
    """The benchmark programs' epilogues, named in the program: the accumulator starts at -0.5
    ("bias", variants.py) and goes through ReLU ("relu")."""
    if "bias" in name:
        product = product - 0.5
    if "column_center" in name:
        # test/programs/gemm_column_center.mlir: per 128-row tile, columns minus their mean, then
        # minus their maximum.
        m, n = product.shape
        x = product.reshape(m // 128, 128, n)
        x = x - x.sum(dim=1, keepdim=True) / 128
        x = x - x.amax(dim=1, keepdim=True)
        return x.reshape(m, n)
    if "multi_head_scores" in name or "attention_scores" in name:
        # test/programs/multi_head_scores.mlir, examples/attention_scores.mlir: Q K^T / 8 per
        # (batch, head).
        return product * 0.125
    if "row_softmax" in name:
        # test/programs/gemm_row_softmax.mlir: softmax(S / 16) over each 64-column tile's rows.
        m, n = product.shape
        return torch.softmax(product.reshape(m, n // 64, 64) * 0.0625, dim=-1).reshape(m, n)
    return torch.relu(product) if "relu" in name else product


def transposes(name):
    """Whether a GEMM-family program reads A as KxM and B as NxK, as its name says (the variants'
    "_ta_"/"_tb_", the examples' "transpose_b", the attention scores' K)."""
    transpose_a = "_ta_" in name or "transpose_a" in name
    transpose_b = "_tb_" in name or "transpose_b" in name or "scores" in name
    return transpose_a, transpose_b


def gemm_reference(kernel, t):
    """The GEMM-family programs (examples, variants, test programs): the result (the tensor the
    kernel writes) is epilogue(A B), A and B the first two tensors (batched over the leading
    dimensions of N-D tensors); bias vector and residual tile, when the program reads them, are the
    tensors between B and the result."""
    bindings = kernel.manifest["bindings"]
    transpose_a, transpose_b = transposes(kernel.name)
    a, b = t[bindings[0]["host_argument"]], t[bindings[1]["host_argument"]]
    a = a.transpose(-1, -2) if transpose_a else a
    b = b.transpose(-1, -2) if transpose_b else b
    result = [binding["host_argument"] for binding in bindings if binding["written"]][-1]
    if "epilogue_reads" in kernel.name or "bias_residual" in kernel.name:
        bias, residual = (t[binding["host_argument"]] for binding in bindings[2:] if not binding["written"])
        return {result: torch.relu(a @ b + bias) + residual}
    return {result: epilogue(kernel.name, a @ b)}


@triton.jit
def triton_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = pid // (GROUP * grid_n)
    first_m = group * GROUP
    size_m = min(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % (GROUP * grid_n)) % size_m
    pid_n = (pid % (GROUP * grid_n)) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptr + rm[:, None] * K + (k * BK + rk)[None, :])
        b = tl.load(b_ptr + (k * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


def time_triton(a, b):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device="cuda")
    best = None
    for bm, bn, bk, warps, stages in ((128, 256, 64, 8, 3), (128, 128, 64, 4, 4)):
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        fn = lambda: triton_matmul[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
        ms = triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")
        best = ms if best is None else min(best, ms)
    return best


def run_vulkan(manifest_path, repeat):
    """Runs one spirv-coopmat kernel through tile-vulkan-run: returns its report and its buffers."""
    runner = os.path.join(os.path.dirname(manifest_path), "tile-vulkan-run")
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([runner, manifest_path, "--seed", "7", "--repeat", str(repeat), "--out", out],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip() or f"tile-vulkan-run exited with {done.returncode}")
        report = json.loads(done.stdout)
        buffers = []
        for binding in report["bindings"]:
            # numpy has no bf16: its bits are read as 16-bit integers and viewed as bf16 in torch.
            dtype = {"f16": numpy.float16, "f32": numpy.float32, "bf16": numpy.int16}[binding["element"]]
            data = torch.from_numpy(numpy.fromfile(binding["file"], dtype=dtype).reshape(binding["shape"]).copy())
            buffers.append((data.view(torch.bfloat16) if binding["element"] == "bf16" else data).cuda())
    return report, buffers


def bench_vulkan(directory, name_filter, no_time):
    """Checks and times the cooperative-matrix kernels in DIRECTORY against torch.matmul."""
    rows, failures = [], 0
    for manifest_path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        name = os.path.basename(manifest_path)[: -len(".json")]
        if name_filter not in name:
            continue
        manifest = read_manifest(manifest_path)
        # Per-op kernels (no template since 2026-11-30) carry no "tile": the variant's name says.
        transpose_b = manifest.get("tile", {}).get("transpose_b", "_tb_" in name)
        try:
            report, (a, b, c) = run_vulkan(manifest_path, 0 if no_time else 50)
        except RuntimeError as error:
            print(f"{name} (vulkan): FAIL {error}", flush=True)
            failures += 1
            continue
        b_kn = b.t() if transpose_b else b
        ref = epilogue(name, a.double() @ b_kn.double())
        out = c.double()
        nan = int(torch.isnan(out).sum())
        rel = float(torch.linalg.norm(out.nan_to_num(0.0) - ref) / torch.linalg.norm(ref))
        worst = float((out - ref).abs().nan_to_num(float("inf")).max())
        passed = nan == 0 and rel < 5e-3
        failures += not passed
        print(f"{name} (vulkan, {report['device']}): {'PASS' if passed else 'FAIL'} rel_err={rel:.2e} nan={nan} max_abs_err={worst:.3g}", flush=True)
        if not passed or no_time or report["seconds"] is None:
            continue
        m, k = a.shape
        n = b_kn.shape[1]
        flops = 2 * m * n * k
        ours = report["seconds"] * 1e3
        cublas = triton.testing.do_bench(lambda: torch.matmul(a, b_kn), warmup=50, rep=300, return_mode="median")
        tf = lambda ms: flops / ms / 1e9
        rows.append((name, tf(ours), tf(cublas)))
        print(f"  ours (Vulkan) {tf(ours):.0f} TFLOP/s ({ours * 1e3:.0f} us), torch.matmul {tf(cublas):.0f}, ours/cuBLAS {cublas / ours:.3f}", flush=True)
    if rows:
        print("\n| kernel (Vulkan, cooperative matrices) | ours TFLOP/s | cuBLAS | ours/cuBLAS |")
        print("|---|---|---|---|")
        for name, ours, cublas in rows:
            print(f"| {name} | {ours:.0f} | {cublas:.0f} | {ours / cublas:.3f} |")
    return len(rows), failures


ROUNDS = 1


def time_pair(ours_fn, theirs_fn):
    """Median times (ms) of our kernel and the baseline. With ROUNDS > 1 the two alternate, each
    timed ROUNDS times, so that clock and temperature drift falls on both alike: the ratio is the
    median of the rounds' ratios, reported with its range."""
    if ROUNDS == 1:
        ours = triton.testing.do_bench(ours_fn, warmup=50, rep=300, return_mode="median")
        theirs = triton.testing.do_bench(theirs_fn, warmup=50, rep=300, return_mode="median")
        return ours, theirs, ""
    pairs = []
    for _ in range(ROUNDS):
        pairs.append((triton.testing.do_bench(ours_fn, warmup=25, rep=100, return_mode="median"),
                      triton.testing.do_bench(theirs_fn, warmup=25, rep=100, return_mode="median")))
    ratios = sorted(theirs / ours for ours, theirs in pairs)
    ratio = float(numpy.median(ratios))
    theirs = float(numpy.median([theirs for _, theirs in pairs]))
    spread = f" (median of {ROUNDS} alternating rounds, range {ratios[0]:.3f}-{ratios[-1]:.3f})"
    return theirs / ratio, theirs, spread


def time_gemm(kernel):
    """Times a GEMM-family kernel against torch.matmul (cuBLAS) and a Triton GEMM on the same
    inputs; returns (name, ours, cuBLAS, Triton) in TFLOP/s."""
    tensors = kernel.tensors()
    launch = kernel.launcher(tensors)
    bindings = kernel.manifest["bindings"]
    a, b = tensors[bindings[0]["host_argument"]], tensors[bindings[1]["host_argument"]]
    transpose_a, transpose_b = transposes(kernel.name)
    # torch.matmul and Triton get A as MxK and B as KxN: the transposed views where the program's are not.
    a = a.t() if transpose_a else a
    b_kn = b.t() if transpose_b else b
    m, k = a.shape
    n = b_kn.shape[1]
    flops = 2 * m * n * k
    ours, cublas, spread = time_pair(launch, lambda: torch.matmul(a, b_kn))
    trit = time_triton(a.contiguous(), b_kn.contiguous())
    tf = lambda ms: flops / ms / 1e9
    print(f"  ours {tf(ours):.0f} TFLOP/s, cuBLAS {tf(cublas):.0f}, Triton {tf(trit):.0f}, ours/cuBLAS {cublas / ours:.3f}{spread}", flush=True)
    return kernel.name, tf(ours), tf(cublas), tf(trit)


# Row counts tried for a kernel launched under a condition on the sizes (a `tile.matmul`'s size
# classes): decode rows, a few row tiles, many.
CONDITION_ROWS = (16, 64, 200, 1000, 4096)


def runs_at_some_size(kernel):
    """Whether `kernel` launches at the dynamic sizes, or else at one of CONDITION_ROWS rows (then
    kept in DYNAMIC_MNK for its check and timing, the other sizes unchanged)."""
    global DYNAMIC_MNK
    if "when" not in kernel.manifest:
        return True
    original = DYNAMIC_MNK
    for rows in (original[0], *CONDITION_ROWS):
        DYNAMIC_MNK = (rows, *original[1:])
        if evaluate(kernel.manifest["when"], kernel.tensors()):
            print(f"  {kernel.name}: launched at M = {rows}", flush=True)
            return True
    DYNAMIC_MNK = original
    return False


def main():
    global DYNAMIC_MNK, ROUNDS, GROUPS, EVEN_GROUPS
    parser = argparse.ArgumentParser()
    parser.add_argument("kernels")
    parser.add_argument("--filter", default="")
    parser.add_argument("--no-time", action="store_true")
    parser.add_argument("--vulkan-only", action="store_true", help="only the spirv-coopmat kernels in KERNEL_DIR/vulkan")
    parser.add_argument("--force-time", action="store_true", help="time kernels that failed the check too (experiments)")
    parser.add_argument("--rounds", type=int, default=1, help="time GEMMs and cuBLAS in this many alternating rounds")
    parser.add_argument("--dynamic-mnk", default=",".join(map(str, DYNAMIC_MNK)), help="M,N,K for kernels with dynamic shapes")
    parser.add_argument("--groups", type=int, default=GROUPS, help="groups of the grouped GEMMs whose group count is dynamic")
    parser.add_argument("--even-groups", action="store_true", help="grouped GEMMs' groups of equal size in whole 128-row tiles")
    args = parser.parse_args()
    GROUPS = args.groups
    EVEN_GROUPS = args.even_groups
    DYNAMIC_MNK = tuple(int(size) for size in args.dynamic_mnk.split(","))
    requested = DYNAMIC_MNK
    ROUNDS = args.rounds
    start()
    rows = []
    failures = 0
    # spirv-coopmat kernels in vulkan/, plain-strategy SPIR-V GEMMs in vulkan-plain/.
    for sub in ("vulkan", "vulkan-plain"):
        vulkan_dir = os.path.join(args.kernels, sub)
        if os.path.isdir(vulkan_dir):
            failures += bench_vulkan(vulkan_dir, args.filter, args.no_time)[1]
    for ptx in sorted(glob.glob(os.path.join(args.kernels, "*.ptx")) if not args.vulkan_only else []):
        if args.filter not in ptx:
            continue
        DYNAMIC_MNK = requested
        manifest = read_manifest(ptx[: -len(".ptx")] + ".json")
        try:
            kernel = Kernel(ptx, manifest)
            if not runs_at_some_size(kernel):
                print(f"{kernel.name}: SKIP (its launch condition holds at none of the sizes tried)", flush=True)
                continue
            passed, rel, nan = check_plain(kernel)
        except RuntimeError as error:
            passed, rel, nan = False, float("nan"), -1
            print(f"  {error}")
        failures += not passed
        print(f"{kernel.name}: {'PASS' if passed else 'FAIL'} rel_err={rel:.2e} nan={nan} ({manifest.get('strategy')} strategy)", flush=True)
        if args.no_time or not (passed or args.force_time):
            continue
        if kernel.name.startswith("gemm_") and "softmax" not in kernel.name and "column" not in kernel.name and "_i8" not in kernel.name and "_f8w_" not in kernel.name:
            rows.append(time_gemm(kernel))
            continue
        timed = time_plain(kernel)
        if timed:
            ours, theirs, bandwidth = timed
            print(f"  ours {ours * 1e3:.1f} us ({bandwidth:.0f} GB/s), torch {theirs * 1e3:.1f} us, ours/torch speed {theirs / ours:.3f}", flush=True)
            if manifest["host_function"] == "linear_attention":
                print(f"  chunked linear attention: ours {ours * 1e3:.1f} us (TileLang 0.1.15's chunked kernel on this shape: 198 us, issue 32's anchor, not this run)", flush=True)
            if manifest["host_function"].startswith("flash_mla_decode"):
                flops = mla_flops(kernel)
                print(f"  MLA decode: ours {flops / ours / 1e9:.0f} TFLOP/s, torch SDPA {flops / theirs / 1e9:.0f} TFLOP/s (TileLang 0.1.15 anchor at 4096 tokens: 452)", flush=True)
            if manifest["host_function"].startswith("mamba2_chunk_scan"):
                flops = mamba2_flops(kernel)
                print(f"  Mamba-2 chunk scan: ours {flops / ours / 1e9:.1f} TFLOP/s, torch einsums {flops / theirs / 1e9:.1f} TFLOP/s (TileLang 0.1.15 anchor: 124.5)", flush=True)
            if manifest["host_function"].startswith("dequant_gemm_w4a16"):
                m, k = kernel.shape(0, manifest["bindings"][0])
                n = kernel.shape(3, manifest["bindings"][3])[1]
                print(f"  W4A16 GEMM {m}x{n}x{k}: ours {2 * m * n * k / ours / 1e9:.1f} TFLOP/s, torch f16 matmul on dequantized weights {2 * m * n * k / theirs / 1e9:.1f} TFLOP/s", flush=True)
            if manifest["host_function"] in GROUPED_EXAMPLES:
                time_grouped(kernel, ours, theirs)
            if manifest["host_function"].startswith(("attention_fp8_bench", "attention_bench_d128")):
                batch, heads, seq, dim = kernel.shape(0, manifest["bindings"][0])
                flops = 4 * batch * heads * seq * seq * dim
                if manifest["host_function"].startswith("attention_fp8_bench"):
                    print(f"  fp8 attention: ours {flops / ours / 1e9:.0f} TFLOP/s, SDPA (cuDNN) on the same inputs in f16 {flops / theirs / 1e9:.0f} TFLOP/s (issue 34's target: 1.5x our fastest f16 kernel of the shape, the attention_bench_d128_f16 kernels in this run)", flush=True)
                else:
                    print(f"  attention: ours {flops / ours / 1e9:.0f} TFLOP/s, torch SDPA {flops / theirs / 1e9:.0f} TFLOP/s", flush=True)
            if manifest["host_function"].startswith("attention_varlen_bench"):
                time_varlen(kernel, ours)
            if manifest["host_function"].startswith("blockscaled_fp8_gemm"):
                # A and B by argument: the bindings come in the kernel's order of use (the scales
                # first where the kernel copies them first).
                by_argument = {binding["host_argument"]: binding for binding in manifest["bindings"]}
                m, k = kernel.shape(0, by_argument[0])
                n = kernel.shape(1, by_argument[1])[0]
                print(f"  block-scaled fp8 GEMM {m}x{n}x{k}: ours {2 * m * n * k / ours / 1e9:.0f} TFLOP/s, torch._scaled_mm rowwise {2 * m * n * k / theirs / 1e9:.0f} TFLOP/s", flush=True)
            if manifest["host_function"] == "gemm_i8_large" or manifest["host_function"].startswith(EIGHT_BIT_VARIANTS):
                m, k = kernel.shape(0, manifest["bindings"][0])
                n = kernel.shape(1, manifest["bindings"][1])[0]
                baseline = "torch._scaled_mm" if "_f8w_" in manifest["host_function"] else "torch._int_mm"
                print(f"  8-bit GEMM {m}x{n}x{k}: ours {2 * m * n * k / ours / 1e9:.0f} TOP/s, {baseline} {2 * m * n * k / theirs / 1e9:.0f} TOP/s", flush=True)
    if rows:
        print("\n| kernel | ours TFLOP/s | cuBLAS | Triton | ours/cuBLAS | ours/Triton |")
        print("|---|---|---|---|---|---|")
        for name, ours, cublas, trit in rows:
            print(f"| {name} | {ours:.0f} | {cublas:.0f} | {trit:.0f} | {ours / cublas:.3f} | {ours / trit:.3f} |")
    print(f"{len(rows)} timed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
