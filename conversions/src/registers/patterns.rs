//! One rule per tile op that touches a fragment. [`check`] says whether an op has a rule for its
//! operands' layouts (and why not); [`lower_all`] applies the rules to a kernel that passed.

use super::{Layouts, Placed};
use crate::cpu::{
    builder::{At, Builder},
    compute::{combiner, identity, reduction_input},
    data::{convert, element_type},
};
use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Type, TypeLike, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef, OperationResult},
        r#type::{IntegerType, MemRefType},
    },
};
use std::collections::{BTreeSet, HashMap};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    level::{MemoryLevel, memory_level},
    ops::{clone_detached, copy_parts, integer_attribute, memref_shape, nested_ops, op_name},
};
use tile_ir::{match_op, memref, tile, vector};

/// The mark on an element store whose indices are the core-matrix place of its `tile.parallel`'s
/// element (set where wgmma reads the tile; see [`run_store`]).
pub(crate) const CORE_PLACE: &str = tile_dialect::decisions::CORE_PLACE;

/// The mark on a `tile.parallel` that a matrix rule follows with a fence and a barrier of its own
/// (threads' writes that wgmma reads), which also keeps other threads from racing the loop's
/// accesses: its lowering adds none.
pub(crate) const FENCED: &str = tile_dialect::decisions::FENCED;

pub(crate) mod packed_words;
mod wide_stores;

use super::{key, matrix::Prepared};

/// Bytes of an element of a tensor the accumulator stores write in pairs, runs or TMA boxes (f16,
/// bf16, f32 and i32); `None` for the others, which are stored element by element.
pub(crate) fn stored_bytes(ty: Type) -> Option<i64> {
    use tile_dialect::element::Element;
    Element::of(ty)
        .filter(|element| matches!(element, Element::F16 | Element::BF16 | Element::F32 | Element::I32))
        .map(|element| element.bytes() as i64)
}

pub(crate) type Rule = Result<(), String>;

pub(crate) fn level(value: Value) -> Option<MemoryLevel> {
    memory_level(value.r#type())
}

pub(crate) fn allocation<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let owner = tile_dialect::ops::as_result(value)?.owner();
    tile_ir::is(&owner, tile::AllocFragmentOperation::name).then_some(owner)
}

pub(crate) fn placed<'l>(layouts: &'l Layouts, value: Value) -> Result<&'l Placed, String> {
    allocation(value)
        .and_then(|allocation| layouts.fragment(&allocation))
        .ok_or_else(|| "reads a fragment without a layout".to_owned())
}

/// Whether `value` (or a view of it) is used by `op` or an op nested in it.
pub(crate) fn uses(op: OperationRef, values: &[Value]) -> bool {
    std::iter::once(op)
        .chain(nested_ops(op))
        .any(|nested| nested.operands().any(|operand| values.contains(&operand)))
}

pub(crate) fn inside(coordinates: &[i64], shape: &[i64]) -> bool {
    coordinates.iter().zip(shape).all(|(c, size)| (0..*size).contains(c))
}

/// The slot of `fragment` that holds, on every thread that runs slot `slot` of `by`, the element
/// made of the coordinates `dims` of that thread's element; `None` when no thread runs the slot.
pub(crate) fn uniform_slot(by: &Placed, slot: usize, dims: &[usize], fragment: &Placed) -> Result<Option<i64>, String> {
    let mut found = None;
    // One buffer each for every thread's coordinates and element.
    let (mut coordinates, mut element) = (Vec::new(), Vec::with_capacity(dims.len()));
    for thread in 0..by.distribution.threads {
        if !by.distribution.coordinates_into(thread, slot, &mut coordinates) || !inside(&coordinates, &by.layout.shape)
        {
            continue;
        }
        element.clear();
        element.extend(dims.iter().map(|d| coordinates[*d]));
        let Some(held) = fragment.slot(thread, &element) else {
            return Err(format!(
                "thread {thread} needs element {element:?} of a fragment ({}) it does not hold",
                fragment.layout.origin
            ));
        };
        match found {
            Some(other) if other != held => {
                return Err(format!(
                    "finds element {element:?} in slot {held} on thread {thread} but in slot {other} on others: the register would depend on the thread"
                ));
            }
            _ => found = Some(held),
        }
    }
    Ok(found)
}

/// A fragment access in a `tile.parallel` body: the loop index of each fragment index.
fn access_dims<'c, 'a>(
    access: OperationRef<'c, 'a>,
    loop_indices: &[Value<'c, 'a>],
) -> Option<(Value<'c, 'a>, Vec<usize>, bool)> {
    let (memref, first, write) = match_op!(access, {
        memref::LoadOperation => (access.operand_at(0)?, 1, false),
        memref::StoreOperation => (access.operand_at(1)?, 2, true),
        _ => return None,
    });
    if level(memref) != Some(MemoryLevel::Fragment) {
        return None;
    }
    let dims = (first..access.operand_count())
        .map(|i| {
            access
                .operand_at(i)
                .and_then(|index| loop_indices.iter().position(|loop_index| *loop_index == index))
        })
        .collect::<Option<Vec<usize>>>()
        .unwrap_or_default();
    Some((memref, dims, write))
}

fn loop_indices<'c, 'a>(parallel: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let block = parallel.body();
    block
        .map(|block| {
            (0..block.argument_count())
                .filter_map(|i| block.argument_at(i).map(Into::into))
                .collect()
        })
        .unwrap_or_default()
}

/// The store of a `tile.parallel` body (`originals`, its ops in order) whose slots `by` lays out
/// in runs of 16 bytes, and the elements of a run: the body's last op is an element store into a
/// row-major shared tile at the loop's own indices (or at their core-matrix place, which keeps a
/// 16-byte slab of a row together: [`CORE_PLACE`]), and each thread's coordinate along the last
/// dimension moves by whole runs from thread to thread. Its slots can then store one vector a
/// run, after the run's last slot: the loop's iterations are independent (the threads run them
/// at once), and nothing in an iteration touches memory after its store.
fn run_store(
    parallel: OperationRef,
    by: &Placed,
    indices: &[Value],
    originals: &[OperationRef],
) -> Option<(usize, i64)> {
    let body = parallel.body()?;
    // The op before the terminator (melior walks blocks forwards only).
    let store = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .take_while(|op| op.next_in_block().is_some())
        .last()?;
    if !tile_ir::is(&store, memref::StoreOperation::name) {
        return None;
    }
    let tile = store.operand_at(1)?;
    let at_own_indices =
        store.operands().skip(2).eq(indices.iter().copied()) && crate::layout::stored::stored(tile).is_none();
    let at_core_place = store.attribute(CORE_PLACE).is_ok();
    let bytes = stored_bytes(element_type(tile))?;
    let run = 16 / bytes;
    let last = by.layout.shape.len().checked_sub(1)?;
    let fits = level(tile) == Some(MemoryLevel::Shared)
        && (at_own_indices || at_core_place)
        && 16 % bytes == 0
        && run > 1
        && memref_shape(tile).last().is_some_and(|columns| columns % run == 0)
        && !by.distribution.guarded
        && by.distribution.terms[last].iter().all(|(_, delta)| delta % run == 0);
    let index = originals.iter().position(|op| *op == store)?;
    fits.then_some((index, run))
}

/// Whether `op` sits in a `tile.parallel` body.
pub(crate) fn in_parallel(op: &OperationRef) -> bool {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        match_op!(current, {
            tile::ParallelOperation => return true,
            tile::KernelOperation => return false,
            _ => parent = current.parent_operation(),
        })
    }
    false
}

/// The checks every matrix-instruction rule makes of a gemm's operands: f16 or bf16 inputs alike
/// into an f32 accumulator, B a shared tile and A a shared tile or a fragment, K a multiple of the
/// instruction's depth `step` (`name`, the instruction and its shape, as `mfma.32x32x8`, on `chip`
/// in the messages). Returns K.
pub(crate) fn matrix_gemm_depth(
    gemm: &OperationRef,
    [a, b, c]: [Value; 3],
    name: &str,
    chip: &str,
    step: i64,
) -> Result<i64, String> {
    matrix_gemm_depth_of(gemm, [a, b, c], name, chip, step, false)
}

/// [`matrix_gemm_depth`] of an instruction that takes i8 inputs into an i32 accumulator
/// (`integer`) instead of f16 or bf16 into f32.
pub(crate) fn matrix_gemm_depth_of(
    gemm: &OperationRef,
    operands: [Value; 3],
    name: &str,
    chip: &str,
    step: i64,
    integer: bool,
) -> Result<i64, String> {
    use tile_dialect::element::Element;
    let inputs = if integer {
        MatrixInputs {
            inputs: &[Element::I8],
            accumulator: Element::I32,
            takes: "i8 inputs with an i32 accumulator",
        }
    } else {
        MatrixInputs {
            inputs: &[Element::F16, Element::BF16],
            accumulator: Element::F32,
            takes: "f16 or bf16 inputs (both alike) with an f32 accumulator",
        }
    };
    matrix_gemm_depth_taking(gemm, operands, name, chip, step, &inputs)
}

/// The element types a matrix instruction takes: `inputs` (A and B alike) into `accumulator`;
/// `takes` says so in messages.
pub(crate) struct MatrixInputs {
    pub inputs: &'static [tile_dialect::element::Element],
    pub accumulator: tile_dialect::element::Element,
    pub takes: &'static str,
}

/// [`matrix_gemm_depth`] of an instruction that takes `inputs`.
pub(crate) fn matrix_gemm_depth_taking(
    gemm: &OperationRef,
    [a, b, c]: [Value; 3],
    name: &str,
    chip: &str,
    step: i64,
    inputs: &MatrixInputs,
) -> Result<i64, String> {
    let (instruction, shape) = name.rsplit_once('.').unwrap_or((name, name));
    let MatrixInputs {
        inputs,
        accumulator,
        takes,
    } = *inputs;
    let input = crate::support::element_of(a);
    let fits = input.is_some_and(|input| inputs.contains(&input))
        && crate::support::element_of(b) == input
        && crate::support::element_of(c) == Some(accumulator);
    if !fits {
        let (input, other, output) = (element_type(a), element_type(b), element_type(c));
        return Err(format!(
            "multiplies {input} by {other} into {output}; {instruction} on {chip} takes {takes}"
        ));
    }
    if level(b) != Some(MemoryLevel::Shared) || !matches!(level(a), Some(MemoryLevel::Shared | MemoryLevel::Fragment)) {
        return Err("reads an operand that is neither a shared tile nor (A) a fragment".into());
    }
    let a_shape = memref_shape(a);
    let depth = if gemm.attribute("transpose_a").is_ok() {
        a_shape[0]
    } else {
        a_shape[1]
    };
    if depth % step != 0 {
        return Err(format!(
            "has K = {depth}, not a multiple of the {shape} instruction's {step}; use a K tile that is a multiple of {step}"
        ));
    }
    Ok(depth)
}

/// Plans `gemms` for one matrix instruction: `unlaid` says, for a gemm whose accumulator does
/// not have the instruction's layout (`origin` tells), why it gets none (`None`: nothing to say);
/// `check` plans the others. Returns the planned gemms by op and the refused ones with the reason.
pub(crate) fn plan_gemms<'c, 'a, P>(
    gemms: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    origin: impl Fn(&str) -> bool,
    unlaid: impl Fn(OperationRef<'c, 'a>) -> Option<String>,
    check: impl Fn(&OperationRef<'c, 'a>, [Value<'c, 'a>; 3], &Placed) -> Result<P, String>,
) -> (HashMap<usize, P>, Vec<(OperationRef<'c, 'a>, String)>) {
    let mut planned = HashMap::new();
    let mut refused = Vec::new();
    for gemm in gemms.iter().copied() {
        let (Some(a), Some(b), Some(c)) = (gemm.operand_at(0), gemm.operand_at(1), gemm.operand_at(2)) else {
            continue;
        };
        let Ok(accumulator) = placed(layouts, c) else { continue };
        let result = if origin(&accumulator.layout.origin) {
            Some(check(&gemm, [a, b, c], accumulator))
        } else {
            unlaid(gemm).map(Err)
        };
        match result {
            Some(Ok(plan)) => {
                planned.insert(key(&gemm), plan);
            }
            Some(Err(reason)) => refused.push((gemm, reason)),
            None => {}
        }
    }
    (planned, refused)
}

// ---- the reduction plan -------------------------------------------------------------------------

/// How a `tile.reduce` combines: per thread, source slots into destination slots, then over the
/// thread-index bits (`masks`) that hold the other parts of each destination element.
pub(crate) struct ReducePlan {
    /// (source slot, destination slot, the source slot needs a bounds guard).
    local: Vec<(usize, i64, bool)>,
    /// Destination slots, in order.
    destinations: Vec<i64>,
    /// XOR masks of the butterfly, smallest first.
    masks: Vec<i64>,
}

/// Plans every `tile.reduce` of a kernel once, by op (what the check, the scratch sizing and the
/// lowering read); an op no plan fits is the kernel's reason to keep the old plain lowering.
pub fn reduce_plans<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
) -> Result<HashMap<usize, ReducePlan>, (OperationRef<'c, 'a>, String)> {
    let mut plans = HashMap::new();
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::ReduceOperation::name)) {
        let plan = (|| {
            let (src, dst) = (
                op.operand_at(0)
                    .ok_or_else(|| tile_dialect::positions::missing("operand", 0))?,
                op.operand_at(1)
                    .ok_or_else(|| tile_dialect::positions::missing("operand", 1))?,
            );
            let dim = integer_attribute(op, "dim").unwrap_or(0) as usize;
            let idempotent = !matches!(
                tile_dialect::ops::reduction_kind(op),
                Some(tile_dialect::ops::ReductionKind::Sum | tile_dialect::ops::ReductionKind::AbsSum) | None
            );
            reduce_plan(placed(layouts, src)?, placed(layouts, dst)?, dim, idempotent)
        })()
        .map_err(|reason| (*op, reason))?;
        plans.insert(key(op), plan);
    }
    Ok(plans)
}

/// `idempotent`: the kind combines an element with itself into itself (max, min, absmax), so
/// that a replicated source's copies may meet in the butterfly; a sum would count them each.
fn reduce_plan(src: &Placed, dst: &Placed, dim: usize, idempotent: bool) -> Result<ReducePlan, String> {
    if src.layout.replicate > 1 && !idempotent {
        return Err("sums a replicated fragment (its copies would be counted more than once)".into());
    }
    let threads = src.distribution.threads;
    let kept: Vec<usize> = (0..src.layout.shape.len()).filter(|d| *d != dim).collect();
    let mut local = Vec::new();
    // Per thread: the destination elements its partials are for.
    let mut contributes: Vec<BTreeSet<Vec<i64>>> = vec![BTreeSet::new(); threads as usize];
    for slot in src.distribution.used_slots() {
        let target = uniform_slot(src, slot, &kept, dst)?;
        let Some(target) = target else { continue };
        let mut partial = false;
        for thread in 0..threads {
            let coordinates = src.distribution.coordinates(thread, slot).unwrap_or_default();
            if inside(&coordinates, &src.layout.shape) {
                contributes[thread as usize].insert(kept.iter().map(|d| coordinates[*d]).collect());
            } else {
                partial = true;
            }
        }
        local.push((slot, target, partial));
    }
    let mut destinations: Vec<i64> = local.iter().map(|(_, target, _)| *target).collect();
    destinations.sort_unstable();
    destinations.dedup();
    let bits = 64 - (threads.max(1) - 1).leading_zeros();
    let masks: Vec<i64> = (0..bits)
        .map(|bit| 1i64 << bit)
        .filter(|mask| {
            (0..threads).all(|t| (t ^ mask) < threads && contributes[t as usize] == contributes[(t ^ mask) as usize])
        })
        .collect();
    // Each destination element: its contributors must be one coset of the masks' group, and exactly
    // the threads that hold it.
    let mut contributors: HashMap<Vec<i64>, Vec<i64>> = HashMap::new();
    for (thread, elements) in contributes.iter().enumerate() {
        for element in elements {
            contributors.entry(element.clone()).or_default().push(thread as i64);
        }
    }
    for (element, threads_of) in &contributors {
        if threads_of.len() != 1 << masks.len() {
            return Err(format!(
                "spreads row {element:?} over threads {threads_of:?}, which no butterfly over thread-index bits combines"
            ));
        }
        if dst.owners(element) != threads_of.as_slice() {
            return Err(format!(
                "leaves element {element:?} on threads {threads_of:?}, but its destination's layout holds it elsewhere"
            ));
        }
    }
    Ok(ReducePlan {
        local,
        destinations,
        masks,
    })
}

// ---- check --------------------------------------------------------------------------------------

/// Says whether `op` has a rule for its operands' layouts.
pub fn check(op: OperationRef, layouts: &Layouts) -> Rule {
    let touches_fragment = op.operands().any(|value| level(value) == Some(MemoryLevel::Fragment));
    match_op!(op, {
        tile::ParallelOperation => check_parallel(op, layouts),
        tile::FillOperation if touches_fragment => placed(layouts, op.operand_at(0).ok_or_else(|| tile_dialect::positions::missing("operand", 0))?).map(|_| ()),
        tile::CopyOperation if touches_fragment => check_copy(op, layouts),
        // Planned (and refused where no plan fits) by `reduce_plans`.
        tile::ReduceOperation => Ok(()),
        tile::PrintOperation if touches_fragment => placed(layouts, op.operand_at(0).ok_or_else(|| tile_dialect::positions::missing("operand", 0))?).map(|_| ()),
        tile::SplitSumOperation => split_sum_fits(op, layouts),
        tile::ScanOperation if touches_fragment => {
            let (src, dst) = (op.operand_at(0).ok_or_else(|| tile_dialect::positions::missing("operand", 0))?, op.operand_at(1).ok_or_else(|| tile_dialect::positions::missing("operand", 1))?);
            if level(src) != Some(MemoryLevel::Fragment) || level(dst) != Some(MemoryLevel::Fragment) {
                return Err("scans between a fragment and a shared tile, which the register lowering has no rule for (scan fragment into fragment)".into());
            }
            placed(layouts, src)?;
            placed(layouts, dst).map(|_| ())
        },
        tile::GemmOperation if touches_fragment => {
            let [a, b, c] = [0, 1, 2].map(|i| op.operand_at(i));
            if b.is_some_and(|value| level(value) == Some(MemoryLevel::Fragment)) {
                return Err("has a fragment operand B, which the contract does not allow".into());
            }
            if let Some(a) = a.filter(|value| level(*value) == Some(MemoryLevel::Fragment)) {
                placed(layouts, a)?;
            }
            placed(layouts, c.ok_or("expects an accumulator")?).map(|_| ())
        },
        memref::LoadOperation | memref::StoreOperation if touches_fragment && !in_parallel(&op) => {
            Err("accesses a fragment outside a tile.parallel, where no thread is known to hold the element".into())
        },
        tile::AllocFragmentOperation
            | tile::FillOperation
            | tile::CopyOperation
            | tile::GemmOperation
            | memref::LoadOperation
            | memref::StoreOperation => Ok(()),
        _ => {
            if touches_fragment && !in_parallel(&op) {
                Err(format!(
                    "uses a fragment in '{}', which the register lowering has no rule for",
                    op_name(&op)
                ))
            } else {
                Ok(())
            }
        },
    })
}

/// Whether the scratch of a `tile.split_sum` holds every register of the block's threads.
fn split_sum_fits(op: OperationRef, layouts: &Layouts) -> Rule {
    let acc = op
        .operand_at(0)
        .ok_or_else(|| tile_dialect::positions::missing("operand", 0))?;
    let scratch = op
        .operand_at(1)
        .ok_or_else(|| tile_dialect::positions::missing("operand", 1))?;
    let registers = placed(layouts, acc)?.register_count();
    let threads = op
        .parent_operation()
        .and_then(|kernel| integer_attribute(&kernel, "threads"))
        .unwrap_or(128);
    let room: i64 = memref_shape(scratch).iter().product();
    if registers * threads > room {
        return Err(format!(
            "exchanges {registers} registers of each of {threads} threads through a scratch of {room} elements"
        ));
    }
    Ok(())
}

fn check_parallel(op: OperationRef, layouts: &Layouts) -> Rule {
    let by = layouts.parallel(&op).ok_or("has no loop layout")?;
    let indices = loop_indices(op);
    for nested in nested_ops(op) {
        let name = op_name(&nested);
        // Threads that run the same iteration (a replicated loop layout) update once: one of them.
        if tile_ir::is(&nested, memref::AtomicRMWOperation::name) {
            let replica_bits = by
                .replica_bits()
                .map_err(|why| format!("updates atomically in its body, but {why}"))?;
            if replica_bits != 0
                && nested
                    .result_at(0)
                    .is_some_and(|old| tile_dialect::ops::has_uses(old.into()))
            {
                return Err(
                    "uses the result of an atomic update in a body that threads run several times (a replicated loop layout)"
                        .into(),
                );
            }
        }
        if tile_ir::in_dialect(&nested, tile_dialect::dialect_handle())
            && !tile_ir::is(&nested, tile::YieldOperation::name)
        {
            return Err(format!("holds a '{name}', which the register lowering does not nest"));
        }
        let Some((memref, dims, _)) = access_dims(nested, &indices) else {
            if nested
                .operands()
                .any(|value| level(value) == Some(MemoryLevel::Fragment))
            {
                return Err(format!("uses a fragment in '{name}' inside its body"));
            }
            continue;
        };
        let fragment = placed(layouts, memref)?;
        if dims.len() != fragment.layout.shape.len() {
            return Err(
                "reads a fragment at indices that are not the loop's indices (a thread would not know the register)"
                    .into(),
            );
        }
        for slot in by.distribution.used_slots() {
            layouts.uniform_slot(by, slot, &dims, fragment)?;
        }
    }
    Ok(())
}

fn check_copy(op: OperationRef, layouts: &Layouts) -> Rule {
    let parts = copy_parts(&op).ok_or("expects a copy")?;
    if tile_dialect::ops::copy_atomic(&op).is_some() {
        return placed(layouts, parts.src)?
            .replica_bits()
            .map(|_| ())
            .map_err(|why| format!("updates atomically, but {why}"));
    }
    match (level(parts.src), level(parts.dst)) {
        (Some(MemoryLevel::Fragment), Some(MemoryLevel::Fragment)) => {
            if !parts.src_offsets.is_empty() || !parts.dst_offsets.is_empty() {
                return Err("copies part of a fragment".into());
            }
            if layouts.matrix_plan().is_some_and(|plan| plan.exchanges(&op, layouts)) {
                return Ok(());
            }
            let (src, dst) = (placed(layouts, parts.src)?, placed(layouts, parts.dst)?);
            let all: Vec<usize> = (0..dst.layout.shape.len()).collect();
            for slot in dst.distribution.used_slots() {
                layouts.uniform_slot(dst, slot, &all, src)?;
            }
            Ok(())
        }
        (Some(MemoryLevel::Fragment), _) => placed(layouts, parts.src).map(|_| ()),
        (_, _) => placed(layouts, parts.dst).map(|_| ()),
    }
}

// ---- lowering -----------------------------------------------------------------------------------

/// One kernel's fragment lowering: what every rule reads (the matrix families' rules too).
pub struct Lowering<'c, 'a, 'l> {
    /// Threads of the block.
    pub(crate) threads: i64,
    pub(crate) context: &'c Context,
    pub(crate) layouts: &'l Layouts,
    /// Each fragment allocation (by pointer) and its private array.
    pub(crate) private: HashMap<usize, Value<'c, 'a>>,
    pub(crate) tid: Value<'c, 'a>,
    /// Index 0, made once at the kernel's start (the index of every held matrix's placeholder).
    pub(crate) zero_index: Value<'c, 'a>,
    pub(crate) shuffles: Option<i64>,
    /// What the matrix rules made at the kernel's start ([`super::matrix::MatrixPlan::prepare`],
    /// [`super::matrix::MatrixPlan::begin`]).
    pub(crate) prepared: Prepared<'c, 'a>,
    /// The workgroup staging area the matrix rules' gemms go through, where they need one.
    pub(crate) staging: Option<Value<'c, 'a>>,
    /// The register indices made so far, each once at the kernel's start ([`Lowering::register`]);
    /// `None` where each access makes its own (SPIR-V: the serializer declares constants in the
    /// order it meets them, and the binaries stay as they were).
    registers: Option<std::cell::RefCell<HashMap<i64, Value<'c, 'a>>>>,
    /// Where they go: the kernel's first op (the thread index), which dominates every slot access.
    first: At<'c, 'a>,
    /// Whether a `tile.parallel`'s element stores into a shared tile go out 16 bytes at a time
    /// where a thread holds runs of consecutive elements ([`run_store`]): shared tiles start on 128
    /// bytes (views of dynamic shared memory) and vector stores need no pointer cast.
    pub(crate) wide_stores: bool,
    /// Whether a thread's run of consecutive elements of a global tensor is one vector load or
    /// store ([`crate::target::Memory::vector_runs`]).
    pub(crate) vector_runs: bool,
    /// Whether a byte read from a 16-byte line is put in both halves of a word by one byte
    /// permute where its widening asks for that ([`crate::target::Target::byte_permute`]).
    pub(crate) byte_permute: bool,
    /// Whether the mask and flip of such a word are one three-input logic instruction
    /// ([`crate::target::Target::three_input_logic`]).
    pub(crate) three_input_logic: bool,
}

/// Where a copy's tile lies in the larger buffer on its other side: one offset per dimension of the
/// buffer (none where both sides are tiles), and the dimensions the tile spans. It reads as its
/// offsets.
pub struct Origin<'c, 'a> {
    pub offsets: Vec<Value<'c, 'a>>,
    pub spans: Vec<usize>,
    /// Where the tile written ends, one index per tile dimension (a store's `limits`; empty: the
    /// whole tile).
    pub limits: Vec<Value<'c, 'a>>,
}

impl<'c, 'a> Origin<'c, 'a> {
    /// The tile's origin in a copy's source.
    pub fn of_src(parts: &tile_dialect::ops::CopyParts<'c, 'a>) -> Self {
        Origin {
            offsets: parts.src_offsets.clone(),
            spans: parts.spans.clone(),
            limits: Vec::new(),
        }
    }

    /// The tile's origin in a copy's destination.
    pub fn of_dst(parts: &tile_dialect::ops::CopyParts<'c, 'a>) -> Self {
        Origin {
            offsets: parts.dst_offsets.clone(),
            spans: parts.spans.clone(),
            limits: parts.limits.clone(),
        }
    }

    /// Whether the tile's elements at `coordinates` (in the tile) up to `run` columns on lie
    /// below the limits ([`crate::cpu::data::below_limits`]); `None` without limits.
    pub(crate) fn within_limits(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
        run: i64,
    ) -> Option<Value<'c, 'a>> {
        crate::cpu::data::below_limits(b, at, &self.limits, coordinates, run)
    }
}

impl<'c, 'a> std::ops::Deref for Origin<'c, 'a> {
    type Target = [Value<'c, 'a>];

    fn deref(&self) -> &Self::Target {
        &self.offsets
    }
}

/// Whether runs of `elements` elements of the global tensor `tensor`, starting at the tile's
/// columns (the last of `offsets`) plus a multiple of `elements`, are aligned to their size:
/// the tensor's base (skipped where the launch condition proves it,
/// [`crate::alignment::proven_alignment`]), the tile's first column and the rows' length (skipped
/// where it is a static multiple) all allow it. A tensor with a layout of its own (strides or an
/// offset not derived from its sizes) is not claimed aligned: the test reads only the sizes and
/// the base.
pub(crate) fn runs_aligned<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    tensor: Value<'c, 'a>,
    offsets: &[Value<'c, 'a>],
    elements: i64,
) -> Value<'c, 'a> {
    if !tile_dialect::ops::as_memref(tensor.r#type()).is_some_and(tile_dialect::ops::has_identity_layout) {
        return b.constant(at, melior::ir::r#type::IntegerType::new(b.context, 1).into(), 0.0);
    }
    let bytes = tile_dialect::element::Element::of(element_type(tensor)).map_or(1, |element| element.bytes() as i64);
    let last = offsets.len() - 1;
    let base_rest = (crate::alignment::proven_alignment(at.before, tensor) % (elements * bytes) != 0)
        .then(|| b.remui(at, b.aligned_pointer(at, tensor), b.index(at, elements * bytes)));
    let column_rest = b.remui(at, offsets[last], b.index(at, elements));
    let mut rest = match base_rest {
        Some(base_rest) => b.ori(at, base_rest, column_rest),
        None => column_rest,
    };
    let rows = tile_dialect::ops::as_memref(tensor.r#type())
        .and_then(|memref| tile_dialect::ops::static_sizes(memref).last().copied().flatten());
    if rows.is_none_or(|rows| rows % elements != 0) {
        let row_rest = b.remui(at, b.dim(at, tensor, last as i64), b.index(at, elements));
        rest = b.ori(at, rest, row_rest);
    }
    b.compare(at, "eq", rest, b.index(at, 0))
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    pub(crate) fn builder(&self, op: &OperationRef<'c, 'a>) -> Builder<'c> {
        Builder {
            context: self.context,
            location: op.location(),
            threads: None,
        }
    }

    pub(crate) fn private(&self, fragment: Value<'c, 'a>) -> Value<'c, 'a> {
        self.private_array(fragment)
            .expect("a fragment allocation of the kernel")
    }

    /// The array that holds `fragment`'s registers; `None` for a value that is no fragment
    /// allocation of the kernel.
    pub(crate) fn private_array(&self, fragment: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
        allocation(fragment).and_then(|allocation| self.private.get(&key(&allocation)).copied())
    }

    /// Returns the index constant `register`, made once per kernel at its start: every slot access
    /// takes one, and a constant per access was a third of the ops the rules wrote (for the
    /// cleanup's canonicalization to fold into one each).
    pub(crate) fn register(&self, b: &Builder<'c>, at: At<'c, 'a>, register: i64) -> Value<'c, 'a> {
        let Some(registers) = &self.registers else {
            return b.index(at, register);
        };
        *registers.borrow_mut().entry(register).or_insert_with(|| {
            Builder {
                context: self.context,
                location: self.first.before.location(),
                threads: None,
            }
            .index(self.first, register)
        })
    }

    /// Loads slot `slot` of a fragment laid out as `placed` from its array.
    pub(crate) fn slot_value(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        array: Value<'c, 'a>,
        placed: &Placed,
        slot: i64,
    ) -> Value<'c, 'a> {
        let index = self.register(b, at, placed.register(slot));
        b.load(at, array, &[index])
    }

    /// Stores `value` into slot `slot` of a fragment laid out as `placed`.
    pub(crate) fn set_slot(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        array: Value<'c, 'a>,
        placed: &Placed,
        slot: i64,
    ) {
        let index = self.register(b, at, placed.register(slot));
        b.store(at, value, array, &[index]);
    }

    /// The thread's offset in each coordinate: consecutive bits whose deltas double become one
    /// `((tid >> low) & mask) * delta` term.
    pub(crate) fn offsets(&self, b: &Builder<'c>, at: At<'c, 'a>, placed: &Placed) -> Vec<Value<'c, 'a>> {
        placed
            .distribution
            .terms
            .iter()
            .map(|terms| {
                let mut groups: Vec<(u32, u32, i64)> = Vec::new();
                for &(bit, delta) in terms {
                    match groups.last_mut() {
                        Some((low, count, first)) if *low + *count == bit && *first << *count == delta => *count += 1,
                        _ => groups.push((bit, 1, delta)),
                    }
                }
                let mut sum: Option<Value> = None;
                for (low, count, delta) in groups {
                    let shift = b.index(at, low as i64);
                    let shifted = b.shrui(at, self.tid, shift);
                    let mask = b.index(at, (1 << count) - 1);
                    let field = b.andi(at, shifted, mask);
                    let term = if delta == 1 {
                        field
                    } else {
                        let scale = b.index(at, delta);
                        b.muli(at, field, scale)
                    };
                    sum = Some(match sum {
                        Some(previous) => b.addi(at, previous, term),
                        None => term,
                    });
                }
                sum.unwrap_or_else(|| b.index(at, 0))
            })
            .collect()
    }

    /// The coordinates of slot `slot` on this thread.
    pub(crate) fn coordinates(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        placed: &Placed,
        offsets: &[Value<'c, 'a>],
        slot: usize,
    ) -> Vec<Value<'c, 'a>> {
        let base = placed.distribution.base[slot].as_ref().expect("a used slot");
        offsets
            .iter()
            .zip(base)
            .map(|(offset, base)| {
                if *base == 0 {
                    *offset
                } else {
                    let base = b.index(at, *base);
                    b.addi(at, *offset, base)
                }
            })
            .collect()
    }

    /// Whether `coordinates` lie in `shape` (`None` when the layout needs no guard).
    pub(crate) fn in_tile(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        placed: &Placed,
        coordinates: &[Value<'c, 'a>],
    ) -> Option<Value<'c, 'a>> {
        if !placed.distribution.guarded {
            return None;
        }
        let mut all: Option<Value> = None;
        for (coordinate, size) in coordinates.iter().zip(&placed.layout.shape) {
            let size = b.index(at, *size);
            let fits = b.compare(at, "ult", *coordinate, size);
            all = Some(match all {
                Some(previous) => b.andi(at, previous, fits),
                None => fits,
            });
        }
        all
    }

    /// Where only the threads whose `replica_bits` are clear go on (`at` itself when there are none).
    pub(crate) fn first_replica(&self, b: &Builder<'c>, at: At<'c, 'a>, replica_bits: i64) -> At<'c, 'a> {
        if replica_bits == 0 {
            return at;
        }
        let bits = b.andi(at, self.tid, b.index(at, replica_bits));
        let first = b.compare(at, "eq", bits, b.index(at, 0));
        b.if_then(at, first)
    }

    pub(crate) fn guarded(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        placed: &Placed,
        coordinates: &[Value<'c, 'a>],
    ) -> At<'c, 'a> {
        match self.in_tile(b, at, placed, coordinates) {
            Some(condition) => b.if_then(at, condition),
            None => at,
        }
    }

    // ---- tile.parallel --------------------------------------------------------------------------

    /// The body once per slot of the loop layout, indices from the slot's element.
    pub(crate) fn parallel(&self, op: OperationRef<'c, 'a>) {
        let b = self.builder(&op);
        let by = self.layouts.parallel(&op).expect("checked");
        let at = At::before(op);
        let offsets = self.offsets(&b, at, by);
        let original_indices = loop_indices(op);
        let originals = nested_ops(op);
        // Asked only of loops that update atomically: it reads the whole layout.
        let atomic = |op: &OperationRef| tile_ir::is(op, memref::AtomicRMWOperation::name);
        let replica_bits = if originals.iter().any(atomic) {
            by.replica_bits().expect("checked")
        } else {
            0
        };
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        let run_store = if self.wide_stores && replica_bits == 0 {
            run_store(op, by, &original_indices, &originals)
        } else {
            None
        };
        let packed: Vec<Option<usize>> = originals
            .iter()
            .map(|original| {
                self.wide_stores
                    .then(|| packed_words::packed_dim(original, by))
                    .flatten()
            })
            .collect();
        let mut stores = HashMap::new();
        for slot in by.distribution.used_slots() {
            let coordinates = self.coordinates(&b, at, by, &offsets, slot);
            let inner = self.guarded(&b, at, by, &coordinates);
            let clone = b.insert(inner, clone_detached(op));
            let copies = nested_ops(clone);
            for copy in copies.iter().filter(|copy| copy.attribute(CORE_PLACE).is_ok()) {
                tile_dialect::ops::remove_attribute(*copy, CORE_PLACE);
            }
            if let Some((index, _)) = run_store {
                stores.insert(slot, copies[index]);
            }
            let body = clone.body().expect("body");
            if let Some(terminator) = body.terminator() {
                rewriter.erase_op(terminator);
            }
            rewriter.inline_block_before(body, clone, &coordinates);
            rewriter.erase_op(clone);
            for ((original, copy), packed) in originals.iter().zip(copies).zip(&packed) {
                // The original, not its copy: the copies include the body's erased terminator.
                if original.attribute(tile_dialect::decisions::PACKED_BYTE).is_ok() {
                    if packed.is_some_and(|dim| self.packed_byte_from_line(copy, by, slot, dim)) {
                        continue;
                    }
                    tile_dialect::ops::remove_attribute(copy, tile_dialect::decisions::PACKED_BYTE);
                }
                if atomic(original) && replica_bits != 0 {
                    // One replica of each iteration updates (its result is unused: checked).
                    let cb = self.builder(&copy);
                    let once = self.first_replica(&cb, At::before(copy), replica_bits);
                    cb.insert(once, clone_detached(copy));
                    rewriter.erase_op(copy);
                    continue;
                }
                let Some((memref, dims, write)) = access_dims(*original, &original_indices) else {
                    continue;
                };
                let fragment = placed(self.layouts, memref).expect("checked");
                let Some(index) = self.layouts.uniform_slot(by, slot, &dims, fragment).expect("checked") else {
                    continue;
                };
                let private = self.private(memref);
                let place = At::before(copy);
                let cb = self.builder(&copy);
                if write {
                    let value = copy.operand_at(0).expect("stored value");
                    self.set_slot(&cb, place, value, private, fragment, index);
                } else {
                    let value = self.slot_value(&cb, place, private, fragment, index);
                    rewriter.replace_all_uses_with(copy.result_at(0).expect("loaded").into(), value);
                }
                rewriter.erase_op(copy);
            }
        }
        if let Some((_, run)) = run_store {
            self.store_runs_of_slots(by, &stores, run);
        }
        // Other threads may read what the body wrote to a shared tile, or overwrite what it read;
        // a ring slot it only reads is refilled once every warp has released it (the ring's own
        // barriers), so loads of slots need none.
        if op.attribute(FENCED).is_err()
            && originals.iter().any(|nested| {
                nested
                    .operands()
                    .any(|value| level(value) == Some(MemoryLevel::Shared) && !slot_load(nested, value))
            })
        {
            b.barrier(at);
        }
        rewriter.erase_op(op);
    }

    /// Replaces the element stores `stores` (by slot) of a `tile.parallel`'s slots by one
    /// 16-byte vector store a run of `run` slots that hold consecutive elements of a row, from a
    /// multiple of `run` on ([`run_store`]); the stores of slots in no whole run stay.
    fn store_runs_of_slots(&self, by: &Placed, stores: &HashMap<usize, OperationRef<'c, 'a>>, run: i64) {
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        let mut runs: HashMap<(Vec<i64>, i64), Vec<(i64, usize)>> = HashMap::new();
        for slot in by.distribution.used_slots() {
            let base = by.distribution.base[slot].as_ref().expect("a used slot");
            let (row, column) = base.split_at(base.len() - 1);
            runs.entry((row.to_vec(), column[0].div_euclid(run)))
                .or_default()
                .push((column[0].rem_euclid(run), slot));
        }
        let mut runs: Vec<Vec<(i64, usize)>> = runs.into_values().filter(|lanes| lanes.len() as i64 == run).collect();
        runs.sort();
        for mut lanes in runs {
            lanes.sort();
            if lanes
                .iter()
                .enumerate()
                .any(|(lane, (column, _))| *column != lane as i64)
            {
                continue;
            }
            let lane_stores: Vec<OperationRef> = lanes.iter().map(|(_, slot)| stores[slot]).collect();
            // After the run's last store (slots go in in order, into one block: the layout has no
            // guard): every value and the first lane's place are made by then.
            let last = stores[lanes.iter().map(|(_, slot)| slot).max().expect("a run")];
            let b = self.builder(&last);
            let at = At::before(last);
            let first = lane_stores[0];
            let tile = first.operand_at(1).expect("a tile");
            let element = element_type(tile);
            let values: Vec<Value> = lane_stores
                .iter()
                .map(|store| store.operand_at(0).expect("a value"))
                .collect();
            let vector = crate::attributes::vector(run, element);
            let value = b.value(
                at,
                vector::from_elements(self.context, vector, &values, b.location).into(),
            );
            let place: Vec<Value> = first.operands().skip(2).collect();
            let lds = crate::generic::vector_copy::lds_view(&b, at, tile);
            let store = vector::StoreOperation::builder(self.context, b.location)
                .value_to_store(value)
                .base(lds)
                .indices(&place)
                .alignment(crate::attributes::alignment(self.context, 16))
                .build();
            b.insert(at, store.into());
            for store in lane_stores {
                rewriter.erase_op(store);
            }
        }
    }

    // ---- tile.fill ------------------------------------------------------------------------------

    pub(crate) fn fill(&self, op: OperationRef<'c, 'a>) {
        let b = self.builder(&op);
        let at = At::before(op);
        let fragment = op.operand_at(0).expect("tile");
        let value = op.operand_at(1).expect("value");
        let private = self.private(fragment);
        let laid = placed(self.layouts, fragment).expect("checked");
        for slot in laid.registers.keys() {
            self.set_slot(&b, at, value, private, laid, *slot);
        }
        erase(self.context, op);
    }

    // ---- tile.copy ------------------------------------------------------------------------------

    pub(crate) fn copy(&self, op: OperationRef<'c, 'a>) {
        let parts = copy_parts(&op).expect("checked");
        match (level(parts.src), level(parts.dst)) {
            (Some(MemoryLevel::Fragment), Some(MemoryLevel::Fragment)) => {
                self.copy_between_fragments(op, parts.src, parts.dst)
            }
            (Some(MemoryLevel::Fragment), _) => {
                // The matrix rules stage their accumulators (or reduce an atomic copy in bulk) where
                // they have a way of their own; else slot by slot (an atomic one element by element).
                let staged = self
                    .layouts
                    .matrix_plan()
                    .is_some_and(|plan| plan.copy_out(self, op, parts.src, parts.dst, &Origin::of_dst(&parts)));
                if !staged {
                    self.copy_out(op, parts.src, parts.dst, &Origin::of_dst(&parts));
                }
            }
            _ => self.copy_in(op, parts.src, &Origin::of_src(&parts), parts.dst),
        }
        erase(self.context, op);
    }

    pub(crate) fn copy_between_fragments(&self, op: OperationRef<'c, 'a>, src: Value<'c, 'a>, dst: Value<'c, 'a>) {
        let b = self.builder(&op);
        let at = At::before(op);
        let (from, to) = (
            placed(self.layouts, src).expect("checked"),
            placed(self.layouts, dst).expect("checked"),
        );
        let all: Vec<usize> = (0..to.layout.shape.len()).collect();
        let (src_array, dst_array) = (self.private(src), self.private(dst));
        let ty = element_type(dst);
        for slot in to.distribution.used_slots() {
            let Some(source) = self.layouts.uniform_slot(to, slot, &all, from).expect("checked") else {
                continue;
            };
            let value = self.slot_value(&b, at, src_array, from, source);
            let value = convert(&b, at, value, ty);
            self.set_slot(&b, at, value, dst_array, to, slot as i64);
        }
    }

    /// The element's indices in `buffer` (the tile in the dimensions `origin` spans, after its
    /// offsets), and for a global buffer whether they lie inside it.
    pub(crate) fn placed_in(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        buffer: Value<'c, 'a>,
        origin: &Origin<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
    ) -> (Vec<Value<'c, 'a>>, Option<Value<'c, 'a>>) {
        if origin.is_empty() {
            return (coordinates.to_vec(), None);
        }
        let mut indices = Vec::new();
        let mut fits: Option<Value> = None;
        for (d, offset) in origin.iter().enumerate() {
            let index = match tile_dialect::ops::tile_dim(&origin.spans, d) {
                Some(tile_dim) => b.addi(at, *offset, coordinates[tile_dim]),
                None => *offset,
            };
            if level(buffer) == Some(MemoryLevel::Global) {
                let size = b.dim(at, buffer, d as i64);
                let inside = b.compare(at, "ult", index, size);
                fits = Some(match fits {
                    Some(previous) => b.andi(at, previous, inside),
                    None => inside,
                });
            }
            indices.push(index);
        }
        if let Some(inside) = origin.within_limits(b, at, coordinates, 1) {
            fits = Some(match fits {
                Some(previous) => b.andi(at, previous, inside),
                None => inside,
            });
        }
        (indices, fits)
    }

    pub(crate) fn copy_in(
        &self,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        dst: Value<'c, 'a>,
    ) {
        let b = self.builder(&op);
        let at = At::before(op);
        let to = placed(self.layouts, dst).expect("checked");
        let array = self.private(dst);
        let ty = element_type(dst);
        let offsets_now = self.offsets(&b, at, to);
        let loaded = self.load_vectors(&b, at, to, array, src, offsets, &offsets_now, ty);
        for slot in to.distribution.used_slots().filter(|slot| !loaded.contains(slot)) {
            self.load_slot(&b, at, to, array, src, offsets, &offsets_now, slot, ty);
        }
        if level(src) == Some(MemoryLevel::Shared) {
            b.barrier(At::before(op));
        }
    }

    /// Loads slot `slot` of `to` (its array `array`, elements of type `ty`) from `src`, the tile
    /// at `offsets`; past the end of a global tensor it reads zero.
    #[allow(clippy::too_many_arguments)]
    fn load_slot(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        to: &Placed,
        array: Value<'c, 'a>,
        src: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        offsets_now: &[Value<'c, 'a>],
        slot: usize,
        ty: Type<'c>,
    ) {
        let coordinates = self.coordinates(b, at, to, offsets_now, slot);
        let inner = self.guarded(b, at, to, &coordinates);
        let (indices, fits) = self.placed_in(b, inner, src, offsets, &coordinates);
        let load_at = match fits {
            Some(fits) => {
                let zero = b.constant(inner, ty, 0.0);
                self.set_slot(b, inner, zero, array, to, slot as i64);
                b.if_then(inner, fits)
            }
            None => inner,
        };
        let value = b.load(load_at, src, &indices);
        let value = convert(b, load_at, value, ty);
        self.set_slot(b, load_at, value, array, to, slot as i64);
    }

    /// The elements of one vector in a thread's run of slots of `placed` that loads it from or
    /// stores it into the global tensor `tensor` ([`column_runs`]): the longest run of at most 16
    /// bytes the layout has, on a target whose kernels address global tensors through pointers
    /// ([`crate::target::Memory::vector_runs`]); `None` where there is none. (Loads take it only
    /// where the tensor's base is proven aligned: [`Self::load_vectors`].)
    fn vector_run(&self, placed: &Placed, tensor: Value<'c, 'a>) -> Option<usize> {
        if !self.vector_runs || level(tensor) != Some(MemoryLevel::Global) {
            return None;
        }
        vector_run(placed, element_type(tensor))
    }

    /// Where the run of `run` slots of `placed` from `first` lies in the global tensor `tensor`
    /// (the tile at `offsets`): the position its accesses go to (guarded where the layout leaves
    /// threads without the element), its first element's indices, and whether the whole run lies
    /// inside the tensor with `aligned` ([`runs_aligned`]) holding.
    #[allow(clippy::too_many_arguments)]
    fn run_in(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        placed: &Placed,
        tensor: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        offsets_now: &[Value<'c, 'a>],
        first: usize,
        run: usize,
        aligned: Value<'c, 'a>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>, Value<'c, 'a>) {
        let last = offsets.len() - 1;
        let coordinates = self.coordinates(b, at, placed, offsets_now, first);
        let inner = self.guarded(b, at, placed, &coordinates);
        let (indices, fits) = self.placed_in(b, inner, tensor, offsets, &coordinates);
        let end = b.addi(inner, indices[last], b.index(inner, run as i64 - 1));
        let end_inside = b.compare(inner, "ult", end, b.dim(inner, tensor, last as i64));
        let mut whole = b.andi(inner, aligned, end_inside);
        if let Some(inside) = offsets.within_limits(b, inner, &coordinates, run as i64) {
            whole = b.andi(inner, whole, inside);
        }
        if let Some(fits) = fits {
            whole = b.andi(inner, whole, fits);
        }
        (inner, indices, whole)
    }

    /// Loads runs of slots that hold neighbouring elements of a row of the global tensor `src`
    /// ([`Self::vector_run`]) as one vector each, where the launch condition proves the tensor's
    /// base aligned to the run ([`crate::alignment::proven_alignment`]) and the run lies aligned
    /// inside the tensor; element by element elsewhere (past the end reading zero). Returns the
    /// slots loaded (the caller loads the rest one by one). Without the proof no run is loaded as
    /// a vector: both ways would load the same elements wherever LLVM proves the run inside, and
    /// it merges them below the branch with the elements' alignment.
    #[allow(clippy::too_many_arguments)]
    fn load_vectors(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        to: &Placed,
        array: Value<'c, 'a>,
        src: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        offsets_now: &[Value<'c, 'a>],
        ty: Type<'c>,
    ) -> BTreeSet<usize> {
        let (Some(run), Some(bytes)) = (self.vector_run(to, src), stored_bytes(element_type(src))) else {
            return BTreeSet::new();
        };
        if offsets.is_empty() || crate::alignment::proven_alignment(at.before, src) % (run as i64 * bytes) != 0 {
            return BTreeSet::new();
        }
        let aligned = runs_aligned(b, at, src, offsets, run as i64);
        let run_type = crate::attributes::vector(run as i64, element_type(src));
        let mut loaded = BTreeSet::new();
        for first in column_runs(to, run) {
            let (inner, indices, whole) = self.run_in(b, at, to, src, offsets, offsets_now, first, run, aligned);
            let (vector_at, apart) = b.if_else(inner, whole);
            let vector = b.value(
                vector_at,
                tile_ir::vector::LoadOperation::builder(self.context, b.location)
                    .result(run_type)
                    .base(src)
                    .indices(&indices)
                    .alignment(crate::attributes::alignment(self.context, run as i64 * bytes))
                    .build()
                    .into(),
            );
            for k in 0..run {
                let position = crate::attributes::i64_array(self.context, &[k as i64]);
                let element = b.value(
                    vector_at,
                    tile_ir::vector::extract(self.context, vector, &[], position, b.location).into(),
                );
                let element = convert(b, vector_at, element, ty);
                self.set_slot(b, vector_at, element, array, to, (first + k) as i64);
            }
            // Misaligned, or reaching past the tensor's end: each element as copy_in loads it.
            for slot in first..first + run {
                self.load_slot(b, apart, to, array, src, offsets, offsets_now, slot, ty);
            }
            loaded.extend(first..first + run);
        }
        loaded
    }

    /// Stores `value_at(position)` (built where the store goes) into the global tensor or tile
    /// `dst` at `coordinates` of the tile at `offsets`, unless it lies past the tensor's end.
    pub(crate) fn store_clipped(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
        value_at: impl FnOnce(At<'c, 'a>) -> Value<'c, 'a>,
    ) {
        self.write_clipped(b, at, dst, offsets, coordinates, None, value_at);
    }

    /// [`Self::store_clipped`], or with `atomic` (an atomic copy's kind) an atomic update.
    #[allow(clippy::too_many_arguments)]
    fn write_clipped(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        coordinates: &[Value<'c, 'a>],
        atomic: Option<tile_dialect::ops::ReductionKind>,
        value_at: impl FnOnce(At<'c, 'a>) -> Value<'c, 'a>,
    ) {
        let (indices, fits) = self.placed_in(b, at, dst, offsets, coordinates);
        let store_at = match fits {
            Some(fits) => b.if_then(at, fits),
            None => at,
        };
        b.write(store_at, value_at(store_at), dst, &indices, atomic);
    }

    pub(crate) fn copy_out(
        &self,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
    ) {
        let b = self.builder(&op);
        let at = At::before(op);
        let from = placed(self.layouts, src).expect("checked");
        let array = self.private(src);
        let ty = element_type(dst);
        let offsets_now = self.offsets(&b, at, from);
        let atomic = tile_dialect::ops::copy_atomic(&op);
        let (at, stored) = if atomic.is_some() {
            // Every element is an atomic update of its own (no wide stores), by one replica of it.
            (
                self.first_replica(&b, at, from.replica_bits().expect("checked")),
                BTreeSet::new(),
            )
        } else {
            let mut stored = self.store_runs(&b, at, from, array, dst, offsets, &offsets_now);
            stored.extend(self.store_vectors(&b, at, from, array, dst, offsets, &offsets_now, &stored));
            (at, stored)
        };
        for slot in from.distribution.used_slots().filter(|slot| !stored.contains(slot)) {
            let coordinates = self.coordinates(&b, at, from, &offsets_now, slot);
            let inner = self.guarded(&b, at, from, &coordinates);
            self.write_clipped(&b, inner, dst, offsets, &coordinates, atomic, |store_at| {
                convert(
                    &b,
                    store_at,
                    self.slot_value(&b, store_at, array, from, slot as i64),
                    ty,
                )
            });
        }
        if level(dst) == Some(MemoryLevel::Shared) {
            b.barrier(At::before(op));
        }
    }

    /// Stores runs of slots that hold neighbouring elements of a row into a global tensor as one
    /// vector each, where the run lies inside the tensor and its address is aligned to its size;
    /// otherwise element by element: a wgmma accumulator's pairs (slots 2q and 2q + 1: half the
    /// store instructions of the epilogue, each a whole 32-bit or 64-bit word), and on targets
    /// with [`Self::vector_run`]s the runs of other layouts (the blocked layout's chunks).
    /// Returns the slots stored (the caller stores the rest one by one); skips those in `done`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store_vectors(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        from: &Placed,
        array: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
        offsets_now: &[Value<'c, 'a>],
        done: &BTreeSet<usize>,
    ) -> BTreeSet<usize> {
        let ty = element_type(dst);
        let bytes = stored_bytes(ty).unwrap_or(0);
        let accumulator = from.layout.origin.starts_with("wgmma.acc");
        let (run, firsts) = if accumulator {
            (2, column_pairs(from))
        } else {
            match self.vector_run(from, dst) {
                Some(run) => (run, column_runs(from, run)),
                None => (0, Vec::new()),
            }
        };
        let firsts: Vec<usize> = firsts
            .into_iter()
            .filter(|first| (*first..first + run).all(|slot| !done.contains(&slot)))
            .collect();
        if level(dst) != Some(MemoryLevel::Global) || bytes == 0 || offsets.is_empty() || firsts.is_empty() {
            return BTreeSet::new();
        }
        // The run's address is aligned when the tensor's base, its rows and the tile's first
        // column are (the run's own column is a multiple of its length).
        let aligned = runs_aligned(b, at, dst, offsets, run as i64);
        let run_type = crate::attributes::vector(run as i64, ty);
        let yes = b.value(
            at,
            melior::dialect::arith::constant(
                self.context,
                IntegerAttribute::new(IntegerType::new(self.context, 1).into(), 1).into(),
                b.location,
            ),
        );
        let mut stored = BTreeSet::new();
        for &first in &firsts {
            let (inner, indices, whole) = self.run_in(b, at, from, dst, offsets, offsets_now, first, run, aligned);
            let values: Vec<Value> = (first..first + run)
                .map(|s| convert(b, inner, self.slot_value(b, inner, array, from, s as i64), ty))
                .collect();
            let vector_at = b.if_then(inner, whole);
            let vector = b.value(
                vector_at,
                tile_ir::vector::from_elements(self.context, run_type, &values, b.location).into(),
            );
            b.insert(
                vector_at,
                tile_ir::vector::StoreOperation::builder(self.context, b.location)
                    .value_to_store(vector)
                    .base(dst)
                    .indices(&indices)
                    .alignment(crate::attributes::alignment(self.context, run as i64 * bytes))
                    .build()
                    .into(),
            );
            // Misaligned, or reaching past the tensor's end: each element where it is inside.
            let apart = b.if_then(inner, b.xori(inner, whole, yes));
            for (k, value) in values.iter().enumerate() {
                let coordinates = self.coordinates(b, apart, from, offsets_now, first + k);
                self.store_clipped(b, apart, dst, offsets, &coordinates, |_| *value);
            }
            stored.extend(first..first + run);
        }
        stored
    }

    // ---- tile.reduce ----------------------------------------------------------------------------

    pub(crate) fn reduce(&self, op: OperationRef<'c, 'a>, scratch: Option<Value<'c, 'a>>) {
        let b = self.builder(&op);
        let at = At::before(op);
        let (src, dst) = (op.operand_at(0).expect("src"), op.operand_at(1).expect("dst"));
        let crate::cpu::compute::Reduction { kind, clear, .. } = crate::cpu::compute::Reduction::of(op);
        let (from, to) = (
            placed(self.layouts, src).expect("checked"),
            placed(self.layouts, dst).expect("checked"),
        );
        let plan = &self.layouts.reductions[&key(&op)];
        let ty = element_type(dst);
        let (src_array, dst_array) = (self.private(src), self.private(dst));
        let offsets = self.offsets(&b, at, from);
        let combine = |at: At<'c, 'a>, x: Value<'c, 'a>, y: Value<'c, 'a>| b.binary(at, combiner(kind).0, x, y);
        // Each destination's values first, then combined as a balanced tree: a chain of 16 or 32
        // dependent max or add instructions a row is latency a warpgroup waits out.
        let mut values: Vec<(i64, Vec<Value>)> = Vec::new();
        for &(slot, target, partial) in &plan.local {
            let value = self.slot_value(&b, at, src_array, from, slot as i64);
            let mut value = reduction_input(&b, at, kind, value, ty);
            if partial {
                // A slot this thread leaves empty adds the identity.
                let coordinates = self.coordinates(&b, at, from, &offsets, slot);
                let fits = self.in_tile(&b, at, from, &coordinates).expect("a guarded layout");
                let neutral = b.constant(at, ty, identity(kind));
                value = b.select(at, fits, value, neutral);
            }
            match values.iter_mut().find(|(destination, _)| *destination == target) {
                Some((_, list)) => list.push(value),
                None => values.push((target, vec![value])),
            }
        }
        let mut partials: HashMap<i64, Value> = HashMap::new();
        for (target, mut list) in values {
            while list.len() > 1 {
                list = list
                    .chunks(2)
                    .map(|pair| {
                        if let [x, y] = pair {
                            combine(at, *x, *y)
                        } else {
                            pair[0]
                        }
                    })
                    .collect();
            }
            partials.insert(target, list[0]);
        }
        let threads = from.distribution.threads;
        // Thread-index bits already combined: threads that differ only there hold equal partials,
        // so the exchange through the scratch keeps one place per class (the thread index with
        // those bits squeezed out).
        let mut combined: i64 = 0;
        for &mask in &plan.masks {
            let shuffled = self.shuffles.is_some_and(|lanes| mask < lanes) && ty.is_f32();
            let places = threads >> combined.count_ones();
            let place = (!shuffled).then(|| squeeze(&b, at, self.tid, combined, threads));
            if let Some(place) = place {
                b.barrier(at);
                let scratch = scratch.expect("a scratch for the exchange");
                for (position, target) in plan.destinations.iter().enumerate() {
                    let base = b.index(at, position as i64 * places);
                    let index = b.addi(at, base, place);
                    b.store(at, partials[target], scratch, &[index]);
                }
                b.barrier(at);
            }
            for (position, target) in plan.destinations.iter().enumerate() {
                let other = match place {
                    None => self.shuffle_xor(&b, at, partials[target], mask, self.shuffles.unwrap_or(32)),
                    Some(place) => {
                        let scratch = scratch.expect("a scratch for the exchange");
                        let base = b.index(at, position as i64 * places);
                        // The partner's place: the mask's bit, squeezed the same way.
                        let bit = b.index(at, 1 << ((mask - 1) & !combined).count_ones());
                        let partner = b.xori(at, place, bit);
                        let index = b.addi(at, base, partner);
                        b.load(at, scratch, &[index])
                    }
                };
                let next = combine(at, partials[target], other);
                partials.insert(*target, next);
            }
            combined |= mask;
        }
        for target in &plan.destinations {
            let mut value = partials[target];
            if !clear {
                let old = self.slot_value(&b, at, dst_array, to, *target);
                value = combine(at, old, value);
            }
            self.set_slot(&b, at, value, dst_array, to, *target);
        }
        erase(self.context, op);
    }

    // ---- tile.scan --------------------------------------------------------------------------------

    /// A scan of fragments through `scratch` (its tile, row-major): each thread stores its source
    /// elements there, the lines are scanned in place as the loop lowering scans them (a line a
    /// thread), and each thread loads its destination elements back.
    pub(crate) fn scan(&self, op: OperationRef<'c, 'a>, scratch: Value<'c, 'a>) {
        let b = Builder {
            threads: Some(self.threads),
            ..self.builder(&op)
        };
        let at = At::before(op);
        let (src, dst) = (op.operand_at(0).expect("src"), op.operand_at(1).expect("dst"));
        let scan = crate::cpu::compute::Scan::of(op);
        let flat = |at: At<'c, 'a>, coordinates: &[Value<'c, 'a>]| row_major(&b, at, &scan.shape, coordinates);
        let to = placed(self.layouts, dst).expect("checked");
        let dst_array = self.private(dst);
        self.store_to_scratch(&b, at, src, scratch);
        b.barrier(at);
        let dim = scan.dim;
        crate::cpu::compute::scan_lines(&b, at, &scan, [scratch, scratch], |at, ivs, index| {
            let mut coordinates = ivs.to_vec();
            coordinates.insert(dim, index);
            flat(at, &coordinates)
        });
        let offsets = self.offsets(&b, at, to);
        for slot in to.distribution.used_slots() {
            let coordinates = self.coordinates(&b, at, to, &offsets, slot);
            let inner = self.guarded(&b, at, to, &coordinates);
            let value = b.load(inner, scratch, &flat(inner, &coordinates));
            self.set_slot(&b, inner, value, dst_array, to, slot as i64);
        }
        // Every thread has read its elements before the scratch is written again (a scan in a loop).
        b.barrier(at);
        erase(self.context, op);
    }

    /// `tile.scan` of a fragment whose lines lie in the lanes of a warp (`scan_by_shuffles`): each
    /// thread scans its chunk of a line in its slots, the lanes combine their chunks' totals by
    /// shuffles up (`log2(lanes)` steps), and each slot takes the combination of the lanes before
    /// it and its chunk's prefix. The result is written to `dst`, laid out as `src`.
    pub(crate) fn scan_in_lanes(&self, op: OperationRef<'c, 'a>, lines: &LinesInLanes) {
        let b = Builder {
            threads: Some(self.threads),
            ..self.builder(&op)
        };
        let at = At::before(op);
        let (src, dst) = (op.operand_at(0).expect("src"), op.operand_at(1).expect("dst"));
        let scan = crate::cpu::compute::Scan::of(op);
        let (combine, _) = crate::cpu::compute::combiner(scan.kind);
        let combined = |x: Value<'c, 'a>, y: Value<'c, 'a>| b.binary(at, combine, x, y);
        let (from, to) = (
            placed(self.layouts, src).expect("checked"),
            placed(self.layouts, dst).expect("checked"),
        );
        let (src_array, dst_array) = (self.private(src), self.private(dst));
        let identity = b.constant(at, scan.ty, crate::cpu::compute::identity(scan.kind));
        for line in &lines.slots {
            let mut prefixes: Vec<Value> = Vec::with_capacity(line.len());
            for &slot in line {
                let value = self.slot_value(&b, at, src_array, from, slot as i64);
                prefixes.push(match prefixes.last() {
                    Some(previous) => combined(*previous, value),
                    None => value,
                });
            }
            // The lanes' totals, combined up to each lane (Hillis and Steele), then the lanes' before it.
            let mut running = *prefixes.last().expect("a line of slots");
            let mut offset = 1;
            while offset < lines.lanes {
                let (other, valid) = self.shuffle_up(&b, at, running, offset, lines);
                running = b.select(at, valid, combined(other, running), running);
                offset *= 2;
            }
            let before = if lines.lanes > 1 {
                let (other, valid) = self.shuffle_up(&b, at, running, 1, lines);
                b.select(at, valid, other, identity)
            } else {
                identity
            };
            for (index, &slot) in line.iter().enumerate() {
                let within = if scan.exclusive {
                    index.checked_sub(1).map(|previous| prefixes[previous])
                } else {
                    Some(prefixes[index])
                };
                let value = match within {
                    Some(within) if lines.lanes > 1 => combined(before, within),
                    Some(within) => within,
                    None => before,
                };
                self.set_slot(&b, at, value, dst_array, to, slot as i64);
            }
        }
        erase(self.context, op);
    }

    /// `gpu.shuffle up` of `value` by `offset` lanes over the whole warp (the op's width counts the
    /// lanes that take part, from lane 0: not a segment), and whether the source lane lies in the
    /// calling lane's line (its rank among the line's lanes is at least `offset`).
    fn shuffle_up(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        offset: i64,
        lines: &LinesInLanes,
    ) -> (Value<'c, 'a>, Value<'c, 'a>) {
        let rank = b.remui(at, self.tid, b.index(at, lines.lanes));
        let valid = b.compare(at, "uge", rank, b.index(at, offset));
        (self.shuffle(b, at, value, offset, lines.warp, "up"), valid)
    }

    /// Stores every slot of `fragment` at its row-major place in the flat `scratch` (replicated
    /// elements by each of their threads, alike).
    fn store_to_scratch(&self, b: &Builder<'c>, at: At<'c, 'a>, fragment: Value<'c, 'a>, scratch: Value<'c, 'a>) {
        let from = placed(self.layouts, fragment).expect("checked");
        let array = self.private(fragment);
        let shape = memref_shape(fragment);
        let offsets = self.offsets(b, at, from);
        for slot in from.distribution.used_slots() {
            let coordinates = self.coordinates(b, at, from, &offsets, slot);
            let inner = self.guarded(b, at, from, &coordinates);
            let value = self.slot_value(b, inner, array, from, slot as i64);
            b.store(inner, value, scratch, &row_major(b, inner, &shape, &coordinates));
        }
    }

    /// `tile.print` of a fragment: its slots go to a workgroup scratch tile, from which the
    /// block's first thread prints the elements (`crate::cpu::print`, barriers on both sides).
    pub(crate) fn print(&self, op: OperationRef<'c, 'a>, scratch: Value<'c, 'a>) {
        let b = Builder {
            threads: Some(self.threads),
            ..self.builder(&op)
        };
        let at = At::before(op);
        let fragment = op.operand_at(0).expect("verified print");
        let shape = memref_shape(fragment);
        self.store_to_scratch(&b, at, fragment, scratch);
        crate::cpu::print::print_elements(&b, at, op, &shape, |at, indices| {
            b.load(at, scratch, &row_major(&b, at, &shape, indices))
        });
        erase(self.context, op);
    }

    pub(crate) fn shuffle_xor(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        mask: i64,
        width: i64,
    ) -> Value<'c, 'a> {
        self.shuffle(b, at, value, mask, width, "xor")
    }

    /// `gpu.shuffle <mode>` of `value` by `offset` (a lane mask for `xor`) over `width` lanes
    /// (those that take part, from lane 0): the value it brings.
    fn shuffle(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        offset: i64,
        width: i64,
        mode: &str,
    ) -> Value<'c, 'a> {
        let offset = b.integer(at, IntegerType::new(self.context, 32).into(), offset);
        self.shuffle_by(b, at, value, offset, width, mode)
    }

    /// `gpu.shuffle <mode>` of `value` by `offset` (an i32: a source lane for `idx`) over `width`
    /// lanes: the value it brings.
    pub(crate) fn shuffle_by(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        offset: Value<'c, 'a>,
        width: i64,
        mode: &str,
    ) -> Value<'c, 'a> {
        let width = b.integer(at, IntegerType::new(self.context, 32).into(), width);
        // The gpu dialect's enum attributes have no constructor in melior.
        let mode = Attribute::parse(self.context, &format!("#gpu<shuffle_mode {mode}>")).expect("shuffle mode");
        b.value(
            at,
            tile_ir::gpu::shuffle(
                self.context,
                value.r#type(),
                IntegerType::new(self.context, 1).into(),
                value,
                offset,
                width,
                mode,
                b.location,
            )
            .into(),
        )
    }

    /// Writes every slot of the fragment `fragment` to the flat workgroup scratch `staged`, at the
    /// index `place` gives for the slot's coordinates, between two barriers (the scratch's earlier
    /// readers are done; every thread sees every write): how a gemm reads a fragment A operand
    /// whose rows other threads hold.
    pub(crate) fn stage(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        fragment: Value<'c, 'a>,
        staged: Value<'c, 'a>,
        place: &dyn Fn(&Builder<'c>, At<'c, 'a>, &[Value<'c, 'a>]) -> Value<'c, 'a>,
    ) {
        b.barrier(at);
        let from = placed(self.layouts, fragment).expect("checked");
        let array = self.private(fragment);
        let offsets = self.offsets(b, at, from);
        for slot in from.distribution.used_slots() {
            let coordinates = self.coordinates(b, at, from, &offsets, slot);
            let inner = self.guarded(b, at, from, &coordinates);
            let value = self.slot_value(b, inner, array, from, slot as i64);
            let index = place(b, inner, &coordinates);
            b.store(inner, value, staged, &[index]);
        }
    }

    // ---- tile.gemm ------------------------------------------------------------------------------

    /// `C[i, j] += Σ_k op(A)[i, k] op(B)[k, j]` for each element of C this thread holds. A fragment
    /// A is first written to its scratch tile (each thread its slots), since a thread needs whole
    /// rows of A that other threads hold.
    pub(crate) fn gemm(&self, op: OperationRef<'c, 'a>, scratch: Option<Value<'c, 'a>>) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, c] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let a_shape = memref_shape(a);
        let staged_a = scratch.is_some() && level(a) == Some(MemoryLevel::Fragment);
        let a = match scratch.filter(|_| staged_a) {
            Some(staged) => {
                self.stage(&b, at, a, staged, &|b, at, coordinates| {
                    let columns = b.index(at, a_shape[1]);
                    let row = b.muli(at, coordinates[0], columns);
                    b.addi(at, row, coordinates[1])
                });
                b.barrier(at);
                staged
            }
            None => a,
        };
        let (transpose_a, transpose_b) = (op.attribute("transpose_a").is_ok(), op.attribute("transpose_b").is_ok());
        let depth = if transpose_a { a_shape[0] } else { a_shape[1] };
        let accumulator = placed(self.layouts, c).expect("checked");
        let array = self.private(c);
        let ty = element_type(c);
        let offsets = self.offsets(&b, at, accumulator);
        let slots: Vec<(usize, Vec<Value>, Option<Value>)> = accumulator
            .distribution
            .used_slots()
            .map(|slot| {
                let coordinates = self.coordinates(&b, at, accumulator, &offsets, slot);
                let fits = self.in_tile(&b, at, accumulator, &coordinates);
                (slot, coordinates, fits)
            })
            .collect();
        // One loop over K around every slot's product: one loop trip per k (lavapipe stops an
        // invocation's loops after 65535 trips in all), the accumulators in registers across it.
        let (zero, one, end) = (b.index(at, 0), b.index(at, 1), b.index(at, depth));
        let (body, k) = b.for_loop(at, zero, end, one);
        for (slot, coordinates, fits) in &slots {
            let inner = match fits {
                Some(fits) => b.if_then(body, *fits),
                None => body,
            };
            let (m, n) = (coordinates[0], coordinates[1]);
            let x = if staged_a {
                // The staged A: row-major, flat.
                let (row, column) = if transpose_a { (k, m) } else { (m, k) };
                let columns = b.index(inner, a_shape[1]);
                let start = b.muli(inner, row, columns);
                let flat = b.addi(inner, start, column);
                b.load(inner, a, &[flat])
            } else {
                b.load(inner, a, &if transpose_a { [k, m] } else { [m, k] })
            };
            let y = b.load(inner, bb, &if transpose_b { [n, k] } else { [k, n] });
            let (x, y) = (convert(&b, inner, x, ty), convert(&b, inner, y, ty));
            let product = b.multiply(inner, x, y);
            let old = self.slot_value(&b, inner, array, accumulator, *slot as i64);
            let sum = b.add(inner, old, product);
            self.set_slot(&b, inner, sum, array, accumulator, *slot as i64);
        }
        b.barrier(at);
        erase(self.context, op);
    }
}

/// Whether `op` is an element load from `value`, a ring slot (`tile.slot`).
fn slot_load(op: &OperationRef, value: Value) -> bool {
    tile_ir::is(op, memref::LoadOperation::name)
        && tile_dialect::ops::as_result(value)
            .is_some_and(|result| tile_ir::is(&result.owner(), tile::SlotOperation::name))
}

pub(crate) fn erase<'c>(context: &'c Context, op: OperationRef<'c, '_>) {
    let rewriter = melior::IrRewriter::new(context);
    rewriter.as_rewriter_base().erase_op(op);
}

/// The workgroup scratches a kernel needs: one for each gemm whose A operand is a fragment (staged
/// there, since a thread needs whole rows of it), and one per element type shared by the reductions
/// that exchange partials through workgroup memory (each exchange starts with a barrier, so the
/// next reduction's stores wait until every thread has read the last one's partials): (the ops,
/// element type, elements).
pub(crate) fn scratch_needs<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    shuffles: Option<i64>,
) -> Vec<(Vec<OperationRef<'c, 'a>>, Type<'c>, i64)> {
    let mut needs: Vec<(Vec<OperationRef>, Type, i64)> = Vec::new();
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::GemmOperation::name)) {
        let Some(a) = op.operand_at(0) else { continue };
        if level(a) == Some(MemoryLevel::Fragment)
            && !layouts.matrix_plan().is_some_and(|plan| plan.register_a(op, layouts))
        {
            needs.push((vec![*op], element_type(a), memref_shape(a).iter().product()));
        }
    }
    // A scan of fragments goes through a scratch tile of its own (the lines, in row-major order),
    // unless its lines lie in lanes of a warp, which scan by shuffles.
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::ScanOperation::name)) {
        let Some(dst) = op.operand_at(1) else { continue };
        if level(dst) == Some(MemoryLevel::Fragment) && scan_by_shuffles(op, layouts, shuffles).is_none() {
            needs.push((vec![*op], element_type(dst), memref_shape(dst).iter().product()));
        }
    }
    // So does a print of a fragment (the block's first thread prints it from there).
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::PrintOperation::name)) {
        let Some(value) = op.operand_at(0) else { continue };
        if level(value) == Some(MemoryLevel::Fragment) {
            needs.push((vec![*op], element_type(value), memref_shape(value).iter().product()));
        }
    }
    let gemms = needs.len();
    for op in ops.iter().filter(|op| tile_ir::is(*op, tile::ReduceOperation::name)) {
        let (Some(src), Some(dst)) = (op.operand_at(0), op.operand_at(1)) else {
            continue;
        };
        let (Ok(from), Some(plan)) = (placed(layouts, src), layouts.reductions.get(&key(op))) else {
            continue;
        };
        let ty = element_type(dst);
        // The first exchange through the scratch is the widest: one place per class of threads
        // the earlier masks have not combined.
        if let Some(first) = plan
            .masks
            .iter()
            .position(|mask| !(shuffles.is_some_and(|lanes| *mask < lanes) && ty.is_f32()))
        {
            let elements = (from.distribution.threads >> first) * plan.destinations.len() as i64;
            match needs[gemms..].iter_mut().find(|(_, shared, _)| *shared == ty) {
                Some((users, _, most)) => {
                    users.push(*op);
                    *most = (*most).max(elements);
                }
                None => needs.push((vec![*op], ty, elements)),
            }
        }
    }
    needs
}

/// `tid` with the bits of `combined` removed (the bits above each removed bit move down): the
/// index of the thread's class among the `threads` >> |combined| classes.
pub(crate) fn squeeze<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    tid: Value<'c, 'a>,
    combined: i64,
    threads: i64,
) -> Value<'c, 'a> {
    if combined == 0 {
        return tid;
    }
    let bits = 64 - (threads.max(1) - 1).leading_zeros();
    let mut squeezed: Option<Value> = None;
    let mut placed_bits = 0;
    let mut bit = 0;
    while bit < bits {
        if combined >> bit & 1 == 1 {
            bit += 1;
            continue;
        }
        // A run of kept bits [bit, end) goes to [placed_bits, placed_bits + end - bit).
        let mut end = bit;
        while end < bits && combined >> end & 1 == 0 {
            end += 1;
        }
        let run = end - bit;
        let shifted = b.shrui(at, tid, b.index(at, bit as i64));
        let field = b.andi(at, shifted, b.index(at, (1 << run) - 1));
        let term = if placed_bits == 0 {
            field
        } else {
            b.shli(at, field, b.index(at, placed_bits as i64))
        };
        squeezed = Some(match squeezed {
            Some(previous) => b.ori(at, previous, term),
            None => term,
        });
        placed_bits += run;
        bit = end;
    }
    squeezed.unwrap_or_else(|| b.index(at, 0))
}

/// f32 elements of the one workgroup area the matrix rules' stagings of a kernel go through (each
/// between barriers of its own).
fn staging_elements(layouts: &Layouts) -> i64 {
    layouts.matrix_plan().map_or(0, |plan| plan.staging_elements())
}

/// Returns the bytes of workgroup memory the reductions of a kernel exchange through.
pub fn scratch_bytes(ops: &[OperationRef], layouts: &Layouts, shuffles: Option<i64>) -> i64 {
    let staging = staging_elements(layouts) * 4;
    staging
        + scratch_needs(ops, layouts, shuffles)
            .iter()
            .map(|(_, ty, elements)| {
                elements * tile_dialect::element::Element::of(*ty).map_or(4, |element| element.bytes() as i64)
            })
            .sum::<i64>()
}

/// The rule that lowers one fragment op, decided for every op before any is rewritten.
#[derive(Clone, Copy)]
enum OpRule {
    /// A `tile.parallel` over fragments.
    Parallel,
    /// A `tile.fill` of a fragment.
    Fill,
    /// A `tile.copy` to or from a fragment.
    Copy,
    /// A `tile.reduce`.
    Reduce,
    /// A `tile.scan` of fragments.
    Scan,
    /// A `tile.print` of a fragment.
    Print,
    /// A gemm on no matrix instruction: a loop over K per accumulator element.
    Gemm,
    /// A `tile.split_sum`: the target's cluster rule.
    SplitSum,
    /// One of the matrix rules' (their number).
    Matrix(u8),
}

/// Lowers every fragment op of `kernel` (all of them passed [`check`]).
pub fn lower_all<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    target: &crate::target::Target,
) {
    let shuffles = target.shuffle_lanes;
    let private_space = target.memory.private_space;
    let spirv = target.is_spirv();
    let wide_stores = target.memory.dynamic_shared;
    let vector_runs = target.memory.vector_runs;
    let byte_permute = target.byte_permute;
    let three_input_logic = target.three_input_logic;
    let clusters = target.clusters.as_ref();
    let body = kernel.body().expect("kernel body");
    let kernel_start = body.first_operation().expect("a kernel body");
    let b = Builder {
        context,
        location: kernel.location(),
        threads: None,
    };
    let start = At::before(kernel_start);
    let tid = b.thread_id(start);
    let space = Attribute::parse(context, private_space);
    let threads = integer_attribute(&kernel, "threads").unwrap_or(128);
    // The matrix rules' code around the ops goes in first (each op's rule then writes its code
    // after it), and what they make at the kernel's start.
    let zero_index = b.index(start, 0);
    let prepared = layouts
        .matrix_plan()
        .map(|plan| plan.prepare(&b, start, kernel, ops, layouts));
    let first = At {
        block: body,
        before: OperationResult::try_from(tid)
            .expect("the thread index is an op's")
            .owner(),
    };
    let registers = (!spirv).then(Default::default);
    let mut lowering = Lowering {
        threads,
        context,
        layouts,
        private: HashMap::new(),
        tid,
        zero_index,
        shuffles,
        prepared: prepared.unwrap_or_default(),
        staging: None,
        registers,
        first,
        wide_stores,
        vector_runs,
        byte_permute,
        three_input_logic,
    };
    let allocations: Vec<OperationRef> = ops
        .iter()
        .copied()
        .filter(|op| tile_ir::is(op, tile::AllocFragmentOperation::name))
        .collect();
    for allocation in &allocations {
        let placed = layouts.fragment(allocation).expect("checked");
        let element = element_type(allocation.result_at(0).expect("fragment").into());
        let array = MemRefType::new(element, &[placed.register_count()], None, space);
        let value = b.value(
            start,
            melior::dialect::memref::alloca(context, array, &[], &[], None, allocation.location()),
        );
        lowering.private.insert(key(allocation), value);
    }
    // Reductions that exchange through workgroup memory share a scratch tile per element type; a
    // staged gemm operand gets one of its own.
    let mut scratches: HashMap<usize, Value> = HashMap::new();
    for (users, ty, elements) in scratch_needs(ops, layouts, shuffles) {
        let workgroup = Attribute::parse(context, "#gpu.address_space<workgroup>");
        let scratch_type = MemRefType::new(ty, &[elements], None, workgroup);
        let scratch = b.value(
            start,
            tile::alloc_shared(context, scratch_type.into(), users[0].location()).into(),
        );
        for op in users {
            scratches.insert(key(&op), scratch);
        }
    }
    // The matrix rules' stagings share one f32 area.
    lowering.staging = (staging_elements(layouts) > 0).then(|| {
        let workgroup = Attribute::parse(context, "#gpu.address_space<workgroup>");
        let staging_type = MemRefType::new(Type::float32(context), &[staging_elements(layouts)], None, workgroup);
        b.value(
            start,
            tile::alloc_shared(context, staging_type.into(), kernel.location()).into(),
        )
    });
    let plan = layouts.matrix_plan();
    if let Some(plan) = plan {
        plan.begin(&mut lowering, &b, start, ops, &allocations);
    }
    // Decide every op's rule before rewriting any: lowering a tile.parallel erases its body's ops.
    let work: Vec<(OperationRef, OpRule)> = ops
        .iter()
        .filter(|op| !in_parallel(op))
        .filter_map(|op| {
            let touches_fragment = op.operands().any(|value| level(value) == Some(MemoryLevel::Fragment));
            if let Some(rule) = plan.and_then(|plan| plan.rule(op, &lowering)) {
                return Some((*op, OpRule::Matrix(rule)));
            }
            let rule = match_op!(op, {
                tile::ParallelOperation => OpRule::Parallel,
                tile::FillOperation if touches_fragment => OpRule::Fill,
                tile::CopyOperation if touches_fragment => OpRule::Copy,
                tile::ReduceOperation => OpRule::Reduce,
                tile::ScanOperation if touches_fragment => OpRule::Scan,
                tile::PrintOperation if touches_fragment => OpRule::Print,
                tile::GemmOperation if touches_fragment => OpRule::Gemm,
                tile::SplitSumOperation => OpRule::SplitSum,
                _ => return None,
            });
            Some((*op, rule))
        })
        .collect();
    for (op, rule) in work {
        let scratch = scratches.get(&key(&op)).copied();
        let lower = || match rule {
            OpRule::Parallel => lowering.parallel(op),
            OpRule::Fill => lowering.fill(op),
            OpRule::Copy => lowering.copy(op),
            OpRule::Reduce => lowering.reduce(op, scratch),
            OpRule::Scan => match scan_by_shuffles(&op, layouts, shuffles) {
                Some(lines) => lowering.scan_in_lanes(op, &lines),
                None => lowering.scan(op, scratch.expect("a scan's scratch")),
            },
            OpRule::Print => lowering.print(op, scratch.expect("a print's scratch")),
            OpRule::Gemm => lowering.gemm(op, scratch),
            OpRule::SplitSum => (clusters
                .expect("tile.split_sum refused off targets with clusters")
                .split_sum)(&lowering, op),
            OpRule::Matrix(rule) => plan.expect("a matrix plan").lower(&lowering, op, rule, scratch),
        };
        crate::small_floats::lower_in_place(op, lower);
    }
    if let Some(plan) = plan {
        let end = At::before(body.terminator().expect("the kernel's tile.yield"));
        plan.finish(&lowering, &b, end);
    }
    let rewriter = melior::IrRewriter::new(context);
    for allocation in allocations {
        rewriter.as_rewriter_base().erase_op(allocation);
    }
}

/// The even slots s of `placed` whose element, in every thread that holds one, is (r, c) with c
/// even while slot s + 1 holds (r, c + 1): pairs of neighbouring columns a thread stores together.
pub(crate) fn column_pairs(placed: &Placed) -> Vec<usize> {
    let used: BTreeSet<usize> = placed.distribution.used_slots().collect();
    if placed.layout.shape.len() != 2 {
        return Vec::new();
    }
    used.iter()
        .copied()
        .filter(|slot| slot % 2 == 0 && used.contains(&(slot + 1)))
        .filter(|slot| {
            (0..placed.distribution.threads).all(|thread| {
                match (
                    placed.distribution.coordinates(thread, *slot),
                    placed.distribution.coordinates(thread, slot + 1),
                ) {
                    (Some(first), Some(second)) => {
                        first[1] % 2 == 0 && second[0] == first[0] && second[1] == first[1] + 1
                    }
                    (None, None) => true,
                    _ => false,
                }
            })
        })
        .collect()
}

/// The elements of one vector in a thread's run of slots of `placed` whose elements, of type
/// `element`, a global tensor holds ([`column_runs`]): the longest run of at most 16 bytes the
/// layout has; `None` where there is none.
pub(crate) fn vector_run(placed: &Placed, element: Type) -> Option<usize> {
    let bytes = stored_bytes(element)?;
    [16, 8, 4]
        .into_iter()
        .map(|run_bytes| (run_bytes / bytes) as usize)
        .filter(|run| *run >= 2)
        .find(|run| !column_runs(placed, *run).is_empty())
}

/// The first slots of the runs of `run` slots of `placed` that hold, on every thread, `run`
/// consecutive elements along the last dimension, the first at a coordinate that is a multiple of
/// `run` (the blocked layout's chunks; a mma.sync accumulator's pairs): slots `first ..
/// first + run` are one vector of the row. Empty for a layout whose threads leave slots empty.
pub(crate) fn column_runs(placed: &Placed, run: usize) -> Vec<usize> {
    let distribution = &placed.distribution;
    let Some(last) = placed.layout.shape.len().checked_sub(1) else {
        return Vec::new();
    };
    let width = run as i64;
    if distribution.guarded || !distribution.terms[last].iter().all(|(_, delta)| delta % width == 0) {
        return Vec::new();
    }
    let base = |slot: usize| distribution.base.get(slot).and_then(Option::as_ref);
    (0..distribution.base.len())
        .step_by(run)
        .filter(|&first| {
            base(first).is_some_and(|start| {
                start[last] % width == 0
                    && (1..run).all(|j| {
                        base(first + j)
                            .is_some_and(|next| next[..last] == start[..last] && next[last] == start[last] + j as i64)
                    })
            })
        })
        .collect()
}

/// The row-major flat index of `coordinates` in a tile of `shape` (one index, for a flat scratch).
fn row_major<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    shape: &[i64],
    coordinates: &[Value<'c, 'a>],
) -> Vec<Value<'c, 'a>> {
    let mut index: Option<Value> = None;
    for (d, coordinate) in coordinates.iter().enumerate() {
        let stride: i64 = shape[d + 1..].iter().product();
        let term = if stride == 1 {
            *coordinate
        } else {
            b.muli(at, *coordinate, b.index(at, stride))
        };
        index = Some(match index {
            Some(previous) => b.addi(at, previous, term),
            None => term,
        });
    }
    vec![index.unwrap_or_else(|| b.index(at, 0))]
}

/// The lines of a fragment scan that lie in the lanes of a warp.
pub(crate) struct LinesInLanes {
    /// Per line a thread holds part of: its slots, in order along the scanned dimension.
    slots: Vec<Vec<usize>>,
    /// The lanes a line spans: the lowest thread-index bits, a power of two.
    lanes: i64,
    /// The lanes of a warp.
    warp: i64,
}

/// Whether the `tile.scan` `op` of f32 fragments can scan by shuffles (with `shuffles` lanes a
/// warp): source and result laid out alike, each element on one thread, no thread past the
/// tile, a block of whole warps, and each line along the dimension dealt out in chunks of consecutive elements to the
/// consecutive lanes of the lowest thread-index bits (the blocked layout of a row scan).
pub(crate) fn scan_by_shuffles(op: &OperationRef, layouts: &Layouts, shuffles: Option<i64>) -> Option<LinesInLanes> {
    let warp = shuffles?;
    let (src, dst) = (op.operand_at(0)?, op.operand_at(1)?);
    if level(src) != Some(MemoryLevel::Fragment) || !element_type(src).is_f32() {
        return None;
    }
    let (from, to) = (placed(layouts, src).ok()?, placed(layouts, dst).ok()?);
    // The shuffles take the whole warp: a block of fewer threads has none to shuffle with.
    if from.layout != to.layout
        || from.layout.replicate > 1
        || from.distribution.guarded
        || from.distribution.threads < warp
    {
        return None;
    }
    let dim = integer_attribute(op, "dim")? as usize;
    let distribution = &from.distribution;
    let mut bits = distribution.terms.get(dim)?.clone();
    bits.sort_unstable();
    let chunk = bits.first().map_or(distribution.shape[dim], |(_, delta)| *delta);
    let lanes = 1i64 << bits.len();
    let in_order = bits
        .iter()
        .enumerate()
        .all(|(index, (bit, delta))| *bit == index as u32 && *delta == chunk << index);
    let line_bits = |bit: u32| (bit as usize) < bits.len();
    let apart = distribution
        .terms
        .iter()
        .enumerate()
        .all(|(d, terms)| d == dim || terms.iter().all(|(bit, _)| !line_bits(*bit)));
    if !in_order || !apart || lanes > warp || chunk * lanes != distribution.shape[dim] {
        return None;
    }
    // The thread's slots by the rest of their coordinates: each a line's chunk 0..chunk.
    let mut lines: std::collections::BTreeMap<Vec<i64>, Vec<(i64, usize)>> = Default::default();
    for slot in distribution.used_slots() {
        let mut coordinates = distribution.base.get(slot)?.clone()?;
        let along = coordinates.remove(dim);
        lines.entry(coordinates).or_default().push((along, slot));
    }
    let mut slots = Vec::new();
    for (_, mut line) in lines {
        line.sort_unstable();
        if line
            .iter()
            .enumerate()
            .any(|(index, (along, _))| *along != index as i64)
            || line.len() as i64 != chunk
        {
            return None;
        }
        slots.push(line.into_iter().map(|(_, slot)| slot).collect());
    }
    Some(LinesInLanes { slots, lanes, warp })
}
