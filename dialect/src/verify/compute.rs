//! Rules for the compute ops: `tile.gemm`, `tile.matmul`, `tile.fill`, `tile.reduce`.

use super::{
    Verdict,
    buffer::{Buffer, static_shape_text},
};
use crate::positions::OperationAt;
use crate::{element::Element, ffi, level::MemoryLevel};
use melior::ir::{
    AttributeLike, ShapedTypeLike, TypeLike, ValueLike,
    operation::{OperationLike, OperationRef},
};

fn operand<'c, 'a>(op: &OperationRef<'c, 'a>, index: usize) -> Result<melior::ir::Value<'c, 'a>, String> {
    op.operand_at(index)
        .ok_or_else(|| crate::positions::missing("operand", index))
}

/// Returns the static 2-D shape of a gemm operand.
fn matrix(buffer: &Buffer, role: &str) -> Result<[u64; 2], String> {
    let shape = buffer.static_shape(role)?;
    match shape[..] {
        [rows, columns] => Ok([rows, columns]),
        _ => Err(format!("expects {role} to be 2-D, but got {}", buffer.text())),
    }
}

pub fn gemm(op: OperationRef) -> Verdict {
    let a = Buffer::of(operand(&op, 0)?, "A")?;
    let b = Buffer::of(operand(&op, 1)?, "B")?;
    let c = Buffer::of(operand(&op, 2)?, "C")?;
    if a.level == MemoryLevel::Global {
        return Err(format!("expects A in shared memory or a fragment, but got {}", a.level));
    }
    if b.level != MemoryLevel::Shared {
        return Err(format!("expects B in shared memory, but got {}", b.level));
    }
    if c.level != MemoryLevel::Fragment {
        return Err(format!("expects C in a fragment, but got {}", c.level));
    }
    let [a_rows, a_columns] = matrix(&a, "A")?;
    let [b_rows, b_columns] = matrix(&b, "B")?;
    let [c_rows, c_columns] = matrix(&c, "C")?;
    let (m, k) = if op.has_attribute("transpose_a") {
        (a_columns, a_rows)
    } else {
        (a_rows, a_columns)
    };
    let (b_k, n) = if op.has_attribute("transpose_b") {
        (b_columns, b_rows)
    } else {
        (b_rows, b_columns)
    };
    if k != b_k {
        return Err(format!(
            "expects the K of A and B to agree, but got K = {k} for A ({}) and K = {b_k} for B ({})",
            static_shape_text(&[a_rows, a_columns]),
            static_shape_text(&[b_rows, b_columns])
        ));
    }
    if [c_rows, c_columns] != [m, n] {
        return Err(format!(
            "expects C to be MxN = {m}x{n}, but got {}",
            static_shape_text(&[c_rows, c_columns])
        ));
    }
    if a.element != b.element {
        return Err(format!(
            "expects A and B to have one element type, but got {} and {}",
            a.element, b.element
        ));
    }
    let accumulator = match a.element {
        Element::F16 | Element::BF16 | Element::F8E4M3FN | Element::F8E5M2 => Element::F32,
        Element::I8 => Element::I32,
        other => {
            return Err(format!(
                "expects A and B to hold f16, bf16, f8E4M3FN, f8E5M2 or i8 (widen 4-bit weights into an f16 \
                 or bf16 tile in a tile.parallel first), but got {other}"
            ));
        }
    };
    if c.element != accumulator {
        return Err(format!(
            "expects C to accumulate in {accumulator} for {} inputs, but got {}",
            a.element, c.element
        ));
    }
    Ok(())
}

/// A matmul's operands are whole global tensors, of sizes that may be known only at run time:
/// matrices, or batches of them (A and C with a leading batch dimension; B with one too, or one
/// matrix for every batch).
pub fn matmul(op: OperationRef) -> Verdict {
    let a = Buffer::of(operand(&op, 0)?, "A")?;
    let b = Buffer::of(operand(&op, 1)?, "B")?;
    let c = Buffer::of(operand(&op, 2)?, "C")?;
    for (buffer, role) in [(&a, "A"), (&b, "B"), (&c, "C")] {
        if buffer.level != MemoryLevel::Global {
            return Err(format!(
                "expects {role} in global memory (a tensor; tiles belong to tile.gemm in a kernel), but got {}",
                buffer.level
            ));
        }
        if !matches!(buffer.shape.len(), 2 | 3) {
            return Err(format!(
                "expects {role} to be 2-D, or 3-D with a batch dimension first, but got {}",
                buffer.text()
            ));
        }
    }
    let disagree = |x: Option<u64>, y: Option<u64>| matches!((x, y), (Some(x), Some(y)) if x != y);
    let batched = a.shape.len() == 3;
    if c.shape.len() != a.shape.len() || (!batched && b.shape.len() == 3) {
        return Err(format!(
            "expects A and C of one rank (a batch dimension on both or neither) and B batched only with them, but got A {}, B {} and C {}",
            a.text(),
            b.text(),
            c.text()
        ));
    }
    if batched && (disagree(a.shape[0], c.shape[0]) || (b.shape.len() == 3 && disagree(a.shape[0], b.shape[0]))) {
        return Err(format!(
            "expects one batch size, but got A {}, B {} and C {}",
            a.text(),
            b.text(),
            c.text()
        ));
    }
    // The matrices: the trailing two dimensions.
    let matrix = |shape: &[Option<u64>]| [shape[shape.len() - 2], shape[shape.len() - 1]];
    let [m, k] = matrix(&a.shape);
    let [b_rows, b_columns] = matrix(&b.shape);
    let [c_rows, c_columns] = matrix(&c.shape);
    let (b_k, n) = if op.has_attribute("transpose_b") {
        (b_columns, b_rows)
    } else {
        (b_rows, b_columns)
    };
    if disagree(k, b_k) {
        return Err(format!(
            "expects the K of A and B to agree, but got A {} and B {}{}",
            a.text(),
            b.text(),
            if op.has_attribute("transpose_b") {
                " (NxK: transpose_b)"
            } else {
                ""
            }
        ));
    }
    if disagree(c_rows, m) || disagree(c_columns, n) {
        return Err(format!(
            "expects C to be MxN for A {} and B {}, but got {}",
            a.text(),
            b.text(),
            c.text()
        ));
    }
    if a.element != b.element {
        return Err(format!(
            "expects A and B to have one element type, but got {} and {}",
            a.element, b.element
        ));
    }
    if !matches!(
        a.element,
        Element::F16 | Element::BF16 | Element::F8E4M3FN | Element::F8E5M2
    ) {
        return Err(format!(
            "expects A and B to hold f16, bf16, f8E4M3FN or f8E5M2 (other types: write the kernel, with tile.gemm), but got {}",
            a.element
        ));
    }
    if !matches!(c.element, Element::F16 | Element::BF16 | Element::F32) {
        return Err(format!("expects C to hold f16, bf16 or f32, but got {}", c.element));
    }
    Ok(())
}

pub fn fill(op: OperationRef) -> Verdict {
    let dst_value = operand(&op, 0)?;
    let dst = Buffer::of(dst_value, "the filled tile")?;
    if !dst.on_chip() {
        return Err("expects the filled tile in shared memory or a fragment, but got global memory".into());
    }
    dst.static_shape("the filled tile")?;
    if dst.element.is_packed() {
        return Err(format!(
            "expects the filled tile to hold elements of a byte or more, since {} elements are \
             stored two to a byte, but got {}",
            dst.element,
            dst.text()
        ));
    }
    let element = crate::ops::as_memref(dst_value.r#type())
        .ok_or_else(|| format!("expects the filled tile to be a memref, but got {}", dst_value.r#type()))?
        .element();
    let value = operand(&op, 1)?.r#type();
    if value != element {
        return Err(format!(
            "expects a fill value of the tile's element type {element}, but got {value}"
        ));
    }
    Ok(())
}

pub fn reduce(op: OperationRef) -> Verdict {
    let kind = op
        .attribute("kind")
        .map(|attr| unsafe { ffi::tileShimReductionKindValue(attr.to_raw()) });
    if !matches!(kind, Ok(0..=4)) {
        return Err("expects a reduction kind (sum, max, min, abssum or absmax)".into());
    }
    let (src, dst) = float_tiles_on_chip(&op)?;
    let src_shape = src.static_shape("the source")?;
    let dst_shape = dst.static_shape("the result")?;
    let dim = crate::ops::integer_attribute(&op, "dim").unwrap_or(-1);
    if dim < 0 || dim as usize >= src_shape.len() {
        return Err(format!("expects dim in [0, {}), but got {dim}", src_shape.len()));
    }
    let mut expected = src_shape.clone();
    expected.remove(dim as usize);
    if dst_shape != expected {
        return Err(format!(
            "expects a result of shape {} (the source {} without dim {dim}), but got {}",
            static_shape_text(&expected),
            static_shape_text(&src_shape),
            static_shape_text(&dst_shape)
        ));
    }
    Ok(())
}

/// The source and result of a reduction or a scan: tiles on chip of float elements a byte or wider.
fn float_tiles_on_chip<'c, 'a>(op: &OperationRef<'c, 'a>) -> Result<(Buffer<'c>, Buffer<'c>), String> {
    let src = Buffer::of(operand(op, 0)?, "the source")?;
    let dst = Buffer::of(operand(op, 1)?, "the result")?;
    for (buffer, role) in [(&src, "the source"), (&dst, "the result")] {
        if !buffer.on_chip() {
            return Err(format!(
                "expects {role} in shared memory or a fragment, but got global memory"
            ));
        }
        if buffer.element.is_packed() {
            return Err(format!(
                "expects {role} to hold elements of a byte or more, since {} elements are stored two \
                 to a byte, but got {}",
                buffer.element,
                buffer.text()
            ));
        }
        if !buffer.element.is_float() {
            return Err(format!(
                "expects {role} to hold floating-point elements, but got {}",
                buffer.element
            ));
        }
    }
    Ok((src, dst))
}

/// `tile.scan`: a sum, maximum or minimum along one dimension of a float tile on chip, into a tile of
/// the same shape and element type.
pub fn scan(op: OperationRef) -> Verdict {
    let kind = op
        .attribute("kind")
        .map(|attr| unsafe { ffi::tileShimReductionKindValue(attr.to_raw()) });
    if !matches!(kind, Ok(0..=2)) {
        return Err("expects a scan kind of sum, max or min".into());
    }
    let (src, dst) = float_tiles_on_chip(&op)?;
    if src.element != dst.element {
        return Err(format!(
            "expects the source and the result to hold one element type, but got {} and {}",
            src.element, dst.element
        ));
    }
    let src_shape = src.static_shape("the source")?;
    let dst_shape = dst.static_shape("the result")?;
    let dim = crate::ops::integer_attribute(&op, "dim").unwrap_or(-1);
    if dim < 0 || dim as usize >= src_shape.len() {
        return Err(format!(
            "expects dim to be a dimension of the source, in [0, {}), but got {dim}",
            src_shape.len()
        ));
    }
    if dst_shape != src_shape {
        return Err(format!(
            "expects a result of the source's shape {}, but got {}",
            static_shape_text(&src_shape),
            static_shape_text(&dst_shape)
        ));
    }
    Ok(())
}

/// `tile.print`: a scalar of a width a print can show, or a tile on chip with a static shape.
pub fn print(op: OperationRef) -> Verdict {
    let value = operand(&op, 0)?;
    let r#type = value.r#type();
    if r#type.is_mem_ref() {
        let tile = Buffer::of(value, "the printed value")?;
        if !tile.on_chip() {
            return Err(format!(
                "expects a scalar, a fragment or a shared tile, but got {}, a tensor in global memory \
                 (copy the part to print into a tile)",
                tile.text()
            ));
        }
        tile.static_shape("the printed tile")?;
        if tile.element.is_packed() {
            return Err(format!(
                "expects a tile of elements a byte or wider, but got {} (stored two to a byte): widen \
                 them into a tile of f16 or i8 and print that",
                tile.text()
            ));
        }
        return Ok(());
    }
    let printable = r#type.is_index()
        || r#type.is_f16()
        || r#type.is_bf16()
        || r#type.is_f32()
        || r#type.is_f64()
        || melior::ir::r#type::IntegerType::try_from(r#type).is_ok_and(|integer| integer.width() <= 64);
    if !printable {
        return Err(format!(
            "expects an index, an integer of at most 64 bits, an f16, bf16, f32 or f64 value, or a tile, \
             but got {type} (extend it to f32 first)",
            type = r#type
        ));
    }
    Ok(())
}
