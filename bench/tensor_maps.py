"""The CUDA driver's values for the fields of a manifest's `tensor_map` parameters, for every script
that encodes tensor maps (bench.py, generated_check.py). Each takes the driver module, so that
importing this file needs no CUDA."""

import os


def data_types(cu):
    """The tensor-map data type of each manifest element type (8-bit types move as bytes)."""
    kinds = cu.CUtensorMapDataType
    return {
        "f16": kinds.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        "bf16": kinds.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        "f32": kinds.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        "i32": kinds.CU_TENSOR_MAP_DATA_TYPE_INT32,
        "i8": kinds.CU_TENSOR_MAP_DATA_TYPE_UINT8,
        "f8E4M3FN": kinds.CU_TENSOR_MAP_DATA_TYPE_UINT8,
        "f8E5M2": kinds.CU_TENSOR_MAP_DATA_TYPE_UINT8,
    }


def swizzles(cu):
    """The driver's swizzle mode of each manifest `swizzle` (bytes)."""
    modes = cu.CUtensorMapSwizzle
    return {
        0: modes.CU_TENSOR_MAP_SWIZZLE_NONE,
        32: modes.CU_TENSOR_MAP_SWIZZLE_32B,
        64: modes.CU_TENSOR_MAP_SWIZZLE_64B,
        128: modes.CU_TENSOR_MAP_SWIZZLE_128B,
    }


def l2_promotion(cu):
    """The L2 promotion of every map: 128 B, as the launcher's (launch/src/tensor_map.rs);
    TILE_BENCH_L2_PROMOTION (none, 64, 128, 256) picks another for experiments."""
    promotions = cu.CUtensorMapL2promotion
    return {
        "none": promotions.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        "64": promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        "128": promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        "256": promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    }[os.environ.get("TILE_BENCH_L2_PROMOTION", "128")]
