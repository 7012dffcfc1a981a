//! `tile-expand-pipelines`: writes the plan of `tile-plan-pipelines` out as tile IR. A loop
//! `tile.pipelined %i = lb to ub step s` whose schedule fills its stages `async`, with a ring of
//! depth D, becomes:
//!
//! - a ring `memref<D x T>` for each tile T its `tile.ahead` copies write, and D barriers;
//! - a prologue: for p < D, when lb + p s < ub, the copies of iteration p into slot p
//!   (`tile.copy_async`), then `tile.arrive` on barrier p;
//! - an `scf.for` whose iteration k (= (i - lb) / s) waits for phase k / D of barrier k mod D and
//!   reads slot k mod D of each ring where the body read T; then, with `release = "barrier"`
//!   (rings of 2), when i + D s < ub, refills that slot with the copies of iteration k + D once
//!   every thread is done with it (`gpu.barrier`); with `release = "mbarrier"` (rings of 3 or
//!   more), arrives on a second set of D barriers (the slot is free) and, when k >= 1 and
//!   i + (D - 1) s < ub, waits for phase (k - 1) / D of free barrier (k - 1) mod D and refills that
//!   slot with iteration k - 1 + D: no thread waits for the others to finish this iteration;
//!   with `release = "previous"` (a GEMM's main loop: one gemm accumulating across iterations),
//!   iteration k >= 1 arrives on the free barrier of slot k - 1 instead, after issuing its own gemm,
//!   and refills it as above: the gemm of iteration k may still run when iteration k + 1 starts.
//!
//! With `producer = "warpgroup"` the copies leave the loop: a `tile.producer` before it (one thread of a
//! warpgroup of its own) walks the iterations, waits for phase k / D - 1 of free barrier k mod D when
//! k >= D (the slot's previous round released), issues iteration k's copies into slot k mod D and
//! arrives on its barrier; the loop only waits for its slots and releases them (`release =
//! "previous"` or `"mbarrier"` as above). No thread of the kernel waits for another to refill a
//! slot, nor issues a copy.
//!
//! With `wait = "group"` (rings awaited by cp.async commit groups, [`super::groups`]) the prologue
//! issues iterations 0 .. D-2 and every arrival is unconditional (one group an iteration); iteration
//! k waits for its slot, then refills slot (k + D - 1) mod D, which iteration k - 1 read and every
//! thread is past its wait for, with iteration k + D - 1, before its reads.
//!
//! Every iteration's copies are issued once and waited for once, whatever the trip count (below,
//! equal to or not a multiple of D, or dynamic).

use super::{
    AHEAD_ATTRIBUTE,
    plan::{requested_buffers, requested_string},
};
use crate::target::Target;
use crate::{
    cpu::builder::{At, Builder},
    kernels::Failure,
};
use melior::ir::ShapedTypeLike;
use melior::{
    Context,
    ir::{
        BlockLike, Value, ValueLike,
        operation::{OperationLike, OperationRef, OperationResult},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::ops::{
    clone_detached, copy_parts, integer_attribute, is_defined_inside, nested_ops, set_operand, static_sizes,
};
use tile_dialect::positions::{BlockAt, OperationAt};

/// One copy issued ahead: where it reads, and the ring that replaces its tile.
struct Ahead<'c, 'a> {
    copy: OperationRef<'c, 'a>,
    tile: Value<'c, 'a>,
    ring: Value<'c, 'a>,
}

/// A persistent loop's copies made once a tile (`tile.once_a_tile`): their rings, as deep as
/// `ahead::once_a_tile_depth` says, filled at a tile's first step and released at its last.
struct OnceATile<'c, 'a> {
    aheads: Vec<Ahead<'c, 'a>>,
    depth: i64,
    /// Steps of a tile (K).
    steps: i64,
    /// The barriers a slot's copies complete on, and those the kernel's threads release it on.
    full: Value<'c, 'a>,
    empty: Value<'c, 'a>,
    /// The loop's first value and step (an iteration's number from its induction value).
    lower: Value<'c, 'a>,
    step: Value<'c, 'a>,
}

/// What a loop's iterations copy ahead: the copies of each step into the ring's slot, and those
/// of a persistent loop's tiles.
struct Rings<'c, 'a> {
    steps: Vec<Ahead<'c, 'a>>,
    once: Option<OnceATile<'c, 'a>>,
}

/// Whether `pipelined`'s schedule asks for asynchronous fills.
fn fills_async(pipelined: OperationRef) -> bool {
    requested_string(pipelined, "fill").as_deref() == Some("async")
}

/// `arith.cmpi slt, lhs, rhs`.
fn less<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
    b.value(
        at,
        melior::dialect::arith::cmpi(
            b.context,
            melior::dialect::arith::CmpiPredicate::Slt,
            lhs,
            rhs,
            b.location,
        ),
    )
}

/// The value `value` (of the loop `owner`, whose induction variable is `iv`) takes when the
/// induction variable is `at_iv`: values from outside the loop as they are, the pure ops between
/// cloned at `at` (see `ahead::computable`).
pub(crate) fn materialize<'c, 'a>(
    value: Value<'c, 'a>,
    owner: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    at_iv: Value<'c, 'a>,
    at: At<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) -> Value<'c, 'a> {
    if value == iv {
        return at_iv;
    }
    if !is_defined_inside(value, owner) {
        return value;
    }
    if let Some((_, known)) = done.iter().find(|(original, _)| *original == value) {
        return *known;
    }
    let result = OperationResult::try_from(value).expect("a computable value is an op's result");
    let original = result.owner();
    // The operands first, so that each clone comes after the clones it uses; then the values of
    // the loop's body that the op's regions read (a persistent loop's search for a step's tile).
    let operands: Vec<Value> = original
        .operands()
        .map(|operand| materialize(operand, owner, iv, at_iv, at, done))
        .collect();
    let mut read_inside: Vec<(Value, Value)> = Vec::new();
    for nested in nested_ops(original) {
        for operand in nested.operands() {
            if is_defined_inside(operand, owner)
                && !is_defined_inside(operand, original)
                && !read_inside.iter().any(|(read, _)| *read == operand)
            {
                read_inside.push((operand, materialize(operand, owner, iv, at_iv, at, done)));
            }
        }
    }
    let clone = at.block.insert_operation_before(at.before, clone_detached(original));
    for (position, mapped) in operands.into_iter().enumerate() {
        set_operand(clone, position, mapped);
    }
    for nested in nested_ops(clone) {
        for (position, operand) in nested.operands().enumerate().collect::<Vec<_>>() {
            if let Some((_, mapped)) = read_inside.iter().find(|(read, _)| *read == operand) {
                set_operand(nested, position, *mapped);
            }
        }
    }
    // Every result, so that another result of the op (a search's second) reuses the clone.
    for index in 0..original.result_count() {
        done.push((
            original.result_at(index).expect("a result").into(),
            clone.result_at(index).expect("same results").into(),
        ));
    }
    clone.result_at(result.result_number()).expect("same results").into()
}

/// Issues the copies of the iteration whose induction variable is `at_iv` into `slot`, then the
/// arrival on its barrier.
#[allow(clippy::too_many_arguments)]
fn issue<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    rings: &Rings<'c, 'a>,
    owner: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    at_iv: Value<'c, 'a>,
    slot: Value<'c, 'a>,
    barriers: Value<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    issue_copies(b, at, rings, owner, iv, at_iv, slot, barriers, done);
    arrive(b, at, barriers, slot);
}

/// `tile.arrive` on barrier `slot` of `barriers`.
fn arrive<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    barriers: Value<'c, 'a>,
    slot: Value<'c, 'a>,
) -> OperationRef<'c, 'a> {
    b.insert(
        at,
        tile_dialect::ops::arrive(barriers, slot, b.location).expect("tile.arrive"),
    )
}

/// Issues the copies of the iteration whose induction variable is `at_iv` into `slot`, completing
/// on its barrier; at a tile's first step, first its tile's copies made once a tile. `done` holds
/// the values already computed at `at` for that iteration (see [`materialize`]).
#[allow(clippy::too_many_arguments)]
fn issue_copies<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    rings: &Rings<'c, 'a>,
    owner: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    at_iv: Value<'c, 'a>,
    slot: Value<'c, 'a>,
    barriers: Value<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    if let Some(once) = &rings.once {
        issue_once_a_tile(b, at, once, owner, iv, at_iv, done);
    }
    copy_into_slot(b, at, &rings.steps, owner, iv, at_iv, slot, barriers, done);
}

/// At the first step of a tile (iteration `at_iv` a multiple of K, or where tiles run their own
/// counts, the step whose step in its tile is 0), the copies of `once` for that tile into its slot
/// (tile mod depth), once the kernel's threads have released the slot's previous tile, then the
/// arrival on the slot's barrier.
fn issue_once_a_tile<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    once: &OnceATile<'c, 'a>,
    owner: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    at_iv: Value<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    let marked = |mark: &str| super::persistent::marked_result(owner, mark);
    let inside_and_tile = match (
        marked(tile_dialect::decisions::STEPS_OF_TILE),
        marked(tile_dialect::decisions::TILE_OF_STEP),
        marked(tile_dialect::decisions::STEP_IN_TILE),
    ) {
        (Some(_), Some(tile), Some(step)) => {
            let tile = materialize(tile, owner, iv, at_iv, at, done);
            let step = materialize(step, owner, iv, at_iv, at, done);
            let inside = b.if_then(at, b.compare(at, "eq", step, b.index(at, 0)));
            (inside, tile)
        }
        _ => {
            let iteration = iteration_of(b, at, at_iv, [once.lower, once.step]);
            let steps = b.index(at, once.steps);
            let first = b.compare(at, "eq", b.remui(at, iteration, steps), b.index(at, 0));
            let inside = b.if_then(at, first);
            (inside, b.divui(inside, iteration, steps))
        }
    };
    let (inside, tile) = inside_and_tile;
    let [slot, round] = slot_and_round(b, inside, tile, once.depth);
    let refill = b.if_then(inside, b.compare(inside, "uge", tile, b.index(inside, once.depth)));
    let released = b.subi(refill, round, b.index(refill, 1));
    b.insert(
        refill,
        tile_dialect::ops::wait(once.empty, slot, released, b.location).expect("tile.wait"),
    );
    // Values computed in the branch stay in it.
    copy_into_slot(
        b,
        inside,
        &once.aheads,
        owner,
        iv,
        at_iv,
        slot,
        once.full,
        &mut done.clone(),
    );
    arrive(b, inside, once.full, slot);
}

/// The copies `aheads` of the iteration whose induction variable is `at_iv`, into `slot` of their
/// rings, completing on barrier `slot` of `barriers`.
#[allow(clippy::too_many_arguments)]
fn copy_into_slot<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    aheads: &[Ahead<'c, 'a>],
    owner: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    at_iv: Value<'c, 'a>,
    slot: Value<'c, 'a>,
    barriers: Value<'c, 'a>,
    done: &mut Vec<(Value<'c, 'a>, Value<'c, 'a>)>,
) {
    for ahead in aheads {
        let parts = copy_parts(&ahead.copy).expect("a planned copy");
        let src = materialize(parts.src, owner, iv, at_iv, at, done);
        let offsets: Vec<Value> = parts
            .src_offsets
            .iter()
            .map(|offset| materialize(*offset, owner, iv, at_iv, at, done))
            .collect();
        let tile_type = MemRefType::try_from(ahead.tile.r#type()).expect("a tile");
        let view = b.value(
            at,
            tile_dialect::ops::slot(ahead.ring, slot, tile_type, ahead.copy.location()).expect("tile.slot"),
        );
        let copy = b.insert(
            at,
            tile_dialect::ops::copy_async(
                b.context,
                src,
                &offsets,
                view,
                [barriers, slot],
                tile_dialect::ops::copy_dims(&ahead.copy).as_deref(),
                ahead.copy.location(),
            )
            .expect("tile.copy_async"),
        );
        if let Ok(shared) = ahead.copy.attribute(tile_dialect::decisions::CLUSTER_SHARED.name) {
            tile_dialect::ops::set_attribute(copy, tile_dialect::decisions::CLUSTER_SHARED.name, shared);
        }
    }
}

/// The iteration number (from 0) of induction value `iv` of a loop from `lower` by `step`.
fn iteration_of<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    iv: Value<'c, 'a>,
    [lower, step]: [Value<'c, 'a>; 2],
) -> Value<'c, 'a> {
    let distance = b.subi(at, iv, lower);
    b.divui(at, distance, step)
}

/// The slot and round of iteration `iteration` in a ring of `depth`.
fn slot_and_round<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, iteration: Value<'c, 'a>, depth: i64) -> [Value<'c, 'a>; 2] {
    let ring_depth = b.index(at, depth);
    [b.remui(at, iteration, ring_depth), b.divui(at, iteration, ring_depth)]
}

/// From iteration 1 on, arrives on free barrier `empty` of the slot the previous iteration read
/// (`tile.releases_previous`: that iteration's gemm is the one carried across the back edge of
/// `looped`). Returns the branch taken from iteration 1 on, the previous iteration and its slot.
fn release_previous_slot<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    iteration: Value<'c, 'a>,
    depth: i64,
    empty: Value<'c, 'a>,
    looped: OperationRef<'c, 'a>,
) -> (At<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>) {
    let one = b.index(at, 1);
    let released = b.if_then(at, b.compare(at, "uge", iteration, one));
    let previous = b.subi(released, iteration, one);
    let previous_slot = b.remui(released, previous, b.index(released, depth));
    let arrival = arrive(b, released, empty, previous_slot);
    tile_dialect::ops::set_attribute(
        arrival,
        super::RELEASES_PREVIOUS_ATTRIBUTE,
        melior::ir::Attribute::unit(b.context),
    );
    tile_dialect::ops::set_attribute(
        looped,
        super::CARRIES_GEMM_ATTRIBUTE,
        melior::ir::Attribute::unit(b.context),
    );
    (released, previous, previous_slot)
}

/// Writes the `tile.producer` of a loop from `lower` to `upper` by `step` at `at` (see the
/// module's doc): for each iteration k, once free barrier k mod D has completed the phase of the
/// slot's previous round (k >= D), the copies of iteration k into slot k mod D and the arrival on
/// full barrier k mod D.
#[allow(clippy::too_many_arguments)]
fn produce<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    rings: &Rings<'c, 'a>,
    pipelined: OperationRef<'c, 'a>,
    iv: Value<'c, 'a>,
    [lower, upper, step]: [Value<'c, 'a>; 3],
    depth: i64,
    [full, empty]: [Value<'c, 'a>; 2],
) {
    let producer = b.insert(
        at,
        tile_dialect::ops::producer(pipelined.location()).expect("tile.producer"),
    );
    let body = producer.body().expect("the producer's body");
    let inside = At::before(body.terminator().expect("tile.yield"));
    let (looped, at_iv) = b.for_loop(inside, lower, upper, step);
    let iteration = iteration_of(b, looped, at_iv, [lower, step]);
    let [slot, round] = slot_and_round(b, looped, iteration, depth);
    let refill = b.if_then(looped, b.compare(looped, "uge", iteration, b.index(looped, depth)));
    let released = b.subi(refill, round, b.index(refill, 1));
    b.insert(
        refill,
        tile_dialect::ops::wait(empty, slot, released, b.location).expect("tile.wait"),
    );
    // Where tiles run their own step counts, the tile's count first (the carried tile values
    // include it), computed once with the copies' offsets.
    let mut done = Vec::new();
    let varying = super::persistent::marked_result(pipelined, tile_dialect::decisions::STEPS_OF_TILE);
    if let Some(steps) = varying {
        materialize(steps, pipelined, iv, at_iv, looped, &mut done);
    }
    issue(b, looped, rings, pipelined, iv, at_iv, slot, full, &mut done);
    if varying.is_some()
        || integer_attribute(&pipelined, super::persistent::TILE_STEPS) == Some(super::persistent::DYNAMIC_TILE_STEPS)
    {
        let looped = looped.block.parent_operation().expect("the producer's scf.for");
        super::persistent::carry_tile_values(b.context, looped);
    }
}

/// Makes the ops of `looped` that read the tile of one of `aheads` read slot `slot` of its ring
/// instead (a `tile.slot` view at `at`).
fn read_slots<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    aheads: &[Ahead<'c, 'a>],
    slot: Value<'c, 'a>,
    looped: OperationRef<'c, 'a>,
) {
    for ahead in aheads {
        let tile_type = MemRefType::try_from(ahead.tile.r#type()).expect("a tile");
        let view = b.value(
            at,
            tile_dialect::ops::slot(ahead.ring, slot, tile_type, ahead.copy.location()).expect("tile.slot"),
        );
        let readers: Vec<OperationRef> = nested_ops(looped)
            .into_iter()
            .filter(|op| *op != ahead.copy && op.operands().any(|operand| operand == ahead.tile))
            .collect();
        for reader in readers {
            for (position, operand) in reader.operands().enumerate() {
                if operand == ahead.tile {
                    set_operand(reader, position, view);
                }
            }
        }
    }
}

/// The kernel's threads' side of the rings of `once` in the persistent loop `looped` (its body
/// ending at `end`): at a tile's first step they wait for the tile's slot, the steps read the slot
/// where the body read the tile, and the tile's last step releases it (after its gemms: a block's
/// wgmma groups are all waited for before an arrival). The branches are the loop's first- and
/// last-step ones, which `persistent::split_tiles` inlines where the step is known.
fn read_once_a_tile<'c, 'a>(b: &Builder<'c>, once: &OnceATile<'c, 'a>, looped: OperationRef<'c, 'a>, end: At<'c, 'a>) {
    let body = looped.body().expect("loop body");
    let ops: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block()).collect();
    let marked = |name: &str| {
        ops.iter()
            .position(|op| op.attribute(name).is_ok())
            .expect("a persistent loop's step marks")
    };
    let (tile_at, step_at) = (
        marked(tile_dialect::decisions::TILE_OF_STEP),
        marked(tile_dialect::decisions::STEP_IN_TILE),
    );
    let value = |at: usize| -> Value<'c, 'a> { ops[at].result_at(0).expect("one result").into() };
    let (tile, step) = (value(tile_at), value(step_at));
    let at = At::before(ops[tile_at.max(step_at) + 1]);
    let [slot, round] = slot_and_round(b, at, tile, once.depth);
    let branch = |at: At<'c, 'a>, when: Value<'c, 'a>, mark: &str| {
        let inside = b.if_then(at, b.compare(at, "eq", step, when));
        let branch = inside.block.parent_operation().expect("scf.if");
        tile_dialect::ops::set_attribute(branch, mark, melior::ir::Attribute::unit(b.context));
        inside
    };
    let first = branch(at, b.index(at, 0), tile_dialect::decisions::FIRST_STEP);
    b.insert(
        first,
        tile_dialect::ops::wait(once.full, slot, round, b.location).expect("tile.wait"),
    );
    read_slots(b, at, &once.aheads, slot, looped);
    // The tile's last step: K - 1, or where tiles run their own counts, the tile's count - 1.
    let last_step = match super::persistent::marked_result(looped, tile_dialect::decisions::STEPS_OF_TILE) {
        Some(steps) => b.subi(end, steps, b.index(end, 1)),
        None => b.index(end, once.steps - 1),
    };
    let last = branch(end, last_step, tile_dialect::decisions::LAST_STEP);
    arrive(b, last, once.empty, slot);
}

/// Expands one planned loop (see the module's doc).
fn expand_loop<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    target: Option<&'static Target>,
    pipelined: OperationRef<'c, 'a>,
) -> Result<(), Failure<'c, 'a>> {
    let body = pipelined.body().expect("loop body");
    let copies: Vec<OperationRef> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .filter(|op| op.attribute(AHEAD_ATTRIBUTE).is_ok())
        .collect();
    let depth = requested_buffers(pipelined).unwrap_or(1);
    if copies.is_empty() || depth < 2 {
        return Ok(());
    }
    if depth > super::MAX_DEPTH {
        return Err((
            pipelined,
            format!(
                "has a ring of {depth} buffers in its tile.schedule; at most {} are supported",
                super::MAX_DEPTH
            ),
        ));
    }
    for copy in &copies {
        if !tile_ir::is(copy, tile_ir::tile::CopyOperation::name) || !super::ahead::goes_ahead(kernel, pipelined, *copy)
        {
            return Err((
                *copy,
                "is marked tile.ahead but cannot be issued ahead: it must copy a global tensor into a shared tile allocated outside the loop, with one element type, from offsets computable from the induction variable and values outside the loop, and be the tile's only writer, before its readers in the iteration".into(),
            ));
        }
    }
    let b = Builder {
        context,
        location: pipelined.location(),
        threads: None,
    };
    let before = At::before(pipelined);
    let workgroup = melior::ir::Attribute::parse(context, "#gpu.address_space<workgroup>");
    // One ring per tile, D barriers for the loop.
    let ring_of = |copy: &OperationRef<'c, 'a>, depth: i64| {
        let tile = copy_parts(copy).expect("a planned copy").dst;
        let memref = MemRefType::try_from(tile.r#type()).expect("a tile");
        let mut shape = vec![depth];
        shape.extend(static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)));
        let ring_type = MemRefType::new(memref.element(), &shape, None, workgroup);
        let allocation = OperationResult::try_from(tile).expect("planned: an allocation").owner();
        let ring = b.value(
            At::before(allocation),
            tile_dialect::ops::alloc_shared(ring_type, allocation.location()).expect("tile.alloc_shared"),
        );
        // The ring keeps the tile's layout, `depth` times.
        if let Some(layout) = allocation
            .attribute(tile_dialect::layout::LAYOUT_ATTRIBUTE)
            .ok()
            .and_then(tile_dialect::layout::SharedLayout::from_attribute)
        {
            let ring_layout = tile_dialect::layout::SharedLayout {
                buffers: depth,
                ..layout
            };
            tile_dialect::ops::set_attribute(
                OperationResult::try_from(ring).expect("an allocation").owner(),
                tile_dialect::layout::LAYOUT_ATTRIBUTE,
                ring_layout.to_attribute(context),
            );
        }
        Ahead {
            copy: *copy,
            tile,
            ring,
        }
    };
    let aheads: Vec<Ahead> = copies.iter().map(|copy| ring_of(copy, depth)).collect();
    let once_copies = super::ahead::once_a_tile(pipelined);
    let tile_steps = integer_attribute(&pipelined, super::persistent::TILE_STEPS).unwrap_or(0);
    if let Some(copy) = once_copies.first()
        && tile_steps < 1
    {
        return Err((
            *copy,
            "is made once a tile (tile.once_a_tile) in a loop without a static tile.tile_steps; only a persistent kernel of static sizes makes copies once a tile".into(),
        ));
    }
    let once_depth = super::ahead::once_a_tile_depth(depth, tile_steps);
    let once_aheads: Vec<Ahead> = once_copies.iter().map(|copy| ring_of(copy, once_depth)).collect();
    // With a producer, the barriers come before it, where `ahead::producer_site` puts it; it
    // issues the step copies and those made once a tile.
    let issued = [copies.clone(), once_copies.clone()].concat();
    let producer = requested_string(pipelined, "producer").as_deref() == Some("warpgroup");
    let site = match producer {
        true => Some(
            target.and_then(|target| super::ahead::producer_site(kernel, target, pipelined, &issued)).ok_or((
            pipelined,
            "has a tile.schedule with producer = \"warpgroup\" but no producer can issue its copies (the kernel's one pipelined loop, at its top level, TMA copies only, whole warpgroups)".to_owned(),
        ))?),
        false => None,
    };
    if let Some(site) = site {
        for value in super::ahead::producer_inputs(pipelined, &issued) {
            super::ahead::hoist(context, value, kernel, site);
        }
    }
    if site.is_none() && super::persistent::marked_result(pipelined, tile_dialect::decisions::STEPS_OF_TILE).is_some() {
        return Err((
            pipelined,
            "is a persistent loop whose tiles run different step counts (its bound depends on the block indices), whose copies only a producer warpgroup issues: add producer = \"warpgroup\" to its tile.schedule, or give every tile the same steps".into(),
        ));
    }
    let allocate = site.map_or(before, At::before);
    let barrier_type = MemRefType::new(IntegerType::new(context, 64).into(), &[depth], None, workgroup);
    let barriers = b.value(
        allocate,
        tile_dialect::ops::alloc_barriers(barrier_type, pipelined.location()).expect("tile.alloc_barriers"),
    );
    let release = requested_string(pipelined, "release");
    let release_previous = release.as_deref() == Some("previous");
    let empty = matches!(release.as_deref(), Some("mbarrier" | "previous")).then(|| {
        b.value(
            allocate,
            tile_dialect::ops::alloc_barriers(barrier_type, pipelined.location()).expect("tile.alloc_barriers"),
        )
    });
    let lower = pipelined.operand_at(0).expect("verified loop");
    let upper = pipelined.operand_at(1).expect("verified loop");
    let step = if pipelined.operand_count() == 3 {
        pipelined.operand_at(2).expect("step")
    } else {
        b.index(allocate, 1)
    };
    let iv: Value = body.argument_at(0).expect("induction variable").into();
    let once_barrier_type = MemRefType::new(IntegerType::new(context, 64).into(), &[once_depth], None, workgroup);
    let once_barriers = || {
        b.value(
            allocate,
            tile_dialect::ops::alloc_barriers(once_barrier_type, pipelined.location()).expect("tile.alloc_barriers"),
        )
    };
    let rings = Rings {
        steps: aheads,
        once: (!once_aheads.is_empty()).then(|| OnceATile {
            aheads: once_aheads,
            depth: once_depth,
            steps: tile_steps,
            full: once_barriers(),
            empty: once_barriers(),
            lower,
            step,
        }),
    };
    if let Some(site) = site {
        let Some(empty) = empty else {
            return Err((pipelined, "has a tile.schedule with producer = \"warpgroup\" but no release its producer can wait for (\"previous\" or \"mbarrier\")".into()));
        };
        produce(
            &b,
            At::before(site),
            &rings,
            pipelined,
            iv,
            [lower, upper, step],
            depth,
            [barriers, empty],
        );
    }
    // Prologue: iterations 0 .. D-1 into slots 0 .. D-1 (the producer's own, when there is one).
    // Awaited by group count (`wait = "group"`), iterations are issued D - 1 ahead, 0 .. D-2, each
    // arrival unconditional, so that the groups after iteration k's are always D - 2 when it waits
    // for its slot.
    let groups = requested_string(pipelined, "wait").as_deref() == Some("group");
    let prologue = match (producer, groups) {
        (true, _) => 0,
        (false, true) => depth - 1,
        (false, false) => depth,
    };
    for p in 0..prologue {
        let distance = b.index(before, p);
        let offset = b.muli(before, distance, step);
        let at_iv = b.addi(before, lower, offset);
        let inside = b.if_then(before, less(&b, before, at_iv, upper));
        let slot = b.index(inside, p);
        issue_copies(
            &b,
            inside,
            &rings,
            pipelined,
            iv,
            at_iv,
            slot,
            barriers,
            &mut Vec::new(),
        );
        match groups {
            true => arrive(&b, before, barriers, b.index(before, p)),
            false => arrive(&b, inside, barriers, slot),
        };
    }
    // The loop: wait for this iteration's slot, read it, refill it for iteration k + D.
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let tile_steps = pipelined.attribute(super::persistent::TILE_STEPS).ok();
    let ping_pong = super::plan::requested_integer(pipelined, "pingpong").is_some_and(|flag| flag != 0);
    let (end, iv) = crate::cpu::structure::lower_pipelined(&b, &rewriter, pipelined);
    let looped = end.block.parent_operation().expect("the scf.for");
    if ping_pong {
        tile_dialect::ops::set_attribute(looped, super::PINGPONG_ATTRIBUTE, melior::ir::Attribute::unit(context));
    }
    let top = At::before(end.block.first_operation().expect("the body ends in scf.yield"));
    let iteration = iteration_of(&b, top, iv, [lower, step]);
    let [slot, round] = slot_and_round(&b, top, iteration, depth);
    b.insert(
        top,
        tile_dialect::ops::wait(barriers, slot, round, b.location).expect("tile.wait"),
    );
    read_slots(&b, top, &rings.steps, slot, looped);
    if let Some(once) = &rings.once {
        read_once_a_tile(&b, once, looped, end);
    }
    if groups {
        // Iteration k + D - 1 into the slot iteration k - 1 read: every thread is past this
        // iteration's wait, so done with it.
        let distance = b.muli(top, b.index(top, depth - 1), step);
        let next = b.addi(top, iv, distance);
        let ahead = b.addi(top, iteration, b.index(top, depth - 1));
        let next_slot = b.remui(top, ahead, b.index(top, depth));
        let refill = b.if_then(top, less(&b, top, next, upper));
        issue_copies(
            &b,
            refill,
            &rings,
            looped,
            iv,
            next,
            next_slot,
            barriers,
            &mut Vec::new(),
        );
        arrive(&b, top, barriers, next_slot);
    }
    match empty {
        _ if groups => {}
        // The producer refills; the kernel's threads release the previous iteration's slot after
        // issuing this iteration's gemm, or this iteration's slot at its end.
        Some(empty) if producer => {
            if release_previous {
                // Right after the last gemm: a persistent kernel's epilogue, after it in a tile's
                // last step, then holds no slot the producer could refill.
                let gemm = std::iter::successors(end.block.first_operation(), |op| op.next_in_block())
                    .filter(|op| tile_ir::is(op, tile_ir::tile::GemmOperation::name))
                    .last();
                let end = gemm.and_then(|gemm| gemm.next_in_block()).map_or(end, At::before);
                release_previous_slot(&b, end, iteration, depth, empty, looped);
            } else {
                arrive(&b, end, empty, slot);
            }
        }
        // Every thread is done with the slot before it is written again: the block meets at a
        // barrier, and the slot is refilled with iteration k + D at once.
        None => {
            let distance = b.muli(end, b.index(end, depth), step);
            let next = b.addi(end, iv, distance);
            let refill = b.if_then(end, less(&b, end, next, upper));
            b.barrier(refill);
            issue(&b, refill, &rings, looped, iv, next, slot, barriers, &mut Vec::new());
        }
        // Each thread releases the slot on its barrier, and the slot the previous iteration read
        // is refilled with iteration k - 1 + D once every thread has released it: threads wait
        // for the others to finish the previous iteration, not this one, so warpgroups may drift
        // apart by up to an iteration (one's softmax overlapping another's gemms).
        // The slot the previous iteration read is released after this iteration's gemm is
        // issued, and refilled: a GEMM's gemms run back to back.
        Some(empty) if release_previous => {
            let (released, previous, previous_slot) = release_previous_slot(&b, end, iteration, depth, empty, looped);
            let previous_round = b.divui(released, previous, b.index(released, depth));
            let distance = b.muli(released, b.index(released, depth - 1), step);
            let next = b.addi(released, iv, distance);
            let refill = b.if_then(released, less(&b, released, next, upper));
            b.insert(
                refill,
                tile_dialect::ops::wait(empty, previous_slot, previous_round, b.location).expect("tile.wait"),
            );
            issue(
                &b,
                refill,
                &rings,
                looped,
                iv,
                next,
                previous_slot,
                barriers,
                &mut Vec::new(),
            );
        }
        Some(empty) => {
            arrive(&b, end, empty, slot);
            let distance = b.muli(end, b.index(end, depth - 1), step);
            let next = b.addi(end, iv, distance);
            let one = b.index(end, 1);
            let started = b.compare(end, "uge", iteration, one);
            let more = less(&b, end, next, upper);
            let refill = b.if_then(end, b.andi(end, started, more));
            let previous = b.subi(refill, iteration, one);
            let [previous_slot, previous_round] = slot_and_round(&b, refill, previous, depth);
            b.insert(
                refill,
                tile_dialect::ops::wait(empty, previous_slot, previous_round, b.location).expect("tile.wait"),
            );
            issue(
                &b,
                refill,
                &rings,
                looped,
                iv,
                next,
                previous_slot,
                barriers,
                &mut Vec::new(),
            );
        }
    }
    for ahead in rings
        .steps
        .iter()
        .chain(rings.once.iter().flat_map(|once| &once.aheads))
    {
        rewriter.erase_op(ahead.copy);
        if let Some(result) = tile_dialect::ops::as_result(ahead.tile)
            && !nested_ops(kernel)
                .iter()
                .any(|op| op.operands().any(|operand| operand == ahead.tile))
        {
            rewriter.erase_op(result.owner());
        }
    }
    // A persistent kernel's loop over (tile, step) pairs is nested by tile (`super::persistent`).
    if let Some(steps) = tile_steps {
        tile_dialect::ops::set_attribute(looped, super::persistent::TILE_STEPS, steps);
        super::persistent::split_tiles(context, looped);
    }
    Ok(())
}

/// Expands every planned loop of `kernel`, innermost first; `target` (the module's, where it has
/// one) decides where a producer warpgroup can issue a ring's copies.
pub fn expand_kernel<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    target: Option<&'static Target>,
) -> Result<(), Failure<'c, 'a>> {
    let loops: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile_ir::tile::PipelinedOperation::name) && fills_async(*op))
        .collect();
    for pipelined in loops.into_iter().rev() {
        expand_loop(context, kernel, target, pipelined)?;
    }
    Ok(())
}
