//! Staged TMA stores (sm_90a): a wgmma accumulator copied to a global tensor of f16, bf16 or f32
//! goes through shared memory and leaves by TMA.
//!
//! Stored from registers, even 16 bytes a lane (`wide_stores`), an epilogue issues one store
//! instruction per run and waits on the store queue (38.6% of the 128x128 GEMM's stalls on L1TEX
//! scoreboards, RESULTS run 73). Here each thread writes its column pairs, converted, as one 4-byte
//! (16-bit elements) or 8-byte (f32) store into a staging area laid out as the tile's TMA boxes (R
//! rows of 128 bytes: 64 or 32 columns, 128-byte swizzled: conflict-free for the 16-bit pairs of
//! the accumulator's lanes, which hold 8 rows of one 16-byte chunk each; two-way for f32's), and
//! one thread hands each box to the copy engine, which writes it to the
//! tensor (dropping what lies past its end in any dimension) while the threads go on.
//!
//! The staging area is a shared tile that nothing reads after the copy (a main loop's ring, once
//! the loop is over; the copy at the kernel's top level), or else one the kernel gets for it (at most
//! [`OWN_STAGING_BYTES`], where the chip's shared memory has room: a persistent kernel's epilogue
//! runs while its next tile's loads fill the ring). Where the area holds fewer than the tile's
//! boxes, they go in rounds. Before a round writes the area, thread 0 waits until the engine has
//! read what the last round gave it (`cp.async.bulk.wait_group.read 0`) and every thread passes a
//! barrier (which also lets the last wgmma readers of a reused ring finish); after the writes, a
//! proxy fence makes them visible to the engine and a second barrier hands the area to thread 0.
//! At the kernel's end thread 0 waits for every store to complete.
//!
//! In the kernel's own area, accumulators of several warpgroups (each owning a slab of rows) are
//! staged by each warpgroup alone where every copy into that area can be: the area splits into
//! one part a warpgroup, the boxes have a slab's rows, and each warpgroup's first thread waits
//! for and issues its own boxes between barriers of its own 128 threads (named barrier
//! [`FIRST_WARPGROUP_BARRIER`] + warpgroup). So one warpgroup's epilogue never waits at the
//! other's barriers or hand-overs (0.5-1.4% of the persistent 4096^3 GEMM, whose epilogue takes
//! 1-3.5% of its time: RESULTS runs 112-113). A drained ring is still staged by the block
//! together: its last wgmma readers are both warpgroups.

use super::*;
use tile_dialect::positions::OperationAt;

/// Bytes of shared memory a kernel gets for its staging area where no drained tile serves: two
/// boxes of 128 rows (the deleted template's choice).
pub const OWN_STAGING_BYTES: i64 = 32 * 1024;
/// Bytes of a box row: the 128-byte swizzle's span (64 16-bit or 32 f32 columns).
const ROW_BYTES: i64 = 128;
/// Rows of the boxes that a copy's row limit leaves a cut box in, largest first (the last 1: any
/// count of rows).
const CUT_BOX_ROWS: [i64; 2] = [8, 1];

/// Bytes of the elements of a tensor the staged stores write, where they write it.
fn element_bytes(tensor: Value) -> Option<i64> {
    stored_bytes(element_type(tensor))
}

/// How one accumulator copy is staged.
pub(crate) struct TmaStore {
    /// The TMA box, outermost first (the tile's rows in dimension `row_dim`, a 128-byte row of
    /// columns in the last, 1 in each other).
    box_: Vec<i64>,
    /// The tensor's dimension along the tile's rows.
    row_dim: usize,
    /// Boxes the area holds at once.
    per_round: i64,
    /// Each round's slots (the first of each column pair).
    rounds: Vec<Vec<usize>>,
    /// The drained tile (its allocation's key) the area reuses; `None`: the kernel's own area.
    drained: Option<usize>,
    /// Warpgroups that stage their slabs of rows each alone (1: the block's threads together).
    pub(crate) warpgroups: i64,
    /// The copy adds to the tensor (`atomic <sum>` of f32): the engine reduces each box into it
    /// (`cp.reduce.async.bulk.tensor .add`) instead of storing it.
    reduce: bool,
}

/// The boxes (of `columns` columns) of the tile of `placed` that column pair `slot` writes, over
/// every thread.
fn pair_boxes(placed: &Placed, slot: usize, columns: i64) -> BTreeSet<i64> {
    (0..placed.distribution.threads)
        .filter_map(|thread| placed.distribution.coordinates(thread, slot))
        .map(|element| element[1] / columns)
        .collect()
}

/// Whether the copy of fragment `src` into global `dst` (the tile spanning its dimensions `spans`)
/// can leave by TMA: an
/// unguarded wgmma accumulator of R x C (R a multiple of 8 up to 256, C of a box row's columns)
/// whose slots all pair up, into an f16, bf16 or f32 tensor [`crate::layout::tma::tensor_box`] takes with boxes
/// of R / `warpgroups` rows. Returns the box and the column pairs.
fn candidate(
    src: Value,
    dst: Value,
    spans: &[usize],
    layouts: &Layouts,
    warpgroups: i64,
) -> Option<(Vec<i64>, Vec<usize>)> {
    let from = placed(layouts, src).ok()?;
    let bytes = element_bytes(dst)?;
    let [rows, columns] = from.layout.shape[..] else {
        return None;
    };
    let box_columns = ROW_BYTES / bytes;
    let usable = from.layout.origin.starts_with("wgmma.acc")
        && !from.distribution.guarded
        && from.layout.replicate == 1
        && columns % box_columns == 0;
    if !usable || rows % warpgroups != 0 {
        return None;
    }
    let box_ = crate::layout::tma::tensor_box(dst, spans, rows / warpgroups, box_columns, bytes)?;
    let pairs = column_pairs(from);
    let used = from.distribution.used_slots().count();
    (pairs.len() * 2 == used).then_some((box_, pairs))
}

/// Why the limits of the copy `parts` keep it off the copy engine, which cuts boxes along the
/// tile's rows only: a limit on another dimension that is not a constant at least its extent.
fn limits_off_the_engine(parts: &tile_dialect::ops::CopyParts) -> Option<String> {
    let shape = memref_shape(parts.src);
    parts
        .limits
        .iter()
        .zip(&shape)
        .enumerate()
        .skip(1)
        .find(|(_, (limit, extent))| tile_dialect::ops::constant_integer(**limit).is_none_or(|limit| limit < **extent))
        .map(|(dimension, (_, extent))| {
            format!(
                "its limit on the tile's dimension {dimension} is not a constant at least its extent {extent} (boxes are cut along the tile's rows only); limit the rows alone to keep the store on the copy engine"
            )
        })
}

/// The warpgroups of accumulator `from` that can stage their slabs alone: its warpgroups where it
/// has several splitting M (each holds rows `w R / W` .. `(w + 1) R / W`,
/// `atoms::wgmma_accumulator`), else 1.
fn slab_warpgroups(from: &Placed) -> i64 {
    let rows = from.layout.shape[0];
    match crate::layout::atoms::wgmma_warpgroups(&from.layout) {
        Some((warpgroups, 1)) if warpgroups > 1 && from.layout.threads % 128 == 0 && rows % (64 * warpgroups) == 0 => {
            warpgroups
        }
        _ => 1,
    }
}

/// The rounds of `pairs` when the area holds `per_round` boxes of `columns` columns: `None` where a
/// pair's boxes (over the threads) fall in two rounds.
fn rounds(from: &Placed, pairs: &[usize], columns: i64, per_round: i64) -> Option<Vec<Vec<usize>>> {
    let boxes = from.layout.shape[1] / columns;
    let mut rounds = vec![Vec::new(); ((boxes + per_round - 1) / per_round) as usize];
    for &slot in pairs {
        let of: BTreeSet<i64> = pair_boxes(from, slot, columns).iter().map(|b| b / per_round).collect();
        let [round] = of.into_iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        rounds[round as usize].push(slot);
    }
    Some(rounds)
}

/// Shared bytes of `kernel`'s tiles and barriers, each from a 128-byte boundary.
fn shared_bytes(ops: &[OperationRef]) -> i64 {
    ops.iter()
        .filter(|op| is(*op, tile::AllocSharedOperation::name) || is(*op, tile::AllocBarriersOperation::name))
        .filter_map(|op| op.result_at(0))
        .map(|result| {
            let value: Value = result.into();
            let bytes =
                tile_dialect::element::Element::of(element_type(value)).map_or(8, |element| element.bytes() as i64);
            crate::pipeline::rings::padded(memref_shape(value).iter().product::<i64>() * bytes)
        })
        .sum()
}

/// Plans every accumulator copy of a kernel that leaves by TMA, given the workgroup scratch the
/// other rules take (`scratch`): by copy, and the bytes of the kernel's own staging area (0 where
/// every staged copy reuses a drained tile).
pub fn tma_store_plan(
    ops: &[OperationRef],
    tensor_cores: &TensorCorePlan,
    layouts: &Layouts,
    scratch: i64,
) -> (HashMap<usize, TmaStore>, i64) {
    let mut plans = HashMap::new();
    let mut own = 0;
    // The copies staged in the kernel's own area: staged by the whole block, and by warpgroups.
    let mut own_area = Vec::new();
    // Room for the kernel's own area: what the tiles, the scratch and the swizzled tiles' alignment leave.
    let free =
        crate::nvgpu::chip::MAX_SHARED_BYTES - shared_bytes(ops) - scratch - crate::layout::tma::SWIZZLED_ALIGNMENT;
    for op in ops.iter().filter(|op| is(*op, tile::CopyOperation::name)) {
        let Some(parts) = copy_parts(op) else { continue };
        // An atomic sum into f32 leaves as bulk reductions, which the engine makes element by
        // element at L2; other atomic copies update element by element (`Lowering::copy_out`).
        let atomic = tile_dialect::ops::copy_atomic(op);
        let reduce = atomic.is_some();
        if level(parts.src) != Some(MemoryLevel::Fragment)
            || level(parts.dst) != Some(MemoryLevel::Global)
            || atomic
                .is_some_and(|kind| kind != tile_dialect::ops::ReductionKind::Sum || !element_type(parts.dst).is_f32())
        {
            continue;
        }
        let Some((box_, pairs)) = candidate(parts.src, parts.dst, &parts.spans, layouts, 1) else {
            continue;
        };
        if let Some(why) = limits_off_the_engine(&parts) {
            tile_dialect::diagnostics::emit_warning(
                op.location(),
                &format!("'tile.copy' op stores element by element on sm_90a, not by TMA: {why}"),
            );
            continue;
        }
        let from = placed(layouts, parts.src).expect("a candidate's layout");
        let row_dim = parts.spans[0];
        let box_bytes = box_[row_dim] * ROW_BYTES;
        let box_columns = *box_.last().expect("a box");
        let boxes = from.layout.shape[1] / box_columns;
        let staged = |capacity: i64| {
            let per_round = (capacity / box_bytes).min(boxes);
            (per_round > 0)
                .then(|| rounds(from, &pairs, box_columns, per_round).map(|rounds| (per_round, rounds)))
                .flatten()
        };
        let drained = drained_tiles(*op, &tensor_cores.swizzled)
            .into_iter()
            .find_map(|(tile, bytes)| staged(bytes).map(|plan| (Some(tile), plan)));
        let plan = drained.or_else(|| staged(OWN_STAGING_BYTES.min(free)).map(|plan| (None, plan)));
        let Some((drained, (per_round, rounds))) = plan else {
            continue;
        };
        if drained.is_some() {
            plans.insert(
                key(op),
                TmaStore {
                    box_,
                    row_dim,
                    per_round,
                    rounds,
                    drained,
                    warpgroups: 1,
                    reduce,
                },
            );
            continue;
        }
        own = own.max(per_round * box_bytes);
        // In the kernel's own area each warpgroup may stage its slab in its part: boxes of the
        // slab's rows, as many a round as the whole block's (the parts together are the same area).
        let warpgroups = slab_warpgroups(from);
        let slabs = (warpgroups > 1)
            .then(|| candidate(parts.src, parts.dst, &parts.spans, layouts, warpgroups))
            .flatten();
        let whole = TmaStore {
            box_,
            row_dim,
            per_round,
            rounds: rounds.clone(),
            drained,
            warpgroups: 1,
            reduce,
        };
        own_area.push((
            key(op),
            whole,
            slabs.map(|(box_, _)| TmaStore {
                box_,
                row_dim,
                per_round,
                rounds,
                drained,
                warpgroups,
                reduce,
            }),
        ));
    }
    // Warpgroups stage alone only where every copy into the own area can, in as many parts: a
    // copy of the whole block after split ones would write parts whose last stores another
    // warpgroup's first thread issued, and thread 0 cannot wait for those.
    let parts: BTreeSet<Option<i64>> = own_area
        .iter()
        .map(|(_, _, split)| split.as_ref().map(|plan| plan.warpgroups))
        .collect();
    let split = parts.len() == 1 && parts.first().is_some_and(|parts| parts.is_some());
    for (copy, whole, slabs) in own_area {
        plans.insert(
            copy,
            if split {
                slabs.expect("every copy splits")
            } else {
                whole
            },
        );
    }
    (plans, own)
}

/// The shared tiles (allocation key, bytes) at the kernel's top level that no op after `op` uses,
/// largest first, when `op` itself is at the top level (outside any loop that would come back to
/// them); TMA-filled rings first among equals (they are already on the swizzle's alignment).
fn drained_tiles(op: OperationRef, swizzled: &HashSet<usize>) -> Vec<(usize, i64)> {
    let Some(block) = op.block() else { return Vec::new() };
    if block
        .parent_operation()
        .is_none_or(|parent| !is(&parent, tile::KernelOperation::name))
    {
        return Vec::new();
    }
    let later: Vec<OperationRef> = std::iter::successors(op.next_in_block(), |next| next.next_in_block()).collect();
    let mut tiles: Vec<(bool, i64, usize)> =
        std::iter::successors(block.first_operation(), |next| next.next_in_block())
            .filter(|candidate| is(candidate, tile::AllocSharedOperation::name))
            .filter_map(|candidate| {
                let tile: Value = candidate.result_at(0)?.into();
                let bytes = tile_dialect::element::Element::of(element_type(tile))?.bytes() as i64;
                (!later.iter().any(|user| uses(*user, &[tile]))).then(|| {
                    (
                        swizzled.contains(&key(&candidate)),
                        memref_shape(tile).iter().product::<i64>() * bytes,
                        key(&candidate),
                    )
                })
            })
            .collect();
    tiles.sort_by(|x, y| (y.1, y.0).cmp(&(x.1, x.0)));
    tiles.into_iter().map(|(_, bytes, tile)| (tile, bytes)).collect()
}

/// The staging area of each planned copy (by copy): its drained tile, or the kernel's own area,
/// allocated at `start`; each on the swizzle's 1024-byte alignment.
pub(super) fn staging_areas<'c, 'a>(
    b: &Builder<'c>,
    start: At<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
    tensor_cores: &TensorCorePlan,
) -> HashMap<usize, Value<'c, 'a>> {
    let context = b.context;
    let aligned = |allocation: OperationRef<'c, 'a>| {
        let alignment = IntegerAttribute::new(
            IntegerType::new(context, 64).into(),
            crate::layout::tma::SWIZZLED_ALIGNMENT,
        );
        tile_dialect::ops::set_attribute(allocation, crate::layout::tma::ALIGNMENT_ATTRIBUTE, alignment.into());
        allocation.result_at(0).expect("a tile").into()
    };
    let own = (tensor_cores.own_staging > 0).then(|| {
        let workgroup = Attribute::parse(context, "#gpu.address_space<workgroup>");
        let area = MemRefType::new(Type::float16(context), &[tensor_cores.own_staging / 2], None, workgroup);
        aligned(b.insert(start, tile::alloc_shared(context, area.into(), b.location).into()))
    });
    let mut areas = HashMap::new();
    for op in ops {
        let Some(plan) = tensor_cores.tma_stores.get(&key(op)) else {
            continue;
        };
        let area = match plan.drained {
            Some(tile) => ops
                .iter()
                .find(|candidate| key(candidate) == tile)
                .map(|allocation| aligned(*allocation)),
            None => own,
        };
        if let Some(area) = area {
            areas.insert(key(op), area);
        }
    }
    areas
}

/// Who stages a copy's boxes: the block's threads together, or each warpgroup its slab.
struct Staging<'c, 'a> {
    /// The thread's index among those that stage with it (0 issues the boxes).
    thread: Value<'c, 'a>,
    /// The thread's warpgroup's part, where warpgroups stage alone.
    slab: Option<Slab<'c, 'a>>,
}

/// A warpgroup's part of the staging.
struct Slab<'c, 'a> {
    /// The byte of the area where the part begins.
    part: Value<'c, 'a>,
    /// The first row of the tile that the part holds.
    first_row: Value<'c, 'a>,
    /// The warpgroup's named barrier (i32).
    barrier: Value<'c, 'a>,
    /// The threads that meet there (i32: a warpgroup's).
    threads: Value<'c, 'a>,
}

impl<'c, 'a> Staging<'c, 'a> {
    /// The staging of thread `tid` where `warpgroups` warpgroups each stage `rows` rows in parts
    /// of `part_bytes` (1: the block's threads together, nothing to compute).
    fn new(b: &Builder<'c>, at: At<'c, 'a>, tid: Value<'c, 'a>, warpgroups: i64, rows: i64, part_bytes: i64) -> Self {
        if warpgroups == 1 {
            return Staging {
                thread: tid,
                slab: None,
            };
        }
        let c = |value: i64| b.index(at, value);
        let i32_type: Type = IntegerType::new(b.context, 32).into();
        let warpgroup = b.divui(at, tid, c(128));
        let slab = Slab {
            part: b.muli(at, warpgroup, c(part_bytes)),
            first_row: b.muli(at, warpgroup, c(rows)),
            barrier: b.cast(
                at,
                tile_ir::arith::index_cast,
                b.addi(at, warpgroup, c(FIRST_WARPGROUP_BARRIER)),
                i32_type,
            ),
            threads: b.cast(at, tile_ir::arith::index_cast, c(128), i32_type),
        };
        Staging {
            thread: b.remui(at, tid, c(128)),
            slab: Some(slab),
        }
    }

    /// The barrier of those that stage together: the block's, or the warpgroup's named barrier.
    fn barrier(&self, b: &Builder<'c>, at: At<'c, 'a>) {
        match &self.slab {
            None => b.barrier(at),
            Some(slab) => crate::pipeline::mbarriers::named_barrier(b, at, slab.barrier, slab.threads),
        }
    }
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// Copies fragment `src` into the global tensor `dst` at `offsets` through the staging area
    /// `staging` by TMA (the module doc); false, emitting nothing, where the plan has no store.
    pub(super) fn copy_out_by_tma(
        &self,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        staging: Option<Value<'c, 'a>>,
        tensor_cores: &TensorCorePlan,
    ) -> bool {
        let Some(plan) = tensor_cores.tma_stores.get(&key(&op)) else {
            return false;
        };
        let Some(area) = staging else { return false };
        let b = self.builder(&op);
        let at = At::before(op);
        let context = self.context;
        let from = placed(self.layouts, src).expect("planned");
        let array = self.private(src);
        let ty = element_type(dst);
        let i32_type: Type = IntegerType::new(context, 32).into();
        let i64_type: Type = IntegerType::new(context, 64).into();
        let shared_pointer = crate::attributes::llvm_pointer(context, 3);
        let rows = plan.box_[plan.row_dim];
        let box_bytes = rows * ROW_BYTES;
        let box_columns = *plan.box_.last().expect("a box");
        let bytes = element_bytes(dst).expect("planned");
        let map = self.tensor_map(&b, at, dst, &plan.box_);
        let c = |value: i64| b.index(at, value);
        // Each warpgroup's slab in its part of the area (one part: the block's threads together).
        let staging = Staging::new(&b, at, self.tid, plan.warpgroups, rows, plan.per_round * box_bytes);
        let mut base = b.cast(at, tile_ir::arith::index_cast, b.aligned_pointer(at, area), i64_type);
        let offsets_now = self.offsets(&b, at, from);
        let leader = || b.if_then(at, b.compare(at, "eq", staging.thread, c(0)));
        let mut box_offsets = offsets.to_vec();
        if let Some(slab) = &staging.slab {
            base = b.addi(at, base, b.cast(at, tile_ir::arith::index_cast, slab.part, i64_type));
            box_offsets[plan.row_dim] = b.addi(at, offsets[plan.row_dim], slab.first_row);
        }
        // A limit on the tile's rows (the plan takes no other): the rows of the part's boxes
        // written, at least 0, and the maps of the smaller boxes the boxes it cuts leave in.
        let row_limit = offsets.limits.first().map(|limit| {
            let limit = match &staging.slab {
                Some(slab) => b.subi(at, *limit, slab.first_row),
                None => *limit,
            };
            let negative = b.compare(at, "slt", limit, c(0));
            b.select(at, negative, c(0), limit)
        });
        let cut_maps: Vec<(i64, Value)> = if row_limit.is_some() {
            CUT_BOX_ROWS
                .iter()
                .filter(|tier| **tier < rows)
                .map(|tier| {
                    let mut box_ = plan.box_.clone();
                    box_[plan.row_dim] = *tier;
                    (*tier, self.tensor_map(&b, at, dst, &box_))
                })
                .collect()
        } else {
            Vec::new()
        };
        // The row's place among the TMA coordinates (innermost first).
        let row_coordinate = plan.box_.len() - 1 - plan.row_dim;
        // Hands the box of `map` at `source` (shared) and `coordinates` to the copy engine.
        let hand_over = |at: At<'c, 'a>, map: Value<'c, 'a>, source: Value<'c, 'a>, coordinates: &[Value<'c, 'a>]| {
            if plan.reduce {
                let add = Attribute::parse(context, "#nvvm.tma_redux_kind<add>").expect("the add kind");
                let copy = nvvm::cp_async_bulk_tensor_reduce(context, map, source, coordinates, add, b.location);
                // The map, the source and the coordinates; no cache hint.
                b.insert(
                    at,
                    tile_ir::with_segments(context, copy, &[1, 1, coordinates.len() as i32, 0]),
                );
            } else {
                let copy = nvvm::cp_async_bulk_tensor_global_shared_cta(context, map, source, coordinates, b.location);
                // The map, the source and the coordinates; no cache hint or predicate.
                b.insert(
                    at,
                    tile_ir::with_segments(context, copy, &[1, 1, coordinates.len() as i32, 0, 0]),
                );
            }
        };
        for (round, pairs) in plan.rounds.iter().enumerate() {
            // The engine has read the area's last contents, and its last readers are done.
            self.bulk_wait(&b, leader(), true);
            staging.barrier(&b, at);
            for &slot in pairs {
                let [row, column] = self.coordinates(&b, at, from, &offsets_now, slot)[..] else {
                    unreachable!("a 2-D tile")
                };
                // The row within the part's boxes.
                let row = if staging.slab.is_some() {
                    b.remui(at, row, c(rows))
                } else {
                    row
                };
                // Byte of (row, column) in its box: 128-byte rows, the 16-byte chunk index
                // XOR-ed with the row's place among 8.
                let in_round = b.remui(at, b.divui(at, column, c(box_columns)), c(plan.per_round));
                let within = b.muli(at, b.remui(at, column, c(box_columns)), c(bytes));
                let chunk = b.xori(at, b.divui(at, within, c(16)), b.remui(at, row, c(8)));
                let mut byte = b.muli(at, in_round, c(box_bytes));
                byte = b.addi(at, byte, b.muli(at, row, c(ROW_BYTES)));
                byte = b.addi(at, byte, b.muli(at, chunk, c(16)));
                byte = b.addi(at, byte, b.remui(at, within, c(16)));
                let address = b.addi(at, base, b.cast(at, tile_ir::arith::index_cast, byte, i64_type));
                let pointer = b.cast(at, tile_ir::llvm::inttoptr, address, shared_pointer);
                // The pair as one 4-byte word (16-bit) or two (f32, one 8-byte store).
                let pair: Vec<Value> = [slot, slot + 1]
                    .iter()
                    .map(|s| convert(&b, at, self.slot_value(&b, at, array, from, *s as i64), ty))
                    .collect();
                let words = self.words(&b, at, &pair, bytes, i32_type);
                let value = if words.len() == 1 {
                    words[0]
                } else {
                    let pair_type = crate::attributes::vector(2, i32_type);
                    b.value(at, vector::from_elements(context, pair_type, &words, b.location).into())
                };
                let alignment = IntegerAttribute::new(i64_type, 2 * bytes);
                let store = llvm::StoreOperation::builder(context, b.location)
                    .value(value)
                    .addr(pointer)
                    .alignment(alignment)
                    .build();
                b.insert(at, store.into());
            }
            // The generic proxy's writes, visible to the copy engine; then thread 0 hands the boxes over.
            b.insert(at, async_shared_fence(context, b.location));
            staging.barrier(&b, at);
            let issue = leader();
            let boxes = from.layout.shape[1] / box_columns;
            for box_index in (round as i64 * plan.per_round)..((round as i64 + 1) * plan.per_round).min(boxes) {
                let offset = b.value(
                    issue,
                    melior::dialect::arith::constant(
                        context,
                        IntegerAttribute::new(i64_type, (box_index % plan.per_round) * box_bytes).into(),
                        b.location,
                    ),
                );
                let source = b.cast(
                    issue,
                    tile_ir::llvm::inttoptr,
                    b.addi(issue, base, offset),
                    shared_pointer,
                );
                let coordinates = self.box_coordinates(&b, issue, &box_offsets, box_index * box_columns);
                let Some(limit) = row_limit else {
                    hand_over(issue, map, source, &coordinates);
                    continue;
                };
                // A box the limit cuts leaves as boxes of fewer rows, largest first, each from
                // its rows' place in the area (rows of 128 bytes, the swizzle a function of the
                // address, which the smaller boxes' starts keep).
                let whole = b.compare(issue, "uge", limit, b.index(issue, rows));
                let (whole_box, cut) = b.if_else(issue, whole);
                hand_over(whole_box, map, source, &coordinates);
                let mut done = b.index(cut, 0);
                for (tier, tier_map) in &cut_maps {
                    let tier_rows = b.index(cut, *tier);
                    let count = b.divui(cut, b.subi(cut, limit, done), tier_rows);
                    let end = b.addi(cut, done, b.muli(cut, count, tier_rows));
                    let (body, row) = b.for_loop(cut, done, end, tier_rows);
                    let row_bytes = b.cast(
                        body,
                        tile_ir::arith::index_cast,
                        b.muli(body, row, b.index(body, ROW_BYTES)),
                        i64_type,
                    );
                    let from_row = b.cast(
                        body,
                        tile_ir::llvm::inttoptr,
                        b.addi(body, b.addi(body, base, offset), row_bytes),
                        shared_pointer,
                    );
                    let mut moved = coordinates.clone();
                    moved[row_coordinate] = b.addi(
                        body,
                        moved[row_coordinate],
                        b.cast(body, tile_ir::arith::index_cast, row, i32_type),
                    );
                    hand_over(body, *tier_map, from_row, &moved);
                    done = end;
                }
            }
            b.insert(issue, nvvm::cp_async_bulk_commit_group(context, b.location).into());
        }
        true
    }

    /// Thread 0's wait (at `at`, inside its branch) for its bulk stores: until the engine has
    /// read their sources (`read`), or until they are complete.
    pub(super) fn bulk_wait(&self, b: &Builder<'c>, at: At<'c, 'a>, read: bool) {
        let none_pending = IntegerAttribute::new(IntegerType::new(self.context, 32).into(), 0);
        let wait = nvvm::CpAsyncBulkWaitGroupOperation::builder(self.context, b.location).group(none_pending);
        let wait = if read {
            wait.read(Attribute::unit(self.context))
        } else {
            wait
        };
        b.insert(at, wait.build().into());
    }

    /// TMA coordinates (innermost first, i32) of the box at tile column `column` of the tile at
    /// `offsets`: its column, then the other offsets inwards out (the box spans the tile's
    /// dimensions, extent 1 in the others).
    fn box_coordinates(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        offsets: &[Value<'c, 'a>],
        column: i64,
    ) -> Vec<Value<'c, 'a>> {
        let i32_type: Type = IntegerType::new(self.context, 32).into();
        let rank = offsets.len();
        let first = b.addi(at, offsets[rank - 1], b.index(at, column));
        std::iter::once(first)
            .chain(offsets[..rank - 1].iter().rev().copied())
            .map(|value| b.cast(at, tile_ir::arith::index_cast, value, i32_type))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    /// The area's swizzled bytes for every thread's pairs of `bytes`-byte elements: each 4-byte
    /// word of every round's boxes is written once, and the stores of one pair by a warp hit every
    /// bank once per phase of 32 lanes of 4-byte stores (16-bit elements); an f32 pair's 8 bytes,
    /// 16 lanes a phase, hit half the banks twice (a quad's 32 bytes of a row span two 16-byte
    /// chunks, and rows r and r ^ 1 swap the same two).
    fn check(m: i64, n: i64, warpgroups: i64, per_round: i64, bytes: i64) -> usize {
        let layout = atoms::wgmma_accumulator(m, n, warpgroups);
        let from = Placed::of(layout).expect("placed");
        let pairs = column_pairs(&from);
        let columns = ROW_BYTES / bytes;
        let rounds = rounds(&from, &pairs, columns, per_round).expect("rounds");
        let phase = 128 / (2 * bytes);
        let mut words = 0;
        for pairs in &rounds {
            let mut written = vec![0; (per_round * m * ROW_BYTES / 4) as usize];
            for &slot in pairs {
                for warp in 0..from.distribution.threads / 32 {
                    for lanes in (0..32).collect::<Vec<i64>>().chunks(phase as usize) {
                        let mut banks = BTreeSet::new();
                        for lane in lanes {
                            let Some(element) = from.distribution.coordinates(warp * 32 + lane, slot) else {
                                continue;
                            };
                            let (row, column) = (element[0], element[1]);
                            let within = column % columns * bytes;
                            let byte = (column / columns % per_round) * m * ROW_BYTES
                                + row * ROW_BYTES
                                + ((within / 16) ^ (row % 8)) * 16
                                + within % 16;
                            for word in 0..bytes / 2 {
                                written[(byte / 4 + word) as usize] += 1;
                                banks.insert((byte / 4 + word) % 32);
                            }
                        }
                        assert_eq!(
                            banks.len() as i64,
                            if bytes == 2 { 32 } else { 16 },
                            "slot {slot}, warp {warp}: bank conflicts"
                        );
                    }
                }
            }
            assert!(
                written.iter().all(|count| *count <= 1),
                "a word of the area written twice in one round"
            );
            words += written.iter().sum::<i64>();
        }
        // Every element of the tile once.
        assert_eq!(words, m * n * bytes / 4);
        rounds.len()
    }

    #[test]
    fn swizzled_staging_is_written_once_without_conflicts() {
        assert_eq!(check(128, 128, 1, 2, 2), 1);
        assert_eq!(check(128, 128, 2, 1, 2), 2);
        assert_eq!(check(128, 256, 2, 2, 2), 2);
        assert_eq!(check(64, 64, 1, 1, 2), 1);
        // f32: boxes of 32 columns.
        assert_eq!(check(128, 128, 1, 4, 4), 1);
        assert_eq!(check(128, 256, 2, 2, 4), 4);
    }
}
