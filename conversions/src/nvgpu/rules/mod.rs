//! The tensor-core rules of NVIDIA targets: gemms on wgmma (warpgroups, operands as core matrices
//! in shared memory, A also from registers) and on mma.sync (warps: what wgmma cannot take), the
//! copies that fill wgmma's tiles (16-byte cp.async, or TMA boxes into rings), the waits for wgmma
//! groups, and accumulators that leave by staged TMA stores.
//!
//! | rule | file |
//! |------|------|
//! | which gemms run on wgmma, the tiles it reads as core matrices, the copies into them, the wgmma | [`wgmma`] (the operand facts: [`operands`]) |
//! | where the kernel waits for wgmma groups | [`wgmma_waits`] |
//! | gemms on `mma.sync` m16n8k16 (f16, bf16) and m16n8k32 (i8) | [`mma_sync`] |
//! | ring copies as TMA boxes | [`tma`] |
//! | copies by the threads' 16-byte cp.async (into core-matrix tiles; ring copies into plain tiles) | [`cp_async`] |
//! | accumulator copies to global tensors through a staging tile and TMA | [`tma_store`] |
//! | an f32 accumulator copied into the 8-bit A operand wgmma reads from registers, by shuffles within quads | [`exchange`] |
//! | why a gemm misses both instructions, for its warning | [`misfit`] |

mod cp_async;
mod exchange;
mod misfit;
mod mma_sync;
mod operands;
mod tma;
mod tma_store;
mod wgmma;
mod wgmma_waits;

use crate::registers::prelude::*;
use crate::target::Target;
use melior::ir::{
    Location,
    operation::{Operation, OperationMutLike},
};
use mma_sync::{MmaGemm, MmaInput};
use tile_dialect::positions::OperationAt;
use tile_ir::{gpu, is, llvm, match_op, memref, nvgpu, nvvm, tile, vector};
use tma_store::TmaStore;

/// Hopper's tensor cores: wgmma, mma.sync where wgmma cannot take a gemm, TMA stores.
pub static WGMMA_AND_MMA_SYNC: TensorCores = TensorCores { wgmma: true };

/// Ampere's tensor cores: mma.sync on warps.
pub static MMA_SYNC: TensorCores = TensorCores { wgmma: false };

/// The rules' family value ([`crate::target::Target::matrix`]).
pub struct TensorCores {
    /// Whether the chip has wgmma (the gemms it takes run there; mma.sync takes the rest).
    wgmma: bool,
}

/// What the rules decided for one kernel.
#[derive(Default)]
pub struct TensorCorePlan {
    /// Shared tiles kept as wgmma core matrices, by allocation: the dimensions its gemms read as K.
    core_tiles: HashMap<usize, Vec<usize>>,
    /// Those of them that TMA fills in 128-byte swizzled boxes, by allocation (the rest are kept
    /// in column slabs: [`operands`]).
    swizzled: HashSet<usize>,
    /// Plain row-major tiles that TMA alone fills in unswizzled boxes, by allocation
    /// ([`cp_async::plain_tma_tiles`]).
    plain_tma: HashSet<usize>,
    /// The gemms that run on wgmma.
    wgmma: HashSet<usize>,
    /// The wgmma gemms whose accumulator was just filled with zeros: their first instruction
    /// writes D = A B instead of adding to registers that would be zeroed one by one.
    zero_start: HashSet<usize>,
    /// The wgmma gemms whose accumulator registers are held before their fence
    /// ([`wgmma::entered_from_fill`]).
    fenced_operands: HashSet<usize>,
    /// The wgmma gemms that open and close a consumer warpgroup's turn in a ping-pong loop
    /// ([`wgmma::ping_pong_turns`]).
    turns: wgmma::Turns,
    /// The gemms that run on mma.sync (those wgmma cannot take), with their warp split.
    mma: HashMap<usize, MmaGemm>,
    /// The accumulator copies that leave by TMA, by copy.
    tma_stores: HashMap<usize, TmaStore>,
    /// Bytes of the kernel's own TMA staging area (0: none).
    own_staging: i64,
    /// Whether accumulators may leave by TMA (the target's rings have it).
    tma: bool,
    /// The source locations of the ring copies already warned about as filled by the threads
    /// (`wgmma::warn_threads_fill`).
    warned: std::cell::RefCell<HashSet<String>>,
}

/// The rules' numbers ([`MatrixPlan::rule`]).
const RULE_COPY_CORE: u8 = 0;
const RULE_WGMMA: u8 = 1;
const RULE_MMA_SYNC: u8 = 2;
const RULE_COPY_PLAIN: u8 = 3;
const RULE_COPY_EXCHANGE: u8 = 4;

impl MatrixRules for TensorCores {
    fn instructions(&self) -> &'static str {
        "tensor cores"
    }

    fn plan<'c, 'a>(
        &self,
        kernel: &Kernel<'c, 'a, '_>,
        layouts: &Layouts,
    ) -> Result<Result<(Box<dyn MatrixPlan>, Off<'c, 'a>), Unsupported<'c, 'a>>, crate::kernels::Failure<'c, 'a>> {
        let (ops, target) = (kernel.ops, kernel.target);
        let plan = if self.wgmma {
            wgmma::wgmma_plan(ops, layouts)
        } else {
            wgmma::WgmmaPlan::default()
        };
        if let Err(unsupported) = core_tiles_as_recorded(ops, kernel.shared, &plan, target) {
            return Ok(Err(unsupported));
        }
        // Nothing but wgmma takes 8-bit floats (no rule converts them, the plain strategy's
        // neither): an error, not a fallback.
        if let Some(gemm) = ops
            .iter()
            .find(|op| is(*op, tile::GemmOperation::name) && !plan.gemms.contains(&key(op)))
            .and_then(|gemm| Some((gemm, f8_inputs(gemm)?)))
        {
            return Err((*gemm.0, f8_off_wgmma(target, self.wgmma, gemm.1)));
        }
        // The tiles TMA fills, as their recorded layouts say (checked against their copies above).
        let swizzled = kernel
            .shared
            .iter()
            .filter(|(allocation, layout)| layout.swizzle > 0 && plan.core_tiles.contains_key(&key(allocation)))
            .map(|(allocation, _)| key(allocation))
            .collect();
        cp_async::warn_unaligned_rows(ops, target);
        let zero_start = wgmma::zero_started(ops, &plan.gemms);
        let fenced_operands = wgmma::entered_from_fill(ops, &plan.gemms);
        let turns = wgmma::ping_pong_turns(ops, &plan.gemms);
        // A loop whose warpgroups were to take turns at wgmma, with no gemm there, runs as before.
        for looped in ops
            .iter()
            .filter(|op| op.attribute(crate::pipeline::PINGPONG_ATTRIBUTE).is_ok())
            .filter(|looped| {
                !ops.iter().any(|op| {
                    plan.gemms.contains(&key(op))
                        && op
                            .block()
                            .and_then(|block| block.parent_operation())
                            .is_some_and(|parent| key(&parent) == key(looped))
                })
            })
        {
            tile_dialect::diagnostics::emit_warning(
                looped.location(),
                "'tile.pipelined' op asks for pingpong = true, but none of its gemms runs on wgmma (see the warnings at them); its warpgroups issue their gemms as they come",
            );
        }
        // The gemms off wgmma whose accumulator has the mma layout run on mma.sync; the rest,
        // and those the mma rule cannot take, on the scalar rule (with a warning).
        let (mma, off_mma) = mma_sync::mma_plan(ops, layouts, &plan.gemms, &plan.core_tiles, target, !self.wgmma);
        let mut off = plan.off;
        off.retain(|(gemm, _)| !mma.contains_key(&key(gemm)) && !off_mma.iter().any(|(other, _)| other == gemm));
        off.extend(off_mma);
        // i8 products off wgmma run on mma.sync, a fraction of what wgmma would give: say so at
        // the gemm, with what would put it on wgmma.
        for gemm in ops
            .iter()
            .filter(|_| self.wgmma)
            .filter(|op| mma.get(&key(op)).is_some_and(|plan| plan.input == MmaInput::S8))
        {
            tile_dialect::diagnostics::emit_warning(
                gemm.location(),
                &format!(
                    "'tile.gemm' op multiplies i8 on mma.sync.m16n8k32, at a fraction of {target}'s tensor-core rate: wgmma reads i8 operands K-major only, so give A as MxK in a shared tile and B as NxK (transpose_b) in a shared tile, with M a multiple of 64 a warpgroup and K of 32"
                ),
            );
        }
        let plain_tma = match target.tma {
            true => cp_async::plain_tma_tiles(ops, &plan.core_tiles, &swizzled),
            false => HashSet::new(),
        };
        let plan = TensorCorePlan {
            core_tiles: plan.core_tiles,
            swizzled,
            plain_tma,
            wgmma: plan.gemms,
            zero_start,
            fenced_operands,
            turns,
            mma,
            tma_stores: HashMap::new(),
            own_staging: 0,
            tma: target.tma,
            warned: Default::default(),
        };
        Ok(Ok((Box::new(plan), off)))
    }

    fn tma_fillable(&self, kernel: OperationRef, copies: &[OperationRef]) -> bool {
        if !self.wgmma {
            return false;
        }
        let Some(layouts) = crate::registers::forecast_layouts(kernel) else {
            return false;
        };
        let plan = wgmma::wgmma_plan(&nested_ops(kernel), &layouts);
        copies.iter().filter_map(copy_parts).all(|parts| {
            let allocation = crate::pipeline::rings::tile_allocation(parts.dst).map(|allocation| key(&allocation));
            match allocation.and_then(|allocation| plan.core_tiles.get(&allocation)) {
                Some(k_dimensions) => k_dimensions.iter().all(|k| crate::layout::tma::boxes_fill(&parts, *k)),
                None => cp_async::plain_tma_box(&parts).is_some(),
            }
        })
    }
}

impl MatrixPlan for TensorCorePlan {
    fn register_a(&self, gemm: &OperationRef, layouts: &Layouts) -> bool {
        wgmma::register_a(gemm, &self.wgmma, layouts) || self.mma.get(&key(gemm)).is_some_and(|plan| plan.register_a)
    }

    /// The copies that turn an accumulator into the 8-bit A operand a wgmma of this plan reads
    /// from registers ([`exchange`]).
    fn exchanges(&self, copy: &OperationRef, layouts: &Layouts) -> bool {
        !self.wgmma.is_empty() && exchange::quad_exchange(copy, layouts)
    }

    fn filled_by_tma(&self, allocation: usize) -> bool {
        self.swizzled.contains(&allocation) || self.plain_tma.contains(&allocation)
    }

    fn plan_stores(&mut self, ops: &[OperationRef], layouts: &Layouts, scratch: i64) -> i64 {
        if !self.tma {
            return 0;
        }
        (self.tma_stores, self.own_staging) = tma_store::tma_store_plan(ops, self, layouts, scratch);
        self.own_staging
    }

    fn prepare<'c, 'a>(
        &self,
        b: &Builder<'c>,
        start: At<'c, 'a>,
        kernel: OperationRef<'c, 'a>,
        ops: &[OperationRef<'c, 'a>],
        layouts: &Layouts,
    ) -> Prepared<'c, 'a> {
        let context = b.context;
        if !self.core_tiles.is_empty() {
            wgmma::stores_to_core_matrices(b, &nested_ops(kernel), &self.core_tiles);
        }
        // The shared tiles whose rows each warpgroup stores and reads alone, decided once: their
        // gemms leave their groups running and their copies meet at the warpgroup's barrier.
        let mut destinations: Vec<Value> = Vec::new();
        for parts in ops
            .iter()
            .filter(|op| is(*op, tile::CopyOperation::name))
            .filter_map(|op| copy_parts(op))
        {
            if !destinations.contains(&parts.dst) {
                destinations.push(parts.dst);
            }
        }
        let own_rows: Vec<Value> = destinations
            .into_iter()
            .filter(|tile| wgmma::rows_per_warpgroup(*tile, ops, &self.wgmma, layouts))
            .collect();
        let operands_kept = wgmma::operands_kept(kernel, ops, &self.wgmma, layouts, &own_rows);
        // The waits for wgmma groups go in first: each op's rule then writes its code after them.
        let deferred = operands_kept
            .iter()
            .copied()
            .filter(|gemm| self.wgmma.contains(gemm))
            .collect();
        wgmma_waits::guard_run_time_loops(b, ops);
        let mut pins = Vec::new();
        for wait in wgmma_waits::wgmma_waits(ops, &self.wgmma, &deferred) {
            let groups = IntegerAttribute::new(IntegerType::new(context, 64).into(), wait.groups);
            let waited = b.insert(
                At::before(wait.before),
                nvvm::wgmma_wait_group_sync_aligned(context, groups, wait.before.location()).into(),
            );
            // Before the wait the work written since the previous one; after it (before the op
            // that needed it) the accumulators it completes.
            pins.push((waited, wait.written));
            pins.push((wait.before, wait.completed));
        }
        let values = tma_store::staging_areas(b, start, ops, self)
            .into_iter()
            .map(|(copy, area)| (copy, vec![area]))
            .collect();
        let own_row_copies = ops
            .iter()
            .filter(|op| is(*op, tile::CopyOperation::name))
            .filter(|op| copy_parts(*op).is_some_and(|parts| own_rows.contains(&parts.dst)))
            .map(key);
        Prepared {
            values,
            marked: operands_kept.into_iter().chain(own_row_copies).collect(),
            in_range: wgmma::copies_in_range(ops),
            pins,
        }
    }

    fn begin<'c, 'a>(
        &self,
        lowering: &mut Lowering<'c, 'a, '_>,
        b: &Builder<'c>,
        _start: At<'c, 'a>,
        _ops: &[OperationRef<'c, 'a>],
        _allocations: &[OperationRef<'c, 'a>],
    ) {
        for (op, fragments) in &lowering.prepared.pins {
            for fragment in fragments {
                lowering.pin_registers(b, At::before(*op), *fragment);
            }
        }
    }

    fn rule(&self, op: &OperationRef, lowering: &Lowering) -> Option<u8> {
        let destination = match_op!(op, {
            tile::CopyOperation => copy_parts(op).map(|parts| parts.dst),
            tile::CopyAsyncOperation => copy_async_parts(op).map(|(parts, _, _)| parts.dst),
            _ => None,
        });
        let into_core_tile = destination
            .and_then(crate::pipeline::rings::tile_allocation)
            .is_some_and(|allocation| self.core_tiles.contains_key(&key(&allocation)));
        match_op!(op, {
            tile::CopyOperation | tile::CopyAsyncOperation if into_core_tile => Some(RULE_COPY_CORE),
            tile::CopyOperation if self.exchanges(op, lowering.layouts) => Some(RULE_COPY_EXCHANGE),
            tile::CopyAsyncOperation if self.tma && cp_async::plain_pieces(op, lowering.threads).is_some() => {
                Some(RULE_COPY_PLAIN)
            },
            tile::GemmOperation if self.wgmma.contains(&key(op)) => Some(RULE_WGMMA),
            tile::GemmOperation if self.mma.contains_key(&key(op)) => Some(RULE_MMA_SYNC),
            _ => None,
        })
    }

    fn lower<'c, 'a>(
        &self,
        lowering: &Lowering<'c, 'a, '_>,
        op: OperationRef<'c, 'a>,
        rule: u8,
        scratch: Option<Value<'c, 'a>>,
    ) {
        match rule {
            RULE_COPY_CORE => lowering.copy_to_core_matrices(op, self),
            RULE_WGMMA => lowering.wgmma(op, scratch, self),
            RULE_COPY_EXCHANGE => lowering.exchange_in_quads(op, lowering.prepared.in_range.contains(&key(&op))),
            RULE_COPY_PLAIN => {
                let by_tma = copy_async_parts(&op)
                    .and_then(|(parts, _, _)| crate::pipeline::rings::tile_allocation(parts.dst))
                    .is_some_and(|allocation| self.plain_tma.contains(&key(&allocation)));
                lowering.copy_to_plain_tile(op, by_tma)
            }
            _ => lowering.mma_sync(op, scratch, self),
        }
    }

    /// The copies `tma_store` planned: accumulator stores, and atomic sums into f32 as TMA
    /// reductions (other atomic copies are not planned and update element by element).
    fn copy_out<'c, 'a>(
        &self,
        lowering: &Lowering<'c, 'a, '_>,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
    ) -> bool {
        let staging = lowering
            .prepared
            .values
            .get(&key(&op))
            .and_then(|areas| areas.first())
            .copied();
        lowering.copy_out_by_tma(op, src, dst, offsets, staging, self)
    }

    fn finish<'c, 'a>(&self, lowering: &Lowering<'c, 'a, '_>, b: &Builder<'c>, end: At<'c, 'a>) {
        // The threads that issued TMA stores (thread 0, or each warpgroup's first where warpgroups
        // stage alone) wait for them before the kernel ends (their source is shared memory).
        if self.tma_stores.is_empty() {
            return;
        }
        let issuer = if self.tma_stores.values().any(|plan| plan.warpgroups > 1) {
            b.remui(end, lowering.tid, b.index(end, 128))
        } else {
            lowering.tid
        };
        let leader = b.if_then(end, b.compare(end, "eq", issuer, b.index(end, 0)));
        lowering.bulk_wait(b, leader, false);
    }
}

/// The named barrier of consumer warpgroup 0's threads alone (0 is the block's, 1 the kernel's
/// threads' beside a producer: `crate::pipeline::producer`); warpgroup w meets at this + w: its
/// staging of TMA stores ([`tma_store`]), its rows of a shared tile that it alone writes and
/// reads ([`wgmma::rows_per_warpgroup`]).
const FIRST_WARPGROUP_BARRIER: i64 = 2;

/// The fence that makes this thread's writes to shared memory through the generic proxy (its
/// stores) visible to the async proxy (wgmma's reads, the copy engine's).
fn async_shared_fence<'c>(context: &'c Context, location: Location<'c>) -> Operation<'c> {
    let attribute = |text: &str| Attribute::parse(context, text).expect("an nvvm attribute");
    nvvm::FenceProxyOperation::builder(context, location)
        .kind(attribute("#nvvm.proxy_kind<async.shared>"))
        .space(attribute("#nvvm.shared_space<cta>"))
        .build()
        .into()
}

/// Why a gemm of 8-bit floats (`element`) that wgmma cannot take (or, without `wgmma`, any) is
/// refused on `target`, and what it would take.
fn f8_off_wgmma(target: &Target, wgmma: bool, element: tile_dialect::element::Element) -> String {
    if !wgmma {
        return format!(
            "multiplies {element}, which {target} has no matrix instruction for (mma.sync takes f16, bf16 and i8): widen the operands to f16 in a tile.parallel (exact: every {element} value is an f16 one) and multiply those, or compile for sm_90a, whose wgmma takes {element}"
        );
    }
    format!(
        "multiplies {element}, which {target} runs on wgmma alone (no rule converts 8-bit floats): give A as MxK (a shared tile filled by copies from {element} tensors, or an {element} fragment where the warpgroups split M, each holding its own rows) and B as NxK (transpose_b) in a shared tile filled by copies, K a multiple of 32, and an f32 accumulator in a block of whole warpgroups with M a multiple of 64 a warpgroup and N a multiple of 8 up to 256"
    )
}

/// The 8-bit float type a gemm's operands hold, if they hold one.
fn f8_inputs(gemm: &OperationRef) -> Option<tile_dialect::element::Element> {
    [0, 1]
        .iter()
        .filter_map(|i| gemm.operand_at(*i))
        .filter_map(crate::support::element_of)
        .find(|element| element.is_f8())
}

/// Checks that every shared tile wgmma reads as core matrices (a live one: rings replace the tiles
/// they were made for) is laid out as its `tile.layout` says: in TMA's swizzled boxes where TMA
/// fills it, in the threads' column slabs where the threads copy it
/// (`crate::nvgpu::chip::operand_layout`; `tile-infer-layouts` records the same from the copies the
/// rings will issue).
fn core_tiles_as_recorded<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    shared: &[(OperationRef<'c, 'a>, tile_dialect::layout::SharedLayout)],
    plan: &wgmma::WgmmaPlan<'c, 'a>,
    target: &Target,
) -> Result<(), Unsupported<'c, 'a>> {
    for (allocation, recorded) in shared {
        let Some(k_dimensions) = plan.core_tiles.get(&key(allocation)) else {
            continue;
        };
        let Some(tile) = allocation.result_at(0).map(melior::ir::Value::from) else {
            continue;
        };
        if !ops.iter().any(|op| op.operands().any(|operand| operand == tile)) {
            continue;
        }
        let shape = tile_dialect::ops::memref_shape(tile);
        let [rows, columns] = shape[shape.len().saturating_sub(2)..] else {
            continue;
        };
        let tma = plan.swizzled.contains(&key(allocation));
        let bytes = crate::support::element_of(tile).map_or(2, |element| element.bytes() as i64);
        let wanted = crate::nvgpu::chip::operand_layout(rows, columns, tma, bytes);
        use tile_dialect::layout::SharedLayout;
        let same = wanted.as_ref().is_some_and(|wanted| {
            SharedLayout {
                buffers: 1,
                ..wanted.clone()
            } == SharedLayout {
                buffers: 1,
                ..recorded.clone()
            }
        });
        if !same {
            let (recorded, wanted) = tile_dialect::ops::with_context(*allocation, |context| {
                (
                    recorded.to_attribute(context).to_string(),
                    wanted.map_or("no layout".to_owned(), |wanted| {
                        wanted.to_attribute(context).to_string()
                    }),
                )
            });
            let filled = if tma {
                "TMA fills it"
            } else {
                "the threads copy it (TMA fills only tiles whose every copy is issued ahead into a ring in whole 128-byte swizzled boxes)"
            };
            let dimension = match k_dimensions[..] {
                [0] => "rows",
                [1] => "columns",
                _ => "rows and columns",
            };
            return Err((
                *allocation,
                format!(
                    "is laid out as {recorded}, but wgmma reads it (K along its {dimension}) as {wanted} on {target}, since {filled}; tile-infer-layouts lays out the tiles rings will fill for tile-plan-pipelines and tile-expand-pipelines (run them before the lowering, as the tile-to-nvvm pipeline does); a layout written by hand must be this one"
                ),
            ));
        }
    }
    Ok(())
}
