#!/usr/bin/env python3
"""Counts the instructions of the main loop of a gfx942 kernel (AMDGCN assembly from tile-compile):
the loop is the shortest span between a label and a backward branch to it that holds the mfma
instructions (out-of-line blocks of masked loads also branch backwards, across most of the kernel).

Usage: python3 bench/amd_loop_counts.py KERNEL.s
"""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
labels = {line.rstrip(":"): i for i, line in enumerate(lines) if re.match(r"^\.LBB\d+_\d+:", line)}
best = None
for i, line in enumerate(lines):
    match = re.match(r"\s+s_cbranch_\w+\s+(\.LBB\d+_\d+)", line) or re.match(r"\s+s_branch\s+(\.LBB\d+_\d+)", line)
    if match and match.group(1) in labels and labels[match.group(1)] < i:
        span = (labels[match.group(1)], i)
        has_mfma = any("v_mfma" in lines[j] for j in range(*span))
        if has_mfma and (best is None or span[1] - span[0] < best[1] - best[0]):
            best = span
if best is None:
    sys.exit("no loop found")
body = [line.strip() for line in lines[best[0]:best[1] + 1] if line.startswith("\t") and not line.strip().startswith(";")]
kinds = {
    "mfma": r"^v_mfma",
    "LDS reads": r"^ds_read",
    "LDS writes": r"^ds_write",
    "global loads": r"^global_load",
    "waits (s_waitcnt)": r"^s_waitcnt",
    "barriers": r"^s_barrier",
}
print(f"{sys.argv[1]}: main loop of {len(body)} instructions")
for name, pattern in kinds.items():
    print(f"  {name}: {sum(1 for line in body if re.match(pattern, line))}")
