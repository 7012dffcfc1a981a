//! Reads a `tile.kernel` into a [`GemmPlan`]: which tiles feed the tensor cores, how the pipelined loop
//! runs, what the epilogue does and where the result goes.
//!
//! The Hopper lowering handles the GEMM family of kernels:
//!
//! ```text
//! tile.kernel grid(..) threads(128|256) (%bx, %by) {
//!   %A = tile.alloc_shared   %B = tile.alloc_shared   %C = tile.alloc_fragment (f32)
//!   tile.fill %C, c   (a float constant: the accumulator's start, added in the epilogue)
//!   tile.pipelined %k = lb to ub stages(S) { tile.copy G[..], %A   tile.copy H[..], %B   tile.gemm %A, %B, %C }
//!   tile.parallel (%i, %j) in (M, N) { load %C[i, j] -> arith/math -> store %C[i, j] }   (any number)
//!   tile.reduce <kind> %C, %R dim(1)   (R: a 1-D row fragment; later parallels may load %R[i])
//!   tile.copy %C, O[..]
//! }
//! ```
//!
//! Index arithmetic may stand anywhere. The global tensors may have rank 2 to 5, the tiles lying in
//! their last two dimensions ([`LoadedTile::offsets`]). Epilogues may `memref.load` other global tensors (a bias
//! vector at the column, a residual tile at (row, column)) at any index the epilogue computes
//! ([`GemmPlan::epilogue_reads`]; on sm_90a only so far); a `tile.copy` of another tensor into a
//! fragment for the epilogue does not fit, and the error names that copy. Every mismatch is an
//! error that names the op and what the lowering expects.

use melior::ir::{
    BlockLike, RegionLike, TypeLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::{
    level::{MemoryLevel, memory_level},
    ops::{constant_integer, copy_parts, integer_attribute, is_defined_inside, memref_shape, nested_ops, op_name},
};

/// A failure to plan: the op it concerns and the message. Messages name the chip as `{chip}`; the
/// target's lowering puts its chip there.
pub struct PlanError<'c, 'a> {
    /// Where the diagnostic goes.
    pub op: OperationRef<'c, 'a>,
    /// What is wrong and what would work.
    pub message: String,
}

type Planned<'c, 'a, T> = Result<T, PlanError<'c, 'a>>;

/// The gemm of `gemms` (a kernel's, in order) that puts the kernel outside the GEMM template's
/// shape, and why: a second gemm, or an A operand in a fragment. Such kernels (attention, GEMM
/// chains) are the per-op register rules' own.
pub fn beyond_template<'c, 'a>(gemms: &[OperationRef<'c, 'a>]) -> Option<(OperationRef<'c, 'a>, &'static str)> {
    if let Some(second) = gemms.get(1) {
        return Some((*second, "is a second tile.gemm in the kernel; the {chip} GEMM template takes one gemm a kernel"));
    }
    gemms
        .iter()
        .find(|gemm| gemm.operand(0).is_ok_and(|a| memory_level(a.r#type()) == Some(MemoryLevel::Fragment)))
        .map(|gemm| (*gemm, "reads its A operand from a fragment, which the {chip} GEMM template does not take"))
}

fn fail<'c, 'a, T>(op: OperationRef<'c, 'a>, message: impl Into<String>) -> Planned<'c, 'a, T> {
    Err(PlanError {
        op,
        message: message.into(),
    })
}

/// One TMA-loaded operand: the global tensor, the shared tile, and the tile's origin.
pub struct LoadedTile<'c, 'a> {
    /// The `tile.copy` that moves it.
    pub copy: OperationRef<'c, 'a>,
    /// The global memref (a host function argument).
    pub global: Value<'c, 'a>,
    /// The shared tile (`tile.alloc_shared` result).
    pub shared: Value<'c, 'a>,
    /// The origin of the tile in the global tensor, one index per dimension of the tensor: a 2-D
    /// tile of a rank-n tensor lies in its last two dimensions, the first n - 2 offsets picking one
    /// index each (a batch, a head).
    pub offsets: Vec<Value<'c, 'a>>,
}

/// A launch-time integer: known when compiling, or computed by the host before the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// Known at compile time.
    Const(i64),
    /// The kernel parameter `params[i]` of the plan.
    Param(usize),
}

/// The pipelined main loop: constant start and step, a constant or host-computed end.
pub struct MainLoop<'c, 'a> {
    /// The `tile.pipelined` op.
    pub op: OperationRef<'c, 'a>,
    /// Its induction variable.
    pub induction: Value<'c, 'a>,
    /// Lower bound.
    pub lower: i64,
    /// Step between iterations.
    pub step: i64,
    /// Upper bound (exclusive).
    pub upper: Scalar,
    /// Shared-memory buffers in the ring.
    pub stages: i64,
}

/// What survives a reduction of the accumulator: one value per row (`dim(1)`) or per column
/// (`dim(0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// One value per accumulator row.
    Rows,
    /// One value per accumulator column.
    Columns,
}

/// A reduction of the accumulator into a 1-D fragment in the epilogue.
#[derive(Clone, Copy)]
pub struct Reduced<'c, 'a> {
    /// The `tile.reduce`.
    pub op: OperationRef<'c, 'a>,
    /// How it combines.
    pub kind: tile_dialect::ops::ReductionKind,
    /// The fragment.
    pub fragment: Value<'c, 'a>,
    /// What it holds a value of.
    pub axis: Axis,
}

impl<'c, 'a> GemmPlan<'c, 'a> {
    /// The first reduction into column values, which only some lowerings complete across threads.
    pub fn column_reduction(&self) -> Option<OperationRef<'c, 'a>> {
        self.reduced.iter().find(|reduced| reduced.axis == Axis::Columns).map(|reduced| reduced.op)
    }
    /// The other global tensors the epilogue reads, each once, in the order of their first load.
    pub fn epilogue_tensors(&self) -> Vec<Value<'c, 'a>> {
        let mut tensors: Vec<Value> = Vec::new();
        for (_, tensor) in &self.epilogue_reads {
            if !tensors.contains(tensor) {
                tensors.push(*tensor);
            }
        }
        tensors
    }

    /// The loaded tiles and the result whose global tensors have more than two dimensions.
    pub fn nd_tiles(&self) -> impl Iterator<Item = &LoadedTile<'c, 'a>> {
        [&self.a, &self.b, &self.output].into_iter().filter(|tile| tile.rank() > 2)
    }
}

impl LoadedTile<'_, '_> {
    /// The rank of the global tensor.
    pub fn rank(&self) -> usize {
        self.offsets.len()
    }
}

/// Everything the Hopper emitter needs to know about one GEMM kernel.
pub struct GemmPlan<'c, 'a> {
    /// Threads per block.
    pub threads: i64,
    /// Grid size per dimension, as host values (constants or computed by the host).
    pub grid: Vec<Value<'c, 'a>>,
    /// Host scalars the kernel reads (dynamic sizes): they become kernel parameters.
    pub params: Vec<Value<'c, 'a>>,
    /// Block indices (the kernel body's arguments).
    pub block_indices: Vec<Value<'c, 'a>>,
    /// The A operand.
    pub a: LoadedTile<'c, 'a>,
    /// The B operand.
    pub b: LoadedTile<'c, 'a>,
    /// B is given as NxK.
    pub transpose_b: bool,
    /// A is given as KxM (the `tile.gemm` that reads it says `transpose_a`).
    pub transpose_a: bool,
    /// The `tile.gemm`.
    pub gemm: OperationRef<'c, 'a>,
    /// The accumulator fragment.
    pub accumulator: Value<'c, 'a>,
    /// The constant the accumulator starts from (`tile.fill`): the kernels accumulate from zero and
    /// add it in the epilogue, which is the same sum up to f32 rounding.
    pub fill: f64,
    /// The main loop.
    pub main_loop: MainLoop<'c, 'a>,
    /// The epilogue, in order: `tile.parallel` loops over the accumulator and `tile.reduce`s of it
    /// into 1-D fragments.
    pub epilogue: Vec<OperationRef<'c, 'a>>,
    /// The reduced fragments, in the order of their reductions.
    pub reduced: Vec<Reduced<'c, 'a>>,
    /// The `memref.load`s of other global tensors in the epilogue (a bias vector, a residual
    /// tile) and the tensors they read.
    pub epilogue_reads: Vec<(OperationRef<'c, 'a>, Value<'c, 'a>)>,
    /// The global destination of the result and the tile's origin in it.
    pub output: LoadedTile<'c, 'a>,
}

fn body_ops<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let Some(block) = op.region(0).ok().and_then(|region| region.first_block()) else {
        return ops;
    };
    let mut next = block.first_operation();
    while let Some(current) = next {
        next = current.next_in_block();
        if op_name(&current) != "tile.yield" {
            ops.push(current);
        }
    }
    ops
}

fn block_arguments<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.region(0)
        .ok()
        .and_then(|region| region.first_block())
        .map(|block| {
            (0..block.argument_count())
                .filter_map(|i| block.argument(i).ok().map(Into::into))
                .collect()
        })
        .unwrap_or_default()
}

/// Ops that only compute indices or scalars: they are recomputed where the emitted kernel needs them.
fn is_scalar_arithmetic(name: &str) -> bool {
    name.starts_with("arith.") || name.starts_with("math.") || name.starts_with("index.")
}

fn is_global(value: Value) -> bool {
    memory_level(value.r#type()) == Some(MemoryLevel::Global)
}

/// Whether `copy` (outside the main loop) brings a tile of a global tensor on chip: something other
/// than the GEMM's operands for the epilogue to read.
fn reads_other_tensor(copy: OperationRef) -> bool {
    copy_parts(&copy).is_some_and(|parts| is_global(parts.src) && !is_global(parts.dst))
}

/// Plans the lowering of `kernel`, or says why the Hopper lowering cannot take it.
pub fn plan_gemm<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Planned<'c, 'a, GemmPlan<'c, 'a>> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let grid: Vec<Value> = kernel.operands().collect();
    let params = captured_scalars(kernel)?;
    let mut accumulator = None;
    let mut vector_fragments = Vec::new();
    let mut other_fragments = Vec::new();
    let gemms: Vec<OperationRef> = nested_ops(kernel).into_iter().filter(|op| op_name(op) == "tile.gemm").collect();
    let has_gemm = !gemms.is_empty();
    // Kernels of several gemms (attention, GEMM chains) and register A operands are what the
    // per-op tensor-core patterns will take; say so at the gemm, not at whatever comes first.
    if let Some((gemm, reason)) = beyond_template(&gemms) {
        return fail(gemm, reason);
    }
    let mut fills = Vec::new();
    let mut main_loop = None;
    let mut epilogue = Vec::new();
    let mut output = None;
    for op in body_ops(kernel) {
        let name = op_name(&op);
        match name.as_str() {
            "tile.alloc_shared" => {}
            "tile.alloc_fragment" => {
                let fragment: Option<Value> = op.result(0).ok().map(Into::into);
                match fragment.map(|value| memref_shape(value).len()) {
                    Some(1) => vector_fragments.extend(fragment),
                    // Reported after the walk, unless an op that explains it (a copy of another
                    // tensor into it) is found first.
                    _ if accumulator.is_some() => other_fragments.push(op),
                    _ => accumulator = fragment,
                }
            }
            "tile.fill" => fills.push(op),
            "tile.pipelined" if main_loop.is_none() => main_loop = Some(op),
            "tile.pipelined" => {
                return fail(
                    op,
                    "expects one tile.pipelined loop per kernel in the {chip} lowering",
                );
            }
            "tile.parallel" | "tile.reduce" if main_loop.is_some() && output.is_none() => {
                epilogue.push(op)
            }
            "tile.copy" if has_gemm && reads_other_tensor(op) => {
                let parts = copy_parts(&op).expect("verified copy");
                return fail(
                    op,
                    format!(
                        "copies a tile of the global tensor {} into {} for the epilogue (a bias vector or a residual tile), which the {{chip}} lowering cannot read on tensor cores yet (its epilogue reads the accumulator and its reductions only)",
                        parts.src.r#type(),
                        memory_level(parts.dst.r#type()).map_or("a tile".into(), |level| level.to_string())
                    ),
                );
            }
            "tile.copy" if main_loop.is_some() && output.is_none() => output = Some(op),
            _ if is_scalar_arithmetic(&name) => {}
            _ => {
                return fail(
                    op,
                    format!(
                        "cannot be lowered to {{chip}} here: the {{chip}} lowering takes GEMM kernels (fill, one \
                     tile.pipelined loop of two copies and a tile.gemm, tile.parallel epilogues, one copy \
                     out), and {name} does not fit that shape"
                    ),
                );
            }
        }
    }
    if let Some(other) = other_fragments.first() {
        return fail(
            *other,
            "expects one 2-D fragment (the accumulator) per kernel in the {chip} lowering; other fragments must be 1-D reductions of it",
        );
    }
    let Some(accumulator) = accumulator else {
        return fail(
            kernel,
            "expects a tile.alloc_fragment accumulator for the {chip} lowering",
        );
    };
    let Some(loop_op) = main_loop else {
        return fail(
            kernel,
            "expects a tile.pipelined main loop for the {chip} lowering",
        );
    };
    let mut fill_value = 0.0;
    for fill in &fills {
        let value = fill.operand(1).ok();
        let constant = value
            .and_then(float_constant)
            .or_else(|| value.and_then(constant_integer).map(|value| value as f64));
        match constant {
            Some(constant) if fill.operand(0).ok() == Some(accumulator) && fills.len() == 1 && fill.is_before_in_block(loop_op) => {
                fill_value = constant;
            }
            _ => {
                return fail(
                    *fill,
                    "expects one tile.fill of the accumulator with a constant before the main loop (other fills are not supported on {chip} yet)",
                );
            }
        }
    }
    if fills.is_empty() {
        return fail(
            kernel,
            "expects the accumulator to be filled with a constant (tile.fill) before the main loop",
        );
    }
    let (a, b, transpose_b, main_loop) = plan_main_loop(loop_op, accumulator, &params)?;
    let gemm_op = nested_ops(loop_op)
        .into_iter()
        .find(|op| op_name(op) == "tile.gemm")
        .expect("the main loop has its gemm");
    let mut reduced = Vec::new();
    let mut epilogue_reads = Vec::new();
    for step in &epilogue {
        if op_name(step) == "tile.reduce" {
            reduced.push(check_reduction(*step, accumulator, &vector_fragments, &reduced)?);
        } else {
            epilogue_reads.extend(check_epilogue(*step, accumulator, &reduced)?);
        }
    }
    if let Some(unused) = vector_fragments.iter().find(|vector| !reduced.iter().any(|done| done.fragment == **vector)) {
        let op = melior::ir::operation::OperationResult::try_from(*unused).expect("an allocation").owner();
        return fail(
            op,
            "expects every 1-D fragment to receive one reduction of the accumulator after the main loop in the {chip} lowering",
        );
    }
    let Some(output_op) = output else {
        return fail(
            kernel,
            "expects the accumulator to be copied to global memory after the main loop",
        );
    };
    let parts = copy_parts(&output_op).expect("verified copy");
    if parts.src != accumulator || !is_global(parts.dst) || parts.dst_offsets.is_empty() {
        return fail(
            output_op,
            "expects the result copy to go from the accumulator to a tile of a global tensor (with offsets)",
        );
    }
    Ok(GemmPlan {
        threads,
        grid,
        params,
        block_indices: block_arguments(kernel),
        a,
        b,
        transpose_b,
        transpose_a: gemm_op.has_attribute("transpose_a"),
        gemm: gemm_op,
        accumulator,
        fill: fill_value,
        main_loop,
        epilogue,
        reduced,
        epilogue_reads,
        output: LoadedTile {
            copy: output_op,
            global: parts.dst,
            shared: parts.src,
            offsets: parts.dst_offsets,
        },
    })
}

/// The host scalars the kernel body reads that are not constants: the kernel's parameters.
fn captured_scalars<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Planned<'c, 'a, Vec<Value<'c, 'a>>> {
    let mut params: Vec<Value> = Vec::new();
    for op in nested_ops(kernel) {
        for operand in op.operands() {
            if is_defined_inside(operand, kernel)
                || operand.r#type().is_mem_ref()
                || constant_integer(operand).is_some()
                || float_constant(operand).is_some()
                || params.contains(&operand)
            {
                continue;
            }
            if !operand.r#type().is_index() {
                return fail(
                    op,
                    format!(
                        "reads a host value of type {} inside the kernel; the {{chip}} lowering passes index values and constants only",
                        operand.r#type()
                    ),
                );
            }
            params.push(operand);
        }
    }
    Ok(params)
}

fn float_constant(value: Value) -> Option<f64> {
    let owner = melior::ir::operation::OperationResult::try_from(value)
        .ok()?
        .owner();
    if op_name(&owner) != "arith.constant" {
        return None;
    }
    melior::ir::attribute::FloatAttribute::try_from(owner.attribute("value").ok()?)
        .ok()
        .map(|attr| attr.value())
}

type LoopParts<'c, 'a> = (
    LoadedTile<'c, 'a>,
    LoadedTile<'c, 'a>,
    bool,
    MainLoop<'c, 'a>,
);

fn plan_main_loop<'c, 'a>(
    op: OperationRef<'c, 'a>,
    accumulator: Value<'c, 'a>,
    params: &[Value<'c, 'a>],
) -> Planned<'c, 'a, LoopParts<'c, 'a>> {
    let bound = |index: usize| op.operand(index).ok().and_then(constant_integer);
    let Some(lower) = bound(0) else {
        return fail(op, "expects a constant lower bound for the {chip} lowering");
    };
    let upper_value = op.operand(1).expect("verified loop");
    let upper = match (
        constant_integer(upper_value),
        params.iter().position(|param| *param == upper_value),
    ) {
        (Some(upper), _) => Scalar::Const(upper),
        (None, Some(index)) => Scalar::Param(index),
        (None, None) => {
            return fail(
                op,
                "expects an upper bound that is a constant or computed by the host, outside the kernel, for the {chip} lowering",
            );
        }
    };
    let step = if op.operand_count() == 3 {
        bound(2)
    } else {
        Some(1)
    };
    let Some(step) = step else {
        return fail(op, "expects a constant step for the {chip} lowering");
    };
    if step <= 0 {
        return fail(
            op,
            "expects a positive constant step for the {chip} lowering",
        );
    }
    let stages = integer_attribute(&op, "stages").unwrap_or(1);
    let mut loads = Vec::new();
    let mut gemm = None;
    for inner in body_ops(op) {
        let name = op_name(&inner);
        match name.as_str() {
            "tile.copy" => loads.push(inner),
            "tile.gemm" if gemm.is_none() => gemm = Some(inner),
            _ if is_scalar_arithmetic(&name) => {}
            _ => {
                return fail(
                    inner,
                    format!(
                        "cannot stand in the {{chip}} main loop: expects two tile.copy loads and one tile.gemm, but got {name}"
                    ),
                );
            }
        }
    }
    let Some(gemm) = gemm else {
        return fail(op, "expects a tile.gemm in the main loop");
    };
    let [a_shared, b_shared, c] =
        [0, 1, 2].map(|index| gemm.operand(index).expect("verified gemm"));
    if c != accumulator {
        return fail(
            gemm,
            "expects the gemm to accumulate into the kernel's accumulator fragment",
        );
    }
    if memory_level(a_shared.r#type()) != Some(MemoryLevel::Shared) {
        return fail(
            gemm,
            "expects A in shared memory on {chip} (A from a fragment is not supported yet)",
        );
    }
    let mut tiles: [Option<LoadedTile>; 2] = [None, None];
    for copy in &loads {
        let parts = copy_parts(copy).expect("verified copy");
        let slot = if parts.dst == a_shared {
            0
        } else if parts.dst == b_shared {
            1
        } else {
            return fail(
                *copy,
                "expects main-loop copies to fill the gemm's A or B tile",
            );
        };
        if !is_global(parts.src) || parts.src_offsets.is_empty() {
            return fail(
                *copy,
                "expects main-loop copies from a tile of a global tensor (with offsets) into shared memory",
            );
        }
        if tiles[slot].is_some() {
            return fail(*copy, "expects one copy into each of A and B per iteration");
        }
        tiles[slot] = Some(LoadedTile {
            copy: *copy,
            global: parts.src,
            shared: parts.dst,
            offsets: parts.src_offsets,
        });
    }
    let [Some(a), Some(b)] = tiles else {
        return fail(
            gemm,
            "expects both A and B to be loaded from global memory in the main loop",
        );
    };
    let induction = block_arguments(op)[0];
    Ok((
        a,
        b,
        gemm.has_attribute("transpose_b"),
        MainLoop {
            op,
            induction,
            lower,
            step,
            upper,
            stages,
        },
    ))
}

/// Checks a reduction in the epilogue: the accumulator's rows (dim 1) or columns (dim 0), cleared,
/// into an f32 fragment not reduced into before. Returns the fragment and what it holds.
fn check_reduction<'c, 'a>(
    reduce: OperationRef<'c, 'a>,
    accumulator: Value<'c, 'a>,
    vector_fragments: &[Value<'c, 'a>],
    reduced: &[Reduced<'c, 'a>],
) -> Planned<'c, 'a, Reduced<'c, 'a>> {
    let (src, dst) = (reduce.operand(0).ok(), reduce.operand(1).ok());
    let axis = match integer_attribute(&reduce, "dim") {
        Some(1) => Some(Axis::Rows),
        Some(0) => Some(Axis::Columns),
        _ => None,
    };
    let clear = reduce.attribute("clear").map(|attr| attr.to_string() != "false").unwrap_or(true);
    let f32_values = dst.is_some_and(|dst| crate::gemm::types::element_of(dst) == Some(tile_dialect::element::Element::F32));
    match (dst, axis, tile_dialect::ops::reduction_kind(&reduce)) {
        (Some(fragment), Some(axis), Some(kind))
            if src == Some(accumulator)
                && clear
                && f32_values
                && vector_fragments.contains(&fragment)
                && !reduced.iter().any(|done| done.fragment == fragment) =>
        {
            Ok(Reduced { op: reduce, kind, fragment, axis })
        }
        _ => fail(
            reduce,
            "expects epilogue reductions to reduce the accumulator's rows (dim 1) or columns (dim 0), clear, into a 1-D f32 fragment, each fragment once, for the {chip} lowering",
        ),
    }
}

/// Checks an epilogue loop; returns its loads of other global tensors (a bias vector, a residual
/// tile) and the tensors they read.
fn check_epilogue<'c, 'a>(
    parallel: OperationRef<'c, 'a>,
    accumulator: Value<'c, 'a>,
    reduced: &[Reduced<'c, 'a>],
) -> Planned<'c, 'a, Vec<(OperationRef<'c, 'a>, Value<'c, 'a>)>> {
    let indices = block_arguments(parallel);
    let mut reads = Vec::new();
    for op in body_ops(parallel) {
        let name = op_name(&op);
        let on_accumulator = |first_index: usize| {
            let operands: Vec<Value> = op.operands().collect();
            operands.get(first_index - 1) == Some(&accumulator)
                && operands[first_index..] == indices[..]
        };
        // A reduced row is read at the loop's row index i, a reduced column at its column index j.
        let on_reduced = || {
            let operands: Vec<Value> = op.operands().collect();
            operands.len() == 2
                && reduced.iter().any(|done| {
                    let index = match done.axis {
                        Axis::Rows => indices.first(),
                        Axis::Columns => indices.get(1),
                    };
                    done.fragment == operands[0] && Some(&operands[1]) == index
                })
        };
        let other_tensor = || {
            op.operand(0).ok().filter(|memref| name == "memref.load" && is_global(*memref))
        };
        match name.as_str() {
            "memref.load" if on_accumulator(1) || on_reduced() => {}
            "memref.load" if other_tensor().is_some() => reads.push((op, other_tensor().expect("checked"))),
            "memref.store" if on_accumulator(2) => {}
            "memref.load" | "memref.store" => {
                return fail(
                    op,
                    "expects epilogue loads and stores on the accumulator at the loop's own indices (i, j), and loads of reduced rows at i and reduced columns at j, for the {chip} lowering",
                );
            }
            _ if is_scalar_arithmetic(&name) => {}
            _ => {
                return fail(
                    op,
                    format!(
                        "cannot stand in a {{chip}} epilogue: expects arith and math ops, but got {name}"
                    ),
                );
            }
        }
    }
    Ok(reads)
}
