//! TMA copies: a `tile.copy_async` into a ring of wgmma operand tiles that only TMA fills is, in
//! one thread, the bytes its barrier is to expect and one TMA box per 128 bytes of the tile's rows
//! (R rows of 128 bytes, 128-byte swizzled, the boxes one after the other; rows that are no whole
//! such boxes are boxes of 64 or 32 bytes with that swizzle, a K-major tile of 32 or 16 16-bit
//! columns one of them: [`crate::layout::tma`]): the copy
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
        // A tile every block of the cluster loads (`tile.cluster_shared`): each block issues its
        // part of the boxes (or of each box's rows), multicast into every block's shared memory at
        // the same place, completing bytes on every block's barrier at the same place; each block
        // still expects the whole tile.
        let cluster = shared_by_cluster(op);
        let share = cluster.and_then(|blocks| Share::of(blocks, rows, columns, &box_));
        if let (Some(blocks), None) = (cluster, share) {
            tile_dialect::diagnostics::emit_warning(
                op.location(),
                &format!(
                    "'tile.copy_async' of a {rows}x{columns} tile is loaded by each of the cluster's {blocks} blocks: its TMA boxes ({}) divide neither into {blocks} groups nor into row parts of 8-row multiples, which multicast needs; each block loads the whole tile",
                    box_.iter().map(|size| size.to_string()).collect::<Vec<_>>().join("x")
                ),
            );
        }
        let box_ = match share {
            Some(Share::Rows { part }) => {
                let mut parted = box_.clone();
                let at = parted.len() - 2;
                parted[at] = part;
                parted
            }
            _ => box_,
        };
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
        let boxes = columns / box_columns;
        // Only where the blocks load parts: a block that loads the whole tile loads it for itself.
        let mask = cluster.filter(|_| share.is_some()).map(|blocks| {
            let i16_type: Type = IntegerType::new(context, 16).into();
            b.integer(leader, i16_type, (1 << blocks) - 1)
        });
        // This block's rank in the cluster, where it loads a part.
        let cluster_rank = || {
            let rank = b.value(
                leader,
                nvvm::ClusterIdOperation::builder(context, b.location)
                    .res(i32_type)
                    .build()
                    .into(),
            );
            b.cast(leader, tile_ir::arith::index_cast, rank, Type::index(context))
        };
        // The boxes this block issues, the first of them (its own run, where the cluster shares
        // boxes), and the rows its part starts at (where it shares each box's rows).
        let (issued, first_box, first_row) = match share {
            Some(Share::Boxes { blocks }) => (
                boxes / blocks,
                Some(b.muli(leader, cluster_rank(), b.index(leader, boxes / blocks))),
                None,
            ),
            Some(Share::Rows { part }) => (boxes, None, Some(b.muli(leader, cluster_rank(), b.index(leader, part)))),
            None => (boxes, None, None),
        };
        // Its rows move the row coordinate and the place of every box by the same rows.
        if let Some(row) = first_row {
            let row_i32 = b.cast(leader, tile_ir::arith::index_cast, row, i32_type);
            rest[0] = b.addi(leader, rest[0], row_i32);
        }
        let rows_bytes = first_row.map(|row| {
            let bytes = b.muli(leader, row, b.index(leader, box_columns * element_bytes));
            b.cast(leader, tile_ir::arith::index_cast, bytes, i64_type)
        });
        for issued_index in 0..issued {
            let box_index = match first_box {
                Some(first) => b.addi(leader, first, b.index(leader, issued_index)),
                None => b.index(leader, issued_index),
            };
            let box_bytes = b.muli(leader, box_index, b.index(leader, rows * box_columns * element_bytes));
            let box_bytes = b.cast(leader, tile_ir::arith::index_cast, box_bytes, i64_type);
            let box_bytes = rows_bytes.map_or(box_bytes, |rows_bytes| b.addi(leader, box_bytes, rows_bytes));
            let address = b.addi(leader, base, box_bytes);
            let destination = b.cast(leader, tile_ir::llvm::inttoptr, address, shared_pointer);
            // The instruction writes through a shared::cluster address (this block's own shared
            // memory when no cluster is launched).
            let destination = b.cast(leader, tile_ir::llvm::addrspacecast, destination, cluster_pointer);
            let shift = b.muli(leader, box_index, b.index(leader, box_columns));
            let shift = b.cast(leader, tile_ir::arith::index_cast, shift, i32_type);
            let box_column = b.addi(leader, column, shift);
            let mut coordinates = vec![box_column];
            coordinates.extend(rest.iter().copied());
            // The destination, the map, the coordinates, the barrier and, for a cluster's shared
            // tile, the multicast mask; no im2col offsets, cache hint or predicate.
            let mut operands = vec![destination, map];
            operands.extend(coordinates.iter().copied());
            operands.push(barrier);
            operands.extend(mask);
            let copy = melior::ir::operation::OperationBuilder::new(
                nvvm::CpAsyncBulkTensorGlobalToSharedClusterOperation::name(),
                b.location,
            )
            .add_operands(&operands)
            .build()
            .expect("cp.async.bulk.tensor");
            b.insert(
                leader,
                tile_ir::with_segments(context, copy, &[1, 1, rank as i32, 1, 0, mask.is_some() as i32, 0, 0]),
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

/// The blocks of the cluster that load the tile of `op` together, where it is marked
/// `tile.cluster_shared` in a kernel whose clusters multicast (`tile.multicast`).
fn shared_by_cluster(op: OperationRef) -> Option<i64> {
    op.attribute(tile_dialect::decisions::CLUSTER_SHARED.name).ok()?;
    crate::kernels::kernel_of(op)
        .and_then(|kernel| tile_dialect::ops::integer_attribute(&kernel, tile_dialect::decisions::MULTICAST.name))
}

/// How a cluster's blocks share a tile's TMA boxes: each issues `boxes / blocks` whole boxes,
/// or, where the boxes do not divide so, a part of each box's rows (whole 8-row groups, so that
/// the 128-byte swizzle's rows stay where the wgmma descriptors read them).
#[derive(Clone, Copy)]
enum Share {
    Boxes { blocks: i64 },
    Rows { part: i64 },
}

impl Share {
    fn of(blocks: i64, rows: i64, columns: i64, box_: &[i64]) -> Option<Share> {
        let boxes = columns / box_.last()?;
        if boxes % blocks == 0 {
            return Some(Share::Boxes { blocks });
        }
        let box_rows = *box_.get(box_.len().checked_sub(2)?)?;
        (box_rows == rows && rows % (8 * blocks) == 0).then_some(Share::Rows { part: rows / blocks })
    }
}
