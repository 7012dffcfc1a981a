//! Shared tiles stored in the layout `tile-infer-layouts` decides for them (`#tile.smem`), on the
//! targets that rearrange their tiles ([`crate::target::Memory::rearranged_tiles`]: LDS tiles read by mfma):
//! each row padded by `padding` elements and, where `transposed`, the two dimensions swapped (an
//! mfma B operand given as KxN is stored NxK, so that each lane's four elements of K are one
//! 8-byte read).
//!
//! Each such `tile.alloc_shared` becomes an allocation of the stored shape and a strided view of
//! the tile's own shape (`memref.reinterpret_cast`, offset 0): every op that indexes the tile
//! element by element (the plain strategy's loops, the register rules' loads and stores) reaches
//! the stored place through the view without knowing the layout. The rules that move runs along
//! the stored rows (the 16-byte copies into LDS, the mfma operand reads) ask [`stored`] for the
//! layout. The layout is read, never chosen here: the recorded one, or what inference records
//! (the register rules' plan reads both).

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        Attribute, ShapedTypeLike, Type, Value, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use tile_dialect::positions::OperationAt;
use tile_dialect::{
    layout::{LAYOUT_ATTRIBUTE, SharedLayout},
    ops::memref_shape,
};

/// How a shared tile is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored<'c, 'a> {
    /// Its recorded layout.
    pub layout: SharedLayout,
    /// The allocation of the stored shape (rows of the tile's last dimension, or of its first
    /// where transposed, each followed by the padding).
    pub allocation: Value<'c, 'a>,
    /// The stored shape.
    pub shape: [i64; 2],
}

/// Whether `layout` stores a tile of `shape` otherwise than row-major without padding (only 2-D
/// tiles: the mfma operands, the one place the layouts differ).
fn rearranged(layout: &SharedLayout, shape: &[i64]) -> bool {
    shape.len() == 2 && shape.iter().all(|size| *size > 0) && (layout.padding > 0 || layout.transposed)
}

/// The stored shape of a `rows`x`columns` tile and the strides of its view.
fn stored_shape(layout: &SharedLayout, [rows, columns]: [i64; 2]) -> ([i64; 2], [i64; 2]) {
    if layout.transposed {
        ([columns, rows + layout.padding], [1, rows + layout.padding])
    } else {
        ([rows, columns + layout.padding], [columns + layout.padding, 1])
    }
}

/// Stores every shared tile of `shared` (allocations and their layouts, as the register rules' plan
/// read them) whose layout pads or transposes it in its stored shape, the tile's uses going through
/// a view of its own shape (the module doc). Runs before any tile op is lowered. (Kernels whose
/// fragments are not in registers run no mfma: their tiles stay row-major, the LDS theirs.)
pub fn apply<'c, 'a>(context: &'c Context, shared: &[(OperationRef<'c, 'a>, SharedLayout)]) {
    let rewriter = melior::IrRewriter::new(context);
    for (allocation, layout) in shared {
        let Some(result) = allocation.result_at(0) else {
            continue;
        };
        let tile: Value = result.into();
        let shape = memref_shape(tile);
        let Some(next) = allocation.next_in_block() else {
            continue;
        };
        if !tile_ir::is(allocation, tile_ir::tile::AllocSharedOperation::name) || !rearranged(layout, &shape) {
            continue;
        }
        let memref = MemRefType::try_from(tile.r#type()).expect("a tile is a memref");
        let (physical, _) = stored_shape(layout, [shape[0], shape[1]]);
        view_as_stored(context, &rewriter, tile, layout, next);
        // The allocation itself takes the stored shape (in place: the plan refers to it); its
        // recorded layout says how it is stored, for the rules that ask [`stored`].
        tile.set_type(MemRefType::new(memref.element(), &physical, None, memref.memory_space()).into());
    }
}

/// Gives every use of the 2-D tile `tile` a strided view of its own shape (offset 0) over its
/// storage in `layout`, inserted before `next` (the caller then gives `tile` the stored shape).
fn view_as_stored<'c, 'a>(
    context: &'c Context,
    rewriter: &melior::IrRewriter<'c>,
    tile: Value<'c, 'a>,
    layout: &SharedLayout,
    next: OperationRef<'c, 'a>,
) {
    let shape = memref_shape(tile);
    let memref = MemRefType::try_from(tile.r#type()).expect("a tile is a memref");
    let (_, strides) = stored_shape(layout, [shape[0], shape[1]]);
    let location = next.location();
    let strided =
        Attribute::parse(context, &format!("strided<[{}, {}]>", strides[0], strides[1])).expect("a strided layout");
    let view_type = MemRefType::new(memref.element(), &shape, Some(strided), memref.memory_space());
    let array = |values: &[i64]| crate::attributes::i64_array(context, values);
    let cast = tile_ir::memref::reinterpret_cast(
        context,
        view_type.into(),
        tile,
        &[],
        &[],
        &[],
        array(&[0]),
        array(&shape),
        array(&strides),
        location,
    );
    // The source, then no dynamic offsets, sizes or strides (all static).
    let b = Builder {
        context,
        location,
        threads: None,
    };
    let view = b.insert(At::before(next), tile_ir::with_segments(context, cast, &[1, 0, 0, 0]));
    rewriter
        .as_rewriter_base()
        .replace_all_uses_except(tile, view.result_at(0).expect("view").into(), view);
}

/// The rings (`tile.slot`-read allocations of 2-D tiles) among `kernel`'s shared tiles whose layout
/// pads the rows: each allocated with padded rows, each slot a tile of the stored shape that its
/// users reach through a view of its own, as [`apply`] does for single tiles. Runs where [`apply`]
/// does, before any op that addresses a slot is lowered.
pub fn pad_rings<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) {
    let rewriter = melior::IrRewriter::new(context);
    let rings: Vec<OperationRef> = tile_dialect::ops::nested_ops(kernel)
        .into_iter()
        .filter(|op| crate::pipeline::rings::is_ring(*op))
        .collect();
    for ring in rings {
        let Some(layout) = ring
            .attribute(LAYOUT_ATTRIBUTE)
            .ok()
            .and_then(SharedLayout::from_attribute)
        else {
            continue;
        };
        let value: Value = ring.result_at(0).expect("a ring").into();
        let shape = memref_shape(value);
        if shape.len() != 3 || layout.transposed || !rearranged(&layout, &shape[1..]) {
            continue;
        }
        let memref = MemRefType::try_from(value.r#type()).expect("a ring is a memref");
        let (physical, _) = stored_shape(&layout, [shape[1], shape[2]]);
        let slot_type = MemRefType::new(memref.element(), &physical, None, memref.memory_space());
        let slots: Vec<OperationRef> = tile_dialect::ops::nested_ops(kernel)
            .into_iter()
            .filter(|op| {
                tile_ir::is(op, tile_ir::tile::SlotOperation::name)
                    && op.operand_at(0).is_some_and(|ring| ring == value)
            })
            .collect();
        for slot in slots {
            let tile: Value = slot.result_at(0).expect("a slot").into();
            // A slot is no terminator: its users follow it.
            let next = slot.next_in_block().expect("an op after the slot");
            view_as_stored(context, &rewriter, tile, &layout, next);
            tile.set_type(slot_type.into());
        }
        value.set_type(
            MemRefType::new(
                memref.element(),
                &[shape[0], physical[0], physical[1]],
                None,
                memref.memory_space(),
            )
            .into(),
        );
    }
}

/// Bytes of the shared tile `tile` as [`apply`] will store it: in the stored shape its
/// allocation's layout gives it ([`stored_shape`]: rows padded, or transposed and padded) where
/// that layout rearranges it, as its type says otherwise.
pub fn stored_bytes(tile: Value) -> i64 {
    let Some(memref) = tile_dialect::ops::as_memref(tile.r#type()) else {
        return 0;
    };
    let shape = memref_shape(tile);
    let layout = tile_dialect::ops::as_result(tile)
        .and_then(|result| result.owner().attribute(LAYOUT_ATTRIBUTE).ok())
        .and_then(SharedLayout::from_attribute)
        .filter(|layout| rearranged(layout, &shape));
    match layout {
        Some(layout) => {
            let ([rows, columns], _) = stored_shape(&layout, [shape[0], shape[1]]);
            let bytes =
                tile_dialect::element::Element::of(memref.element()).map_or(8, |element| element.bytes() as i64);
            rows * columns * bytes
        }
        None => crate::pipeline::rings::tile_bytes(memref),
    }
}

/// How the shared tile `tile` is stored, where [`apply`] rearranged it (`None`: row-major, as its type
/// says).
pub fn stored<'c: 'a, 'a>(tile: Value<'c, 'a>) -> Option<Stored<'c, 'a>> {
    let view = tile_dialect::ops::as_result(tile)?.owner();
    if !tile_ir::is(&view, tile_ir::memref::ReinterpretCastOperation::name) {
        return None;
    }
    let allocation = view.operand_at(0)?;
    let owner = tile_dialect::ops::as_result(allocation)?.owner();
    if !tile_ir::is(&owner, tile_ir::tile::AllocSharedOperation::name) {
        return None;
    }
    let layout = SharedLayout::from_attribute(owner.attribute(LAYOUT_ATTRIBUTE).ok()?)?;
    let shape = memref_shape(allocation);
    Some(Stored {
        layout,
        allocation,
        shape: [*shape.first()?, *shape.get(1)?],
    })
}

/// The type of `tile`'s stored allocation in workgroup memory as the integer memory space 3 (see
/// `generic::vector_copy`: the vector conversion knows integer memory spaces only).
pub fn stored_type<'c>(
    context: &'c Context,
    element: Type<'c>,
    shape: &[i64],
    layout: Option<Attribute<'c>>,
) -> Type<'c> {
    MemRefType::new(element, shape, layout, Some(crate::attributes::integer(context, 64, 3))).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transposed_b_tile_stores_k_contiguous_rows() {
        let layout = SharedLayout {
            padding: 4,
            transposed: true,
            ..SharedLayout::row_major()
        };
        // B as KxN = 32x128: 128 rows of 32 + 4; element (k, n) at n * 36 + k.
        assert_eq!(stored_shape(&layout, [32, 128]), ([128, 36], [1, 36]));
        let layout = SharedLayout {
            padding: 4,
            ..SharedLayout::row_major()
        };
        assert_eq!(stored_shape(&layout, [128, 32]), ([128, 36], [36, 1]));
        assert!(!rearranged(&SharedLayout::row_major(), &[128, 32]));
        assert!(!rearranged(&layout, &[2, 128, 32]));
    }
}
