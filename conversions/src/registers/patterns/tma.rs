//! TMA copies (sm_90a): a `tile.copy_async` into a ring of wgmma operand tiles that only TMA
//! fills is, in one thread, the bytes its barrier is to expect and one TMA box per 64 columns of
//! the tile (R rows of 128 bytes, 128-byte swizzled, the boxes one after the other; a K-major
//! tile of 32 or 16 columns is one box of 64- or 32-byte rows with that swizzle): the copy
//! engine writes them, zero-filling what lies past the tensor in any dimension, and completes the
//! bytes on the barrier. The other threads issue nothing; where only TMA fills a barrier's slots,
//! thread 0's arrival is the phase's only one (`crate::pipeline::nvidia`; the ring's "slot free"
//! side is unchanged). wgmma
//! reads such tiles through 128-byte swizzled descriptors (`Lowering::wgmma`), which need the
//! ring to start on 1024 bytes ([`ALIGNMENT_ATTRIBUTE`]).
//!
//! The tensor map is a kernel parameter that the host encodes. Until the kernel is outlined the
//! rule reads it from a `builtin.unrealized_conversion_cast` of the global tensor marked with
//! [`TENSOR_MAP_BOX`]; the plain strategy's outlining (`crate::generic`) turns each distinct
//! (tensor, box) into a parameter, a manifest entry and the host's `nvgpu.tma.create.descriptor`.

use super::*;

/// The attribute on the cast that stands for a tensor map until the kernel takes it as a
/// parameter: the box, one size per dimension of the tensor, outermost first (1 in each leading
/// dimension, then the tile's rows and 64 elements).
pub const TENSOR_MAP_BOX: &str = tile_dialect::decisions::TENSOR_MAP_BOX;
/// The bytes a shared allocation starts on, when more than the usual slot alignment.
pub const ALIGNMENT_ATTRIBUTE: &str = tile_dialect::decisions::ALIGNMENT;
/// The swizzle span of the boxes, in bytes: one box row.
pub const SWIZZLE: i64 = 128;

/// Columns of the boxes that fill a tile of `columns` columns of `bytes`-byte elements: a 128-byte
/// row (64 16-bit or 128 i8 columns, the 128-byte swizzle) where the tile is whole such boxes; a
/// K-major operand's K tile of 64 or 32 bytes (the 64- or 32-byte swizzle, one box: what a wgmma
/// descriptor with that swizzle mode reads).
pub fn box_columns(columns: i64, bytes: i64) -> Option<i64> {
    if columns % (SWIZZLE / bytes) == 0 {
        Some(SWIZZLE / bytes)
    } else {
        [64, 32].contains(&(columns * bytes)).then_some(columns)
    }
}

/// Bytes of an element of the operand tiles TMA fills for wgmma: 2 for f16 and bf16, 1 for i8 and
/// f8E4M3FN.
pub fn operand_bytes(tile: Value) -> Option<i64> {
    use tile_dialect::element::Element;
    crate::support::element_of(tile)
        .filter(|element| matches!(element, Element::F16 | Element::BF16 | Element::I8 | Element::F8E4M3FN))
        .map(|element| element.bytes() as i64)
}

/// The swizzle span, in bytes, of boxes `columns` elements of `bytes` bytes wide: one box row.
pub fn swizzle_of(columns: i64, bytes: i64) -> i64 {
    columns * bytes
}
/// The alignment of a 128-byte swizzled tile: the swizzle pattern repeats every 8 rows of 128 bytes.
pub const SWIZZLED_ALIGNMENT: i64 = 1024;

/// The TMA box (outermost first) that fills the R x C `tile` from `src` at `offsets`, when TMA
/// can: a global tensor of the tile's element type, f16, bf16, i8 or f8E4M3FN (row-major and contiguous, as the verifier
/// requires of every tensor), of rank 2 to 5 with rows of a multiple of 16 bytes and sizes a
/// 32-bit coordinate reaches where they are static; the tile's two dimensions the tensor's last
/// two, at most 256 rows in whole core matrices, whole boxes of 128-byte rows. A dynamic tensor's
/// map is encoded at launch from its sizes: a launcher refuses one whose rows are not 16-byte
/// multiples (a TMA requirement).
pub fn tma_box(src: Value, offsets: usize, tile: Value) -> Option<Vec<i64>> {
    let bytes = operand_bytes(tile)?;
    let [rows, columns] = memref_shape(tile)[..] else {
        return None;
    };
    (element_type(src) == element_type(tile))
        .then(|| tensor_box(src, offsets, rows, box_columns(columns, bytes)?, bytes))
        .flatten()
}

/// The TMA box (outermost first) of `rows` rows of `box_columns` elements of `bytes` bytes of
/// global tensor `tensor` at `offsets` (one per dimension), when TMA can address such boxes: the
/// tensor's conditions of [`tma_box`] for elements of any size (the stores' boxes, from an f32
/// accumulator into a tensor of f16, bf16 or f32).
pub fn tensor_box(tensor: Value, offsets: usize, rows: i64, box_columns: i64, bytes: i64) -> Option<Vec<i64>> {
    let memref = tile_dialect::ops::as_memref(tensor.r#type())?;
    let shape = tile_dialect::ops::static_sizes(memref);
    let rank = shape.len();
    let fits = level(tensor) == Some(MemoryLevel::Global)
        && (2..=5).contains(&rank)
        && offsets == rank
        && shape[rank - 1].is_none_or(|inner| inner * bytes % 16 == 0)
        && shape.iter().flatten().all(|size| (1..=i32::MAX as i64).contains(size))
        && (8..=256).contains(&rows)
        && rows % 8 == 0;
    fits.then(|| std::iter::repeat_n(1, rank - 2).chain([rows, box_columns]).collect())
}

/// Whether TMA boxes fill the core-matrix tile that `parts` copies into, whose K is dimension
/// `k_dimension`: [`tma_box`] serves it, and boxes narrower than 64 columns only where K is the
/// columns (the descriptors of an MN-major operand step over whole 128-byte rows).
pub fn boxes_fill(parts: &tile_dialect::ops::CopyParts, k_dimension: usize) -> bool {
    let wide = memref_shape(parts.dst)
        .last()
        .is_some_and(|columns| operand_bytes(parts.dst).is_some_and(|bytes| columns * bytes % SWIZZLE == 0));
    tma_box(parts.src, parts.src_offsets.len(), parts.dst).is_some() && (wide || k_dimension == 1)
}

/// Whether TMA boxes fill the shared tile `allocation` (its key) whose K is dimension
/// `k_dimension`: it is written, and every write into it is a copy issued ahead that [`boxes_fill`]
/// serves: a `tile.copy_async`, or (before `tile-expand-pipelines` writes those) a `tile.copy`
/// among `ahead`, the copies the loops' rings will issue (`crate::pipeline::ahead::ring`).
pub fn tma_fills(ops: &[OperationRef], allocation: usize, k_dimension: usize, ahead: &[OperationRef]) -> bool {
    let owned = |tile: Value| crate::pipeline::rings::tile_allocation(tile).map(|allocation| key(&allocation));
    let mut writers = ops.iter().filter(|op| match op_name(op) {
        "tile.copy" => copy_parts(*op).is_some_and(|parts| owned(parts.dst) == Some(allocation)),
        "tile.copy_async" => copy_async_parts(*op).is_some_and(|(parts, _, _)| owned(parts.dst) == Some(allocation)),
        _ => false,
    });
    let mut any = false;
    let all = writers.all(|writer| {
        any = true;
        let parts = match op_name(writer) {
            "tile.copy_async" => copy_async_parts(writer).map(|(parts, _, _)| parts),
            _ => copy_parts(writer).filter(|_| ahead.contains(writer)),
        };
        parts.is_some_and(|parts| boxes_fill(&parts, k_dimension))
    });
    any && all
}

/// The allocations among `core_tiles` that TMA fills ([`tma_fills`]: rings of a pipelined loop's
/// operand tiles).
pub fn swizzled_tiles(ops: &[OperationRef], core_tiles: &HashMap<usize, usize>) -> std::collections::HashSet<usize> {
    core_tiles
        .iter()
        .filter(|(allocation, k_dimension)| tma_fills(ops, **allocation, **k_dimension, &[]))
        .map(|(allocation, _)| *allocation)
        .collect()
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// The copy `op` (a `tile.copy_async` of `parts` counting on `barriers[index]`) as TMA boxes
    /// of `box_` into `tile`, issued by thread 0 after it adds their bytes to the barrier's
    /// expected transactions; the tile's ring is marked to start on [`SWIZZLED_ALIGNMENT`].
    pub(super) fn copy_by_tma(
        &self,
        op: OperationRef<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        barriers: Value<'c, 'a>,
        index: Value<'c, 'a>,
        box_: Vec<i64>,
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
            let alignment = IntegerAttribute::new(IntegerType::new(context, 64).into(), SWIZZLED_ALIGNMENT);
            tile_dialect::ops::set_attribute(allocation, ALIGNMENT_ATTRIBUTE, alignment.into());
        }
        let map = self.tensor_map(&b, at, parts.src, &box_);
        if let Some(result) = tile_dialect::ops::as_result(barriers) {
            tile_dialect::ops::set_attribute(
                result.owner(),
                crate::pipeline::nvidia::TMA_FILLS_ATTRIBUTE,
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
        let barrier = crate::pipeline::nvidia::barrier_pointer(&b, leader, barriers, index);
        let element_bytes = operand_bytes(tile).expect("a TMA-filled tile");
        let bytes = rows * columns * element_bytes;
        let expected = b.value(
            leader,
            melior::dialect::arith::constant(context, IntegerAttribute::new(i32_type, bytes).into(), b.location),
        );
        b.insert(
            leader,
            OperationBuilder::new("nvvm.mbarrier.expect_tx", b.location)
                .add_operands(&[barrier, expected])
                .build()
                .expect("nvvm.mbarrier.expect_tx"),
        );
        let base = b.aligned_pointer(leader, tile);
        let base = b.cast(leader, "arith.index_cast", base, i64_type);
        // Coordinates innermost first: the column, the row, then the leading offsets inwards out.
        let coordinate = |value: Value<'c, 'a>| b.cast(leader, "arith.index_cast", value, i32_type);
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
            let address = b.op(leader, "arith.addi", &[base, box_bytes]);
            let destination = b.cast(leader, "llvm.inttoptr", address, shared_pointer);
            // The instruction writes through a shared::cluster address (this block's own shared
            // memory when no cluster is launched).
            let destination = b.cast(leader, "llvm.addrspacecast", destination, cluster_pointer);
            let shift = b.value(
                leader,
                melior::dialect::arith::constant(
                    context,
                    IntegerAttribute::new(i32_type, box_index * box_columns).into(),
                    b.location,
                ),
            );
            let box_column = b.op(leader, "arith.addi", &[column, shift]);
            let mut operands = vec![destination, map];
            operands.push(box_column);
            operands.extend(rest.iter().copied());
            operands.push(barrier);
            let segments = crate::attributes::i32_array(context, &[1, 1, rank as i32, 1, 0, 0, 0, 0]);
            b.insert(
                leader,
                OperationBuilder::new("nvvm.cp.async.bulk.tensor.shared.cluster.global", b.location)
                    .add_operands(&operands)
                    .add_attributes(&[(Identifier::new(context, "operandSegmentSizes"), segments)])
                    .build()
                    .expect("nvvm.cp.async.bulk.tensor.shared.cluster.global"),
            );
        }
        erase(context, op);
    }

    /// The tensor map of global tensor `tensor` with box `box_` (outermost first): until the
    /// kernel takes it as a parameter, a cast of the tensor marked with [`TENSOR_MAP_BOX`].
    pub(super) fn tensor_map(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        tensor: Value<'c, 'a>,
        box_: &[i64],
    ) -> Value<'c, 'a> {
        let pointer = crate::attributes::llvm_pointer(self.context, 0);
        let box_attribute = crate::attributes::i64_array(self.context, box_);
        b.value(
            at,
            OperationBuilder::new("builtin.unrealized_conversion_cast", b.location)
                .add_operands(&[tensor])
                .add_attributes(&[(Identifier::new(self.context, TENSOR_MAP_BOX), box_attribute)])
                .add_results(&[pointer])
                .build()
                .expect("builtin.unrealized_conversion_cast"),
        )
    }
}
