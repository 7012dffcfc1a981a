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
//! | `tile.scan` fragment -> fragment | the slots stored into a workgroup scratch tile, its lines scanned there (a line a thread, carrying the running value), the slots loaded back |
//! | `tile.gemm` (shared A and B) | per accumulator slot, a loop over K |
//! | `tile.gemm` on the target's matrix instructions, `tile.copy` into the tiles they read and of their accumulators to tensors | the rules of the instruction family the target names ([`matrix`], [`crate::target::Target::matrix`]), in the target's folder: wgmma and mma.sync, mfma, cooperative matrices |
//!
//! A kernel with an op outside this table (a fragment read at computed indices, a register A
//! operand, a replicated reduction source) keeps the plain strategy's own lowering; [`plan`] says
//! which op and why, before anything is rewritten, and [`apply`] rewrites.

mod distribute;
pub mod matrix;
pub(crate) mod patterns;
pub(crate) mod prelude;
pub mod promote;

pub use distribute::{Distribution, distribute};

use crate::target::Target;
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
pub struct Placed {
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
    pub(crate) fn of(layout: FragmentLayout) -> Result<Placed, String> {
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

    /// The bits of the thread index that pick a replica (threads that differ only there hold the
    /// same elements), where the threads with those bits clear hold every element exactly once:
    /// the threads that make a side effect that must happen once an element (an atomic update).
    /// `Err` says why no such threads exist.
    pub fn replica_bits(&self) -> Result<i64, String> {
        if self.layout.replicate == 1 {
            return Ok(0);
        }
        let used: i64 = self
            .distribution
            .terms
            .iter()
            .flatten()
            .filter(|(_, delta)| *delta != 0)
            .fold(0, |bits, (bit, _)| bits | (1 << bit));
        let all = (self.layout.threads.max(1) as u64).next_power_of_two() as i64 - 1;
        let replica = all & !used;
        let once = (0..self.table.len()).all(|element| {
            self.table
                .owners(element)
                .iter()
                .filter(|thread| *thread & replica == 0)
                .count()
                == 1
        });
        if once {
            Ok(replica)
        } else {
            Err(format!(
                "its {} layout holds elements in threads that differ in more than some bits of their index",
                self.layout.origin
            ))
        }
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
pub struct Layouts {
    fragments: HashMap<usize, Placed>,
    loops: HashMap<usize, Placed>,
    /// What the target's matrix rules decided ([`matrix::MatrixRules::plan`]), once they have.
    matrix: Option<Box<dyn matrix::MatrixPlan>>,
    /// Elements of padding after each row of a shared tile, by allocation (where its layout has
    /// any): the tile is allocated with longer rows, and matrix loads stride over them.
    pub(crate) padding: HashMap<usize, i64>,
    /// Each `tile.reduce`'s plan, by op.
    reductions: HashMap<usize, patterns::ReducePlan>,
    /// [`Layouts::uniform_slot`]'s answers, by (iterated layout, slot, dimensions, read layout):
    /// the check and the lowering ask the same questions, each over every thread.
    uniform: std::cell::RefCell<HashMap<(usize, usize, Vec<usize>, usize), Result<Option<i64>, String>>>,
}

/// An op's identity while its IR lives (the key of the plans' maps).
pub fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

impl Layouts {
    /// The plan of the target's matrix rules, as the shared rules ask it.
    pub(crate) fn matrix_plan(&self) -> Option<&dyn matrix::MatrixPlan> {
        self.matrix.as_deref()
    }

    /// The layout of the fragment `allocation`, read backwards.
    pub fn fragment(&self, allocation: &OperationRef) -> Option<&Placed> {
        self.fragments.get(&key(allocation))
    }

    /// The loop layout of `parallel`, read backwards.
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
    /// Every shared tile's layout (a target that rearranges its tiles stores them so:
    /// `crate::layout::stored`).
    pub shared: Vec<(OperationRef<'c, 'a>, tile_dialect::layout::SharedLayout)>,
}

impl Plan<'_, '_> {
    /// Whether the ring tile `tile` (a slot of it, or the tile) is filled by TMA boxes alone.
    pub fn filled_by_tma(&self, tile: melior::ir::Value) -> bool {
        crate::pipeline::rings::tile_allocation(tile).is_some_and(|allocation| {
            self.layouts
                .matrix_plan()
                .is_some_and(|plan| plan.filled_by_tma(key(&allocation)))
        })
    }
}

/// Whether TMA would fill the tiles `copies` write (`tile.copy`s from global memory into shared
/// tiles, about to be issued ahead into rings): the target's matrix rules say
/// ([`matrix::MatrixRules::tma_fillable`]).
pub fn tma_fillable(kernel: OperationRef, target: &'static Target, copies: &[OperationRef]) -> bool {
    target.matrix.is_some_and(|rules| rules.tma_fillable(kernel, copies))
}

/// The fragments' layouts `tile-infer-layouts` recorded on `kernel` (`None` where one has none):
/// what a matrix family's forecast reads.
pub fn forecast_layouts(kernel: OperationRef) -> Option<Layouts> {
    let inferred = crate::layout::recorded(kernel).ok()?;
    let mut layouts = Layouts::default();
    for (allocation, layout) in inferred.tiles {
        if let Layout::Fragment(layout) = layout
            && let Ok(placed) = Placed::of(layout)
        {
            layouts.fragments.insert(key(&allocation), placed);
        }
    }
    Some(layouts)
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
    let inferred = crate::layout::recorded(kernel)?;
    let mut layouts = Layouts::default();
    let mut fragments = Vec::new();
    let mut shared = Vec::new();
    for (allocation, layout) in inferred.tiles {
        if let Layout::Shared(layout) = &layout {
            shared.push((allocation, layout.clone()));
            if layout.padding > 0 {
                layouts.padding.insert(key(&allocation), layout.padding);
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
        // A loop's iterations are written out one by one for each thread; past a register file's
        // worth the code (and the backend's time on it, quadratic) grows without bound, where the
        // plain lowering's loop stays one iteration long.
        let iterations = layout.slots();
        if iterations > MAX_REGISTERS {
            return Ok(Err((
                parallel,
                format!(
                    "gives each thread {iterations} iterations, more than the {MAX_REGISTERS} a register tile's loop is written out for"
                ),
            )));
        }
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
    let threads = tile_dialect::ops::integer_attribute(&kernel, "threads").unwrap_or(128);
    // The reductions first: the matrix rules' staging takes what their exchanges leave.
    match patterns::reduce_plans(&ops, &layouts) {
        Ok(plans) => layouts.reductions = plans,
        Err(unsupported) => return Ok(Err(unsupported)),
    }
    let mut off = Vec::new();
    if let Some(rules) = chip.matrix {
        let kernel = matrix::Kernel {
            op: kernel,
            ops: &ops,
            shared: &shared,
            threads,
            target: chip,
        };
        match rules.plan(&kernel, &layouts)? {
            Ok((plan, refused)) => {
                layouts.matrix = Some(plan);
                off = refused;
            }
            Err(unsupported) => return Ok(Err(unsupported)),
        }
    }
    for op in &ops {
        if let Err(reason) = patterns::check(*op, &layouts) {
            return Ok(Err((*op, reason)));
        }
    }
    let mut scratch_bytes = patterns::scratch_bytes(&ops, &layouts, shuffles);
    // Accumulator stores staged in workgroup memory, where the rest of the kernel leaves room.
    if let Some(mut plan) = layouts.matrix.take() {
        scratch_bytes += plan.plan_stores(&ops, &layouts, scratch_bytes);
        layouts.matrix = Some(plan);
    }
    // A gemm whose accumulator has an instruction's layout but that its rule cannot take runs on
    // the scalar rule: say so at the gemm.
    if let Some(rules) = chip.matrix {
        for (gemm, reason) in off {
            tile_dialect::diagnostics::emit_warning(
                gemm.location(),
                &format!(
                    "'tile.gemm' op {reason}; it runs without {} on {chip} (one loop over K per accumulator element)",
                    rules.instructions()
                ),
            );
        }
    }
    Ok(Ok(Plan {
        layouts,
        ops,
        fragments,
        scratch_bytes,
        shared,
    }))
}

/// Lowers the fragment ops of a kernel planned for `target`.
pub fn apply<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, plan: Plan<'c, 'a>, target: &Target) {
    patterns::lower_all(context, kernel, &plan.ops, &plan.layouts, target);
}
