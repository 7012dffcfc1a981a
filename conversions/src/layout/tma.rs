//! TMA boxes: which copies the tensor memory accelerator serves and how its boxes lay a tile out
//! (rows of up to 128 bytes, swizzled across 8 rows), for the targets whose rings TMA fills
//! ([`crate::target::Target::tma`]). Layout inference reads these facts to lay out the tiles TMA
//! will fill, the host encodes the tensor maps from them, and the register rules issue the boxes.
//!
//! The tensor map is a kernel parameter that the host encodes. Until the kernel is outlined the
//! rule reads it from a `builtin.unrealized_conversion_cast` of the global tensor marked with
//! [`TENSOR_MAP_BOX`]; the outlining (`crate::generic`) turns each distinct (tensor, box) into a
//! parameter, a manifest entry and the host's `nvgpu.tma.create.descriptor`.

use melior::ir::{Value, ValueLike, operation::OperationRef};
use std::collections::HashMap;
use tile_dialect::{
    level::{MemoryLevel, memory_level},
    ops::{copy_async_parts, copy_parts, memref_shape},
};
use tile_ir::{match_op, tile};

fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

fn element_type<'c>(value: Value<'c, '_>) -> melior::ir::Type<'c> {
    crate::cpu::data::element_type(value)
}

/// The attribute on the cast that stands for a tensor map until the kernel takes it as a
/// parameter: the box, one size per dimension of the tensor, outermost first (the tile's rows and
/// 64 elements in the dimensions it spans, 1 in each other).
pub const TENSOR_MAP_BOX: &str = tile_dialect::decisions::TENSOR_MAP_BOX;
/// The bytes a shared allocation starts on, when more than the usual slot alignment.
pub const ALIGNMENT_ATTRIBUTE: &str = tile_dialect::decisions::ALIGNMENT;
/// The swizzle span of the boxes, in bytes: one box row.
pub const SWIZZLE: i64 = 128;

/// Columns of the boxes that fill a tile of `columns` columns of `bytes`-byte elements: a 128-byte
/// row (64 16-bit or 128 i8 columns, the 128-byte swizzle) where the tile is whole such boxes;
/// else boxes of 64 or 32 bytes (that swizzle), the widest whose whole boxes make the row: a
/// K-major operand's K tile (one box of 64 or 32 bytes, or several: a 192-byte row of 8-bit keys
/// in three of 64), what a wgmma descriptor with that swizzle mode reads.
pub fn box_columns(columns: i64, bytes: i64) -> Option<i64> {
    [SWIZZLE, 64, 32]
        .into_iter()
        .find(|span| columns * bytes % span == 0)
        .map(|span| span / bytes)
}

/// Bytes of an element of the operand tiles TMA fills for wgmma: 2 for f16 and bf16, 1 for i8 and
/// the 8-bit floats.
pub fn operand_bytes(tile: Value) -> Option<i64> {
    use tile_dialect::element::Element;
    crate::support::element_of(tile)
        .filter(|element| matches!(element, Element::F16 | Element::BF16 | Element::I8) || element.is_f8())
        .map(|element| element.bytes() as i64)
}

/// The swizzle span, in bytes, of boxes `columns` elements of `bytes` bytes wide: one box row.
pub fn swizzle_of(columns: i64, bytes: i64) -> i64 {
    columns * bytes
}
/// The mark on a tensor map's cast whose boxes land unswizzled ([`plain_box`]).
pub const TENSOR_MAP_UNSWIZZLED: &str = tile_dialect::decisions::TENSOR_MAP_UNSWIZZLED;
/// The alignment TMA needs of a box's destination without swizzle.
pub const UNSWIZZLED_ALIGNMENT: i64 = 128;

/// The TMA box (outermost first) that fills the plain row-major R x C `tile` (one the threads
/// read, not wgmma: its rows land unswizzled) from `src`, spanning its dimensions `spans`, when TMA
/// can: one element type on both sides, of a type tensor maps take (f16, bf16, f32, i32, i8, the
/// 8-bit floats); at most 256 rows of at most 256 elements, each a multiple of 16 bytes; a global
/// tensor of rank 2 to 5 with static sizes a 32-bit coordinate reaches and rows of a multiple of
/// 16 bytes, the tile's columns along its last dimension. A tensor with sizes known at run time
/// keeps the threads' cp.async, which needs no map encoded (and checked) at launch.
pub fn plain_box(src: Value, spans: &[usize], tile: Value) -> Option<Vec<i64>> {
    use tile_dialect::element::Element;
    let bytes = crate::support::element_of(tile)
        .filter(|element| {
            matches!(
                element,
                Element::F16 | Element::BF16 | Element::F32 | Element::I32 | Element::I8
            ) || element.is_f8()
        })
        .map(|element| element.bytes() as i64)?;
    let [rows, columns] = memref_shape(tile)[..] else {
        return None;
    };
    let memref = tile_dialect::ops::as_memref(src.r#type())?;
    let fits = element_type(src) == element_type(tile)
        && tile_dialect::ops::static_sizes(memref).iter().all(Option::is_some)
        && (1..=256).contains(&rows)
        && (1..=256).contains(&columns)
        && columns * bytes % 16 == 0;
    fits.then(|| addressable_box(src, spans, rows, columns, bytes))
        .flatten()
}

/// The alignment of a 128-byte swizzled tile: the swizzle pattern repeats every 8 rows of 128 bytes.
pub const SWIZZLED_ALIGNMENT: i64 = 1024;

/// The TMA box (outermost first) that fills the R x C `tile` from `src`, spanning its dimensions
/// `spans`, when TMA can: a global tensor of the tile's element type, f16, bf16, i8 or an 8-bit float (row-major and contiguous, as the verifier
/// requires of every tensor), of rank 2 to 5 with rows of a multiple of 16 bytes and sizes a
/// 32-bit coordinate reaches where they are static; the tile's rows any dimension, its columns the
/// tensor's last, at most 256 rows in whole core matrices, whole boxes of 128-byte rows. A dynamic tensor's
/// map is encoded at launch from its sizes: a launcher refuses one whose rows are not 16-byte
/// multiples (a TMA requirement).
pub fn tma_box(src: Value, spans: &[usize], tile: Value) -> Option<Vec<i64>> {
    let bytes = operand_bytes(tile)?;
    let [rows, columns] = memref_shape(tile)[..] else {
        return None;
    };
    (element_type(src) == element_type(tile))
        .then(|| tensor_box(src, spans, rows, box_columns(columns, bytes)?, bytes))
        .flatten()
}

/// The TMA box (outermost first) of `rows` rows of `box_columns` elements of `bytes` bytes of
/// global tensor `tensor`, the rows along dimension `spans[0]` and the columns along the last
/// (`spans`: the dimensions a 2-D tile spans), when TMA can address such boxes: the tensor's
/// conditions of [`tma_box`] for elements of any size (the stores' boxes, from an f32 accumulator
/// into a tensor of f16, bf16 or f32). The rows' stride is a multiple of 16 bytes wherever the
/// last dimension's is.
pub fn tensor_box(tensor: Value, spans: &[usize], rows: i64, box_columns: i64, bytes: i64) -> Option<Vec<i64>> {
    ((8..=256).contains(&rows) && rows % 8 == 0)
        .then(|| addressable_box(tensor, spans, rows, box_columns, bytes))
        .flatten()
}

/// The box (outermost first) of `rows` x `box_columns` elements of `bytes` bytes of `tensor`, the
/// rows along dimension `spans[0]` and the columns along the last, where a tensor map can address
/// the tensor: global, of rank 2 to 5, sizes a 32-bit coordinate reaches where they are static,
/// rows of a multiple of 16 bytes where the last size is static. The box's own bounds are the
/// callers'.
fn addressable_box(tensor: Value, spans: &[usize], rows: i64, box_columns: i64, bytes: i64) -> Option<Vec<i64>> {
    let memref = tile_dialect::ops::as_memref(tensor.r#type())?;
    let shape = tile_dialect::ops::static_sizes(memref);
    let rank = shape.len();
    let &[row_dim, column_dim] = spans else {
        return None;
    };
    let fits = memory_level(tensor.r#type()) == Some(MemoryLevel::Global)
        && (2..=5).contains(&rank)
        && column_dim + 1 == rank
        && shape[rank - 1].is_none_or(|inner| inner * bytes % 16 == 0)
        && shape.iter().flatten().all(|size| (1..=i32::MAX as i64).contains(size));
    let size = |dim: usize| match dim {
        _ if dim == row_dim => rows,
        _ if dim == column_dim => box_columns,
        _ => 1,
    };
    fits.then(|| (0..rank).map(size).collect())
}

/// Whether TMA boxes fill the core-matrix tile that `parts` copies into, whose K is dimension
/// `k_dimension`: [`tma_box`] serves it, and boxes narrower than 64 columns only where K is the
/// columns (the descriptors of an MN-major operand step over whole 128-byte rows).
pub fn boxes_fill(parts: &tile_dialect::ops::CopyParts, k_dimension: usize) -> bool {
    let wide = memref_shape(parts.dst)
        .last()
        .is_some_and(|columns| operand_bytes(parts.dst).is_some_and(|bytes| columns * bytes % SWIZZLE == 0));
    tma_box(parts.src, &parts.spans, parts.dst).is_some() && (wide || k_dimension == 1)
}

/// Whether TMA boxes fill the shared tile `allocation` (its key) whose K is dimension
/// `k_dimension`: it is written, and every write into it is a copy issued ahead that [`boxes_fill`]
/// serves: a `tile.copy_async`, or (before `tile-expand-pipelines` writes those) a `tile.copy`
/// among `ahead`, the copies the loops' rings will issue (`crate::pipeline::ahead::ring`).
pub fn tma_fills(ops: &[OperationRef], allocation: usize, k_dimension: usize, ahead: &[OperationRef]) -> bool {
    let owned = |tile: Value| crate::pipeline::rings::tile_allocation(tile).map(|allocation| key(&allocation));
    let mut writers = ops.iter().filter(|op| {
        match_op!(op, {
            tile::CopyOperation => copy_parts(*op).is_some_and(|parts| owned(parts.dst) == Some(allocation)),
            tile::CopyAsyncOperation => {
                copy_async_parts(*op).is_some_and(|(parts, _, _)| owned(parts.dst) == Some(allocation))
            },
            _ => false,
        })
    });
    let mut any = false;
    let all = writers.all(|writer| {
        any = true;
        let parts = if tile_ir::is(writer, tile::CopyAsyncOperation::name) {
            copy_async_parts(writer).map(|(parts, _, _)| parts)
        } else {
            copy_parts(writer).filter(|_| ahead.contains(writer))
        };
        parts.is_some_and(|parts| boxes_fill(&parts, k_dimension))
    });
    any && all
}

/// The allocations among `core_tiles` (each with the dimensions its gemms read as K) that TMA
/// fills for every such reading ([`tma_fills`]: rings of a pipelined loop's operand tiles).
pub fn swizzled_tiles(
    ops: &[OperationRef],
    core_tiles: &HashMap<usize, Vec<usize>>,
) -> std::collections::HashSet<usize> {
    core_tiles
        .iter()
        .filter(|(allocation, k_dimensions)| {
            k_dimensions
                .iter()
                .all(|k_dimension| tma_fills(ops, **allocation, *k_dimension, &[]))
        })
        .map(|(allocation, _)| *allocation)
        .collect()
}

/// The swizzle, in bytes, of the TMA boxes `box_` (outermost first) of elements of `bytes` bytes:
/// one box row (the maps of swizzled tiles and of staged stores).
pub fn tma_swizzle(box_: &[i64], bytes: i64) -> i64 {
    swizzle_of(*box_.last().expect("a box"), bytes)
}
