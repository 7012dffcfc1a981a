//! Fragments in registers: the tile ops that touch fragments, lowered one by one from the layouts
//! `tile-infer-layouts` records (or would record), for the kernels the plain strategy runs on every
//! GPU target.
//!
//! A fragment becomes a per-thread private array of its layout's slots (`memref.alloca`), indexed
//! only by constants, which LLVM and the SPIR-V compilers keep in registers. Each op reads the
//! layouts of its operands ([`distribute`] reads a layout backwards: which element a thread finds in
//! each slot) and becomes straight-line code over the thread's slots:
//!
//! | op | lowering |
//! |----|----------|
//! | `tile.parallel` | the body once per slot of its loop layout, the loop indices the slot's element (guarded where some threads leave the slot empty); fragment loads and stores become slot accesses |
//! | `tile.fill` | a store to every slot |
//! | `tile.copy` fragment <-> global/shared | per slot, a (clipped) load or store at the element's place and a conversion |
//! | `tile.copy` fragment -> fragment | per slot, the source slot holding the same element, converted |
//! | `tile.reduce` | the thread's slots combined per destination slot, then a butterfly over the thread bits the reduced dimension spreads over: warp shuffles on NVIDIA, a small workgroup scratch elsewhere |
//! | `tile.gemm` (shared A and B) | per accumulator slot, a loop over K |
//! | `tile.gemm` on sm_90a, mma accumulator (what wgmma cannot take: fewer than 64 rows a warpgroup, blocks of warps that are no warpgroups) | per K step (unrolled), each lane's A and B elements from the shared tiles two at a time (a fragment A from its registers in the mma A-operand layout, else staged), one `nvvm.mma.sync` m16n8k16 per instruction tile |
//! | `tile.gemm` on gfx942, mfma accumulator | per K step, each lane's A and B elements from shared tiles (a fragment A staged there first), one `amdgpu.mfma` per instruction tile |
//! | `tile.gemm` on spirv-coopmat, accumulator held in cooperative matrices | per 16-deep K slice, the subgroup's A and B matrices loaded from the shared tiles and multiplied into its accumulator matrices, which stay matrix values across the loops ([`promote`]) until one staging before the epilogue |
//! | `tile.gemm` on spirv-coopmat, f16 x f16 -> f32, other accumulators | the accumulator's 16x16 matrices staged in workgroup memory in rounds, each loaded as a KHR cooperative matrix, multiplied over K with A and B loaded from shared tiles (a fragment A staged there first), stored back and read into the slots |
//!
//! A kernel with an op outside this table (a fragment read at computed indices, a register A
//! operand, a replicated reduction source) keeps the plain strategy's own lowering; [`plan`] says
//! which op and why, before anything is rewritten, and [`apply`] rewrites.

mod distribute;
mod patterns;
pub mod promote;
mod wgmma;

pub use distribute::{Distribution, distribute};
pub use patterns::{ALIGNMENT_ATTRIBUTE, TENSOR_MAP_BOX, tma_box, tma_fills, tma_swizzle};

use crate::target::{Matrix, Target};
use crate::{kernels::Failure, layout::Layout};
use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef},
};
use std::collections::HashMap;
use tile_dialect::{layout::FragmentLayout, ops::nested_ops};

/// The most registers (slots) one fragment may take in a thread.
pub const MAX_REGISTERS: i64 = 255;

/// A fragment's layout, read backwards.
pub(crate) struct Placed {
    /// The layout.
    pub layout: FragmentLayout,
    /// Where each thread finds its elements.
    pub distribution: Distribution,
    /// Each slot some element uses -> its register (the index in the thread's array): slot maps
    /// may skip numbers (a row slice keeps the accumulator's), the arrays do not.
    pub registers: std::collections::BTreeMap<i64, i64>,
    /// Each element's slot and owners (looked up per element by the rules).
    table: std::sync::Arc<tile_dialect::layout::Table>,
}

impl Placed {
    fn of(layout: FragmentLayout) -> Result<Placed, String> {
        let distribution = distribute(&layout)?;
        // The slots some thread uses, as the distribution found them, numbered densely.
        let registers = distribution
            .used_slots()
            .enumerate()
            .map(|(register, slot)| (slot as i64, register as i64))
            .collect();
        let table = layout.table();
        Ok(Placed {
            layout,
            distribution,
            registers,
            table,
        })
    }

    /// Returns the register (array index) of `slot`.
    pub fn register(&self, slot: i64) -> i64 {
        self.registers.get(&slot).copied().unwrap_or(0)
    }

    /// Returns the registers a thread needs.
    pub fn register_count(&self) -> i64 {
        self.registers.len().max(1) as i64
    }

    /// Returns the distinct threads that hold `element` (none outside the shape).
    pub fn owners(&self, element: &[i64]) -> &[i64] {
        self.layout
            .linear(element)
            .map_or(&[], |linear| self.table.owners(linear))
    }

    /// Returns the slot thread `thread` holds `element` in (`None` when it does not hold it).
    pub fn slot(&self, thread: i64, element: &[i64]) -> Option<i64> {
        let linear = self.layout.linear(element)?;
        // Replicated layouts list many replicas; inference has checked that loops run where their
        // elements are held, so only an unreplicated layout's one owner is checked here.
        let held = self.layout.replicate > 1 || self.table.owners(linear).first() == Some(&thread);
        held.then(|| self.table.slot(linear))
    }
}

/// The layouts of one kernel, by allocation and loop (raw op pointer).
#[derive(Default)]
pub(crate) struct Layouts {
    fragments: HashMap<usize, Placed>,
    loops: HashMap<usize, Placed>,
    /// Shared tiles kept as wgmma core matrices, by allocation: the dimension that is K.
    core_tiles: HashMap<usize, usize>,
    /// Those of them that TMA fills in 128-byte swizzled boxes, by allocation (the rest are kept
    /// in column slabs: `wgmma`).
    swizzled: std::collections::HashSet<usize>,
    /// The gemms that run on wgmma (sm_90a).
    wgmma: std::collections::HashSet<usize>,
    /// The gemms that run on mfma (gfx942), with their instruction and wave split.
    mfma: HashMap<usize, patterns::MfmaGemm>,
    /// The gemms that run on mma.sync (sm_90a, those wgmma cannot take), with their warp split.
    mma: HashMap<usize, patterns::MmaGemm>,
    /// The gemms that run on cooperative matrices through a staging area (spirv-coopmat).
    coopmat: HashMap<usize, patterns::CoopmatGemm>,
    /// The accumulators held in cooperative matrices (spirv-coopmat), by allocation.
    held: HashMap<usize, patterns::Held>,
    /// Elements of padding after each row of a shared tile, by allocation (where its layout has
    /// any): the tile is allocated with longer rows, and matrix loads stride over them.
    padding: HashMap<usize, i64>,
    /// Each `tile.reduce`'s plan, by op.
    reductions: HashMap<usize, patterns::ReducePlan>,
    /// The accumulator copies that leave by TMA (sm_90a), by copy.
    tma_stores: HashMap<usize, patterns::TmaStore>,
    /// Bytes of the kernel's own TMA staging area (0: none).
    own_staging: i64,
    /// The wgmma gemms whose accumulator was just filled with zeros: their first instruction
    /// writes D = A B instead of adding to registers that would be zeroed one by one.
    zero_start: std::collections::HashSet<usize>,
    /// [`Layouts::uniform_slot`]'s answers, by (iterated layout, slot, dimensions, read layout):
    /// the check and the lowering ask the same questions, each over every thread.
    uniform: std::cell::RefCell<HashMap<(usize, usize, Vec<usize>, usize), Result<Option<i64>, String>>>,
}

fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

impl Layouts {
    pub fn fragment(&self, allocation: &OperationRef) -> Option<&Placed> {
        self.fragments.get(&key(allocation))
    }

    pub fn parallel(&self, parallel: &OperationRef) -> Option<&Placed> {
        self.loops.get(&key(parallel))
    }

    /// [`patterns::uniform_slot`] of two of these layouts (`by` and `fragment` are held here, so
    /// their addresses name them while the layouts live), asked once.
    pub fn uniform_slot(
        &self,
        by: &Placed,
        slot: usize,
        dims: &[usize],
        fragment: &Placed,
    ) -> Result<Option<i64>, String> {
        let question = (
            by as *const Placed as usize,
            slot,
            dims.to_vec(),
            fragment as *const Placed as usize,
        );
        if let Some(answer) = self.uniform.borrow().get(&question) {
            return answer.clone();
        }
        let answer = patterns::uniform_slot(by, slot, dims, fragment);
        self.uniform.borrow_mut().insert(question, answer.clone());
        answer
    }
}

/// Why a kernel keeps the plain strategy's own lowering: the op and the reason.
pub type Unsupported<'c, 'a> = (OperationRef<'c, 'a>, String);

/// The decisions for one kernel whose fragment ops all have a rule: its layouts, read backwards.
pub struct Plan<'c, 'a> {
    layouts: Layouts,
    ops: Vec<OperationRef<'c, 'a>>,
    /// Every fragment allocation (they all become per-thread arrays).
    pub fragments: Vec<OperationRef<'c, 'a>>,
    /// Bytes of workgroup memory the reductions' exchanges need.
    pub scratch_bytes: i64,
    /// Every shared tile's layout (gfx942 stores its LDS tiles so: `crate::layout::stored`).
    pub shared: Vec<(OperationRef<'c, 'a>, tile_dialect::layout::SharedLayout)>,
    /// The shared tiles whose layout pads their rows, and that layout (to be recorded on them
    /// before they are allocated).
    pub padded: Vec<(OperationRef<'c, 'a>, tile_dialect::layout::SharedLayout)>,
}

impl Plan<'_, '_> {
    /// Whether the ring tile `tile` (a slot of it, or the tile) is filled by TMA boxes alone.
    pub fn filled_by_tma(&self, tile: melior::ir::Value) -> bool {
        crate::pipeline::rings::tile_allocation(tile)
            .is_some_and(|allocation| self.layouts.swizzled.contains(&key(&allocation)))
    }
}

/// Whether TMA would fill the tiles `copies` (`tile.copy`s from global memory into shared tiles,
/// about to be issued ahead into rings) write, on sm_90a: each tile is a wgmma operand kept as
/// core matrices and TMA's boxes serve its copy (what `patterns::tma::swizzled_tiles` decides of
/// the ring's `tile.copy_async`s once they exist). Quiet: the lowering says why a gemm is off
/// wgmma.
pub fn tma_fillable(kernel: OperationRef, target: &'static Target, copies: &[OperationRef]) -> bool {
    let Ok(inferred) = crate::layout::infer_for_lowering(kernel, target, crate::layout::Rings::Forecast) else {
        return false;
    };
    let mut layouts = Layouts::default();
    for (allocation, layout) in inferred.tiles {
        if let Layout::Fragment(layout) = layout
            && let Ok(placed) = Placed::of(layout)
        {
            layouts.fragments.insert(key(&allocation), placed);
        }
    }
    let plan = patterns::wgmma_plan(&nested_ops(kernel), &layouts);
    copies.iter().filter_map(tile_dialect::ops::copy_parts).all(|parts| {
        let allocation = crate::pipeline::rings::tile_allocation(parts.dst).map(|allocation| key(&allocation));
        let k_dimension = allocation.and_then(|allocation| plan.core_tiles.get(&allocation).copied());
        k_dimension.is_some_and(|k| patterns::boxes_fill(&parts, k))
    })
}

/// Decides whether every fragment op of `kernel` on `chip` has a rule for its layouts; if not, says
/// which op has none and why. Changes nothing.
pub fn plan<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    chip: &'static Target,
) -> Result<Result<Plan<'c, 'a>, Unsupported<'c, 'a>>, Failure<'c, 'a>> {
    // The lanes the target's register shuffles exchange (`None`: exchanges go through workgroup
    // memory).
    let shuffles = chip.shuffle_lanes;
    let inferred = crate::layout::infer_for_lowering(kernel, chip, crate::layout::Rings::Written)?;
    let mut layouts = Layouts::default();
    let mut fragments = Vec::new();
    let mut shared = Vec::new();
    let mut padded = Vec::new();
    for (allocation, layout) in inferred.tiles {
        if let Layout::Shared(layout) = &layout {
            shared.push((allocation, layout.clone()));
            if layout.padding > 0 {
                layouts.padding.insert(key(&allocation), layout.padding);
                padded.push((allocation, layout.clone()));
            }
        }
        if let Layout::Fragment(layout) = layout {
            // A thread's registers are few; a layout asking for more than a GPU thread has would
            // spill (and unroll into huge code).
            let slots = layout.slots();
            if slots > MAX_REGISTERS {
                return Ok(Err((
                    allocation,
                    format!(
                        "needs {slots} registers a thread in its {} layout, more than {MAX_REGISTERS}",
                        layout.origin
                    ),
                )));
            }
            match Placed::of(layout) {
                Ok(placed) => {
                    layouts.fragments.insert(key(&allocation), placed);
                    fragments.push(allocation);
                }
                Err(reason) => {
                    return Ok(Err((
                        allocation,
                        format!("has a layout registers cannot hold: {reason}"),
                    )));
                }
            }
        }
    }
    for (parallel, layout) in inferred.loops {
        match Placed::of(layout) {
            Ok(placed) => {
                layouts.loops.insert(key(&parallel), placed);
            }
            Err(reason) => {
                return Ok(Err((
                    parallel,
                    format!("has a loop layout no thread offset gives: {reason}"),
                )));
            }
        }
    }
    let ops = nested_ops(kernel);
    let mut off_wgmma = Vec::new();
    if chip.matrix == Matrix::Wgmma {
        let plan = patterns::wgmma_plan(&ops, &layouts);
        if let Err(unsupported) = core_tiles_as_recorded(&ops, &shared, &plan, chip) {
            return Ok(Err(unsupported));
        }
        // Nothing but wgmma takes f8E4M3FN (no rule converts 8-bit floats, the plain strategy's
        // neither): an error, not a fallback.
        if let Some(gemm) = ops
            .iter()
            .find(|op| tile_dialect::ops::op_name(op) == "tile.gemm" && !plan.gemms.contains(&key(op)) && f8_inputs(op))
        {
            return Err((*gemm, f8_off_wgmma(chip)));
        }
        // The tiles TMA fills, as their recorded layouts say (checked against their copies above).
        let swizzled = shared
            .iter()
            .filter(|(allocation, layout)| layout.swizzle > 0 && plan.core_tiles.contains_key(&key(allocation)))
            .map(|(allocation, _)| key(allocation))
            .collect();
        (layouts.core_tiles, layouts.swizzled, layouts.wgmma, off_wgmma) =
            (plan.core_tiles, swizzled, plan.gemms, plan.off);
        layouts.zero_start = patterns::zero_started(&ops, &layouts.wgmma);
        // The gemms off wgmma whose accumulator has the mma layout run on mma.sync; the rest,
        // and those the mma rule cannot take, on the scalar rule (with a warning).
        let (mma, off_mma) = patterns::mma_plan(&ops, &layouts);
        off_wgmma.retain(|(gemm, _)| !mma.contains_key(&key(gemm)) && !off_mma.iter().any(|(other, _)| other == gemm));
        off_wgmma.extend(off_mma);
        // i8 products off wgmma run on mma.sync, a fraction of what wgmma would give: say so at
        // the gemm, with what would put it on wgmma.
        for gemm in ops.iter().filter(|op| {
            mma.get(&key(op))
                .is_some_and(|plan| plan.input == patterns::MmaInput::S8)
        }) {
            tile_dialect::diagnostics::emit_warning(
                gemm.location(),
                &format!(
                    "'tile.gemm' op multiplies i8 on mma.sync.m16n8k32, at a fraction of {chip}'s tensor-core rate: wgmma reads i8 operands K-major only, so give A as MxK in a shared tile and B as NxK (transpose_b) in a shared tile, with M a multiple of 64 a warpgroup and K of 32"
                ),
            );
        }
        layouts.mma = mma;
    }
    let threads = tile_dialect::ops::integer_attribute(&kernel, "threads").unwrap_or(128);
    let mut off_mfma = Vec::new();
    if chip.matrix == Matrix::Mfma {
        (layouts.mfma, off_mfma) = patterns::mfma_plan(&ops, &layouts, threads);
    }
    // The reductions first: the cooperative-matrix staging takes what their exchanges leave.
    match patterns::reduce_plans(&ops, &layouts) {
        Ok(plans) => layouts.reductions = plans,
        Err(unsupported) => return Ok(Err(unsupported)),
    }
    let mut off_coopmat = Vec::new();
    if chip.matrix == Matrix::CooperativeMatrix {
        let free = patterns::free_workgroup_bytes(&ops, &layouts, shuffles);
        layouts.held = patterns::held_plan(kernel, &ops, &layouts, threads, free);
        (layouts.coopmat, off_coopmat) = patterns::coopmat_plan(&ops, &layouts, threads, shuffles);
    }
    for op in &ops {
        if let Err(reason) = patterns::check(*op, &layouts) {
            return Ok(Err((*op, reason)));
        }
    }
    let mut scratch_bytes = patterns::scratch_bytes(&ops, &layouts, shuffles);
    // Accumulators that leave by TMA, staged where the rest of the kernel leaves room.
    if chip.tma {
        (layouts.tma_stores, layouts.own_staging) = patterns::tma_store_plan(&ops, &layouts, scratch_bytes);
        scratch_bytes += layouts.own_staging;
    }
    // A gemm whose accumulator has the mfma layout but that the mfma rule cannot take runs on the
    // scalar rule: say so at the gemm.
    for (gemm, reason) in off_wgmma {
        tile_dialect::diagnostics::emit_warning(
            gemm.location(),
            &format!(
                "'tile.gemm' op {reason}; it runs without tensor cores on {chip} (one loop over K per accumulator element)"
            ),
        );
    }
    for (gemm, reason) in off_mfma {
        tile_dialect::diagnostics::emit_warning(
            gemm.location(),
            &format!(
                "'tile.gemm' op {reason}; it runs without matrix instructions on {chip} (one loop over K per accumulator element)"
            ),
        );
    }
    for (gemm, reason) in off_coopmat {
        tile_dialect::diagnostics::emit_warning(
            gemm.location(),
            &format!(
                "'tile.gemm' op {reason}; it runs without cooperative matrices on {chip} (one loop over K per accumulator element)"
            ),
        );
    }
    Ok(Ok(Plan {
        layouts,
        ops,
        fragments,
        scratch_bytes,
        shared,
        padded,
    }))
}

/// Why an f8E4M3FN gemm that wgmma cannot take is refused on `target`, and what it would take.
fn f8_off_wgmma(target: &Target) -> String {
    format!(
        "multiplies f8E4M3FN, which {target} runs on wgmma alone (no rule converts 8-bit floats): give A as MxK and B as NxK (transpose_b) in shared tiles filled by copies from f8E4M3FN tensors, K a multiple of 32, and an f32 accumulator in a block of whole warpgroups with M a multiple of 64 a warpgroup and N a multiple of 8 up to 256"
    )
}

/// Whether a gemm reads f8E4M3FN operands.
fn f8_inputs(gemm: &OperationRef) -> bool {
    [0, 1]
        .iter()
        .filter_map(|i| gemm.operand(*i).ok())
        .any(|value| crate::support::element_of(value) == Some(tile_dialect::element::Element::F8E4M3FN))
}

/// Checks that every shared tile wgmma reads as core matrices (a live one: rings replace the tiles
/// they were made for) is laid out as its `tile.layout` says: in TMA's swizzled boxes where TMA
/// fills it, in the threads' column slabs where the threads copy it
/// (`crate::nvgpu::chip::operand_layout`; `tile-infer-layouts` records the same from the copies the
/// rings will issue).
fn core_tiles_as_recorded<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    shared: &[(OperationRef<'c, 'a>, tile_dialect::layout::SharedLayout)],
    plan: &patterns::WgmmaPlan<'c, 'a>,
    target: &Target,
) -> Result<(), Unsupported<'c, 'a>> {
    for (allocation, recorded) in shared {
        let Some(&k_dimension) = plan.core_tiles.get(&key(allocation)) else {
            continue;
        };
        let Ok(tile) = allocation.result(0).map(melior::ir::Value::from) else {
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
            let dimension = if k_dimension == 0 { "rows" } else { "columns" };
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

/// Lowers the fragment ops of a kernel planned for `target`.
pub fn apply<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, plan: Plan<'c, 'a>, target: &Target) {
    patterns::lower_all(
        context,
        kernel,
        &plan.ops,
        &plan.layouts,
        target.shuffle_lanes,
        target.memory.private_space,
        target.is_spirv(),
    );
}
