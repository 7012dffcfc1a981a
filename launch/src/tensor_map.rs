//! The parameters of `cuTensorMapEncodeTiled` for one tensor-map kernel parameter, computed from
//! the manifest and the argument (no GPU needed), with the driver's constraints checked so that a
//! bad argument is reported by name rather than as `CUDA_ERROR_INVALID_VALUE`.

use crate::{Error, Result, args::Tensor};

/// The element types a tensor map can hold (the values of `CUtensorMapDataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT8` (i8 and 8-bit float tensors: a copy moves bytes as they are).
    UInt8 = 0,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT32`.
    Int32 = 3,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT16`.
    Float16 = 6,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32`.
    Float32 = 7,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT64`.
    Float64 = 8,
    /// `CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`.
    BFloat16 = 9,
}

/// The swizzle modes (the values of `CUtensorMapSwizzle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_NONE`.
    None = 0,
    /// `CU_TENSOR_MAP_SWIZZLE_32B`.
    Bytes32 = 1,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`.
    Bytes64 = 2,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`.
    Bytes128 = 3,
}

/// Everything `cuTensorMapEncodeTiled` takes for a tiled map of rank 1 to 5 (dimensions
/// innermost first, as the driver wants them); interleave none, L2 promotion 128 B and
/// out-of-bounds fill "none" (zeros) are implied, as MLIR's `mgpuTensorMapEncodeTiledMemref` uses
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapParams {
    /// The element type.
    pub data_type: DataType,
    /// The tensor's device address.
    pub address: u64,
    /// Sizes, innermost first.
    pub global_dim: Vec<u64>,
    /// Byte strides of every dimension but the innermost, innermost first.
    pub global_strides: Vec<u64>,
    /// The box one copy moves, innermost first.
    pub box_dim: Vec<u32>,
    /// Element strides in the box (always 1).
    pub element_strides: Vec<u32>,
    /// The swizzle.
    pub swizzle: Swizzle,
}

impl TensorMapParams {
    /// Returns the map's rank.
    pub fn rank(&self) -> u32 {
        self.global_dim.len() as u32
    }
}

fn data_type(element: &str) -> Option<(DataType, u64)> {
    Some(match element {
        "i8" | "f8E4M3FN" | "f8E5M2" => (DataType::UInt8, 1),
        "i32" => (DataType::Int32, 4),
        "f16" => (DataType::Float16, 2),
        "bf16" => (DataType::BFloat16, 2),
        "f32" => (DataType::Float32, 4),
        "f64" => (DataType::Float64, 8),
        _ => return None,
    })
}

/// Returns the encoding parameters of the tensor map over `tensor` with `box_` (one size per
/// dimension, outermost first, as the manifest writes it) and `swizzle` bytes, or says (naming
/// `what`) which driver constraint the argument breaks. The tensor's element type and sizes are
/// checked against the manifest before.
pub fn tensor_map_params(what: &str, tensor: &Tensor, box_: &[u32], swizzle: u32) -> Result<TensorMapParams> {
    let fail = |message: String| Err(Error::Argument(format!("{what}: {message}")));
    let Some((data_type, bytes)) = data_type(&tensor.element) else {
        return fail(format!(
            "expects an element type a tensor map holds (i8, f8E4M3FN, f8E5M2, i32, f16, bf16, f32, f64), but got {}",
            tensor.element
        ));
    };
    let rank = tensor.shape.len();
    if !(1..=5).contains(&rank) || tensor.strides.len() != rank {
        return fail(format!("expects a tensor of rank 1 to 5, but got {rank} dimensions"));
    }
    if box_.len() != rank {
        return Err(Error::Unsupported(format!(
            "{what}: the manifest's box has {} dimensions for a tensor of {rank}",
            box_.len()
        )));
    }
    let (inner, inner_stride) = (tensor.shape[rank - 1], tensor.strides[rank - 1]);
    if inner_stride != 1 && inner != 1 {
        return fail(format!(
            "expects unit stride in the inner dimension, but got {inner_stride}"
        ));
    }
    if !tensor.address.is_multiple_of(16) {
        return fail(format!(
            "expects a 16-byte aligned address, but got {:#x}",
            tensor.address
        ));
    }
    if let Some(size) = tensor.shape.iter().find(|size| **size <= 0 || **size as u64 > 1 << 32) {
        return fail(format!("expects sizes in [1, 2^32], but got {size}"));
    }
    let mut global_strides = Vec::new();
    for dim in (0..rank - 1).rev() {
        let stride = tensor.strides[dim] as u64 * bytes;
        if !stride.is_multiple_of(16) || stride >= 1 << 40 {
            return fail(format!(
                "expects strides that are multiples of 16 bytes (below 2^40), but got {stride} bytes in dimension {dim}"
            ));
        }
        global_strides.push(stride);
    }
    let box_inner = box_[rank - 1];
    if box_.iter().any(|size| !(1..=256).contains(size)) || !(u64::from(box_inner) * bytes).is_multiple_of(16) {
        return Err(Error::Unsupported(format!(
            "{what}: the manifest's box {box_:?} is not one a tensor map takes"
        )));
    }
    let swizzle = match swizzle {
        0 => Swizzle::None,
        32 => Swizzle::Bytes32,
        64 => Swizzle::Bytes64,
        128 => Swizzle::Bytes128,
        other => {
            return Err(Error::Unsupported(format!("{what}: a swizzle of {other} bytes")));
        }
    };
    if swizzle != Swizzle::None && u64::from(box_inner) * bytes > u64::from(swizzle_bytes(swizzle)) {
        return Err(Error::Unsupported(format!(
            "{what}: a box row of {} bytes exceeds its {}-byte swizzle",
            u64::from(box_inner) * bytes,
            swizzle_bytes(swizzle)
        )));
    }
    Ok(TensorMapParams {
        data_type,
        address: tensor.address,
        global_dim: tensor.shape.iter().rev().map(|size| *size as u64).collect(),
        global_strides,
        box_dim: box_.iter().rev().copied().collect(),
        element_strides: vec![1; rank],
        swizzle,
    })
}

fn swizzle_bytes(swizzle: Swizzle) -> u32 {
    match swizzle {
        Swizzle::None => 0,
        Swizzle::Bytes32 => 32,
        Swizzle::Bytes64 => 64,
        Swizzle::Bytes128 => 128,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(element: &str, shape: &[i64]) -> Tensor {
        Tensor::contiguous(0x7f00_0000_0000, element, shape)
    }

    #[test]
    fn a_row_major_f16_matrix_gives_innermost_first_parameters() {
        let params = tensor_map_params("A", &tensor("f16", &[4096, 1024]), &[128, 32], 64).unwrap();
        assert_eq!(
            params,
            TensorMapParams {
                data_type: DataType::Float16,
                address: 0x7f00_0000_0000,
                global_dim: vec![1024, 4096],
                global_strides: vec![2048],
                box_dim: vec![32, 128],
                element_strides: vec![1, 1],
                swizzle: Swizzle::Bytes64,
            }
        );
    }

    #[test]
    fn a_padded_row_stride_is_used() {
        let mut padded = tensor("bf16", &[100, 1000]);
        padded.strides = vec![1024, 1];
        let params = tensor_map_params("B", &padded, &[64, 64], 128).unwrap();
        assert_eq!(params.global_strides, [2048]);
        assert_eq!(params.data_type, DataType::BFloat16);
    }

    #[test]
    fn driver_constraints_are_named() {
        let message = |tensor: &Tensor| {
            tensor_map_params("argument 0 (A)", tensor, &[128, 32], 64)
                .unwrap_err()
                .to_string()
        };
        let mut transposed = tensor("f16", &[64, 64]);
        transposed.strides = vec![1, 64];
        assert_eq!(
            message(&transposed),
            "argument 0 (A): expects unit stride in the inner dimension, but got 64"
        );
        assert_eq!(
            message(&tensor("f16", &[64, 1001])),
            "argument 0 (A): expects strides that are multiples of 16 bytes (below 2^40), but got 2002 bytes in dimension 0"
        );
        let mut unaligned = tensor("f16", &[64, 64]);
        unaligned.address += 2;
        assert!(message(&unaligned).contains("16-byte aligned address"));
        assert!(message(&tensor("i64", &[64, 64])).contains("but got i64"));
        assert!(message(&tensor("f16", &[8, 8, 8])).contains("box has 2 dimensions for a tensor of 3"));
    }

    #[test]
    fn a_4d_tensor_gets_a_4d_map_with_unit_leading_boxes() {
        let params = tensor_map_params("Q", &tensor("f16", &[2, 8, 1000, 64]), &[1, 1, 64, 64], 128).unwrap();
        assert_eq!(params.rank(), 4);
        assert_eq!(params.global_dim, [64, 1000, 8, 2]);
        assert_eq!(params.global_strides, [128, 128 * 1000, 128 * 1000 * 8]);
        assert_eq!(params.box_dim, [64, 64, 1, 1]);
        assert_eq!(params.element_strides, [1, 1, 1, 1]);
    }

    #[test]
    fn a_box_wider_than_its_swizzle_is_refused() {
        let error = tensor_map_params("C", &tensor("f32", &[256, 256]), &[128, 64], 128).unwrap_err();
        assert_eq!(
            error.to_string(),
            "C: a box row of 256 bytes exceeds its 128-byte swizzle"
        );
    }
}
