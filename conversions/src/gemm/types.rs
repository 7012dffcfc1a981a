//! What the GEMM lowerings read off memref types.

use melior::ir::{ShapedTypeLike, Value, ValueLike, r#type::MemRefType};
use tile_dialect::element::Element;


/// Returns the tile element type of a memref value.
pub fn element_of(value: Value) -> Option<Element> {
    MemRefType::try_from(value.r#type())
        .ok()
        .and_then(|memref| Element::of(memref.element()))
}
