//! `tile-plan-pipelines`: decides, for the module's `tile.target`, how each `tile.pipelined` loop
//! runs, and records it as a `tile.schedule` dictionary on the loop:
//!
//! - `buffers`: copies of the shared tiles in the ring (sm_90a: the loop's `stages`, fewer where the
//!   ring would not fit in shared memory; elsewhere 1);
//! - `fill`: how a stage is filled (`tma` bulk copies, `registers` loaded a step ahead then stored,
//!   `async` copies that `tile-expand-pipelines` writes as `tile.copy_async`, `threads` copying
//!   element by element);
//! - `wait`: how the compute waits for it (`mbarrier` phases, `lds_barrier`, `barrier`);
//! - `release` (`async` loops): how a slot is given back before its refill (`barrier`: the block
//!   meets, rings of 2; `mbarrier`: each thread arrives on the slot's free barrier after reading
//!   it; `previous`: a GEMM's main loop, whose one gemm accumulates across iterations, releases the
//!   previous iteration's slot after issuing its own gemm, so that the gemm runs on meanwhile);
//! - `prefetch`: how many steps ahead the copies run; for the GEMM-family kernels of sm_90a also
//!   `mma_in_flight` (wgmma groups left running across a step) and `stage_bytes`;
//! - `persistent` (sm_90a): one block per multiprocessor walks several output tiles, its ring
//!   running on (the template's own walk, or `tile-persistent-kernels`' loop over (tile, step)
//!   pairs for `async` loops).
//!
//! Loops of the GEMM family on sm_90a are built whole by its template, which refuses a
//! `tile.schedule` it would not build and takes `persistent = false` from one. Every other loop on sm_90a whose copies
//! from global into shared tiles can be issued ahead gets an `async` schedule, and each such copy
//! the unit attribute `tile.ahead`: `tile-expand-pipelines` then writes the rings, barriers and
//! asynchronous copies as tile IR.

use crate::kernels::Failure;
use melior::{
    Context,
    ir::{
        Attribute,
        attribute::{DictionaryAttribute, IntegerAttribute},
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{nested_ops, op_name, set_attribute, with_context};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-plan-pipelines";
/// The attribute that records a loop's schedule.
pub const SCHEDULE_ATTRIBUTE: &str = "tile.schedule";
/// The schedule of a loop the plain strategy runs: a plain loop, its copies shared by the threads.
const PLAIN: &str = "{buffers = 1 : i64, fill = \"threads\", prefetch = 0 : i64, wait = \"barrier\"}";

/// The integer (or flag: nonzero) entry `name` a `tile.schedule` on `pipelined` asks for, if any.
fn requested(pipelined: OperationRef, name: &str) -> Option<i64> {
    IntegerAttribute::try_from(schedule_entry(pipelined, name)?).ok().map(|value| value.value())
}

/// Entry `name` of the `tile.schedule` on `pipelined`, if any.
fn schedule_entry<'c>(pipelined: OperationRef<'c, '_>, name: &str) -> Option<Attribute<'c>> {
    DictionaryAttribute::try_from(pipelined.attribute(SCHEDULE_ATTRIBUTE).ok()?).ok()?.element_by_name(name)
}

/// The string entry `name` of the `tile.schedule` on `pipelined` (`fill`, `release`, ...), if any.
pub fn requested_string(pipelined: OperationRef, name: &str) -> Option<String> {
    melior::ir::attribute::StringAttribute::try_from(schedule_entry(pipelined, name)?).ok().map(|entry| entry.value().to_owned())
}

/// The buffer count a `tile.schedule` on `pipelined` asks for, if any.
pub fn requested_buffers(pipelined: OperationRef) -> Option<i64> {
    requested(pipelined, "buffers")
}

/// Whether a `tile.schedule` on `pipelined` asks for a persistent launch (sm_90a), if it says.
pub fn requested_persistent(pipelined: OperationRef) -> Option<bool> {
    requested(pipelined, "persistent").map(|flag| flag != 0)
}

/// Refuses a `tile.schedule` on `pipelined` with an entry that differs from `schedule` (what the
/// lowering builds). A schedule may name only some entries: the ones asked for.
pub fn check_schedule<'c, 'a>(pipelined: OperationRef<'c, 'a>, schedule: &str, chip: &str) -> Result<(), Failure<'c, 'a>> {
    let Ok(given) = pipelined.attribute(SCHEDULE_ATTRIBUTE) else { return Ok(()) };
    let built = with_context(pipelined, |context| Attribute::parse(context, schedule))
        .and_then(|built| DictionaryAttribute::try_from(built).ok());
    let agrees = match (DictionaryAttribute::try_from(given), built) {
        (Ok(given), Some(built)) => (0..given.len()).all(|index| {
            given.element(index).is_ok_and(|(name, value)| {
                name.as_string_ref().as_str().is_ok_and(|name| built.element_by_name(name) == Some(value))
            })
        }),
        _ => false,
    };
    if agrees {
        return Ok(());
    }
    Err((
        pipelined,
        format!("has tile.schedule {given}, but the {chip} lowering builds {schedule}; drop the attribute or run tile-plan-pipelines for {chip}"),
    ))
}

/// Warns, once a kernel with a gemm gets a ring (its expansion keeps it off the sm_90a template
/// for good), at the op that kept it off and why: after the expansion the template would only
/// name the ops the expansion wrote.
pub(crate) fn warn_plain(kernel: OperationRef) {
    // Once: a pass that rewrites the kernel (`super::persistent`) warns before it does.
    if kernel.attribute(WARNED_ATTRIBUTE).is_ok() {
        return;
    }
    // Attention and GEMM chains are the per-op rules' own, not a fallback.
    let (has_gemm, beyond_template) = crate::generic::gemm_shape(kernel);
    if let (true, false, Ok(crate::layout::Strategy::Plain { op, reason })) = (has_gemm, beyond_template, crate::nvgpu::resolve(kernel)) {
        tile_dialect::diagnostics::emit_warning(op.location(), &crate::generic::plain_warning(&op_name(&op), &reason, true));
    }
    with_context(kernel, |context| set_attribute(kernel, WARNED_ATTRIBUTE, Attribute::unit(context)));
}

/// The unit attribute on a kernel [`warn_plain`] has warned about.
const WARNED_ATTRIBUTE: &str = "tile.fallback_warned";

/// Records the schedule of every `tile.pipelined` of `kernel` on `chip`.
fn schedule_kernel<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, chip: &str) -> Result<(), Failure<'c, 'a>> {
    let main = crate::layout::main_loop_schedule(kernel, chip)?;
    let mut warned = false;
    for pipelined in nested_ops(kernel).into_iter().filter(|op| op_name(op) == "tile.pipelined") {
        let ring = match &main {
            Some((main, _)) if *main == pipelined => None,
            _ if chip == "sm_90a" => super::ahead::plan(kernel, pipelined),
            _ => None,
        };
        let ring_schedule = ring.as_ref().map(|ring| ring.schedule());
        let schedule = match (&main, &ring_schedule) {
            (Some((main, schedule)), _) if *main == pipelined => schedule.as_str(),
            (_, Some(schedule)) => schedule.as_str(),
            _ => PLAIN,
        };
        // A schedule the program asks for stays only if it is the one built.
        check_schedule(pipelined, schedule, chip)?;
        let attribute = Attribute::parse(context, schedule)
            .ok_or_else(|| (pipelined, format!("internal error: the schedule {schedule} does not parse")))?;
        set_attribute(pipelined, SCHEDULE_ATTRIBUTE, attribute);
        if ring.is_some() && !warned {
            warn_plain(kernel);
            warned = true;
        }
        for copy in ring.map(|ring| ring.copies).unwrap_or_default() {
            set_attribute(copy, super::AHEAD_ATTRIBUTE, Attribute::unit(context));
        }
    }
    Ok(())
}

tile_passes::rust_pass! {
    /// Creates the `tile-plan-pipelines` pass (on `builtin.module`).
    pub fn create_plan_pipelines_pass() {
        argument: ARGUMENT,
        name: "TilePlanPipelines",
        description: "Record how each tile.pipelined loop runs for the module's tile.target (tile.schedule: buffers, fill, wait, prefetch; tile.ahead on the copies issued ahead)",
        anchor: "builtin.module",
        dialects: [tile_dialect::dialect_handle()],
        run: |module| {
            let chip = crate::layout::target_of(module)?;
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| schedule_kernel(context, kernel, &chip))
        },
    }
}
