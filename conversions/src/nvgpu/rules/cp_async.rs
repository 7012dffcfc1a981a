//! Ring copies into plain row-major shared tiles that the threads read (a dequantized GEMM's packed
//! weights and scales), on a target whose rings wait on mbarriers: one unswizzled TMA box a step
//! where one serves ([`plain_tma_box`]: a tensor of static sizes; a producer warpgroup may then
//! issue it), else 16-byte `cp.async` pieces issued by the block's threads, left running and
//! counted on the ring's barriers (`crate::pipeline::mbarriers`: each thread's
//! `cp.async.mbarrier.arrive`), where a synchronous copy would load element by element and stall
//! every step on global memory. Also the threads' 16-byte pieces into wgmma's core-matrix tiles (a
//! piece is one core-matrix row; [`super::wgmma`] decides which copies).

use super::wgmma::{core_place, slab_elements};
use super::*;
use tile_dialect::positions::OperationAt;

/// Where a piece of a copy lands in its tile.
#[derive(Clone, Copy)]
pub(super) enum Placement {
    /// At the element's core-matrix place in column slabs of `slab` elements.
    CoreMatrices { slab: i64 },
    /// At the element's own index (a row-major tile).
    RowMajor,
}

impl Placement {
    /// Where the element at `coordinates` of a tile of `shape` lands.
    fn place<'c, 'a>(
        self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
        shape: &[i64],
    ) -> Vec<Value<'c, 'a>> {
        match self {
            Placement::CoreMatrices { slab } => core_place(b, at, coordinates[0], coordinates[1], shape, slab),
            Placement::RowMajor => coordinates.to_vec(),
        }
    }
}

/// The pieces a thread copies of the plain shared tile that `op` fills from a global tensor: 16
/// bytes along the rows, consecutive threads taking consecutive pieces. `None` unless `op` is a
/// `tile.copy_async` from a global tensor (with offsets) into a whole row-major shared tile of its
/// element type, whose rows are whole pieces, in a kernel of `threads` threads.
pub(super) fn plain_pieces(op: &OperationRef, threads: i64) -> Option<crate::registers::Placed> {
    if !is(op, tile::CopyAsyncOperation::name) {
        return None;
    }
    let (parts, _, _) = copy_async_parts(op)?;
    let fits = level(parts.src) == Some(MemoryLevel::Global)
        && level(parts.dst) == Some(MemoryLevel::Shared)
        && !parts.src_offsets.is_empty()
        && parts.dst_offsets.is_empty()
        && element_type(parts.src) == element_type(parts.dst)
        && crate::layout::stored::stored(parts.dst).is_none();
    let element = tile_dialect::element::Element::of(element_type(parts.dst))?;
    let bytes = element.bytes() as i64;
    let shape = memref_shape(parts.dst);
    let slab = 16 / bytes;
    let whole_pieces = 16 % bytes == 0 && shape.last().is_some_and(|columns| columns % slab == 0);
    if !fits || !whole_pieces || element.is_packed() {
        return None;
    }
    crate::registers::Placed::of(crate::layout::atoms::blocked_in_chunks(&shape, threads, slab)).ok()
}

/// The plain shared tiles (not among `core_tiles`, by allocation) that TMA alone fills: every write
/// into them is a ring copy [`plain_tma_box`] serves, into rings whose every copy is TMA's (the
/// core tiles' where `swizzled` holds them). A ring the threads fill in part keeps their cp.async
/// for its plain tiles too: one box among the threads' pieces made the Mamba-2 chunk scan 9%
/// slower (RESULTS run 243), and only an all-TMA ring can have a producer warpgroup.
pub(super) fn plain_tma_tiles(
    ops: &[OperationRef],
    core_tiles: &HashMap<usize, Vec<usize>>,
    swizzled: &std::collections::HashSet<usize>,
) -> std::collections::HashSet<usize> {
    let owned = |tile: Value| crate::pipeline::rings::tile_allocation(tile).map(|allocation| key(&allocation));
    let ring_of = |barriers: Value| tile_dialect::ops::as_result(barriers).map(|result| key(&result.owner()));
    // Per ring (its barriers), whether TMA fills all of it; per plain tile, its rings, or None
    // where something else writes it.
    let mut ring_by_tma: HashMap<usize, bool> = HashMap::new();
    let mut plain_rings: HashMap<usize, Option<Vec<usize>>> = HashMap::new();
    for op in ops {
        let written = match_op!(op, {
            tile::CopyAsyncOperation => copy_async_parts(op).map(|(parts, _, _)| parts.dst),
            tile::CopyOperation => copy_parts(op).map(|parts| parts.dst),
            tile::FillOperation => op.operand_at(0),
            memref::StoreOperation | memref::AtomicRMWOperation => op.operand_at(1),
            vector::StoreOperation => op.operand_at(1),
            _ => None,
        });
        let Some(allocation) = written.and_then(owned) else {
            continue;
        };
        let copy = copy_async_parts(op);
        let boxed = copy
            .as_ref()
            .is_some_and(|(parts, _, _)| match core_tiles.contains_key(&allocation) {
                true => swizzled.contains(&allocation),
                false => plain_tma_box(parts).is_some(),
            });
        let ring = copy.and_then(|(_, barriers, _)| ring_of(barriers));
        if let Some(ring) = ring {
            *ring_by_tma.entry(ring).or_insert(true) &= boxed;
        }
        if core_tiles.contains_key(&allocation) {
            continue;
        }
        let rings = plain_rings.entry(allocation).or_insert_with(|| Some(Vec::new()));
        match (boxed, ring) {
            (true, Some(ring)) => {
                if let Some(rings) = rings {
                    rings.push(ring);
                }
            }
            _ => *rings = None,
        }
    }
    plain_rings
        .into_iter()
        .filter(|(_, rings)| {
            rings
                .as_ref()
                .is_some_and(|rings| rings.iter().all(|ring| ring_by_tma.get(ring) == Some(&true)))
        })
        .map(|(allocation, _)| allocation)
        .collect()
}

/// The unswizzled TMA box ([`crate::layout::tma::plain_box`]) that fills the whole plain tile a
/// ring copy `parts` writes (the copies [`plain_pieces`] takes), where one serves.
pub(super) fn plain_tma_box(parts: &tile_dialect::ops::CopyParts) -> Option<Vec<i64>> {
    let plain = level(parts.src) == Some(MemoryLevel::Global)
        && level(parts.dst) == Some(MemoryLevel::Shared)
        && !parts.src_offsets.is_empty()
        && parts.dst_offsets.is_empty()
        && crate::layout::stored::stored(parts.dst).is_none();
    plain
        .then(|| crate::layout::tma::plain_box(parts.src, &parts.spans, parts.dst))
        .flatten()
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// A ring's `tile.copy_async` into a plain shared tile ([`plain_pieces`]): one unswizzled TMA
    /// box where the plan has TMA fill the tile (`by_tma`: [`plain_tma_tiles`]), else 16-byte
    /// cp.async pieces left running where the tensor's rows and the tile's offset allow, the
    /// elements one by one (zeros past the tensor's end) where they do not.
    pub(super) fn copy_to_plain_tile(&self, op: OperationRef<'c, 'a>, by_tma: bool) {
        let b = self.builder(&op);
        let at = At::before(op);
        let (parts, barriers, index) = copy_async_parts(&op).expect("checked");
        let tile = parts.dst;
        // One unswizzled TMA box where the ring is all TMA's ([`plain_tma_tiles`]): a single
        // thread's instruction (a producer's, where the loop has one), no pieces for every thread
        // to issue and count.
        if let Some(box_) = plain_tma_box(&parts).filter(|_| by_tma) {
            return self.copy_by_tma(op, &parts, tile, barriers, index, box_, false);
        }
        let pieces = plain_pieces(&op, self.threads).expect("checked");
        // The ring's barriers now count copies the threads issue (and read: no fence for wgmma).
        if let Some(result) = tile_dialect::ops::as_result(barriers) {
            tile_dialect::ops::set_attribute(
                result.owner(),
                crate::pipeline::mbarriers::THREAD_COPIES_ATTRIBUTE,
                Attribute::unit(self.context),
            );
        }
        // The elements a misaligned source leaves to the loop are stored before the thread
        // arrives on the ring's barrier.
        self.copy_pieces_or_elements(&b, at, &parts, tile, &pieces, Placement::RowMajor, false);
        erase(self.context, op);
    }

    /// Copies `parts` into `tile` in 16-byte cp.async pieces ([`Self::copy_rows_async`], waited
    /// for with `wait`) where the source's base, the tile's offset and the rows' length allow,
    /// else element by element ([`Self::copy_elements_looped`]; misaligned sources are rare:
    /// allocators align to 256 bytes).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_pieces_or_elements(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        pieces: &crate::registers::Placed,
        placement: Placement,
        wait: bool,
    ) {
        let slab = slab_elements(element_type(tile));
        let aligned = crate::registers::patterns::runs_aligned(b, at, parts.src, &parts.src_offsets, slab);
        let fast = b.if_then(at, aligned);
        self.copy_rows_async(b, fast, parts, tile, pieces, placement, wait);
        let unaligned = b.xori(at, aligned, b.integer(at, IntegerType::new(self.context, 1).into(), 1));
        self.copy_elements_looped(b, b.if_then(at, unaligned), parts, tile, placement);
    }

    /// The tile's elements dealt out to the threads by a loop (small code), each copied by
    /// [`Self::copy_element`].
    pub(super) fn copy_elements_looped(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        placement: Placement,
    ) {
        let shape = memref_shape(tile);
        let end = b.index(at, shape.iter().product());
        let step = b.index(at, self.threads);
        let (inside, flat) = b.for_loop(at, self.tid, end, step);
        let coordinates = b.unflatten(inside, flat, &shape);
        self.copy_element(b, inside, parts, tile, &coordinates, placement);
    }

    /// Copies the element at `coordinates` of `tile` from `parts`' source to its `placement`
    /// place: zero, then the source's value where it is inside the source (converted to the
    /// tile's element type).
    pub(super) fn copy_element(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
        placement: Placement,
    ) {
        let ty = element_type(tile);
        let (indices, fits) = self.placed_in(b, at, parts.src, &Origin::of_src(parts), coordinates);
        let place = placement.place(b, at, coordinates, &memref_shape(tile));
        let zero = b.constant(at, ty, 0.0);
        b.store(at, zero, tile, &place);
        let load_at = fits.map_or(at, |fits| b.if_then(at, fits));
        let value = b.load(load_at, parts.src, &indices);
        let value = convert(b, load_at, value, ty);
        b.store(load_at, value, tile, &place);
    }

    /// Copies the tile's rows in 16-byte pieces (`pieces` deals them out: one core-matrix row, or
    /// 16 bytes of a row-major tile's row) with `nvgpu.device_async_copy`, each where `placement`
    /// puts it, then (with `wait`) waits for them; a piece reaching past the tensor's end copies
    /// what is there and fills the rest with zeros.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_rows_async(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        parts: &tile_dialect::ops::CopyParts<'c, 'a>,
        tile: Value<'c, 'a>,
        pieces: &crate::registers::Placed,
        placement: Placement,
        wait: bool,
    ) {
        let shape = &pieces.layout.shape;
        let slab = slab_elements(element_type(tile));
        let offsets = self.offsets(b, at, pieces);
        let token_type = Type::parse(self.context, "!nvgpu.device.async.token").expect("token type");
        for slot in pieces.distribution.used_slots().filter(|slot| *slot as i64 % slab == 0) {
            let coordinates = self.coordinates(b, at, pieces, &offsets, slot);
            let inner = self.guarded(b, at, pieces, &coordinates);
            let (indices, _) = self.placed_in(b, inner, parts.src, &Origin::of_src(parts), &coordinates);
            let at = inner;
            // Elements of the piece inside the tensor (0 past its end), and indices kept inside it.
            let last = indices.len() - 1;
            let (c0, c_slab) = (b.index(at, 0), b.index(at, slab));
            let mut rows_inside: Option<Value> = None;
            let mut clamped = Vec::new();
            for (d, index) in indices.iter().enumerate() {
                let size = b.dim(at, parts.src, d as i64);
                let inside = b.compare(at, "ult", *index, size);
                if d < last {
                    rows_inside = Some(match rows_inside {
                        Some(previous) => b.andi(at, previous, inside),
                        None => inside,
                    });
                }
                clamped.push(b.select(at, inside, *index, c0));
            }
            let size = b.dim(at, parts.src, last as i64);
            let column_inside = b.compare(at, "ult", indices[last], size);
            let left = b.subi(at, size, indices[last]);
            let left = b.minui(at, left, c_slab);
            let all_inside = match rows_inside {
                Some(rows) => b.andi(at, rows, column_inside),
                None => column_inside,
            };
            let elements = b.select(at, all_inside, left, c0);
            // A piece is 16 bytes along the tile's rows: in a core-matrix tile of K where it is
            // K-major, of N where MN-major, either way one row of a core matrix.
            let place = placement.place(b, at, &coordinates, shape);
            // The operands in the op's order (the builder adds them as called): the tile and the
            // place, the tensor and the indices, then the elements to copy.
            let copy = nvgpu::DeviceAsyncCopyOperation::builder(self.context, b.location)
                .async_token(token_type)
                .dst(tile)
                .dst_indices(&place)
                .src(parts.src)
                .src_indices(&clamped)
                .src_elements(elements)
                .dst_elements(IntegerAttribute::new(Type::index(self.context), slab))
                .bypass_l_1(Attribute::unit(self.context))
                .build();
            let segments = [1, place.len() as i32, 1, clamped.len() as i32, 1];
            b.insert(at, tile_ir::with_segments(self.context, copy, &segments));
        }
        if !wait {
            return;
        }
        // The thread's copies as one group, waited for; the group is the thread's, so copies
        // issued under a guard (tiles whose pieces do not split evenly over the threads) need no
        // token that reaches out of their branch.
        b.insert(at, nvvm::cp_async_commit_group(self.context, b.location).into());
        let none_pending = IntegerAttribute::new(IntegerType::new(self.context, 32).into(), 0);
        b.insert(
            at,
            nvvm::cp_async_wait_group(self.context, none_pending, b.location).into(),
        );
    }
}

/// Warns at each copy of `ops` from a global tensor into a shared tile that moves element by
/// element because the tensor's rows, of a static length, are not a multiple of 16 bytes: TMA
/// boxes and 16-byte cp.async both need 16-byte rows. Once a source location: a ring's
/// `tile.copy_async`s are the program's `tile.copy`, and share its location.
pub(super) fn warn_unaligned_rows(ops: &[OperationRef], target: &crate::target::Target) {
    let mut warned = HashSet::new();
    for op in ops {
        let parts = match_op!(op, {
            tile::CopyOperation => copy_parts(op),
            tile::CopyAsyncOperation => copy_async_parts(op).map(|(parts, _, _)| parts),
            _ => None,
        });
        let Some(parts) = parts else { continue };
        if level(parts.src) != Some(MemoryLevel::Global) || level(parts.dst) != Some(MemoryLevel::Shared) {
            continue;
        }
        let Some(element) = tile_dialect::element::Element::of(element_type(parts.src)) else {
            continue;
        };
        let length = tile_dialect::ops::as_memref(parts.src.r#type())
            .and_then(|memref| tile_dialect::ops::static_sizes(memref).last().copied().flatten());
        let Some(length) = length else { continue };
        let bytes = length * element.bits() as i64 / 8;
        if element.is_packed() || bytes % 16 == 0 || !warned.insert(format!("{}", op.location())) {
            continue;
        }
        let multiple = 128 / element.bits();
        tile_dialect::diagnostics::emit_warning(
            op.location(),
            &format!(
                "'tile.copy' op copies element by element on {target}: its tensor's rows ({length} x {}, {bytes} bytes) are not a multiple of 16 bytes, which TMA boxes and 16-byte cp.async need; give the tensor rows of a multiple of {multiple} elements (padding them)",
                element.name()
            ),
        );
    }
}
