//! The tensor-core rules (sm_90a): which gemms run on wgmma and which shared tiles they read as core
//! matrices ([`wgmma_plan`]), the copies that write those tiles (16-byte cp.async where the
//! addresses allow), and the wgmma itself with its operands in shared memory or its A operand in
//! registers. The layout facts are in [`super::operands`].

use super::*;
use crate::pipeline::mbarriers::{i32_constant, named_barrier};
use tile_dialect::positions::{BlockAt, OperationAt};

// ---- wgmma --------------------------------------------------------------------------------------

/// The gemms among `gemms` whose accumulator the op before them (the nearest op of their block
/// that touches it) fills with zeros: a `tile.fill` of the constant 0 (0.0 for f32 accumulators,
/// 0 for i32 ones).
pub fn zero_started(
    ops: &[OperationRef],
    gemms: &std::collections::HashSet<usize>,
) -> std::collections::HashSet<usize> {
    ops.iter()
        .filter(|op| gemms.contains(&key(op)))
        .filter(|gemm| {
            let Some(accumulator) = gemm.operand_at(2) else {
                return false;
            };
            last_touching_before(**gemm, accumulator).is_some_and(|fill| {
                is(&fill, tile::FillOperation::name)
                    && fill.operand_count() == 2
                    && fill.operand_at(0) == Some(accumulator)
                    && fill.operand_at(1).is_some_and(|value| {
                        tile_dialect::ops::constant_float(value) == Some(0.0)
                            || tile_dialect::ops::constant_integer(value) == Some(0)
                    })
            })
        })
        .map(key)
        .collect()
}

/// The last op of `end`'s block before `end` that touches `value` (the block's ops walked
/// forwards: melior cannot walk backwards).
fn last_touching_before<'c, 'a>(end: OperationRef<'c, 'a>, value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let first = end.block().and_then(|block| block.first_operation());
    std::iter::successors(first, |op| op.next_in_block())
        .take_while(|op| *op != end)
        .filter(|op| uses(*op, &[value]))
        .last()
}

/// The gemms among `gemms` that enter their loop with the accumulator a fill wrote: the first op
/// of the loop's body to touch the accumulator, which the last op before the loop to touch it
/// fills. There the accumulator holds the fill's constant on entry, which LLVM materializes where
/// the first iteration (often peeled off) reads it: after that gemm's `wgmma.fence`, unless
/// something holds the values before it, and ptxas then serializes every wgmma of the kernel
/// (C7520, "compiler-inserted WG.AR in divergent path").
pub fn entered_from_fill(
    ops: &[OperationRef],
    gemms: &std::collections::HashSet<usize>,
) -> std::collections::HashSet<usize> {
    ops.iter()
        .filter(|op| gemms.contains(&key(op)))
        .filter(|gemm| {
            let Some(accumulator) = gemm.operand_at(2) else {
                return false;
            };
            let Some(body) = gemm.block() else { return false };
            let Some(looped) = body
                .parent_operation()
                .filter(|op| is(op, tile_ir::scf::ForOperation::name))
            else {
                return false;
            };
            if last_touching_before(**gemm, accumulator).is_some() {
                return false;
            }
            last_touching_before(looped, accumulator)
                .is_some_and(|fill| is(&fill, tile::FillOperation::name) && fill.operand_at(0) == Some(accumulator))
        })
        .map(key)
        .collect()
}

/// The named barrier of consumer warpgroup 0's turn at the gemms of a ping-pong loop; warpgroup
/// 1's is the next (0 is the block's, 1 the kernel's threads' beside a producer, 2 and up the
/// warpgroups' staging: [`super::tma_store`]).
const TURN_BARRIER: i64 = 6;
/// The threads that meet at a turn's barrier: the warpgroup whose turn it is, and the other, which
/// hands it over.
const TURN_THREADS: i64 = 256;

/// The wgmma gemms of the loops whose warpgroups take turns (`tile.pingpong`, on the outermost
/// such loop around them), by the part each plays in a turn.
#[derive(Default)]
pub struct Turns {
    /// The gemms that open a turn: the first of each run of gemms one after the other in a block
    /// (no other tile op and no op with regions between them: FlashAttention-3's order issues the
    /// next block's S and this block's P V as one run). A persistent loop's first and last steps,
    /// written out of its loop over the middle steps, have runs of their own (a tile's first S,
    /// its last P V).
    pub open: HashSet<usize>,
    /// The gemms that close one: the last of each run.
    pub close: HashSet<usize>,
    /// The first opener of each outermost loop: the first turn is handed over before that loop,
    /// and the last taken back after it.
    pub hand_over: HashSet<usize>,
}

/// The outermost loop around `op` whose warpgroups take turns.
fn ping_pong_loop<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    std::iter::successors(op.parent_operation(), |parent| parent.parent_operation())
        .filter(|parent| parent.attribute(crate::pipeline::PINGPONG_ATTRIBUTE).is_ok())
        .last()
}

/// The turns of the kernel whose ops are `ops` (in program order), its wgmma gemms `gemms`.
pub fn ping_pong_turns(ops: &[OperationRef], gemms: &HashSet<usize>) -> Turns {
    let mut turns = Turns::default();
    let mut looped_over = HashSet::new();
    // The run being gathered: its first gemm and its last.
    let mut run: Option<(OperationRef, usize)> = None;
    for op in ops {
        let same_block = run.is_some_and(|(gemm, _)| op.block() == gemm.block());
        if gemms.contains(&key(op))
            && let Some(looped) = ping_pong_loop(*op)
        {
            match run {
                Some((first, _)) if same_block => run = Some((first, key(op))),
                _ => {
                    if let Some((_, last)) = run {
                        turns.close.insert(last);
                    }
                    turns.open.insert(key(op));
                    if looped_over.insert(key(&looped)) {
                        turns.hand_over.insert(key(op));
                    }
                    run = Some((*op, key(op)));
                }
            }
        } else if same_block
            && (tile_ir::in_dialect(op, tile_dialect::dialect_handle()) || op.region_count() > 0)
            && let Some((_, last)) = run.take()
        {
            // Another tile op, or an op with regions, ends a run (its turn).
            turns.close.insert(last);
        }
    }
    if let Some((_, last)) = run {
        turns.close.insert(last);
    }
    turns
}

/// Which gemms of a kernel run on wgmma, and the shared tiles they read kept as core matrices (by
/// allocation: the dimension that is K). A gemm qualifies when its accumulator has the wgmma layout,
/// its inputs are f16 or bf16 with K a multiple of 16 (8-bit ones read K-major), and each shared
/// operand is written only by copies from global memory and read only by gemms that qualify and
/// take the same dimension as K (FlashAttention's Q tile feeds the first block's scores and every
/// later block's): a tile kept as core matrices cannot be read any other way.
/// Also says which gemms with a fragment accumulator stay off wgmma, and why.
pub fn wgmma_plan<'c, 'a>(ops: &[OperationRef<'c, 'a>], layouts: &Layouts) -> WgmmaPlan<'c, 'a> {
    let sixteen_bit = |value: Value| {
        matches!(
            tile_dialect::element::Element::of(element_type(value)),
            Some(tile_dialect::element::Element::F16 | tile_dialect::element::Element::BF16)
        )
    };
    // 8-bit operands (i8 into i32, f8E4M3FN into f32) where wgmma reads them.
    let eight_bit = |a: Value, b: Value, c: Value, transpose_a: bool, transpose_b: bool| {
        crate::support::eight_bit_product(a, b, c)
            && crate::nvgpu::chip::wgmma_reads_eight_bit(
                level(a) == Some(MemoryLevel::Shared),
                crate::support::f8_product(a, b, c),
                transpose_a,
                transpose_b,
            )
    };
    // A ring slot stands for its whole ring: every slot is written and read the same way.
    let owned = |tile: &Value| crate::pipeline::rings::tile_allocation(*tile).map(|allocation| key(&allocation));
    // Each gemm that fits the instruction, with its shared operands' allocations and K dimensions.
    let mut candidates: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    let gemms: Vec<&OperationRef> = ops.iter().filter(|op| is(*op, tile::GemmOperation::name)).collect();
    let mut off = Vec::new();
    for gemm in &gemms {
        let (Some(a), Some(b), Some(c)) = (gemm.operand_at(0), gemm.operand_at(1), gemm.operand_at(2)) else {
            continue;
        };
        let Ok(accumulator) = placed(layouts, c) else { continue };
        let [m, n] = accumulator.layout.shape[..] else { continue };
        let transpose_a = gemm.attribute("transpose_a").is_ok();
        let transpose_b = gemm.attribute("transpose_b").is_ok();
        let a_shape = memref_shape(a);
        let depth = if transpose_a { a_shape[0] } else { a_shape[1] };
        let bytes = if sixteen_bit(a) { 2 } else { 1 };
        // Each warpgroup's tile: whole 64-row tiles by N a multiple of 8 up to 256.
        let split = crate::layout::atoms::wgmma_warpgroups(&accumulator.layout);
        let columns = split.map_or(0, |(_, wn)| n / wn);
        let fits = split.is_some()
            && ((element_type(c).is_f32() && sixteen_bit(a)) || eight_bit(a, b, c, transpose_a, transpose_b))
            && element_type(a) == element_type(b)
            && depth % (32 / bytes) == 0
            && columns % 8 == 0
            && columns <= 256
            && split.is_some_and(|(wm, _)| m % (64 * wm) == 0)
            && level(b) == Some(MemoryLevel::Shared)
            && (level(a) == Some(MemoryLevel::Shared)
                || (level(a) == Some(MemoryLevel::Fragment)
                    && !transpose_a
                    && (bytes == 2 || split.is_some_and(|(_, wn)| wn == 1))));
        if !fits {
            if let Some(operands) = crate::layout::anchors::operands(**gemm) {
                let (threads, origin) = (accumulator.distribution.threads, &accumulator.layout.origin);
                off.push((
                    **gemm,
                    format!(
                        "does not fit wgmma ({}) nor mma.sync ({})",
                        super::misfit::off_wgmma(&operands, threads, origin),
                        super::misfit::off_mma_sync(&operands, threads, gemms.len() > 1, origin)
                    ),
                ));
            }
            continue;
        }
        let [a_k, b_k] = crate::support::k_dimensions(transpose_a, transpose_b);
        let operands: Option<Vec<(usize, usize)>> = [(a, a_k), (b, b_k)]
            .into_iter()
            .filter(|(value, _)| level(*value) == Some(MemoryLevel::Shared))
            .map(|(tile, k_dim)| owned(&tile).map(|allocation| (allocation, k_dim)))
            .collect();
        if let Some(operands) = operands {
            candidates.insert(key(gemm), operands);
        }
    }
    // Drop candidates until every kept tile is written only by copies from global memory or of a
    // whole fragment, and read only by remaining candidates. The candidates may read a tile with
    // different dimensions as K (MLA's KV tile as B transposed and as B): its column slabs and
    // 128-byte swizzled boxes serve both descriptors, and a narrower box, which serves K along the
    // columns only, is one layout inference does not give a tile read both ways.
    loop {
        let usable = |allocation: usize| {
            ops.iter()
                .filter(|op| !is(*op, tile::SlotOperation::name))
                .filter(|op| {
                    op.operands().any(|operand| {
                        level(operand) == Some(MemoryLevel::Shared) && owned(&operand) == Some(allocation)
                    })
                })
                .all(|user| {
                    candidates.contains_key(&key(user))
                        || stored_by_threads(user, allocation, &owned)
                        || (is(user, tile::CopyOperation::name)
                            && copy_parts(user).is_some_and(|parts| {
                                owned(&parts.dst) == Some(allocation)
                                    && (level(parts.src) == Some(MemoryLevel::Global) || stored_whole(&parts, layouts))
                            }))
                        || (is(user, tile::CopyAsyncOperation::name)
                            && copy_async_parts(user)
                                .is_some_and(|(parts, _, _)| owned(&parts.dst) == Some(allocation)))
                })
        };
        // In program order, so that the warnings come out in the same order every time.
        let dropped: Vec<usize> = gemms
            .iter()
            .map(|gemm| key(gemm))
            .filter(|gemm| {
                candidates
                    .get(gemm)
                    .is_some_and(|operands| !operands.iter().all(|(allocation, _)| usable(*allocation)))
            })
            .collect();
        if dropped.is_empty() {
            break;
        }
        for gemm in dropped {
            candidates.remove(&gemm);
            if let Some(op) = gemms.iter().find(|op| key(op) == gemm) {
                off.push((**op, "reads a shared tile that wgmma cannot read as core matrices (something other than copies from global memory, copies of a whole fragment or element stores in a tile.parallel writes it, or something other than gemms wgmma takes reads it)".to_owned()));
            }
        }
    }
    let mut core_tiles: HashMap<usize, Vec<usize>> = HashMap::new();
    for (allocation, k_dimension) in candidates.values().flatten() {
        let dimensions = core_tiles.entry(*allocation).or_default();
        if !dimensions.contains(k_dimension) {
            dimensions.push(*k_dimension);
            dimensions.sort_unstable();
        }
    }
    let swizzled = crate::layout::tma::swizzled_tiles(ops, &core_tiles);
    WgmmaPlan {
        core_tiles,
        swizzled,
        gemms: candidates.into_keys().collect(),
        off,
    }
}

/// Whether `op` is an element store into the tile `allocation` (`owned` gives a tile's allocation)
/// in the body of a `tile.parallel` (a dequantized weight tile, a state tile computed by the
/// threads): [`stores_to_core_matrices`] sends it to the element's core-matrix place.
fn stored_by_threads(op: &OperationRef, allocation: usize, owned: &dyn Fn(&Value) -> Option<usize>) -> bool {
    is(op, memref::StoreOperation::name)
        && op.operand_at(1).is_some_and(|tile| owned(&tile) == Some(allocation))
        && std::iter::successors(op.parent_operation(), |parent| parent.parent_operation())
            .any(|parent| is(&parent, tile::ParallelOperation::name))
}

/// The element stores into tiles kept as core matrices ([`stored_by_threads`]), each sent to the
/// element's core-matrix place, and after each `tile.parallel` that holds them the async-proxy
/// fence and a barrier, so that wgmma sees the threads' writes. Runs before any op is lowered.
pub(super) fn stores_to_core_matrices<'c, 'a>(
    b: &Builder<'c>,
    ops: &[OperationRef<'c, 'a>],
    core_tiles: &HashMap<usize, Vec<usize>>,
) {
    let owned = |tile: &Value| crate::pipeline::rings::tile_allocation(*tile).map(|allocation| key(&allocation));
    let mut loops: Vec<OperationRef> = Vec::new();
    // Stores only: melior answers an op asked for an operand it lacks with an error that prints
    // the op, which verifies it, racing with the kernels compiled beside this one.
    for store in ops.iter().filter(|op| is(*op, memref::StoreOperation::name)) {
        let Some(allocation) = store.operand_at(1).and_then(|tile| owned(&tile)) else {
            continue;
        };
        if !core_tiles.contains_key(&allocation) || !stored_by_threads(store, allocation, &owned) {
            continue;
        }
        let tile = store.operand_at(1).expect("a tile");
        let shape = memref_shape(tile);
        let [row, column] = [store.operand_at(2), store.operand_at(3)].map(|index| index.expect("a 2-D tile's index"));
        let at = At::before(*store);
        let b = Builder {
            location: store.location(),
            ..*b
        };
        let place = core_place(&b, at, row, column, &shape, slab_elements(element_type(tile)));
        tile_dialect::ops::set_operand(*store, 2, place[0]);
        tile_dialect::ops::set_operand(*store, 3, place[1]);
        let parallel = std::iter::successors(store.parent_operation(), |parent| parent.parent_operation())
            .filter(|parent| is(parent, tile::ParallelOperation::name))
            .last()
            .expect("checked");
        // At the place of the loop's own element: a slab of a row stays together (the lowering of
        // the loop may store it as one vector).
        let body = parallel.body();
        let own = body.is_some_and(|body| {
            body.argument_count() == 2
                && [row, column].iter().enumerate().all(|(i, index)| {
                    body.argument_at(i)
                        .is_some_and(|argument| Value::from(argument) == *index)
                })
        });
        if own {
            tile_dialect::ops::set_attribute(
                *store,
                crate::registers::patterns::CORE_PLACE,
                Attribute::unit(b.context),
            );
        }
        if !loops.contains(&parallel) {
            loops.push(parallel);
        }
    }
    for parallel in loops {
        let next = parallel.next_in_block().expect("a tile.parallel is no terminator");
        let at = At::before(next);
        b.insert(at, async_shared_fence(b.context, parallel.location()));
        b.barrier(at);
        // Its lowering adds no barrier of its own: this one serves the threads' reads too.
        tile_dialect::ops::set_attribute(parallel, crate::registers::patterns::FENCED, Attribute::unit(b.context));
    }
}

/// Whether `parts` copy a whole fragment in registers into a shared tile of its shape (attention's
/// P stored for the next gemm, a state tile written from registers): the threads store their
/// slots at the tile's core-matrix places.
fn stored_whole(parts: &tile_dialect::ops::CopyParts, layouts: &Layouts) -> bool {
    level(parts.src) == Some(MemoryLevel::Fragment)
        && placed(layouts, parts.src).is_ok()
        && parts.dst_offsets.is_empty()
        && memref_shape(parts.src) == memref_shape(parts.dst)
}

/// Warns (once a source location: a ring issues its copy in several places) at a ring copy that
/// the threads fill by cp.async into a wgmma operand tile on a target with TMA where a TMA box over
/// the whole row would address the tensor, but the row is no whole boxes of 128, 64 or 32 bytes
/// (the swizzles wgmma reads: an MN-major tile of 24 16-bit columns): such a ring also gets no
/// producer warpgroup.
fn warn_threads_fill(
    op: &OperationRef,
    parts: &tile_dialect::ops::CopyParts,
    warned: &std::cell::RefCell<HashSet<String>>,
) {
    let [rows, columns] = memref_shape(parts.dst)[..] else {
        return;
    };
    let Some(bytes) = crate::layout::tma::operand_bytes(parts.dst) else {
        return;
    };
    let addressable = crate::layout::tma::tensor_box(parts.src, &parts.spans, rows, columns, bytes).is_some();
    if !addressable || crate::layout::tma::box_columns(columns, bytes).is_some() {
        return;
    }
    if !warned.borrow_mut().insert(op.location().to_string()) {
        return;
    }
    tile_dialect::diagnostics::emit_warning(
        op.location(),
        &format!(
            "'tile.copy' op fills its {rows}x{columns} wgmma operand tile by the threads' cp.async, not TMA: its rows of {} bytes are no whole boxes of 128, 64 or 32 bytes (the swizzles wgmma reads), and a ring the threads fill gets no producer warpgroup; rows of a multiple of 32 bytes are filled by TMA",
            columns * bytes
        ),
    );
}

/// What [`wgmma_plan`] decides for a kernel.
#[derive(Default)]
pub struct WgmmaPlan<'c, 'a> {
    /// The shared tiles kept as core matrices, by allocation: the dimensions its gemms read as K
    /// (one, or both where it is read both ways), in order.
    pub core_tiles: HashMap<usize, Vec<usize>>,
    /// Those of them that TMA fills in 128-byte swizzled boxes ([`crate::layout::tma`]), by allocation.
    pub swizzled: std::collections::HashSet<usize>,
    /// The gemms that run on wgmma.
    pub gemms: std::collections::HashSet<usize>,
    /// The gemms with a fragment accumulator that stay off wgmma, and why.
    pub off: Vec<(OperationRef<'c, 'a>, String)>,
}

/// The gemms of `kernel` whose shared operands nothing writes after them unless it waits for a
/// barrier first: ring slots (`tile-expand-pipelines` refills a slot after a `gpu.barrier`), and
/// tiles whose every writer is in the kernel's body before the op that holds the gemm (a tile
/// copied once before the main loop), and the tiles of `own_rows` ([`rows_per_warpgroup`]),
/// whose writers meet at their warpgroup's barrier first. The others end with a barrier, so that
/// a copy into their operands after them cannot overtake a warpgroup still reading.
pub fn operands_kept<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
    wgmma: &HashSet<usize>,
    layouts: &Layouts,
    own_rows: &[Value<'c, 'a>],
) -> std::collections::HashSet<usize> {
    let body = kernel.body().expect("kernel body");
    let top = |op: OperationRef<'c, 'a>| -> Option<OperationRef<'c, 'a>> {
        let mut current = op;
        while current.block() != Some(body) {
            current = current.parent_operation()?;
        }
        Some(current)
    };
    let position = |op: OperationRef| {
        std::iter::successors(body.first_operation(), |op| op.next_in_block()).position(|candidate| candidate == op)
    };
    let kept = |gemm: &OperationRef<'c, 'a>, tile: Value<'c, 'a>| {
        let from_slot =
            tile_dialect::ops::as_result(tile).is_some_and(|result| is(&result.owner(), tile::SlotOperation::name));
        if from_slot || own_rows.contains(&tile) {
            return true;
        }
        let Some(gemm_at) = top(*gemm).and_then(position) else {
            return false;
        };
        ops.iter()
            .filter(|op| op.operands().any(|operand| operand == tile) && *op != gemm)
            .filter(|op| {
                match_op!(op, {
                    tile::CopyOperation => copy_parts(*op).is_some_and(|parts| parts.dst == tile),
                    tile::GemmOperation | tile::ReduceOperation | memref::LoadOperation => false,
                    _ => true,
                })
            })
            .all(|writer| writer.block() == Some(body) && position(*writer).is_some_and(|at| at < gemm_at))
    };
    ops.iter()
        .filter(|op| is(*op, tile::GemmOperation::name))
        // A fragment A operand that wgmma does not read from registers is staged in a scratch tile
        // that the next gemm writes again.
        .filter(|gemm| {
            gemm.operand_at(0)
                .is_some_and(|a| level(a) != Some(MemoryLevel::Fragment) || register_a(gemm, wgmma, layouts))
        })
        .filter(|gemm| {
            [0, 1]
                .iter()
                .filter_map(|i| gemm.operand_at(*i))
                .filter(|value| level(*value) == Some(MemoryLevel::Shared))
                .all(|tile| kept(gemm, tile))
        })
        .map(key)
        .collect()
}

/// Whether each consumer warpgroup alone writes and reads its own rows of shared tile `tile`
/// (attention's 8-bit P, a backward pass's P, stored for the next gemm): its writers are
/// whole-fragment copies from fragments in a wgmma accumulator layout split along M over the
/// warpgroups, and its readers are wgmma gemms reading it as A (M x K), their accumulators split
/// the same way. A warpgroup's named barrier then orders its stores and its gemms' reads, so that
/// the warpgroups never meet there, and the gemms leave their groups running as for a tile
/// nothing writes.
pub(super) fn rows_per_warpgroup(tile: Value, ops: &[OperationRef], wgmma: &HashSet<usize>, layouts: &Layouts) -> bool {
    let Some(rows) = memref_shape(tile).first().copied() else {
        return false;
    };
    let split_rows = |fragment: Value| {
        placed(layouts, fragment).ok().is_some_and(|placed| {
            placed.layout.shape.first() == Some(&rows)
                && crate::layout::atoms::wgmma_warpgroups(&placed.layout).is_some_and(|(wm, wn)| wm > 1 && wn == 1)
        })
    };
    let mut splits = std::collections::BTreeSet::new();
    let (mut written, mut read) = (false, false);
    for op in ops.iter().filter(|op| op.operands().any(|operand| operand == tile)) {
        let whole_copy = copy_parts(op).filter(|parts| parts.dst == tile && stored_whole(parts, layouts));
        if let Some(parts) = whole_copy {
            if !split_rows(parts.src) {
                return false;
            }
            splits.insert(placed(layouts, parts.src).expect("checked").layout.threads);
            written = true;
            continue;
        }
        let reads_as_a = is(op, tile::GemmOperation::name)
            && wgmma.contains(&key(op))
            && op.attribute("transpose_a").is_err()
            && op.operand_at(0) == Some(tile)
            && op.operand_at(1) != Some(tile);
        let Some(accumulator) = op.operand_at(2).filter(|_| reads_as_a) else {
            return false;
        };
        if !split_rows(accumulator) {
            return false;
        }
        splits.insert(placed(layouts, accumulator).expect("checked").layout.threads);
        read = true;
    }
    written && read && splits.len() == 1
}

/// The copies among `ops` from a fragment into a shared tile or a fragment of an 8-bit float whose
/// values stay below the type's overflow bound where the copy reads them
/// ([`crate::bounds::fragment_bound`]): the instruction's rounding needs no check for values past
/// the largest finite one.
pub(super) fn copies_in_range(ops: &[OperationRef]) -> HashSet<usize> {
    ops.iter()
        .filter(|op| is(*op, tile::CopyOperation::name))
        .filter(|op| {
            copy_parts(*op).is_some_and(|parts| {
                let bound = tile_dialect::element::Element::of(element_type(parts.dst))
                    .and_then(crate::small_floats::overflow_bound);
                level(parts.src) == Some(MemoryLevel::Fragment)
                    && matches!(level(parts.dst), Some(MemoryLevel::Shared | MemoryLevel::Fragment))
                    && bound.is_some_and(|bound| {
                        crate::bounds::fragment_bound(parts.src, **op)
                            .is_some_and(|interval| interval.magnitude() < bound)
                    })
            })
        })
        .map(key)
        .collect()
}

/// Whether a wgmma gemm reads its fragment A operand straight from registers: the operand holds
/// each element in the wgmma A layout (the accumulator's threads and slots, per 16 columns).
pub(super) fn register_a(gemm: &OperationRef, wgmma: &HashSet<usize>, layouts: &Layouts) -> bool {
    let (Some(a), Some(c)) = (gemm.operand_at(0), gemm.operand_at(2)) else {
        return false;
    };
    if !wgmma.contains(&key(gemm)) || level(a) != Some(MemoryLevel::Fragment) {
        return false;
    }
    let (Ok(operand), Ok(accumulator)) = (placed(layouts, a), placed(layouts, c)) else {
        return false;
    };
    let [m, k] = operand.layout.shape[..] else { return false };
    // Warpgroups splitting N would each need every row of A: only a split along M reads A from
    // registers.
    if crate::layout::atoms::wgmma_warpgroups(&accumulator.layout).is_none_or(|(_, wn)| wn > 1) {
        return false;
    }
    let warpgroups = accumulator.distribution.threads / 128;
    let wanted = match crate::support::element_of(a).map(|element| element.bytes()) {
        Some(1) => crate::layout::atoms::wgmma_a8_operand(m, k, warpgroups),
        _ => crate::layout::atoms::wgmma_a_operand(m, k, warpgroups),
    };
    crate::layout::Layout::Fragment(operand.layout.clone()).agrees(&crate::layout::Layout::Fragment(wanted))
}

/// Marks the rounding that makes `value` ([`tile_dialect::decisions::IN_RANGE`]) where `in_range`.
pub(super) fn mark_in_range(value: Value, in_range: bool) {
    if let Some(result) = tile_dialect::ops::as_result(value).filter(|_| in_range)
        && is(&result.owner(), tile_ir::arith::TruncFOperation::name)
    {
        let owner = result.owner();
        tile_dialect::ops::with_context(owner, |context| {
            tile_dialect::ops::set_attribute(owner, tile_dialect::decisions::IN_RANGE, Attribute::unit(context));
        });
    }
}

/// The (row, column) of a row-major tile of `shape` whose storage holds its element (row,
/// column) in column slabs of `slab` elements ([`super::operands`]).
pub(super) fn core_place<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    row: Value<'c, 'a>,
    column: Value<'c, 'a>,
    shape: &[i64],
    slab: i64,
) -> Vec<Value<'c, 'a>> {
    let offset = core_offset(b, at, row, column, shape[0], slab);
    let width = b.index(at, shape[1]);
    vec![b.divui(at, offset, width), b.remui(at, offset, width)]
}

/// Elements before element (row, column) of a tile of `rows` rows kept in column slabs of
/// `slab` elements ([`super::operands::core_offset`], computed in IR).
fn core_offset<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    row: Value<'c, 'a>,
    column: Value<'c, 'a>,
    rows: i64,
    slab: i64,
) -> Value<'c, 'a> {
    let width = b.index(at, slab);
    let slab_index = b.divui(at, column, width);
    let slab_start = b.muli(at, slab_index, b.index(at, rows * slab));
    let row_start = b.muli(at, row, width);
    let inner = b.remui(at, column, width);
    let offset = b.addi(at, slab_start, row_start);
    b.addi(at, offset, inner)
}

/// Elements of a core matrix row (16 bytes) of `ty`: 8 of f16 or bf16, 16 of i8 or f8E4M3FN.
pub(super) fn slab_elements(ty: Type) -> i64 {
    16 / tile_dialect::element::Element::of(ty).map_or(2, |element| element.bytes() as i64)
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    // ---- tile.copy into a wgmma operand tile -----------------------------------------------------

    /// A copy from global memory into a tile kept as core matrices: each thread its elements of the
    /// blocked layout, stored at their core-matrix place, then the async-proxy fence and a barrier
    /// so that wgmma sees them.
    ///
    /// A `tile.copy_async` is the same copy left running: no wait, fence or barrier (its
    /// `tile.arrive` and `tile.wait` are the barriers'; `crate::pipeline::mbarriers`).
    pub(super) fn copy_to_core_matrices(&self, op: OperationRef<'c, 'a>, plan: &TensorCorePlan) {
        let b = self.builder(&op);
        let at = At::before(op);
        let asynchronous = is(&op, tile::CopyAsyncOperation::name);
        let parts = if asynchronous {
            copy_async_parts(&op).expect("checked").0
        } else {
            copy_parts(&op).expect("checked")
        };
        let tile = parts.dst;
        // Into a ring that only TMA fills: the copy engine's swizzled boxes.
        let swizzled = crate::pipeline::rings::tile_allocation(tile)
            .is_some_and(|allocation| plan.swizzled.contains(&key(&allocation)));
        if asynchronous && swizzled {
            let (_, barriers, index) = copy_async_parts(&op).expect("checked");
            let box_ =
                crate::layout::tma::tma_box(parts.src, &parts.spans, tile).expect("a swizzled tile's copies fit TMA");
            return self.copy_by_tma(op, &parts, tile, barriers, index, box_, true);
        }
        if level(parts.src) == Some(MemoryLevel::Fragment) {
            return self.store_to_core_matrices(op, parts.src, tile);
        }
        if asynchronous && plan.tma {
            warn_threads_fill(&op, &parts, &plan.warned);
        }
        // Copies left running that threads write (cp.async, the generic proxy) need the
        // async-proxy fence after the barrier's wait before wgmma reads (TMA's do not).
        if asynchronous
            && let Some((_, barriers, _)) = copy_async_parts(&op)
            && let Some(result) = tile_dialect::ops::as_result(barriers)
        {
            tile_dialect::ops::set_attribute(
                result.owner(),
                crate::pipeline::mbarriers::GENERIC_WRITES_ATTRIBUTE,
                Attribute::unit(self.context),
            );
        }
        let shape = memref_shape(tile);
        let threads = self.threads;
        let ty = element_type(tile);
        // A core matrix row: 16 bytes, 8 16-bit or 16 i8 elements.
        let slab = slab_elements(ty);
        // Tiles whose rows do not split evenly over the threads have no per-thread formula: they
        // take the loop below.
        let spread = crate::registers::Placed::of(crate::layout::atoms::blocked(&shape, threads)).ok();
        let pieces = if shape[0] % 8 == 0 {
            crate::registers::Placed::of(crate::layout::atoms::core_matrix_chunks(&shape, threads, slab)).ok()
        } else {
            crate::registers::Placed::of(crate::layout::atoms::blocked_in_chunks(&shape, threads, slab)).ok()
        };
        let placement = super::cp_async::Placement::CoreMatrices { slab };
        // Each thread its elements of the blocked layout, unrolled, each at its core-matrix place.
        let unrolled = |at: At<'c, 'a>, spread: &crate::registers::Placed| {
            let offsets = self.offsets(&b, at, spread);
            for slot in spread.distribution.used_slots() {
                let coordinates = self.coordinates(&b, at, spread, &offsets, slot);
                let inner = self.guarded(&b, at, spread, &coordinates);
                self.copy_element(&b, inner, &parts, tile, &coordinates, placement);
            }
        };
        // A row in global memory is a row of core matrices: 16-byte asynchronous copies
        // (cp.async, zero-filled past the tensor's end) where the addresses allow, element by
        // element where they do not.
        let source = tile_dialect::ops::as_memref(parts.src.r#type());
        let row_length = source.and_then(|memref| tile_dialect::ops::static_sizes(memref).last().copied().flatten());
        let vectorizable = level(parts.src) == Some(MemoryLevel::Global)
            && element_type(parts.src) == ty
            && shape[1] % slab == 0
            && row_length.is_none_or(|length| length % slab == 0)
            && !parts.src_offsets.is_empty();
        match (&pieces, &spread) {
            // 16-byte pieces: one core matrix row.
            (Some(pieces), _) if vectorizable => {
                self.copy_pieces_or_elements(&b, at, &parts, tile, pieces, placement, !asynchronous)
            }
            (_, Some(spread)) => unrolled(at, spread),
            (_, None) => self.copy_elements_looped(&b, at, &parts, tile, placement),
        }
        if !asynchronous {
            self.async_proxy_fence(&b, at);
            b.barrier(at);
        }
        erase(self.context, op);
    }

    /// A fragment copied into a tile kept as core matrices ([`stored_whole`]): each thread stores
    /// its slots at their core-matrix places, then the async-proxy fence and a barrier so that
    /// wgmma sees them: the block's, or where each warpgroup stores and reads its own rows
    /// ([`rows_per_warpgroup`]: the copy is marked) the warpgroup's, which it also meets before
    /// the stores (its gemms that read the rows last leave their groups running).
    fn store_to_core_matrices(&self, op: OperationRef<'c, 'a>, fragment: Value<'c, 'a>, tile: Value<'c, 'a>) {
        let b = self.builder(&op);
        let at = At::before(op);
        let own_rows = self.prepared.marked.contains(&key(&op));
        if own_rows {
            self.warpgroup_barrier(&b, at);
        }
        let in_range = self.prepared.in_range.contains(&key(&op));
        let from = placed(self.layouts, fragment).expect("planned");
        let array = self.private(fragment);
        let shape = memref_shape(tile);
        let ty = element_type(tile);
        let slab = slab_elements(ty);
        let offsets = self.offsets(&b, at, from);
        // Neighbouring columns of a row that a thread holds (an even one and the next: one core
        // matrix row holds both, side by side) go out as one 2-element store, rounded together
        // where they narrow to another float (an 8-bit P: one cvt for both).
        let pairs: std::collections::BTreeSet<usize> = match from.distribution.guarded {
            true => Default::default(),
            false => crate::registers::patterns::column_pairs(from).into_iter().collect(),
        };
        // Pairs go through the tile's view in memory space 3 (the vector conversion runs before
        // the one that maps the workgroup space), aligned to the pair: its offset is even.
        let view = (!pairs.is_empty()).then(|| crate::generic::vector_copy::lds_view(&b, at, tile));
        let alignment = 2 * tile_dialect::element::Element::of(ty).map_or(1, |element| element.bytes() as i64);
        let together = |source: Type| {
            source.is_f32()
                && source != ty
                && tile_dialect::element::Element::of(ty)
                    .is_some_and(|element| element.is_float() && element.bits() < 32)
        };
        for slot in from.distribution.used_slots() {
            if slot % 2 == 1 && pairs.contains(&(slot - 1)) {
                continue;
            }
            let coordinates = self.coordinates(&b, at, from, &offsets, slot);
            let inner = self.guarded(&b, at, from, &coordinates);
            let place = core_place(&b, inner, coordinates[0], coordinates[1], &shape, slab);
            let Some(view) = view.filter(|_| pairs.contains(&slot)) else {
                let value = convert(&b, inner, self.slot_value(&b, inner, array, from, slot as i64), ty);
                mark_in_range(value, in_range);
                b.store(inner, value, tile, &place);
                continue;
            };
            let values = [slot, slot + 1].map(|s| self.slot_value(&b, inner, array, from, s as i64));
            // Floats that narrow are rounded as a pair, anything else converted one by one.
            let narrowed = together(values[0].r#type());
            let values = match narrowed {
                true => values,
                false => values.map(|value| convert(&b, inner, value, ty)),
            };
            let built = crate::attributes::vector(2, values[0].r#type());
            let pair = b.value(
                inner,
                vector::from_elements(self.context, built, &values, b.location).into(),
            );
            let pair = match narrowed {
                true => b.cast(inner, tile_ir::arith::truncf, pair, crate::attributes::vector(2, ty)),
                false => pair,
            };
            mark_in_range(pair, in_range);
            let store = vector::StoreOperation::builder(self.context, b.location)
                .value_to_store(pair)
                .base(view)
                .indices(&place)
                .alignment(crate::attributes::alignment(self.context, alignment))
                .build();
            b.insert(inner, store.into());
        }
        self.async_proxy_fence(&b, at);
        match own_rows {
            true => self.warpgroup_barrier(&b, at),
            false => b.barrier(at),
        }
        erase(self.context, op);
    }

    /// The named barrier of the thread's consumer warpgroup alone (its 128 threads).
    fn warpgroup_barrier(&self, b: &Builder<'c>, at: At<'c, 'a>) {
        let id = b.addi(
            at,
            i32_constant(b, at, FIRST_WARPGROUP_BARRIER),
            self.warpgroup_i32(b, at),
        );
        named_barrier(b, at, id, i32_constant(b, at, 128));
    }

    fn async_proxy_fence(&self, b: &Builder<'c>, at: At<'c, 'a>) {
        b.insert(at, async_shared_fence(self.context, b.location));
    }

    // ---- tile.gemm on wgmma ---------------------------------------------------------------------

    /// `C += A B` on `nvvm.wgmma.mma_async`: each warpgroup its 64-row tiles, the accumulator's slots
    /// packed into the instruction's struct (the wgmma layout's slot order is the struct's), one
    /// m64nNk16 per 16 columns of K, descriptors over the operands' core matrices.
    pub(super) fn wgmma(&self, op: OperationRef<'c, 'a>, scratch: Option<Value<'c, 'a>>, plan: &TensorCorePlan) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, c] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let accumulator = placed(self.layouts, c).expect("checked");
        let [m, n] = accumulator.layout.shape[..] else {
            unreachable!("a 2-D accumulator")
        };
        // A KxM A (transposed) is read MN-major, as a KxN B is.
        let a_mn_major = op.attribute("transpose_a").is_ok();
        let depth = memref_shape(a)[if a_mn_major { 0 } else { 1 }];
        // An instruction takes 32 bytes of K: k16 of f16 or bf16, k32 of i8 (summed into s32) or
        // of 8-bit floats (e4m3 or e5m2, summed into f32).
        use tile_dialect::element::Element;
        let (input, output, bytes) = match crate::support::element_of(a) {
            Some(Element::I8) => ("s8", "s32", 1),
            Some(Element::F8E4M3FN) => ("e4m3", "f32", 1),
            Some(Element::F8E5M2) => ("e5m2", "f32", 1),
            Some(Element::BF16) => ("bf16", "f32", 2),
            _ => ("f16", "f32", 2),
        };
        let k_step = 32 / bytes;
        // This warpgroup's tile of the accumulator: `rows` x `columns` at (warpgroup / wn, % wn).
        let (wm, wn) = crate::layout::atoms::wgmma_warpgroups(&accumulator.layout).expect("planned");
        let (rows, columns) = (m / wm, n / wn);
        // A fragment A operand in the wgmma A layout is read from registers; any other goes to its
        // scratch as core matrices first.
        let from_registers = register_a(&op, &plan.wgmma, self.layouts);
        let a_tile = match scratch.filter(|_| level(a) == Some(MemoryLevel::Fragment) && !from_registers) {
            Some(staged) => {
                self.stage(&b, at, a, staged, &|b, at, coordinates| {
                    core_offset(b, at, coordinates[0], coordinates[1], m, slab_elements(element_type(a)))
                });
                self.async_proxy_fence(&b, at);
                b.barrier(at);
                staged
            }
            None => a,
        };
        let i64_type: Type = IntegerType::new(self.context, 64).into();
        let i32_type: Type = IntegerType::new(self.context, 32).into();
        let constant64 = |at: At<'c, 'a>, v: i64| {
            b.value(
                at,
                melior::dialect::arith::constant(self.context, IntegerAttribute::new(i64_type, v).into(), b.location),
            )
        };
        let address = |tile: Value<'c, 'a>| {
            let pointer = b.aligned_pointer(at, tile);
            b.cast(at, tile_ir::arith::index_cast, pointer, i64_type)
        };
        let a_address = if from_registers {
            constant64(at, 0)
        } else {
            address(a_tile)
        };
        let b_address = address(bb);
        // Each operand's layout (column slabs, or TMA's swizzled boxes) and its addressing.
        use super::operands::{OperandAddressing, OperandLayout};
        // A swizzled K-major tile's rows are its K columns (64 a box, or one box of 32 or 16); an
        // MN-major one's are 64-column boxes.
        let operand_layout = |tile: Value<'c, 'a>, k_major: bool| {
            let swizzled = crate::pipeline::rings::tile_allocation(tile)
                .is_some_and(|allocation| plan.swizzled.contains(&key(&allocation)));
            let columns = memref_shape(tile).last().copied().unwrap_or(64);
            let span = if k_major {
                crate::layout::tma::swizzle_of(
                    crate::layout::tma::box_columns(columns, bytes).unwrap_or(crate::layout::tma::SWIZZLE / bytes),
                    bytes,
                )
            } else {
                crate::layout::tma::SWIZZLE
            };
            if swizzled {
                OperandLayout::Swizzled(span)
            } else {
                OperandLayout::Slabs
            }
        };
        let a_addressing = OperandAddressing::new(
            operand_layout(a_tile, !a_mn_major),
            !a_mn_major,
            if a_mn_major { depth } else { m },
        );
        // A KxN B is read MN-major; a tile read both ways gets each gemm's own descriptor.
        let b_mn_major = op.attribute("transpose_b").is_err();
        let b_addressing = OperandAddressing::new(operand_layout(bb, !b_mn_major), !b_mn_major, memref_shape(bb)[0]);
        // This warpgroup's first row of A (and, where warpgroups split N, its first column of B).
        let c128 = b.index(at, 128);
        let warpgroup = b.divui(at, self.tid, c128);
        let (group_row, b_address) = if wn > 1 {
            let wn_value = b.index(at, wn);
            let group_column = b.remui(at, warpgroup, wn_value);
            let column_bytes = b.muli(at, group_column, b.index(at, b_addressing.mn_bytes(columns)));
            let column_bytes = b.cast(at, tile_ir::arith::index_cast, column_bytes, i64_type);
            (b.divui(at, warpgroup, wn_value), b.addi(at, b_address, column_bytes))
        } else {
            (warpgroup, b_address)
        };
        let group_bytes = b.index(at, a_addressing.mn_bytes(rows));
        let a_rows = b.muli(at, group_row, group_bytes);
        let a_rows = b.cast(at, tile_ir::arith::index_cast, a_rows, i64_type);
        let a_address = b.addi(at, a_address, a_rows);
        // A descriptor's start address field is the tile's shared address / 16 in 14 bits, which
        // holds every address of the 227 KiB a block has: a byte offset inside the tile adds to the
        // tile's descriptor without a carry, so each operand's descriptor is made once and each
        // step adds its constant.
        let base_descriptor = |base: Value<'c, 'a>, constant: Value<'c, 'a>| {
            let shifted = b.shrui(at, base, constant64(at, 4));
            let field = b.andi(at, shifted, constant64(at, 0x3FFF));
            b.ori(at, field, constant)
        };
        let descriptor = |at: At<'c, 'a>, base: Value<'c, 'a>, bytes: i64| b.addi(at, base, constant64(at, bytes >> 4));
        let a_descriptor = base_descriptor(a_address, constant64(at, a_addressing.constant()));
        let b_descriptor = base_descriptor(b_address, constant64(at, b_addressing.constant()));
        let field = element_type(c);
        let struct_type = crate::attributes::struct_of(self.context, field, (columns / 2) as usize);
        let array = self.private(c);
        let attribute = |text: String| Attribute::parse(self.context, &text).expect("wgmma attribute");
        // A register A operand is packed into its 32-bit registers before the fence: a register
        // written between the fence and the instruction that reads it makes ptxas fence again.
        let packed: Vec<Vec<Vec<Value>>> = if from_registers {
            (0..rows / 64)
                .map(|tile| {
                    (0..depth / k_step)
                        .map(|step| self.pack_a_registers(&b, at, a, tile, step, k_step, depth, i32_type))
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        // After a zero fill the first step writes D = A B: nothing reads the zeros.
        let zero_start = plan.zero_start.contains(&key(&op));
        // Each 64-row tile's accumulator as the instruction's struct.
        let accumulators = |at: At<'c, 'a>| -> Vec<Value<'c, 'a>> {
            (0..rows / 64)
                .map(|tile| {
                    let mut value = b.value(at, llvm::mlir_undef(self.context, struct_type, b.location).into());
                    for position in (0..columns / 2).filter(|_| !zero_start) {
                        let slot = tile * (columns / 2) + position;
                        let element = self.slot_value(&b, at, array, accumulator, slot);
                        let position = crate::attributes::i64_array(self.context, &[position as i64]);
                        value = b.value(
                            at,
                            llvm::insertvalue(self.context, struct_type, value, element, position, b.location).into(),
                        );
                    }
                    value
                })
                .collect()
        };
        if plan.turns.open.contains(&key(&op)) {
            self.open_turn(&b, at, op, plan.turns.hand_over.contains(&key(&op)));
        }
        // A loop entered with a filled accumulator: its values held in registers before the fence
        // (`entered_from_fill`).
        let mut values = if plan.fenced_operands.contains(&key(&op)) {
            let values: Vec<Value> = accumulators(at)
                .into_iter()
                .map(|value| self.hold_in_registers(&b, at, value, field, columns / 2))
                .collect();
            b.insert(at, nvvm::wgmma_fence_aligned(self.context, b.location).into());
            values
        } else {
            b.insert(at, nvvm::wgmma_fence_aligned(self.context, b.location).into());
            accumulators(at)
        };
        // K steps outside, tiles inside: a warpgroup with two or more 64-row tiles alternates
        // between independent accumulators, so one instruction does not wait for the last one's
        // result (the deleted template's order: the 128x128 one-warpgroup GEMM spent its stalls
        // on `gmma` in the other order, RESULTS run 76).
        for step in 0..depth / k_step {
            let accumulate = !(zero_start && step == 0);
            let db = descriptor(at, b_descriptor, b_addressing.step_bytes(step));
            for tile in 0..rows / 64 {
                let value = values[tile as usize];
                values[tile as usize] = if from_registers {
                    self.wgmma_register_a(
                        &b,
                        at,
                        packed[tile as usize][step as usize].clone(),
                        (columns, k_step),
                        input,
                        value,
                        db,
                        struct_type,
                        i32_type,
                        b_mn_major,
                        accumulate,
                    )
                } else {
                    let da = descriptor(
                        at,
                        a_descriptor,
                        a_addressing.mn_bytes(tile * 64) + a_addressing.step_bytes(step),
                    );
                    let product = nvvm::WgmmaMmaAsyncOperation::builder(self.context, b.location)
                        .results(struct_type)
                        .inouts(value)
                        .descriptor_a(da)
                        .descriptor_b(db)
                        .shape(attribute(format!("#nvvm.shape<m = 64, n = {columns}, k = {k_step}>")))
                        .type_a(attribute(format!("#nvvm.wgmma_type<{input}>")))
                        .type_b(attribute(format!("#nvvm.wgmma_type<{input}>")))
                        .type_d(attribute(format!("#nvvm.wgmma_type<{output}>")))
                        .scale_d(attribute(format!(
                            "#nvvm.wgmma_scale_out<{}>",
                            if accumulate { "one" } else { "zero" }
                        )))
                        .scale_a(attribute("#nvvm.wgmma_scale_in<one>".into()))
                        .scale_b(attribute("#nvvm.wgmma_scale_in<one>".into()))
                        .layout_a(attribute(format!(
                            "#nvvm.mma_layout<{}>",
                            if a_mn_major { "col" } else { "row" }
                        )))
                        .layout_b(attribute(format!(
                            "#nvvm.mma_layout<{}>",
                            if b_mn_major { "row" } else { "col" }
                        )))
                        .build();
                    b.value(at, product.into())
                };
            }
        }
        let results: Vec<(i64, Value)> = values
            .into_iter()
            .enumerate()
            .map(|(tile, value)| (tile as i64, value))
            .collect();
        b.insert(
            at,
            nvvm::wgmma_commit_group_sync_aligned(self.context, b.location).into(),
        );
        if plan.turns.close.contains(&key(&op)) {
            // The other warpgroup's turn.
            let id = b.subi(at, i32_constant(&b, at, TURN_BARRIER + 1), self.warpgroup_i32(&b, at));
            self.arrive_at(&b, at, id);
        }
        // A gemm whose operands stay put leaves its group running: the op that needs it waits
        // (`wgmma_waits`). The others wait here, before their closing barrier.
        let deferred = self.prepared.marked.contains(&key(&op));
        if !deferred {
            let none_pending = IntegerAttribute::new(i64_type, 0);
            b.insert(
                at,
                nvvm::wgmma_wait_group_sync_aligned(self.context, none_pending, b.location).into(),
            );
        }
        for (tile, value) in results {
            for position in 0..columns / 2 {
                let element = b.extract(at, value, position as i64, field);
                self.set_slot(&b, at, element, array, accumulator, tile * (columns / 2) + position);
            }
        }
        // The operand tiles may be refilled after this: every warpgroup is done reading them.
        if !deferred {
            b.barrier(at);
        }
        erase(self.context, op);
    }

    /// Waits at `at` for this warpgroup's turn at the gemms of the ping-pong loop around `gemm`:
    /// named barrier [`TURN_BARRIER`] + warpgroup, which the other warpgroup's end of turn
    /// completes. Where `hand_over` (the loop's first turn), before the outermost such loop
    /// warpgroup 1 hands warpgroup 0 the first turn, and after it warpgroup 0 takes the turn
    /// warpgroup 1's last one handed over, so that the barriers end as they began (a loop of no
    /// iterations included).
    fn open_turn(&self, b: &Builder<'c>, at: At<'c, 'a>, gemm: OperationRef<'c, 'a>, hand_over: bool) {
        let id = b.addi(at, i32_constant(b, at, TURN_BARRIER), self.warpgroup_i32(b, at));
        named_barrier(b, at, id, i32_constant(b, at, TURN_THREADS));
        if !hand_over {
            return;
        }
        let looped = ping_pong_loop(gemm).expect("a ping-pong gemm is in its loop");
        let before = At::before(looped);
        let second = b.compare(before, "eq", self.warpgroup_i32(b, before), i32_constant(b, before, 1));
        let handing = b.if_then(before, second);
        self.arrive_at(b, handing, i32_constant(b, handing, TURN_BARRIER));
        let after = At::before(
            looped
                .next_in_block()
                .expect("a loop ends before its block's terminator"),
        );
        let first = b.compare(after, "eq", self.warpgroup_i32(b, after), i32_constant(b, after, 0));
        let taking = b.if_then(after, first);
        named_barrier(
            b,
            taking,
            i32_constant(b, taking, TURN_BARRIER),
            i32_constant(b, taking, TURN_THREADS),
        );
    }

    /// The consumer warpgroup of the thread (an i32: threads 0-127 are warpgroup 0).
    fn warpgroup_i32(&self, b: &Builder<'c>, at: At<'c, 'a>) -> Value<'c, 'a> {
        let warpgroup = b.divui(at, self.tid, b.index(at, 128));
        b.cast(
            at,
            tile_ir::arith::index_cast,
            warpgroup,
            IntegerType::new(self.context, 32).into(),
        )
    }

    /// `bar.arrive id, TURN_THREADS` at `at`: this warpgroup's arrival at named barrier `id`.
    fn arrive_at(&self, b: &Builder<'c>, at: At<'c, 'a>, id: Value<'c, 'a>) {
        let arrival = nvvm::BarrierArriveOperation::builder(self.context, b.location)
            .barrier_id(id)
            .number_of_threads(i32_constant(b, at, TURN_THREADS))
            .build();
        b.insert(at, arrival.into());
    }

    /// `value` (a struct of `count` accumulator registers of type `field`) held in registers
    /// ([`Self::tie_registers`]): the values are in registers where it stands, and the ops after
    /// it (the fence) stay after it.
    fn hold_in_registers(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        field: Type<'c>,
        count: i64,
    ) -> Value<'c, 'a> {
        let operands: Vec<Value> = (0..count)
            .map(|position| b.extract(at, value, position, field))
            .collect();
        self.tie_registers(b, at, &operands, field)
    }

    /// `values` (32-bit registers of type `field`: f32, else i32) through an empty
    /// `llvm.inline_asm` with side effects that ties each to its result (one value, or a struct of
    /// them): LLVM keeps the ops with side effects around it in order, moves no op that writes the
    /// values below it and none that reads its results above it.
    fn tie_registers(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        values: &[Value<'c, 'a>],
        field: Type<'c>,
    ) -> Value<'c, 'a> {
        let count = values.len();
        let register = if field.is_f32() { "f" } else { "r" };
        let constraints: Vec<String> = std::iter::repeat_n(format!("={register}"), count)
            .chain((0..count).map(|i| i.to_string()))
            .collect();
        let result = match count {
            1 => field,
            _ => crate::attributes::struct_of(self.context, field, count),
        };
        let string = |text: &str| melior::ir::attribute::StringAttribute::new(self.context, text);
        let tied = llvm::InlineAsmOperation::builder(self.context, b.location)
            .res(result)
            .operands(values)
            .asm_string(string(""))
            .constraints(string(&constraints.join(",")))
            .has_side_effects(Attribute::unit(self.context))
            .asm_dialect(crate::attributes::integer(self.context, 64, 0))
            .build();
        b.value(at, tied.into())
    }

    /// The four 32-bit registers of the fragment `a` (in the wgmma A layout) that one instruction
    /// (k of `k_step`) reads for 64-row tile `tile` and k-step `step`: each two f16 or bf16 (k16:
    /// 8 slots a step, register q holds slots 2q and 2q + 1), or each four 8-bit floats (k32: 16
    /// slots, register q holds slots 4q to 4q + 3), in the layout's order.
    #[allow(clippy::too_many_arguments)]
    fn pack_a_registers(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        a: Value<'c, 'a>,
        tile: i64,
        step: i64,
        k_step: i64,
        depth: i64,
        i32_type: Type<'c>,
    ) -> Vec<Value<'c, 'a>> {
        let operand = placed(self.layouts, a).expect("checked");
        let array = self.private(a);
        let per_register = k_step / 8;
        let first = tile * (depth / 2) + step * (k_step / 2);
        (0..4)
            .map(|q| {
                let values: Vec<Value> = (0..per_register)
                    .map(|e| self.slot_value(b, at, array, operand, first + per_register * q + e))
                    .collect();
                if per_register == 4 {
                    // 8-bit floats are held as their bits' integers after the lowering: a vector
                    // bitcast moves them, an LLVM one would not be rewritten.
                    return super::exchange::word_of_bytes(b, at, &values);
                }
                let pair = crate::attributes::vector(2, element_type(a));
                let packed = b.value(
                    at,
                    vector::from_elements(self.context, pair, &values, b.location).into(),
                );
                b.value(at, llvm::bitcast(self.context, i32_type, packed, b.location).into())
            })
            .collect()
    }

    /// Pins the registers of `fragment` at `at`: an empty `llvm.inline_asm` with side effects (so
    /// kept in order with the wgmma waits beside it) takes each of the fragment's 32-bit registers
    /// and gives it back, and the fragment's array holds what it gives back. LLVM can then move
    /// no arithmetic that writes them below the pin, and none that reads them above it. Fragments
    /// of other element types are left as they are.
    pub(super) fn pin_registers(&self, b: &Builder<'c>, at: At<'c, 'a>, fragment: Value<'c, 'a>) {
        let Some(array) = self.private_array(fragment) else {
            return;
        };
        let Some(memref) = tile_dialect::ops::as_memref(array.r#type()) else {
            return;
        };
        let element = melior::ir::ShapedTypeLike::element(&memref);
        if !element.is_f32() && element != IntegerType::new(self.context, 32).into() {
            return;
        }
        let count = memref_shape(array).first().copied().unwrap_or(0);
        if count == 0 {
            return;
        }
        let values: Vec<Value> = (0..count)
            .map(|slot| b.load(at, array, &[self.register(b, at, slot)]))
            .collect();
        let pinned = self.tie_registers(b, at, &values, element);
        for slot in 0..count {
            let value = match count {
                1 => pinned,
                _ => b.extract(at, pinned, slot, element),
            };
            b.store(at, value, array, &[self.register(b, at, slot)]);
        }
    }

    /// One m64nNkK wgmma (`(n, k)`: k16 for 16-bit inputs, k32 for 8-bit ones) whose A operand is
    /// four packed registers of a fragment ([`Self::pack_a_registers`]), through
    /// `llvm.inline_asm`: MLIR 22 has no op for the register-A form. The accumulator is tied to the
    /// results; without `accumulate` the instruction writes D = A B (its scale-d predicate false).
    /// 8-bit inputs take no transpose operand (B is K-major).
    #[allow(clippy::too_many_arguments)]
    fn wgmma_register_a(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        registers: Vec<Value<'c, 'a>>,
        (n, k): (i64, i64),
        input: &str,
        accumulator: Value<'c, 'a>,
        descriptor: Value<'c, 'a>,
        struct_type: Type<'c>,
        i32_type: Type<'c>,
        b_mn_major: bool,
        accumulate: bool,
    ) -> Value<'c, 'a> {
        let outputs = n / 2;
        let scale_d = b.value(
            at,
            melior::dialect::arith::constant(
                self.context,
                IntegerAttribute::new(i32_type, i64::from(accumulate)).into(),
                b.location,
            ),
        );
        let list = |from: i64, count: i64| {
            (from..from + count)
                .map(|i| format!("${i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let transpose_b = match k {
            16 => format!(", {}", u8::from(b_mn_major)),
            _ => String::new(),
        };
        let asm = format!(
            "{{\n.reg .pred p;\nsetp.ne.b32 p, ${}, 0;\nwgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{input}.{input} {{{}}}, {{{}}}, ${}, p, 1, 1{transpose_b};\n}}",
            outputs + 5,
            list(0, outputs),
            list(outputs, 4),
            outputs + 4,
        );
        let constraints: Vec<String> = std::iter::repeat_n("=f".to_owned(), outputs as usize)
            .chain(std::iter::repeat_n("r".to_owned(), 4))
            .chain(["l".to_owned(), "r".to_owned()])
            .chain((0..outputs).map(|i| i.to_string()))
            .collect();
        let mut operands = registers;
        operands.push(descriptor);
        operands.push(scale_d);
        for position in 0..outputs {
            operands.push(b.extract(at, accumulator, position as i64, Type::float32(self.context)));
        }
        let string = |text: &str| melior::ir::attribute::StringAttribute::new(self.context, text);
        let instruction = llvm::InlineAsmOperation::builder(self.context, b.location)
            .res(struct_type)
            .operands(&operands)
            .asm_string(string(&asm))
            .constraints(string(&constraints.join(",")))
            .has_side_effects(Attribute::unit(self.context))
            .asm_dialect(crate::attributes::integer(self.context, 64, 0))
            .build();
        b.value(at, instruction.into())
    }
}
