//! Layout inference for one kernel, in TileLang's three steps:
//!
//! 1. **strict**: layouts written in the input, then the layouts the target's matrix instructions
//!    impose on each `tile.gemm`'s operands ([`super::anchors`]);
//! 2. **common**: a worklist over the other ops until nothing changes: `tile.reduce` gives its
//!    destination the source's layout with the reduced dimension turned into replicas; a whole-tile
//!    fragment-to-fragment `tile.copy` (any element types) gives the other side the same layout; a
//!    `tile.parallel` takes the layout of a laid-out fragment it indexes by exactly its loop indices
//!    (a written one first) and gives the fragments it indexes by a subset of them the projection;
//! 3. **free**: a loop nothing laid out gets the blocked layout (and step 2 runs again from it); a
//!    fragment still without one gets the blocked layout, a shared tile the row-major one.
//!
//! A tile wanted in two layouts that do not agree (a fragment whose elements two ops want on
//! different threads, a reduction's destination that does not hold what the reduction leaves on a
//! thread, a shared tile two instructions read differently) is an error naming both ops.

use super::{Layout, anchors, atoms};
use crate::cpu::structure::is_allocation;
use crate::kernels::Failure;
use crate::target::Target;
use melior::ir::{
    BlockLike, RegionLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use std::collections::HashMap;
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    layout::{FragmentLayout, LAYOUT_ATTRIBUTE, LOOP_LAYOUT_ATTRIBUTE, SharedLayout},
    level::{MemoryLevel, memory_level},
    ops::{copy_parts, integer_attribute, memref_shape, nested_ops, op_name},
};
use tile_ir::{match_op, memref, tile};

/// A tile's layout and the op that decided it.
struct Decision<'c, 'a> {
    layout: Layout,
    by: OperationRef<'c, 'a>,
}

/// The layouts of one kernel's tiles (by allocation) and loops.
pub struct Inferred<'c, 'a> {
    /// Each allocation and its tile's layout.
    pub tiles: Vec<(OperationRef<'c, 'a>, Layout)>,
    /// Each `tile.parallel` and its loop layout.
    pub loops: Vec<(OperationRef<'c, 'a>, FragmentLayout)>,
    /// The fragments (their allocations) that `tile.parallel`s (the first of each pair) only read,
    /// laid out where the loop does not run: each loop needs a copy of its own in the layout it
    /// reads it in. Empty when the layouts above are the kernel's.
    pub conversions: Vec<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)>,
}

fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The allocation a tile value comes from.
fn allocation<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let owner = tile_dialect::ops::as_result(value)?.owner();
    is_allocation(&owner).then_some(owner)
}

fn is_fragment(value: Value) -> bool {
    memory_level(value.r#type()) == Some(MemoryLevel::Fragment)
}

fn describe(op: &OperationRef) -> String {
    format!("'{}' at {}", op_name(op), op.location())
}

struct Inference<'c, 'a> {
    chip: &'static Target,
    threads: i64,
    tiles: HashMap<usize, Decision<'c, 'a>>,
    loops: HashMap<usize, FragmentLayout>,
    conversions: Vec<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)>,
}

impl<'c, 'a> Inference<'c, 'a> {
    /// Records that `by` wants `tile` laid out as `layout`; an incompatible earlier decision is an
    /// error naming both ops. Returns whether anything changed.
    fn want(
        &mut self,
        tile: OperationRef<'c, 'a>,
        layout: Layout,
        by: OperationRef<'c, 'a>,
    ) -> Result<bool, Failure<'c, 'a>> {
        match self.tiles.get(&key(&tile)) {
            None => {
                self.tiles.insert(key(&tile), Decision { layout, by });
                Ok(true)
            }
            Some(decided) if decided.layout.agrees(&layout) => Ok(false),
            Some(decided) => Err(self.conflict(tile, &decided.by, &decided.layout, &by, &layout)),
        }
    }

    fn conflict(
        &self,
        tile: OperationRef<'c, 'a>,
        first: &OperationRef,
        had: &Layout,
        second: &OperationRef,
        wants: &Layout,
    ) -> Failure<'c, 'a> {
        let by_attribute = *first == tile;
        let first = if by_attribute {
            format!("its {LAYOUT_ATTRIBUTE} attribute")
        } else {
            describe(first)
        };
        // A shared tile laid out for the TMA ring the planning passes build, lowered without them
        // (the threads copy it): the fix is the passes, not another tile.
        let swizzled = |layout: &Layout| matches!(layout, Layout::Shared(shared) if shared.swizzle > 0);
        let fix = if by_attribute
            && swizzled(had) != swizzled(wants)
            && matches!((had, wants), (Layout::Shared(_), Layout::Shared(_)))
        {
            "TMA fills a swizzled tile only from the rings of tile-plan-pipelines and tile-expand-pipelines, in boxes that serve every gemm reading it (run them before the lowering, as the tile-to-nvvm pipeline does, or drop the attribute)"
        } else {
            "give each use a tile of its own (copy it, through shared memory where the threads differ)"
        };
        // Two layouts of one origin differ in their maps: say so, or the message reads as a
        // conflict of a layout with itself.
        let (had, wants) = (had.summary(), wants.summary());
        let wants = if had == wants {
            format!(
                "another {} (other thread or slot maps)",
                wants.trim_start_matches("the ")
            )
        } else {
            wants
        };
        (
            tile,
            format!(
                "has no consistent layout on {}: {} lays it out as {}, {} wants {}; {fix}",
                self.chip,
                first,
                had,
                describe(second),
                wants
            ),
        )
    }

    fn fragment(&self, tile: &OperationRef) -> Option<&FragmentLayout> {
        match self.tiles.get(&key(tile)) {
            Some(Decision {
                layout: Layout::Fragment(layout),
                ..
            }) => Some(layout),
            _ => None,
        }
    }

    /// `tile.reduce`: the destination holds what the reduction leaves on each thread.
    fn reduce(&mut self, op: OperationRef<'c, 'a>) -> Result<bool, Failure<'c, 'a>> {
        let (Some(src), Some(dst)) = (
            op.operand_at(0).and_then(allocation),
            op.operand_at(1).and_then(allocation),
        ) else {
            return Ok(false);
        };
        let Some(source) = self.fragment(&src).cloned() else {
            return Ok(false);
        };
        let dim = integer_attribute(&op, "dim").unwrap_or(0) as usize;
        let kept: Vec<usize> = (0..source.shape.len()).filter(|d| *d != dim).collect();
        let derived = atoms::project(&source, &kept);
        match self.tiles.get(&key(&dst)) {
            None => self.want(dst, Layout::Fragment(derived), op),
            Some(Decision {
                layout: Layout::Fragment(held),
                ..
            }) if covers(held, &derived) => Ok(false),
            Some(decided) => Err(self.conflict(dst, &decided.by, &decided.layout, &op, &Layout::Fragment(derived))),
        }
    }

    /// A whole-tile fragment-to-fragment `tile.copy`: both sides in one layout (a per-thread copy,
    /// converting each element), or a wgmma accumulator into the 8-bit A operand its gemm reads
    /// from registers (an exchange within each quad of lanes, [`atoms::quad_exchange`]).
    fn copy(&mut self, op: OperationRef<'c, 'a>) -> Result<bool, Failure<'c, 'a>> {
        let Some(parts) = copy_parts(&op) else { return Ok(false) };
        if !parts.src_offsets.is_empty()
            || !parts.dst_offsets.is_empty()
            || !is_fragment(parts.src)
            || !is_fragment(parts.dst)
        {
            return Ok(false);
        }
        let (Some(src), Some(dst)) = (allocation(parts.src), allocation(parts.dst)) else {
            return Ok(false);
        };
        match (self.fragment(&src).cloned(), self.fragment(&dst).cloned()) {
            (Some(layout), None) => self.want(dst, Layout::Fragment(layout), op),
            (None, Some(layout)) => self.want(src, Layout::Fragment(layout), op),
            (Some(source), Some(target)) if !source.same_owners(&target) && !atoms::quad_exchange(&source, &target) => {
                let decided = &self.tiles[&key(&dst)];
                Err(self.conflict(dst, &decided.by, &decided.layout, &op, &Layout::Fragment(source)))
            }
            _ => Ok(false),
        }
    }

    /// `tile.parallel`: the loop's layout from a fragment it indexes by its loop indices, and the
    /// fragments it indexes by a subset of them from the loop's.
    fn parallel(&mut self, op: OperationRef<'c, 'a>, free: bool) -> Result<bool, Failure<'c, 'a>> {
        let extents = tile_dialect::ops::parallel_extents(&op).unwrap_or_default();
        let accesses = accesses(op);
        let mut changed = false;
        if !self.loops.contains_key(&key(&op)) {
            let identity: Vec<usize> = (0..extents.len()).collect();
            let source = accesses
                .iter()
                .filter(|access| access.dims.as_deref() == Some(&identity[..]))
                .filter_map(|access| Some((access.write, self.fragment(&access.tile)?.clone())))
                .filter(|(_, layout)| layout.shape == extents)
                .max_by_key(|(write, _)| *write)
                .map(|(_, layout)| layout);
            let layout = match source {
                Some(layout) => layout,
                None if free => self
                    .core_matrix_loop(op, &extents, &accesses)
                    .unwrap_or_else(|| self.free_loop_layout(&extents, &accesses)),
                None => return Ok(false),
            };
            self.loops.insert(key(&op), layout);
            changed = true;
        }
        let loop_layout = self.loops[&key(&op)].clone();
        for access in &accesses {
            let Some(dims) = &access.dims else { continue };
            let wanted = atoms::project(&loop_layout, dims);
            // A loop over part of a fragment says nothing about the rest of it.
            if wanted.shape
                != access
                    .tile
                    .result_at(0)
                    .map(|tile| memref_shape(tile.into()))
                    .unwrap_or_default()
            {
                continue;
            }
            match self.tiles.get(&key(&access.tile)) {
                None => changed |= self.want(access.tile, Layout::Fragment(wanted), op)?,
                Some(Decision {
                    layout: Layout::Fragment(held),
                    ..
                }) if runs_where_held(&loop_layout, dims, held) => {}
                // A fragment the loop only reads: it reads a copy in the layout it runs in.
                Some(Decision {
                    layout: Layout::Fragment(_),
                    ..
                }) if !accesses.iter().any(|other| other.tile == access.tile && other.write) => {
                    if !self.conversions.contains(&(op, access.tile)) {
                        self.conversions.push((op, access.tile));
                    }
                }
                Some(decided) => {
                    return Err(self.conflict(
                        access.tile,
                        &decided.by,
                        &decided.layout,
                        &access.op,
                        &Layout::Fragment(wanted),
                    ));
                }
            }
        }
        Ok(changed)
    }
}

impl<'c, 'a> Inference<'c, 'a> {
    /// A fragment nothing lays out: the blocked layout, with the chunk length chosen so that what is
    /// already laid out around it agrees: a reduction's laid-out destination holds what the
    /// reduction leaves on each thread, laid-out loops that index it by their indices run where
    /// its elements are.
    fn free_fragment_layout(&self, fragment: OperationRef<'c, 'a>, ops: &[OperationRef<'c, 'a>]) -> FragmentLayout {
        let shape = fragment
            .result_at(0)
            .map(|result| memref_shape(result.into()))
            .unwrap_or_default();
        let default = atoms::blocked(&shape, self.threads);
        let value: Value = fragment.result_at(0).expect("a fragment").into();
        let fits = |candidate: &FragmentLayout| {
            ops.iter().all(|op| {
                match_op!(op, {
                    tile::ReduceOperation if op.operand_at(0).is_some_and(|src| src == value) => {
                        let dim = integer_attribute(op, "dim").unwrap_or(0) as usize;
                        let kept: Vec<usize> = (0..shape.len()).filter(|d| *d != dim).collect();
                        match op
                            .operand_at(1)
                            .and_then(allocation)
                            .and_then(|dst| self.fragment(&dst))
                        {
                            Some(held) => covers(held, &atoms::project(candidate, &kept)),
                            None => true,
                        }
                    },
                    tile::ParallelOperation => match self.loops.get(&key(op)) {
                        Some(loop_layout) => accesses(*op)
                            .iter()
                            .filter(|access| access.tile == fragment)
                            .all(|access| {
                                access
                                    .dims
                                    .as_ref()
                                    .is_none_or(|dims| runs_where_held(loop_layout, dims, candidate))
                            }),
                        None => true,
                    },
                    _ => true,
                })
            })
        };
        if fits(&default) {
            return default;
        }
        let last = shape.last().copied().unwrap_or(1);
        (1..=last)
            .filter(|chunk| last % chunk == 0)
            .map(|chunk| atoms::blocked_in_chunks(&shape, self.threads, chunk))
            .find(|layout| fits(layout))
            .unwrap_or(default)
    }

    /// The layout of a loop nothing else lays out that stores, at its own indices, every element
    /// of a 2-D shared tile kept in column slabs (a wgmma operand the threads write: a dequantized
    /// weight tile): each thread a slab's row at a time ([`atoms::core_matrix_chunks`]), so that
    /// its elements are one 16-byte run of the tile and eight neighbouring threads write one
    /// 128-byte core matrix (the blocked layout's four elements a thread put a warp's stores 512
    /// bytes apart, in the same banks). `None` where the loop does not store so, or where the
    /// fragments it reads at a subset of its indices would not lie where its iterations run.
    fn core_matrix_loop(
        &self,
        parallel: OperationRef<'c, 'a>,
        extents: &[i64],
        accesses: &[Access<'c, 'a>],
    ) -> Option<FragmentLayout> {
        let [rows, columns] = extents[..] else { return None };
        let block = parallel.body()?;
        let indices: Vec<Value> = (0..2).filter_map(|i| block.argument_at(i).map(Into::into)).collect();
        let slab = std::iter::successors(block.first_operation(), |op| op.next_in_block())
            .filter(|op| tile_ir::is(op, memref::StoreOperation::name))
            .find_map(|store| {
                let tile = store.operand_at(1)?;
                let at: Vec<Value> = (2..store.operand_count()).filter_map(|i| store.operand_at(i)).collect();
                if memory_level(tile.r#type()) != Some(MemoryLevel::Shared)
                    || memref_shape(tile) != extents
                    || at != indices
                {
                    return None;
                }
                match &self.tiles.get(&key(&allocation(tile)?))?.layout {
                    Layout::Shared(shared)
                        if shared.swizzle == 0 && shared.boxes > 1 && shared.r#box.first() == Some(&rows) =>
                    {
                        shared.r#box.get(1).copied()
                    }
                    _ => None,
                }
            })?;
        let layout = (rows % 8 == 0 && columns % slab == 0 && rows * columns >= self.threads * slab)
            .then(|| atoms::core_matrix_chunks(extents, self.threads, slab))?;
        accesses
            .iter()
            .filter_map(|access| Some((access.dims.as_ref()?, self.fragment(&access.tile)?)))
            .all(|(dims, held)| runs_where_held(&layout, dims, held))
            .then_some(layout)
    }

    /// A loop nothing lays out: the blocked layout, with the chunk length along the last dimension
    /// chosen so that the fragments it reads at a subset of its indices (a row statistic) already
    /// lie where its iterations run, when some chunk length does that.
    fn free_loop_layout(&self, extents: &[i64], accesses: &[Access<'c, 'a>]) -> FragmentLayout {
        let default = atoms::blocked(extents, self.threads);
        let laid: Vec<(&Vec<usize>, &FragmentLayout)> = accesses
            .iter()
            .filter_map(|access| Some((access.dims.as_ref()?, self.fragment(&access.tile)?)))
            .collect();
        let fits = |layout: &FragmentLayout| laid.iter().all(|(dims, held)| runs_where_held(layout, dims, held));
        if fits(&default) {
            return default;
        }
        let last = extents.last().copied().unwrap_or(1);
        (1..=last)
            .filter(|chunk| last % chunk == 0)
            .map(|chunk| atoms::blocked_in_chunks(extents, self.threads, chunk))
            .find(|layout| fits(layout))
            .unwrap_or(default)
    }
}

/// Whether every thread that holds an element of `derived` holds it in `held` too.
fn covers(held: &FragmentLayout, derived: &FragmentLayout) -> bool {
    if held == derived {
        return true;
    }
    if held.shape != derived.shape {
        return false;
    }
    let (held, derived) = (held.table(), derived.table());
    (0..derived.len()).all(|element| {
        let holders = held.owners(element);
        derived
            .owners(element)
            .iter()
            .all(|thread| holders.binary_search(thread).is_ok())
    })
}

/// Whether each iteration of a loop laid out as `loop_layout` runs on threads that hold the element
/// it touches (fragment dimension `f` indexed by loop index `dims[f]`).
fn runs_where_held(loop_layout: &FragmentLayout, dims: &[usize], held: &FragmentLayout) -> bool {
    if dims
        .iter()
        .map(|&d| loop_layout.shape.get(d).copied())
        .collect::<Option<Vec<i64>>>()
        != Some(held.shape.clone())
    {
        return false;
    }
    if held == loop_layout && dims.iter().copied().eq(0..dims.len()) {
        return true;
    }
    // Each element's holders once, from the tables (a replicated layout lists many replicas per
    // element).
    let (holders, runners) = (held.table(), loop_layout.table());
    let mut element = vec![0; dims.len()];
    loop_layout.all_elements(|number, iteration| {
        for (coordinate, &d) in element.iter_mut().zip(dims) {
            *coordinate = iteration[d];
        }
        let holders = held.linear(&element).map_or(&[][..], |linear| holders.owners(linear));
        runners
            .owners(number)
            .iter()
            .all(|thread| holders.binary_search(thread).is_ok())
    })
}

/// A `memref.load`/`memref.store` of a fragment in a `tile.parallel` body.
struct Access<'c, 'a> {
    op: OperationRef<'c, 'a>,
    tile: OperationRef<'c, 'a>,
    /// Loop index of each fragment index, when each is one of the loop's indices.
    dims: Option<Vec<usize>>,
    write: bool,
}

/// The fragment accesses of a `tile.parallel`'s body, outside nested `tile.parallel`s.
fn accesses<'c, 'a>(parallel: OperationRef<'c, 'a>) -> Vec<Access<'c, 'a>> {
    let Some(body) = parallel.region_at(0) else {
        return Vec::new();
    };
    let Some(block) = body.first_block() else {
        return Vec::new();
    };
    let indices: Vec<Value> = (0..block.argument_count())
        .filter_map(|i| block.argument_at(i).map(Into::into))
        .collect();
    let mut found = Vec::new();
    let mut pending: Vec<OperationRef> = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        pending.push(op);
        next = op.next_in_block();
    }
    while let Some(op) = pending.pop() {
        if tile_ir::is(&op, tile::ParallelOperation::name) {
            continue;
        }
        let (memref, first_index, write) = match_op!(op, {
            memref::LoadOperation => (op.operand_at(0), 1, false),
            memref::StoreOperation => (op.operand_at(1), 2, true),
            _ => (None, 0, false),
        });
        if let Some(tile) = memref.filter(|memref| is_fragment(*memref)).and_then(allocation) {
            let dims = (first_index..op.operand_count())
                .map(|i| {
                    op.operand_at(i)
                        .and_then(|index| indices.iter().position(|loop_index| *loop_index == index))
                })
                .collect::<Option<Vec<usize>>>();
            found.push(Access { op, tile, dims, write });
        }
        for region in 0..op.region_count() {
            let Some(region) = op.region_at(region) else { continue };
            let mut block = region.first_block();
            while let Some(current) = block {
                let mut inner = current.first_operation();
                while let Some(nested) = inner {
                    pending.push(nested);
                    inner = nested.next_in_block();
                }
                block = current.next_in_region();
            }
        }
    }
    found
}

/// Infers the layout of every tile and loop of `kernel` for `chip`.
pub fn infer<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    chip: &'static Target,
    rings: super::Rings,
) -> Result<Inferred<'c, 'a>, Failure<'c, 'a>> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let mut inference = Inference {
        chip,
        threads,
        tiles: HashMap::new(),
        loops: HashMap::new(),
        conversions: Vec::new(),
    };
    let ops = nested_ops(kernel);
    let allocations: Vec<OperationRef> = ops.iter().copied().filter(|op| is_allocation(op)).collect();
    // Strict: what the input says, then what the instructions impose.
    for alloc in &allocations {
        let Ok(given) = alloc.attribute(LAYOUT_ATTRIBUTE) else {
            continue;
        };
        let layout = Layout::from_attribute(given).ok_or_else(|| {
            (*alloc, format!("expects its {LAYOUT_ATTRIBUTE} to be a #tile.frag (fragments) or #tile.smem (shared tiles), but got {given}"))
        })?;
        inference.tiles.insert(key(alloc), Decision { layout, by: *alloc });
    }
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::ParallelOperation::name)) {
        if let Some(given) = op
            .attribute(LOOP_LAYOUT_ATTRIBUTE)
            .ok()
            .and_then(FragmentLayout::from_attribute)
        {
            inference.loops.insert(key(op), given);
        }
    }
    let chained = ops
        .iter()
        .filter(|op| tile_ir::is(*op, tile::GemmOperation::name))
        .count()
        > 1;
    // TMA targets: the copies the loops' rings issue ahead, which TMA may fill wgmma's tiles with (as
    // `tile-plan-pipelines` marked them, or will).
    let ahead: Vec<OperationRef> = if chip.tma && rings == super::Rings::Forecast {
        crate::pipeline::ahead::issued_ahead(kernel, &ops)
    } else {
        Vec::new()
    };
    // TMA fills a tile only where its boxes serve every gemm that reads it (a tile read with each
    // dimension as K takes no box narrower than 128 bytes).
    let mut read_as_k: HashMap<usize, Vec<usize>> = HashMap::new();
    for gemm in ops.iter().filter(|op| tile_ir::is(*op, tile::GemmOperation::name)) {
        let Some(operands) = anchors::operands(*gemm) else {
            continue;
        };
        let [a_k, b_k] = crate::support::k_dimensions(operands.transpose_a, operands.transpose_b);
        for (tile, k_dimension) in [(operands.a, a_k), (operands.b, b_k)] {
            if let Some(allocation) = crate::pipeline::rings::tile_allocation(tile) {
                read_as_k.entry(key(&allocation)).or_default().push(k_dimension);
            }
        }
    }
    let tma = |tile: Value<'c, 'a>, k_dimension: usize| {
        crate::pipeline::rings::tile_allocation(tile).is_some_and(|allocation| {
            let readings = read_as_k.get(&key(&allocation)).map_or(&[][..], Vec::as_slice);
            std::iter::once(&k_dimension)
                .chain(readings)
                .all(|k| crate::layout::tma::tma_fills(&ops, key(&allocation), *k, &ahead))
        })
    };
    // What the instructions need first, then what they read fastest where nothing decided the tile
    // (the first gemm's preference where gemms differ: the instruction reads any layout).
    let mut preferences = Vec::new();
    for gemm in ops.iter().filter(|op| tile_ir::is(*op, tile::GemmOperation::name)) {
        for anchor in anchors::gemm_anchors(*gemm, chip, threads, chained, &tma) {
            // A ring's slot stands for the ring (`tile-expand-pipelines`).
            let Some(tile) = allocation(anchor.tile).or_else(|| crate::pipeline::rings::tile_allocation(anchor.tile))
            else {
                continue;
            };
            if anchor.preferred {
                preferences.push((tile, anchor.layout, *gemm));
            } else {
                inference.want(tile, anchor.layout, *gemm)?;
            }
        }
    }
    for (tile, layout, gemm) in preferences {
        if !inference.tiles.contains_key(&key(&tile)) {
            inference.want(tile, layout, gemm)?;
        }
    }
    // Common, then free: loops without a source take the blocked layout, one at a time, each
    // followed by common propagation again.
    loop {
        let mut changed = true;
        while changed {
            changed = false;
            for op in &ops {
                changed |= match_op!(op, {
                    tile::ReduceOperation => inference.reduce(*op)?,
                    tile::CopyOperation => inference.copy(*op)?,
                    tile::ParallelOperation => inference.parallel(*op, false)?,
                    _ => false,
                });
            }
        }
        if let Some(unlaid) = ops
            .iter()
            .find(|op| tile_ir::is(*op, tile::ParallelOperation::name) && !inference.loops.contains_key(&key(op)))
        {
            inference.parallel(*unlaid, true)?;
            continue;
        }
        // A fragment only copies and reductions touch: the blocked layout for the largest first, so
        // that what it reduces into follows it.
        let unlaid = allocations
            .iter()
            .filter(|alloc| {
                tile_ir::is(*alloc, tile::AllocFragmentOperation::name) && !inference.tiles.contains_key(&key(alloc))
            })
            .max_by_key(|alloc| {
                alloc
                    .result_at(0)
                    .map(|result| memref_shape(result.into()).len())
                    .unwrap_or(0)
            });
        let Some(unlaid) = unlaid.copied() else { break };
        let layout = inference.free_fragment_layout(unlaid, &ops);
        inference.want(unlaid, Layout::Fragment(layout), unlaid)?;
    }
    let mut tiles = Vec::new();
    for alloc in allocations {
        let layout = match inference.tiles.remove(&key(&alloc)) {
            Some(decision) => decision.layout,
            None if tile_ir::is(&alloc, tile::AllocFragmentOperation::name) => {
                let shape = alloc
                    .result_at(0)
                    .map(|result| memref_shape(result.into()))
                    .unwrap_or_default();
                Layout::Fragment(atoms::blocked(&shape, threads))
            }
            None => Layout::Shared(SharedLayout::row_major()),
        };
        if let Layout::Fragment(fragment) = &layout {
            let shape = alloc
                .result_at(0)
                .map(|result| memref_shape(result.into()))
                .unwrap_or_default();
            fragment
                .check(&shape, threads)
                .map_err(|message| (alloc, format!("has an invalid layout: {message}")))?;
        }
        tiles.push((alloc, layout));
    }
    let loops = ops
        .iter()
        .filter(|op| tile_ir::is(*op, tile::ParallelOperation::name))
        .filter_map(|op| Some((*op, inference.loops.remove(&key(op))?)))
        .collect();
    Ok(Inferred {
        tiles,
        loops,
        conversions: inference.conversions,
    })
}
