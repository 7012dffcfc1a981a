//! Rules for `tile.copy`: which side is the tile, and that offsets match the other side.
//!
//! The tile (the side without offsets) has the rank of the other side, or, when that side is a
//! global tensor of rank n <= 5, a lower rank r >= 1: the tile's dimensions are the tensor's last r
//! or the r that `dims` names (increasing, ending with the last), and each other offset picks one
//! index (a batch, a head).

use super::{
    Verdict,
    buffer::{Buffer, shape_text, static_shape_text},
};
use crate::level::MemoryLevel;
use crate::ops::copy_parts;
use melior::ir::operation::OperationRef;

/// The highest rank of a global tensor that a tile of lower rank may be copied from or to (the rank
/// of a TMA tensor map on Hopper).
pub const MAX_GLOBAL_RANK: usize = 5;

pub fn copy(op: OperationRef) -> Verdict {
    let parts = copy_parts(&op).ok_or("expects a source and a destination memref")?;
    let src = Buffer::of(parts.src, "the source")?;
    let dst = Buffer::of(parts.dst, "the destination")?;
    if (src.element.is_packed() || dst.element.is_packed()) && src.element != dst.element {
        return Err(format!(
            "expects a copy of {} elements to copy them unchanged (into {} too), since they are \
             stored two to a byte; widen them in a tile.parallel, but got a copy from {} into {}",
            if src.element.is_packed() {
                src.element
            } else {
                dst.element
            },
            if src.element.is_packed() {
                src.element
            } else {
                dst.element
            },
            src.element,
            dst.element
        ));
    }
    if let Some(kind) = crate::ops::copy_atomic(&op) {
        atomic(kind, &src, &dst)?;
    }
    if crate::ops::copy_saturates(&op) {
        saturate(&src, &dst)?;
    }
    if !parts.limits.is_empty() {
        limits(parts.limits.len(), &src, &dst, parts.dst_offsets.len())?;
    }
    let dims = crate::ops::copy_dims(&op);
    match (parts.src_offsets.len(), parts.dst_offsets.len()) {
        (0, 0) if dims.is_some() => Err(
            "expects dims only with offsets (they name the dimensions of the side with offsets that \
             the tile spans), but neither side has offsets"
                .into(),
        ),
        (0, 0) => whole_tiles(&src, &dst),
        (offsets, 0) => tile_in_buffer(&dst, "destination", &src, "source", offsets, dims),
        (0, offsets) => tile_in_buffer(&src, "source", &dst, "destination", offsets, dims),
        _ => Err(
            "expects offsets on at most one side (the other side is the tile), but got offsets \
                  on both"
                .into(),
        ),
    }
}

/// An atomic copy updates a global tensor's elements with a fragment's: sums, maxima or minima of
/// elements whose types the targets' atomics take.
fn atomic(kind: crate::ops::ReductionKind, src: &Buffer, dst: &Buffer) -> Verdict {
    use crate::element::Element;
    use crate::ops::ReductionKind;
    if !matches!(kind, ReductionKind::Sum | ReductionKind::Max | ReductionKind::Min) {
        return Err(format!(
            "expects an atomic copy to update by sum, max or min, but got {}",
            ["sum", "max", "min", "abssum", "absmax"][kind as usize]
        ));
    }
    if src.level != MemoryLevel::Fragment || dst.level != MemoryLevel::Global {
        return Err(format!(
            "expects an atomic copy from a fragment into a global tensor, but got a copy from {} into {}",
            src.level, dst.level
        ));
    }
    if !matches!(dst.element, Element::F32 | Element::F16 | Element::BF16 | Element::I32) {
        return Err(format!(
            "expects an atomic copy into a tensor of f32, f16, bf16 or i32, but got {}",
            dst.element
        ));
    }
    Ok(())
}

/// Limits bound the elements a fragment's store into a global tensor writes: one per dimension of
/// the tile.
fn limits(count: usize, src: &Buffer, dst: &Buffer, dst_offsets: usize) -> Verdict {
    if src.level != MemoryLevel::Fragment || dst.level != MemoryLevel::Global || dst_offsets == 0 {
        return Err(format!(
            "expects limits on a store of a fragment into a global tensor at offsets (they bound the \
             tile's elements it writes), but got a copy from {} into {}{}",
            src.level,
            dst.level,
            if dst_offsets == 0 && dst.level == MemoryLevel::Global {
                " without offsets"
            } else {
                ""
            }
        ));
    }
    let rank = src.shape.len();
    if count != rank {
        return Err(format!(
            "expects one limit per dimension of the tile ({rank}), but got {count}"
        ));
    }
    Ok(())
}

/// A saturating copy rounds floats into 8-bit floats (which no atomic updates: the atomic rule
/// refuses those).
fn saturate(src: &Buffer, dst: &Buffer) -> Verdict {
    use crate::element::Element;
    if !matches!(dst.element, Element::F8E4M3FN | Element::F8E5M2)
        || !src.element.is_float()
        || src.element == dst.element
    {
        return Err(format!(
            "expects saturate on a copy that converts floats into f8E4M3FN or f8E5M2 (values past the largest finite one become it), but got a copy from {} into {}",
            src.element, dst.element
        ));
    }
    Ok(())
}

/// Without offsets both sides are tiles of one static shape.
fn whole_tiles(src: &Buffer, dst: &Buffer) -> Verdict {
    let src_shape = src.static_shape("the source")?;
    let dst_shape = dst.static_shape("the destination")?;
    if src_shape != dst_shape {
        return Err(format!(
            "expects the source and destination to have the same tile shape when neither has \
             offsets, but got {} and {}",
            static_shape_text(&src_shape),
            static_shape_text(&dst_shape)
        ));
    }
    Ok(())
}

/// `tile` (the side without offsets) is placed at `offsets` in `buffer`.
pub(super) fn tile_in_buffer(
    tile: &Buffer,
    tile_role: &str,
    buffer: &Buffer,
    buffer_role: &str,
    offsets: usize,
    dims: Option<Vec<i64>>,
) -> Verdict {
    let rank = buffer.shape.len();
    if offsets != rank {
        return Err(format!(
            "expects one offset per dimension of the {buffer_role} ({rank}), but got {offsets}"
        ));
    }
    let tile_shape = tile.static_shape(&format!("the {tile_role} (the tile)"))?;
    // A tile of lower rank than a global tensor lies in its trailing dimensions; the leading ones are
    // indexed by their offsets alone (extent 1). On-chip buffers take tiles of their own rank only.
    if buffer.on_chip() && tile_shape.len() != rank {
        return Err(format!(
            "expects the tile ({tile_role}, {}) to have the rank of the {buffer_role} in {} ({rank}), \
             but got rank {}",
            static_shape_text(&tile_shape),
            buffer.level,
            tile_shape.len()
        ));
    }
    if tile_shape.is_empty() || tile_shape.len() > rank {
        return Err(format!(
            "expects the tile ({tile_role}, {}) to have a rank from 1 to the rank of the \
             {buffer_role} ({rank}), but got rank {}",
            static_shape_text(&tile_shape),
            tile_shape.len()
        ));
    }
    if let Some(dims) = dims {
        spanned(&dims, &tile_shape, tile_role, buffer, buffer_role)?;
    }
    if tile_shape.len() < rank && rank > MAX_GLOBAL_RANK {
        return Err(format!(
            "expects a {buffer_role} of rank at most {MAX_GLOBAL_RANK} when the tile ({tile_role}, {}) \
             has a lower rank, but got rank {rank}",
            static_shape_text(&tile_shape),
        ));
    }
    // Global buffers clip a tile that reaches past their end; on-chip buffers cannot hold a larger
    // tile at any offset.
    if buffer.on_chip() {
        let too_large = tile_shape
            .iter()
            .zip(&buffer.shape)
            .any(|(tile, size)| size.is_some_and(|size| *tile > size));
        if too_large {
            return Err(format!(
                "expects the tile ({}) to fit in the {buffer_role} in {} ({}), but it does not",
                static_shape_text(&tile_shape),
                buffer.level,
                shape_text(&buffer.shape)
            ));
        }
    }
    Ok(())
}

/// The dimensions `dims` of `buffer` that a tile of `tile_shape` spans: one per dimension of the
/// tile, increasing, ending with the buffer's last (the tile's rows are contiguous), and on-chip
/// buffers' own dimensions.
fn spanned(dims: &[i64], tile_shape: &[u64], tile_role: &str, buffer: &Buffer, buffer_role: &str) -> Verdict {
    let rank = buffer.shape.len() as i64;
    let text = format!("[{}]", dims.iter().map(i64::to_string).collect::<Vec<_>>().join(", "));
    if dims.len() != tile_shape.len() {
        return Err(format!(
            "expects dims to name one dimension of the {buffer_role} per dimension of the tile \
             ({tile_role}, {}), but got {text}",
            static_shape_text(tile_shape)
        ));
    }
    if dims.iter().any(|dim| !(0..rank).contains(dim)) || dims.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(format!(
            "expects dims to be increasing dimensions of the {buffer_role} (rank {rank}), but got {text}"
        ));
    }
    if dims.last() != Some(&(rank - 1)) {
        return Err(format!(
            "expects dims to end with the last dimension of the {buffer_role} ({}), since a tile's \
             rows are contiguous; give the tile a trailing extent of 1 and name dimension {} too, \
             but got {text}",
            rank - 1,
            rank - 1
        ));
    }
    if buffer.on_chip() && dims.len() as i64 != rank {
        return Err(format!(
            "expects dims on an on-chip {buffer_role} to name all of its dimensions, but got {text}"
        ));
    }
    Ok(())
}
