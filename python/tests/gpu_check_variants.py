"""The autotuning variants gpu_prepare.sh compiles and gpu_check.py measures: the GEMM+ReLU
example with 2, 3 and 4 pipeline stages."""

import pathlib

TEMPLATE = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "gemm_relu.mlir").read_text().replace(
    "stages(3)", "stages({stages})"
)
CONFIGS = [{"stages": 2}, {"stages": 3}, {"stages": 4}]
