//! `tile-plan-pipelines`: decides, for the module's `tile.target`, how each `tile.pipelined` loop
//! runs, and records it as a `tile.schedule` dictionary on the loop:
//!
//! - `buffers`: copies of the shared tiles in the ring (TMA targets: the loop's `stages`, fewer where the
//!   ring would not fit in shared memory; elsewhere 1);
//! - `fill`: how a stage is filled (`tma` bulk copies, `registers` loaded a step ahead then stored,
//!   `async` copies that `tile-expand-pipelines` writes as `tile.copy_async`, `threads` copying
//!   element by element);
//! - `wait`: how the compute waits for it (`mbarrier` phases, `lds_barrier`, `barrier`, cp.async
//!   `group` counts);
//! - `release` (`async` loops): how a slot is given back before its refill (`barrier`: the block
//!   meets, rings of 2; `mbarrier`: each thread arrives on the slot's free barrier after reading
//!   it; `previous`: a GEMM's main loop, whose one gemm accumulates across iterations, releases the
//!   previous iteration's slot after issuing its own gemm, so that the gemm runs on meanwhile);
//! - `prefetch`: how many steps ahead the copies run;
//! - `persistent` (TMA targets): one block per multiprocessor walks several output tiles, its ring
//!   running on (`tile-persistent-kernels`' loop over (tile, step) pairs); `persistent = false`
//!   in the input keeps one tile a block.
//! - `producer` (TMA targets): `"warpgroup"` where a ring, refilled and filled by TMA alone in a kernel
//!   that runs one block a multiprocessor, is filled by a warpgroup of its own (`tile.producer`,
//!   see `ahead` for when); `producer = "none"` in the input keeps the copies on the kernel's
//!   threads, `"warpgroup"` asks for one where the register estimate would not choose it.
//! - `pingpong` (TMA targets, asked for only): the kernel's two consumer warpgroups issue the
//!   loop's gemms in turns, each its gemms between two named barriers, so that one's softmax runs
//!   under the other's products (FlashAttention-3's ping-pong). It needs a ring, 256 threads and
//!   the loop's gemms one after the other (FlashAttention-3's order: the next block's S and this
//!   block's P V); where any is missing the loop runs without it, with a warning that names what
//!   is missing. A persistent kernel's turns run on across its tiles (a tile's first S and last
//!   P V, before and after the loop in the program, are turns of their own).
//!
//! Every loop on a TMA target whose copies from global into shared tiles can be issued ahead gets an
//! `async` schedule, and each such copy the unit attribute `tile.ahead`: `tile-expand-pipelines`
//! then writes the rings, barriers and asynchronous copies as tile IR. A `tile.schedule` in the
//! input that differs from the one built is refused at its loop.

use crate::kernels::Failure;
use crate::target::Target;
use melior::{
    Context,
    ir::{
        Attribute, BlockLike,
        attribute::{DictionaryAttribute, IntegerAttribute},
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{nested_ops, set_attribute, with_context};
use tile_dialect::positions::OperationAt;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-plan-pipelines";
/// The attribute that records a loop's schedule.
pub const SCHEDULE_ATTRIBUTE: &str = tile_dialect::decisions::SCHEDULE.name;
/// The schedule of a loop the plain strategy runs: a plain loop, its copies shared by the threads.
const PLAIN: &str = "{buffers = 1 : i64, fill = \"threads\", prefetch = 0 : i64, wait = \"barrier\"}";

/// The integer (or flag: nonzero) entry `name` a `tile.schedule` on `pipelined` asks for, if any.
pub fn requested_integer(pipelined: OperationRef, name: &str) -> Option<i64> {
    IntegerAttribute::try_from(schedule_entry(pipelined, name)?)
        .ok()
        .map(|value| value.value())
}

/// Entry `name` of the `tile.schedule` on `pipelined`, if any.
fn schedule_entry<'c>(pipelined: OperationRef<'c, '_>, name: &str) -> Option<Attribute<'c>> {
    DictionaryAttribute::try_from(pipelined.attribute(SCHEDULE_ATTRIBUTE).ok()?)
        .ok()?
        .element_by_name(name)
}

/// The string entry `name` of the `tile.schedule` on `pipelined` (`fill`, `release`, ...), if any.
pub fn requested_string(pipelined: OperationRef, name: &str) -> Option<String> {
    tile_dialect::ops::attribute_text(schedule_entry(pipelined, name)?)
}

/// The buffer count a `tile.schedule` on `pipelined` asks for, if any.
pub fn requested_buffers(pipelined: OperationRef) -> Option<i64> {
    requested_integer(pipelined, "buffers")
}

/// Whether a `tile.schedule` on `pipelined` asks for a persistent launch (TMA targets), if it says.
pub fn requested_persistent(pipelined: OperationRef) -> Option<bool> {
    requested_integer(pipelined, "persistent").map(|flag| flag != 0)
}

/// Refuses a `tile.schedule` on `pipelined` with an entry that differs from `schedule` (what the
/// lowering builds). A schedule may name only some entries: the ones asked for. `no_producer`:
/// why the loop cannot have a producer warpgroup on a target that has them, where it cannot.
pub fn check_schedule<'c, 'a>(
    pipelined: OperationRef<'c, 'a>,
    schedule: &str,
    chip: &Target,
    no_producer: Option<&str>,
) -> Result<(), Failure<'c, 'a>> {
    let Ok(given) = pipelined.attribute(SCHEDULE_ATTRIBUTE) else {
        return Ok(());
    };
    // Blocks that load a tile once for their cluster are TMA's multicast: elsewhere each block
    // loads its own, as the loop would without the entry.
    if let Some(blocks) = requested_integer(pipelined, "multicast").filter(|blocks| *blocks > 1 && !chip.tma) {
        tile_dialect::diagnostics::emit_warning(
            pipelined.location(),
            &format!(
                "'tile.pipelined' asks for multicast = {blocks}, which needs TMA's multicast ({}); on {chip} each block loads its own tiles",
                crate::target::names_where(|target| target.tma)
            ),
        );
    }
    // A persistent launch is the TMA targets' rewrite: elsewhere each block runs one tile, as the
    // loop would without the entry.
    if requested_persistent(pipelined) == Some(true) && !chip.tma {
        tile_dialect::diagnostics::emit_warning(
            pipelined.location(),
            &format!(
                "'tile.pipelined' asks for persistent = true, which {} writes; on {chip} each block runs one tile",
                crate::target::names_where(|target| target.tma)
            ),
        );
    }
    let built = with_context(pipelined, |context| Attribute::parse(context, schedule))
        .and_then(|built| DictionaryAttribute::try_from(built).ok());
    // An entry that asks for what a schedule without it does (no persistent launch, no producer
    // warpgroup) agrees with one that leaves it out; a split is `tile-split-k`'s, recorded on the
    // kernel (or warned about, where the target has no clusters).
    let default = |name: &str, value: Attribute| match name {
        // (A loop `tile-persistent-kernels` flattened is persistent whatever fills it.)
        "persistent" => IntegerAttribute::try_from(value).is_ok_and(|flag| {
            flag.value() == 0 || !chip.tma || pipelined.attribute(super::persistent::TILE_STEPS).is_ok()
        }),
        "split" => IntegerAttribute::try_from(value)
            .is_ok_and(|split| split.value() == super::split_k::splits_of(pipelined) || chip.clusters.is_none()),
        "producer" => tile_dialect::ops::attribute_text(value).is_some_and(|kind| kind == "none"),
        // Clusters that multicast are `tile-persistent-kernels`' rewrite, recorded on the kernel.
        "multicast" => IntegerAttribute::try_from(value).is_ok_and(|blocks| {
            blocks.value() == 1
                || !chip.tma
                || crate::kernels::kernel_of(pipelined).is_some_and(|kernel| {
                    tile_dialect::ops::integer_attribute(&kernel, tile_dialect::decisions::MULTICAST.name)
                        == Some(blocks.value())
                })
        }),
        _ => false,
    };
    let agrees = match (DictionaryAttribute::try_from(given), built) {
        (Ok(given), Some(built)) => (0..given.len()).all(|index| {
            given.element(index).is_ok_and(|(name, value)| {
                name.as_string_ref()
                    .as_str()
                    .is_ok_and(|name| match built.element_by_name(name) {
                        Some(built) => built == value,
                        None => default(name, value),
                    })
            })
        }),
        _ => false,
    };
    if agrees {
        return Ok(());
    }
    // Rings of TMA boxes, persistent kernels and producer warpgroups are the TMA targets'.
    let wants_tma = requested_string(pipelined, "fill").as_deref() == Some("tma")
        || requested_string(pipelined, "producer").as_deref() == Some("warpgroup");
    // A persistent kernel is a rewrite of its own, which runs before the planning.
    let fix = if wants_tma && !chip.tma {
        format!(
            "TMA rings and producer warpgroups need {} (compile for it); on {chip} the block's threads fill the rings: drop the entry",
            crate::target::names_where(|target| target.tma)
        )
    } else if let Some(reason) =
        no_producer.filter(|_| requested_string(pipelined, "producer").as_deref() == Some("warpgroup"))
    {
        format!("no producer warpgroup: {reason}; or drop the entry")
    } else if super::split_k::requested_split(pipelined)
        .is_some_and(|split| split != super::split_k::splits_of(pipelined) && chip.clusters.is_some())
    {
        format!(
            "{} splits loops: run it before tile-plan-pipelines (the target pipelines do), or drop the entry",
            super::split_k::ARGUMENT
        )
    } else if requested_integer(pipelined, "multicast").is_some_and(|blocks| blocks > 1) && chip.tma {
        "tile-persistent-kernels writes the clusters that multicast: run it before tile-plan-pipelines (the tile-to-nvvm pipeline does), or drop the entry".to_owned()
    } else if requested_persistent(pipelined) == Some(true) && chip.tma {
        "tile-persistent-kernels writes a persistent kernel: run it before tile-plan-pipelines (the tile-to-nvvm pipeline does), or drop the entry".to_owned()
    } else {
        format!("drop the attribute or run tile-plan-pipelines for {chip}")
    };
    Err((
        pipelined,
        format!("has tile.schedule {given}, but the {chip} lowering builds {schedule}; {fix}"),
    ))
}

/// Why the consumer warpgroups of `kernel` cannot take turns at the gemms of `pipelined` (see the
/// module comment), if they cannot.
fn no_ping_pong(kernel: OperationRef, pipelined: OperationRef, chip: &Target, ring: bool) -> Option<String> {
    if !chip.tma {
        return Some(format!(
            "warpgroups that take turns at wgmma are {}'s (compile for it)",
            crate::target::names_where(|target| target.tma)
        ));
    }
    if !ring {
        return Some("the loop has no ring on this target (no copy runs ahead)".into());
    }
    let threads = tile_dialect::ops::integer_attribute(&kernel, "threads").unwrap_or(0);
    if threads != 256 {
        return Some(format!(
            "the kernel has {threads} threads, and two consumer warpgroups (256 threads) take turns"
        ));
    }
    // The loop's tile ops in order: its gemms must come one after the other.
    let body = pipelined.body()?;
    let tile_ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .filter(|op| tile_ir::in_dialect(op, tile_dialect::dialect_handle()))
        .collect();
    let gemms: Vec<usize> = tile_ops
        .iter()
        .enumerate()
        .filter(|(_, op)| tile_ir::is(*op, tile_ir::tile::GemmOperation::name))
        .map(|(index, _)| index)
        .collect();
    match (gemms.first(), gemms.last()) {
        (None, _) | (_, None) => Some("the loop has no gemm".into()),
        (Some(first), Some(last)) if last - first + 1 != gemms.len() => Some(
            "other tile ops come between the loop's gemms (a turn holds the gemms issued together: FlashAttention-3's order issues the next block's S and this block's P V one after the other)"
                .into(),
        ),
        _ => None,
    }
}

/// Sets entry `name` of the `tile.schedule` of `pipelined` to `value` (the schedule made where
/// it has none), or removes it where `value` is `None`; the other entries stay.
pub fn set_schedule_entry(pipelined: OperationRef, name: &str, value: Option<Attribute>) {
    with_context(pipelined, |context| {
        let given = pipelined
            .attribute(SCHEDULE_ATTRIBUTE)
            .ok()
            .and_then(|schedule| DictionaryAttribute::try_from(schedule).ok());
        let mut entries: Vec<(melior::ir::Identifier, Attribute)> = given
            .map(|schedule| {
                (0..schedule.len())
                    .filter_map(|index| schedule.element(index).ok())
                    .filter(|(entry, _)| entry.as_string_ref().as_str() != Ok(name))
                    .collect()
            })
            .unwrap_or_default();
        entries.extend(value.map(|value| (melior::ir::Identifier::new(context, name), value)));
        set_attribute(
            pipelined,
            SCHEDULE_ATTRIBUTE,
            DictionaryAttribute::new(context, &entries).into(),
        );
    });
}

/// Records the schedule of every `tile.pipelined` of `kernel` on `chip`.
fn schedule_kernel<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    chip: &'static Target,
) -> Result<(), Failure<'c, 'a>> {
    // Which copies TMA fills depends on the fragments' layouts.
    crate::layout::ensure_recorded(context, kernel, chip, crate::layout::Rings::Forecast)?;
    for pipelined in nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile_ir::tile::PipelinedOperation::name))
    {
        let ring = if chip.tma {
            super::ahead::plan(kernel, chip, pipelined)
        } else if chip.cp_async_rings {
            super::ahead::group_plan(kernel, chip, pipelined)
        } else {
            None
        };
        let stages = tile_dialect::ops::integer_attribute(&pipelined, "stages").unwrap_or(1);
        let misfit = ring
            .is_none()
            .then(|| super::ahead::ring_misfit(kernel, pipelined, chip, 2))
            .flatten();
        // A shallower ring than the stages asked for issues fewer copies ahead.
        if let Some(depth) = ring.as_ref().map(|ring| ring.depth)
            && depth < stages.min(super::MAX_DEPTH)
            && let Some((needed, budget)) = super::ahead::ring_misfit(kernel, pipelined, chip, depth + 1)
        {
            tile_dialect::diagnostics::emit_warning(
                pipelined.location(),
                &format!(
                    "'tile.pipelined' op asks for {stages} stages, but its ring on {chip} holds {depth}: a ring of {} needs {needed} bytes of shared memory beside the kernel's other shared tiles, and a block has {budget}; smaller tiles fit more",
                    depth + 1
                ),
            );
        }
        if let Some((needed, budget)) = misfit {
            // A persistent loop runs on its ring: one that does not fit is the program's to shrink.
            if chip.tma && pipelined.attribute(super::persistent::TILE_STEPS).is_ok() {
                return Err((
                    pipelined,
                    format!(
                        "is a persistent loop whose ring of two does not fit: with the kernel's shared tiles (and the rings of the copies made once a tile: Q's, and FlashAttention-3's order's first K and last V) it needs {needed} bytes of shared memory, and a block has {budget}; smaller tiles (fewer keys a step) fit, or drop persistent = true"
                    ),
                ));
            }
            // Elsewhere the loop still runs, each step waiting for its own copies: slower than the
            // stages it asks for.
            tile_dialect::diagnostics::emit_warning(
                pipelined.location(),
                &format!(
                    "'tile.pipelined' op runs without a ring on {chip} (each step waits for its own copies): a ring of two needs {needed} bytes of shared memory beside the kernel's other shared tiles, and a block has {budget}; smaller tiles (fewer rows a copy) fit"
                ),
            );
        }
        let ring_schedule = ring.as_ref().map(|ring| ring.schedule());
        let mut schedule = ring_schedule.as_deref().unwrap_or(PLAIN).to_owned();
        if requested_integer(pipelined, "pingpong").is_some_and(|flag| flag != 0) {
            match no_ping_pong(kernel, pipelined, chip, ring.is_some()) {
                None => schedule = format!("{}, pingpong = true}}", &schedule[..schedule.len() - 1]),
                Some(reason) => {
                    tile_dialect::diagnostics::emit_warning(
                        pipelined.location(),
                        &format!(
                            "'tile.pipelined' op asks for pingpong = true, but {reason}; its warpgroups issue their gemms as they come"
                        ),
                    );
                    set_schedule_entry(pipelined, "pingpong", None);
                }
            }
        }
        let schedule = schedule.as_str();
        // A schedule the program asks for stays only if it is the one built.
        let no_producer = ring.as_ref().and_then(|ring| ring.no_producer.clone());
        check_schedule(pipelined, schedule, chip, no_producer.as_deref())?;
        let attribute = Attribute::parse(context, schedule).ok_or_else(|| {
            (
                pipelined,
                format!("internal error: the schedule {schedule} does not parse"),
            )
        })?;
        set_attribute(pipelined, SCHEDULE_ATTRIBUTE, attribute);
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
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [tile_dialect::dialect_handle()],
        run: |module| {
            let chip = Target::of(module)?;
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| schedule_kernel(context, kernel, chip))
        },
    }
}
