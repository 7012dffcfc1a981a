//! What the verifiers need to know about one buffer operand.

use crate::{element, element::Element, level::MemoryLevel, level::memory_level};
use melior::ir::{ShapedTypeLike, Type, Value, ValueLike};

/// The most elements a tile may hold: 2^18, 1 MiB of f32, what 1024 threads' 255 registers could
/// hold at most (and four times the largest shared memory): no block can hold a larger tile.
pub const MAX_TILE_ELEMENTS: u64 = 1 << 18;
/// The most iterations of one `tile.parallel` (2^24).
pub const MAX_PARALLEL_ITERATIONS: u64 = 1 << 24;
/// The most elements a global tensor may hold (2^40), so that byte offsets fit in 64 bits.
pub const MAX_TENSOR_ELEMENTS: u64 = 1 << 40;

/// A buffer operand: its level, shape (`None` for a dynamic size) and element type.
pub struct Buffer<'c> {
    pub level: MemoryLevel,
    pub shape: Vec<Option<u64>>,
    pub element: Element,
    /// The type, printed for messages only (printing builds an `AsmState`: see `ops::as_memref`).
    r#type: Type<'c>,
}

impl<'c> Buffer<'c> {
    /// Describes `value`, or explains why it cannot be a tile buffer. `role` names the operand.
    pub fn of(value: Value<'c, '_>, role: &str) -> Result<Self, String> {
        let r#type = value.r#type();
        let memref =
            crate::ops::as_memref(r#type).ok_or_else(|| format!("expects {role} to be a memref, but got {type}"))?;
        let level = memory_level(r#type).ok_or_else(|| {
            format!(
                "expects {role} in global memory (no memory space or #gpu.address_space<global>), \
                 shared memory (#gpu.address_space<workgroup>) or a fragment (#tile.fragment), but \
                 got {type}"
            )
        })?;
        let element = Element::of(memref.element()).ok_or_else(|| {
            format!(
                "expects {role} to hold {}, but got element type {}",
                element::ALLOWED,
                memref.element()
            )
        })?;
        if element.is_packed() && level == MemoryLevel::Fragment {
            return Err(format!(
                "expects {role} in global memory or a shared tile, since {element} elements are \
                 stored two to a byte there and widened in registers (load them in a tile.parallel \
                 and convert with arith.extsi, extui, sitofp, uitofp or extf), but got {type}"
            ));
        }
        let shape: Vec<Option<u64>> = crate::ops::static_sizes(memref)
            .into_iter()
            .map(|size| size.map(|size| size as u64))
            .collect();
        if shape.contains(&Some(0)) {
            return Err(format!("expects {role} to have no size 0, but got {type}"));
        }
        let elements = shape
            .iter()
            .try_fold(1u64, |product, size| product.checked_mul(size.unwrap_or(1)));
        let (limit, why) = if level == MemoryLevel::Global {
            (
                MAX_TENSOR_ELEMENTS,
                "the lowerings index tensors with 64-bit byte offsets",
            )
        } else {
            (MAX_TILE_ELEMENTS, "a tile lives in the on-chip memory of one block")
        };
        if elements.is_none_or(|elements| elements > limit) {
            return Err(format!(
                "expects {role} to hold at most {limit} elements ({why}), but got {type}"
            ));
        }
        if element.is_packed() && shape.last().copied().flatten().is_some_and(|size| size % 2 == 1) {
            return Err(format!(
                "expects {role}'s last dimension to be even, since {element} elements are stored two \
                 to a byte along it, but got {type}"
            ));
        }
        if !crate::ops::has_identity_layout(memref) {
            return Err(format!(
                "expects {role} in the identity layout (row-major and contiguous, no strided or \
                 affine map layout), but got {type}"
            ));
        }
        Ok(Self {
            level,
            shape,
            element,
            r#type,
        })
    }

    /// Returns the static shape, or explains that `role` must have one.
    pub fn static_shape(&self, role: &str) -> Result<Vec<u64>, String> {
        self.shape
            .iter()
            .copied()
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| format!("expects {role} to have a static shape, but got {}", self.text()))
    }

    /// Returns the type as written, for messages.
    pub fn text(&self) -> String {
        self.r#type.to_string()
    }

    /// Returns true when this buffer is on-chip (shared memory or a fragment).
    pub fn on_chip(&self) -> bool {
        self.level != MemoryLevel::Global
    }
}

/// Formats a shape as MLIR does (`128x32`, `?` for dynamic sizes, `scalar` for rank 0).
pub fn shape_text(shape: &[Option<u64>]) -> String {
    if shape.is_empty() {
        return "scalar".into();
    }
    shape
        .iter()
        .map(|size| size.map_or("?".to_string(), |size| size.to_string()))
        .collect::<Vec<_>>()
        .join("x")
}

/// Formats a static shape.
pub fn static_shape_text(shape: &[u64]) -> String {
    shape_text(&shape.iter().copied().map(Some).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_print_as_mlir_writes_them() {
        assert_eq!(shape_text(&[Some(128), None, Some(4)]), "128x?x4");
        assert_eq!(shape_text(&[]), "scalar");
        assert_eq!(static_shape_text(&[64]), "64");
    }
}
