//! What the GEMM lowerings read off memref types.

use melior::ir::{ShapedTypeLike, Value, ValueLike, r#type::DimSize, r#type::MemRefType};
use tile_dialect::element::Element;

/// Returns the shape of a memref value, -1 for dynamic sizes (empty for non-memrefs).
pub fn shape_of(value: Value) -> Vec<i64> {
    MemRefType::try_from(value.r#type())
        .map(|memref| {
            (0..memref.rank())
                .map(|dim| match memref.dim_size(dim) {
                    Ok(DimSize::Static(size)) => size as i64,
                    _ => -1,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Returns the tile element type of a memref value.
pub fn element_of(value: Value) -> Option<Element> {
    MemRefType::try_from(value.r#type())
        .ok()
        .and_then(|memref| Element::of(memref.element()))
}
