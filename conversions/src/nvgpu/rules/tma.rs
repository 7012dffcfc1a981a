//! TMA copies: a `tile.copy_async` into a ring of wgmma operand tiles that only TMA fills is, in
//! one thread, the bytes its barrier is to expect and one TMA box per 64 columns of the tile (R
//! rows of 128 bytes, 128-byte swizzled, the boxes one after the other; a K-major tile of 32 or 16
//! columns is one box of 64- or 32-byte rows with that swizzle: [`crate::layout::tma`]): the copy
//! engine writes them, zero-filling what lies past the tensor in any dimension, and completes the
//! bytes on the barrier. The other threads issue nothing; where only TMA fills a barrier's slots,
//! thread 0's arrival is the phase's only one (`crate::pipeline::mbarriers`; the ring's "slot
//! free" side is unchanged). wgmma reads such tiles through 128-byte swizzled descriptors
//! (`Lowering::wgmma`), which need the ring to start on 1024 bytes
//! ([`crate::layout::tma::ALIGNMENT_ATTRIBUTE`]).

use super::*;
use crate::layout::tma::*;

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// The copy `op` (a `tile.copy_async` of `parts` counting on `barriers[index]`) as TMA boxes
    /// of `box_` into `tile`, issued by thread 0 after it adds their bytes to the barrier's
    /// expected transactions; the tile's ring is marked to start on [`SWIZZLED_ALIGNMENT`].
    pub(crate) fn copy_by_tma(
        &self,
        op: OperationRef<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        barriers: Value<'c, 'a>,
        index: Value<'c, 'a>,
        box_: Vec<i64>,
        swizzled: bool,
    ) {
        let b = self.builder(&op);
        let at = At::before(op);
        let context = self.context;
        let [rows, columns] = memref_shape(tile)[..] else {
            unreachable!("a 2-D tile")
        };
        let i32_type: Type = IntegerType::new(context, 32).into();
        let i64_type: Type = IntegerType::new(context, 64).into();
        let shared_pointer = crate::attributes::llvm_pointer(context, 3);
        let cluster_pointer = crate::attributes::llvm_pointer(context, 7);
        if let Some(allocation) = crate::pipeline::rings::tile_allocation(tile) {
            let bytes = if swizzled {
                SWIZZLED_ALIGNMENT
            } else {
                crate::layout::tma::UNSWIZZLED_ALIGNMENT
            };
            let alignment = IntegerAttribute::new(IntegerType::new(context, 64).into(), bytes);
            tile_dialect::ops::set_attribute(allocation, ALIGNMENT_ATTRIBUTE, alignment.into());
        }
        let map = self.tensor_map(&b, at, parts.src, &box_);
        if !swizzled && let Some(cast) = tile_dialect::ops::as_result(map) {
            tile_dialect::ops::set_attribute(
                cast.owner(),
                crate::layout::tma::TENSOR_MAP_UNSWIZZLED,
                Attribute::unit(context),
            );
        }
        if let Some(result) = tile_dialect::ops::as_result(barriers) {
            tile_dialect::ops::set_attribute(
                result.owner(),
                crate::pipeline::mbarriers::TMA_FILLS_ATTRIBUTE,
                Attribute::unit(context),
            );
        }
        // Thread 0 issues them; in a producer, its one thread.
        let leader = if crate::pipeline::producer::in_producer(op) {
            at
        } else {
            let first = b.compare(at, "eq", self.tid, b.index(at, 0));
            b.if_then(at, first)
        };
        let barrier = crate::pipeline::mbarriers::barrier_pointer(&b, leader, barriers, index);
        let element_bytes = crate::support::element_of(tile)
            .map(|element| element.bytes() as i64)
            .expect("a TMA-filled tile of a type tensor maps take");
        let bytes = rows * columns * element_bytes;
        let expected = b.value(
            leader,
            melior::dialect::arith::constant(context, IntegerAttribute::new(i32_type, bytes).into(), b.location),
        );
        b.insert(
            leader,
            nvvm::mbarrier_expect_tx(context, barrier, expected, b.location).into(),
        );
        let base = b.aligned_pointer(leader, tile);
        let base = b.cast(leader, tile_ir::arith::index_cast, base, i64_type);
        // Coordinates innermost first: the column, then the other offsets inwards out (the box
        // spans the tile's dimensions, extent 1 in the others).
        let coordinate = |value: Value<'c, 'a>| b.cast(leader, tile_ir::arith::index_cast, value, i32_type);
        let rank = parts.src_offsets.len();
        let column = coordinate(parts.src_offsets[rank - 1]);
        let mut rest: Vec<Value> = vec![coordinate(parts.src_offsets[rank - 2])];
        rest.extend(
            parts.src_offsets[..rank - 2]
                .iter()
                .rev()
                .map(|offset| coordinate(*offset)),
        );
        let box_columns = *box_.last().expect("a box");
        for box_index in 0..columns / box_columns {
            let box_bytes = b.value(
                leader,
                melior::dialect::arith::constant(
                    context,
                    IntegerAttribute::new(i64_type, box_index * rows * box_columns * element_bytes).into(),
                    b.location,
                ),
            );
            let address = b.addi(leader, base, box_bytes);
            let destination = b.cast(leader, tile_ir::llvm::inttoptr, address, shared_pointer);
            // The instruction writes through a shared::cluster address (this block's own shared
            // memory when no cluster is launched).
            let destination = b.cast(leader, tile_ir::llvm::addrspacecast, destination, cluster_pointer);
            let shift = b.value(
                leader,
                melior::dialect::arith::constant(
                    context,
                    IntegerAttribute::new(i32_type, box_index * box_columns).into(),
                    b.location,
                ),
            );
            let box_column = b.addi(leader, column, shift);
            let mut coordinates = vec![box_column];
            coordinates.extend(rest.iter().copied());
            let copy = nvvm::cp_async_bulk_tensor_shared_cluster_global(
                context,
                destination,
                map,
                &coordinates,
                barrier,
                &[],
                b.location,
            );
            // The destination, the map, the coordinates and the barrier; no im2col offsets,
            // multicast mask, cache hint or predicate.
            b.insert(
                leader,
                tile_ir::with_segments(context, copy, &[1, 1, rank as i32, 1, 0, 0, 0, 0]),
            );
        }
        erase(context, op);
    }

    /// The tensor map of global tensor `tensor` with box `box_` (outermost first): until the
    /// kernel takes it as a parameter, a cast of the tensor marked with [`TENSOR_MAP_BOX`].
    pub(crate) fn tensor_map(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        tensor: Value<'c, 'a>,
        box_: &[i64],
    ) -> Value<'c, 'a> {
        let pointer = crate::attributes::llvm_pointer(self.context, 0);
        let box_attribute = crate::attributes::i64_array(self.context, box_);
        let mut cast: Operation =
            tile_ir::builtin::unrealized_conversion_cast(self.context, &[pointer], &[tensor], b.location).into();
        cast.set_attribute(TENSOR_MAP_BOX, box_attribute);
        b.value(at, cast)
    }
}
