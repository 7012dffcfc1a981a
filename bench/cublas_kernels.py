#!/usr/bin/env python3
"""Names the kernels torch.matmul (cuBLAS) runs for the benchmark's GEMM shapes, with their times:
cuBLAS's names say the tile, cluster and scheduling (stream-K, split-K) the baseline chose.

Usage (on the GPU machine): python3 bench/cublas_kernels.py [M,N,K ...]"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

shapes = [tuple(int(x) for x in arg.split(",")) for arg in sys.argv[1:]] or [(4096, 4096, 4096), (8192, 8192, 8192)]
for dtype in (torch.float16, torch.bfloat16):
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        for _ in range(3):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA], record_shapes=False) as prof:
            torch.matmul(a, b)
            torch.cuda.synchronize()
        for event in prof.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                print(f"{dtype} {m}x{n}x{k}: {event.name} ({event.device_time_total:.0f} us)")
