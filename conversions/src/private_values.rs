//! `tile-promote-private` and `tile-promote-private-vectors`: the private arrays of lowered kernels
//! (the mfma accumulators, the copy runs' registers, any fragment held in registers) as SSA values.
//!
//! The register rules hold a thread's part of a fragment in a private `memref.alloca` indexed by
//! constants only, so that LLVM's SROA keeps it in registers. Until then every slot access is a
//! `memref.load` or `memref.store` that every conversion and LLVM's early passes carry: about half
//! of gemm_relu's ops after the cleanup (its 128-slot accumulator filled, carried through the K loop
//! through a vector view, read and written by the ReLU, read by the epilogue), and over a third of
//! an sm_90a FlashAttention kernel's (its softmax statistics and probabilities). This pass does the
//! promotion SROA would do, before the conversions: walking the kernel in program order, it keeps
//! the value each slot holds, replaces each load by that value and drops the stores; the slots a
//! loop or a branch writes become its iteration arguments or results:
//!
//! ```text
//! memref.store %zero, %a[%c0] ...        %init = vector.from_elements %zero, ... : vector<16xf32>
//! scf.for ... {                          %r = scf.for ... iter_args(%acc = %init) {
//!   %v = vector.load %view[%c0]            %n = compute(%acc)
//!   vector.store compute(%v), %view[%c0]   scf.yield %n
//! }                                      }
//! %s = memref.load %a[%c3]               %s = vector.extract %r[3]
//! ```
//!
//! A slot's value is a scalar or a lane of a vector (a vector store, or a scalar store of a
//! `vector.extract`), so that a vector read of the lanes of one vector is that vector. The slots a
//! region op writes travel as they were written: a vector store's slots as one vector, any other
//! slot alone (slots written both ways, alone).
//!
//! An array is promoted where it is an alloca of the kernel's body in the private address space
//! (SPIR-V's `Function` storage class), of static rank-1 shape, each of whose uses is a
//! `memref.load` or `memref.store` at a constant index, or a `memref.memory_space_cast` used only
//! by `vector.load`s and `vector.store`s of its element type at constant indices, all inside the
//! array, and only inside `scf.for` and `scf.if` ops (others keep their arrays for SROA).
//!
//! The two passes differ in the arrays read and written by scalars alone (the copy runs'
//! registers, softmax statistics): `tile-promote-private` (the sm_90a and SPIR-V backends)
//! promotes them too, and the PTX of every benchmark and test program keeps its instructions, one
//! fewer in six of them (`bench/RESULTS.md`, compile time part 7); `tile-promote-private-vectors`
//! (gfx942's backend) leaves them to SROA, because LLVM's AMDGPU backend scheduled the loops that
//! carry them one to two instructions longer in most GEMMs' main loops when they arrived promoted
//! (compile time part 5; in part 7, 69 of 92 gfx942 kernels came out longer). A slot read before
//! anything was stored to it reads zero (an undefined value in LLVM's promotion; zero is one of
//! its values). On SPIR-V the loops that then carry slots need `tile-spirv-guard-empty-loops`.

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        Block, BlockLike, BlockRef, Region, RegionLike, ShapedTypeLike, Type, TypeLike, Value, ValueLike,
        attribute::DenseI64ArrayAttribute,
        operation::{OperationLike, OperationRef},
    },
};
use std::collections::{HashMap, HashSet};
use tile_dialect::ops::{constant_integer, nested_ops, op_name, with_context};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{gpu, is, match_op, memref, scf, vector};

/// The flag of the pass that promotes every array it can.
pub const ARGUMENT: &str = "tile-promote-private";
/// The flag of the pass that promotes only arrays read or written as vectors somewhere.
pub const VECTORS_ARGUMENT: &str = "tile-promote-private-vectors";

/// What a slot holds: a value, or lane `lane` of a vector.
#[derive(Clone, Copy, PartialEq)]
enum Held<'c, 'a> {
    Scalar(Value<'c, 'a>),
    Lane(Value<'c, 'a>, usize),
}

/// One promoted array: the alloca's value, its vector views, element type and slot count.
struct Array<'c, 'a> {
    value: Value<'c, 'a>,
    views: Vec<Value<'c, 'a>>,
    element: Type<'c>,
    slots: usize,
}

/// One access of a promoted array: `width` slots from `first`, stored from `stored` or loaded.
struct Access<'c, 'a> {
    array: usize,
    first: usize,
    width: usize,
    stored: Option<Value<'c, 'a>>,
}

/// Slots a region op writes that travel together: `width` slots of `array` from `first`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Group {
    array: usize,
    first: usize,
    width: usize,
}

/// What each slot of each array holds at a point of the walk (`None`: nothing stored yet).
type State<'c, 'a> = Vec<Vec<Option<Held<'c, 'a>>>>;

/// Promotes the private arrays of every `gpu.func` in `op`; those accessed by scalars alone only
/// where `scalars` is set.
fn run(op: OperationRef, scalars: bool) -> Result<(), String> {
    with_context(op, |context| {
        // Found before any is rewritten: the walk's list holds the ops the promotion erases.
        let functions: Vec<OperationRef> = nested_ops(op)
            .into_iter()
            .filter(|op| is(op, gpu::GPUFuncOperation::name))
            .collect();
        for function in functions {
            promote(context, function, scalars)?;
        }
        Ok(())
    })
}

/// Promotes the private arrays of `function` (see the module).
fn promote<'c, 'a>(context: &'c Context, function: OperationRef<'c, 'a>, scalars: bool) -> Result<(), String> {
    let Some(body) = function.body() else {
        return Ok(());
    };
    let mut promotion = Promotion {
        context,
        scalars,
        arrays: Vec::new(),
        widths: HashMap::new(),
    };
    let (allocas, views) = promotion.select(function, body);
    if promotion.arrays.is_empty() {
        return Ok(());
    }
    let mut state: State = promotion.arrays.iter().map(|array| vec![None; array.slots]).collect();
    promotion.block(body, &mut state)?;
    let rewriter = melior::IrRewriter::new(context);
    for op in views.into_iter().chain(allocas) {
        rewriter.as_rewriter_base().erase_op(op);
    }
    erase_dead_extracts(context, function);
    Ok(())
}

/// Replaces each `vector.from_elements` of the lanes of one vector, in order, by that vector (a
/// copy run's registers read back whole), then erases the `vector.extract`s nothing uses any more
/// (those that fed the stores dropped).
fn erase_dead_extracts(context: &Context, function: OperationRef) {
    let rewriter = melior::IrRewriter::new(context);
    for op in nested_ops(function) {
        if !is(&op, vector::FromElementsOperation::name) || op.operand_count() == 0 {
            continue;
        }
        let Some(result) = op.result_at(0) else { continue };
        let mut source = None;
        let whole = op.operands().enumerate().all(|(lane, operand)| match lane_of(operand) {
            Some((vector, at)) if at == lane && source.is_none_or(|source| source == vector) => {
                source = Some(vector);
                true
            }
            _ => false,
        });
        if let (true, Some(vector)) = (whole, source) {
            if vector.r#type() == result.r#type() {
                rewriter.as_rewriter_base().replace_all_uses_with(result.into(), vector);
                rewriter.as_rewriter_base().erase_op(op);
            }
        }
    }
    let ops = nested_ops(function);
    let used: HashSet<usize> = ops
        .iter()
        .flat_map(|op| op.operands().map(|value| value.to_raw().ptr as usize))
        .collect();
    let rewriter = melior::IrRewriter::new(context);
    for op in ops {
        if is(&op, vector::ExtractOperation::name)
            && op
                .result_at(0)
                .is_some_and(|result| !used.contains(&(Value::from(result).to_raw().ptr as usize)))
        {
            rewriter.as_rewriter_base().erase_op(op);
        }
    }
}

/// Whether every op around `op` up to `function` is an `scf.for` or an `scf.if`.
fn inside_loops_and_branches<'c, 'a>(op: OperationRef<'c, 'a>, function: OperationRef<'c, 'a>) -> bool {
    let mut inner = op;
    while let Some(parent) = inner.parent_operation() {
        if parent == function {
            return true;
        }
        if !is(&parent, scf::ForOperation::name) && !is(&parent, scf::IfOperation::name) {
            return false;
        }
        inner = parent;
    }
    false
}

/// The vector and lane `value` was extracted from, where it is a `vector.extract` of one lane of a
/// one-dimensional vector at a constant position.
fn lane_of<'c, 'a>(value: Value<'c, 'a>) -> Option<(Value<'c, 'a>, usize)> {
    let op = tile_dialect::ops::as_result(value)?.owner();
    if !is(&op, vector::ExtractOperation::name) || op.operand_count() != 1 {
        return None;
    }
    let position = DenseI64ArrayAttribute::try_from(op.attribute("static_position").ok()?).ok()?;
    if position.len() != 1 {
        return None;
    }
    let lane = usize::try_from(position.element(0).ok()?).ok()?;
    // The operand lives as long as the op, which lives as long as `value`.
    Some((unsafe { Value::from_raw(op.operand_at(0)?.to_raw()) }, lane))
}

struct Promotion<'c, 'a> {
    context: &'c Context,
    /// Whether arrays accessed by scalars alone are promoted.
    scalars: bool,
    arrays: Vec<Array<'c, 'a>>,
    /// Lanes of the vector types met, by type.
    widths: HashMap<usize, Option<usize>>,
}

impl<'c, 'a> Promotion<'c, 'a> {
    /// Records the arrays of `function` that can be promoted; returns their allocas and views.
    fn select(
        &mut self,
        function: OperationRef<'c, 'a>,
        body: BlockRef<'c, 'a>,
    ) -> (Vec<OperationRef<'c, 'a>>, Vec<OperationRef<'c, 'a>>) {
        let ops = nested_ops(function);
        // The candidates are `self.arrays` while their uses are checked.
        let mut allocas = Vec::new();
        for op in &ops {
            if !is(op, memref::AllocaOperation::name) || op.block() != Some(body) || op.operand_count() != 0 {
                continue;
            }
            let Some(result) = op.result_at(0) else { continue };
            let Some(memref) = tile_dialect::ops::as_memref(result.r#type()) else {
                continue;
            };
            if !tile_dialect::level::is_private(result.r#type()) || memref.rank() != 1 || !memref.has_static_shape() {
                continue;
            }
            let Ok(melior::ir::r#type::DimSize::Static(slots)) = memref.dim_size(0) else {
                continue;
            };
            allocas.push(*op);
            self.arrays.push(Array {
                value: result.into(),
                views: Vec::new(),
                element: memref.element(),
                slots: slots as usize,
            });
        }
        if allocas.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let mut rejected = vec![false; allocas.len()];
        let mut view_ops: Vec<(usize, OperationRef)> = Vec::new();
        for op in &ops {
            for (position, operand) in op.operands().enumerate() {
                let direct = self.arrays.iter().position(|array| array.value == operand);
                let viewed = self.arrays.iter().position(|array| array.views.contains(&operand));
                let Some(index) = direct.or(viewed) else { continue };
                // A view's source and the scalar accesses take the array itself, the vector
                // accesses one of its views; loads as their first operand, stores as their second
                // (after the value stored).
                let array_at = |operand: usize| direct.is_some() && position == operand;
                let view_at = |operand: usize| direct.is_none() && position == operand;
                let allowed = match_op!(op, {
                    memref::MemorySpaceCastOperation if array_at(0) => {
                        let result = op.result_at(0);
                        if let Some(result) = result {
                            self.arrays[index].views.push(result.into());
                            view_ops.push((index, *op));
                        }
                        result.is_some()
                    },
                    memref::LoadOperation if array_at(0) => self.promotable(op, index, function),
                    memref::StoreOperation if array_at(1) => self.promotable(op, index, function),
                    vector::LoadOperation if view_at(0) => self.promotable(op, index, function),
                    vector::StoreOperation if view_at(1) => self.promotable(op, index, function),
                    _ => false,
                });
                rejected[index] |= !allowed;
            }
        }
        let mut kept_allocas = Vec::new();
        let mut views = Vec::new();
        let arrays = std::mem::take(&mut self.arrays);
        for (index, (alloca, array)) in allocas.into_iter().zip(arrays).enumerate() {
            // Arrays read and written by scalars alone stay for SROA unless asked (see the module).
            if rejected[index] || (array.views.is_empty() && !self.scalars) {
                continue;
            }
            views.extend(view_ops.iter().filter(|(owner, _)| *owner == index).map(|(_, op)| *op));
            kept_allocas.push(alloca);
            self.arrays.push(array);
        }
        (kept_allocas, views)
    }

    /// Whether `op`, an access of array `index`, leaves it promotable: an access at a constant
    /// index inside the array, only inside loops and branches of `function`.
    fn promotable(&mut self, op: &OperationRef<'c, 'a>, index: usize, function: OperationRef<'c, 'a>) -> bool {
        self.access(op).is_some_and(|access| access.array == index) && inside_loops_and_branches(*op, function)
    }

    /// Lanes of `ty` if it is a vector of `element` of at most `slots` lanes.
    fn width(&mut self, ty: Type<'c>, element: Type<'c>, slots: usize) -> Option<usize> {
        let key = ty.to_raw().ptr as usize;
        if let Some(known) = self.widths.get(&key) {
            return *known;
        }
        // Vector types are uniqued: compare with each length rather than print the type.
        let width = if ty.is_vector() {
            (1..=slots).find(|lanes| crate::attributes::vector(*lanes as i64, element) == ty)
        } else {
            None
        };
        self.widths.insert(key, width);
        width
    }

    /// The access `op` makes to a promoted array, if it is one.
    fn access(&mut self, op: &OperationRef<'c, 'a>) -> Option<Access<'c, 'a>> {
        let operands = op.operand_count();
        let (memref, index, stored, vector) = match_op!(op, {
            memref::LoadOperation if operands == 2 => (op.operand_at(0)?, op.operand_at(1)?, None, false),
            memref::StoreOperation if operands == 3 => (
                op.operand_at(1)?,
                op.operand_at(2)?,
                Some(op.operand_at(0)?),
                false,
            ),
            vector::LoadOperation if operands == 2 => (op.operand_at(0)?, op.operand_at(1)?, None, true),
            vector::StoreOperation if operands == 3 => (
                op.operand_at(1)?,
                op.operand_at(2)?,
                Some(op.operand_at(0)?),
                true,
            ),
            _ => return None,
        });
        let array = self.arrays.iter().position(|array| {
            if vector {
                array.views.contains(&memref)
            } else {
                array.value == memref
            }
        })?;
        let first = usize::try_from(constant_integer(index)?).ok()?;
        let (element, slots) = (self.arrays[array].element, self.arrays[array].slots);
        let width = if vector {
            let ty = match stored {
                Some(value) => value.r#type(),
                None => op.result_at(0)?.r#type(),
            };
            self.width(ty, element, slots)?
        } else {
            1
        };
        (first + width <= slots).then_some(Access {
            array,
            first,
            width,
            stored,
        })
    }

    /// What a store of `value` leaves in a slot: the lane it was extracted from, or the value.
    fn held(&self, value: Value<'c, 'a>) -> Held<'c, 'a> {
        match lane_of(value) {
            Some((vector, lane)) => Held::Lane(vector, lane),
            None => Held::Scalar(value),
        }
    }

    /// The value of one slot of `array`, built at `at` where it is a lane or nothing.
    fn scalar(&self, at: At<'c, 'a>, array: usize, held: Option<Held<'c, 'a>>) -> Value<'c, 'a> {
        let b = Builder {
            context: self.context,
            location: at.before.location(),
            threads: None,
        };
        match held {
            Some(Held::Scalar(value)) => value,
            Some(Held::Lane(source, lane)) => {
                // Its result type is inferred: the vector's element type, the array's.
                let position = crate::attributes::i64_array(self.context, &[lane as i64]);
                b.value(
                    at,
                    vector::extract(self.context, source, &[], position, b.location).into(),
                )
            }
            None => b.constant(at, self.arrays[array].element, 0.0),
        }
    }

    /// The value of `group`'s slots in `state` (a vector where it has more than one), built at `at`.
    fn group_value(&self, at: At<'c, 'a>, state: &State<'c, 'a>, group: Group) -> Value<'c, 'a> {
        let slots = &state[group.array][group.first..group.first + group.width];
        if group.width == 1 {
            return self.scalar(at, group.array, slots[0]);
        }
        let ty = crate::attributes::vector(group.width as i64, self.arrays[group.array].element);
        if let Some(Held::Lane(vector, 0)) = slots[0] {
            if vector.r#type() == ty
                && slots
                    .iter()
                    .enumerate()
                    .all(|(lane, held)| *held == Some(Held::Lane(vector, lane)))
            {
                return vector;
            }
        }
        let lanes: Vec<Value> = slots.iter().map(|held| self.scalar(at, group.array, *held)).collect();
        let b = Builder {
            context: self.context,
            location: at.before.location(),
            threads: None,
        };
        b.value(at, vector::from_elements(self.context, ty, &lanes, b.location).into())
    }

    /// Sets `group`'s slots in `state` to the lanes of `value` (or to it, for one slot).
    fn set_group(state: &mut State<'c, 'a>, group: Group, value: Value<'c, 'a>) {
        for lane in 0..group.width {
            state[group.array][group.first + lane] = Some(if group.width == 1 {
                Held::Scalar(value)
            } else {
                Held::Lane(value, lane)
            });
        }
    }

    /// The slots the ops inside `op` write, grouped as they are written (see the module); groups
    /// that would overlap are split into single slots.
    fn groups(&mut self, op: OperationRef<'c, 'a>) -> Vec<Group> {
        let mut wanted: Vec<Group> = Vec::new();
        for nested in nested_ops(op) {
            let Some(access) = self.access(&nested) else { continue };
            if access.stored.is_some() {
                wanted.push(Group {
                    array: access.array,
                    first: access.first,
                    width: access.width,
                });
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        let overlaps = |a: &Group, b: &Group| {
            a != b && a.array == b.array && a.first < b.first + b.width && b.first < a.first + a.width
        };
        let mut groups: Vec<Group> = Vec::new();
        for group in &wanted {
            if wanted.iter().any(|other| overlaps(group, other)) {
                groups.extend((group.first..group.first + group.width).map(|first| Group {
                    array: group.array,
                    first,
                    width: 1,
                }));
            } else {
                groups.push(*group);
            }
        }
        groups.sort_unstable();
        groups.dedup();
        groups
    }

    /// Promotes the accesses of `block` in order; `state` holds the slots on entry and on exit.
    fn block(&mut self, block: BlockRef<'c, 'a>, state: &mut State<'c, 'a>) -> Result<(), String> {
        // Collected first: the loop below erases and rebuilds ops of the block.
        let ops: Vec<OperationRef> = std::iter::successors(block.first_operation(), |op| op.next_in_block()).collect();
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        for op in ops {
            if let Some(access) = self.access(&op) {
                let group = Group {
                    array: access.array,
                    first: access.first,
                    width: access.width,
                };
                match access.stored {
                    Some(value) if access.width == 1 => state[access.array][access.first] = Some(self.held(value)),
                    Some(value) => Self::set_group(state, group, value),
                    None => {
                        let value = self.group_value(At::before(op), state, group);
                        rewriter.replace_all_uses_with(
                            op.result_at(0)
                                .ok_or_else(|| tile_dialect::positions::missing("result", 0))?
                                .into(),
                            value,
                        );
                    }
                }
                rewriter.erase_op(op);
                continue;
            }
            if op.region_count() == 0 || !nested_ops(op).iter().any(|nested| self.access(nested).is_some()) {
                continue;
            }
            match_op!(op, {
                scf::ForOperation => self.for_loop(op, state)?,
                scf::IfOperation => self.branch(op, state)?,
                _ => {
                    return Err(format!(
                        "internal error: a private array promoted inside '{}'",
                        op_name(&op)
                    ));
                },
            });
        }
        Ok(())
    }

    /// Rebuilds the `scf.for` `old` with an iteration argument and a result per group it writes,
    /// its body promoted.
    fn for_loop(&mut self, old: OperationRef<'c, 'a>, state: &mut State<'c, 'a>) -> Result<(), String> {
        let groups = self.groups(old);
        let location = old.location();
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        let old_body = old.body().ok_or("an scf.for without a body")?;
        let carried = old.operand_count() - 3;
        // The lower and upper bounds and the step, then the values the loop carries.
        let operands: Vec<Value> = old.operands().collect();
        let (bounds, mut init_args) = (&operands[..3], operands[3..].to_vec());
        init_args.extend(
            groups
                .iter()
                .map(|group| self.group_value(At::before(old), state, *group)),
        );
        let types: Vec<Type> = groups.iter().map(|group| self.group_type(*group)).collect();
        let mut arguments: Vec<(Type, melior::ir::Location)> = (0..old_body.argument_count())
            .map(|i| (old_body.argument_at(i).expect("an argument").r#type(), location))
            .collect();
        arguments.extend(types.iter().map(|ty| (*ty, location)));
        let region = Region::new();
        region.append_block(Block::new(&arguments));
        let mut results: Vec<Type> = old.results().map(|result| result.r#type()).collect();
        results.extend(types.iter().copied());
        let b = Builder {
            context: self.context,
            location,
            threads: None,
        };
        let new = b.insert(
            At::before(old),
            scf::r#for(
                self.context,
                &results,
                bounds[0],
                bounds[1],
                bounds[2],
                &init_args,
                region,
                location,
            )
            .into(),
        );
        let body = new.body().expect("the new body");
        let placeholder = body.append_operation(melior::dialect::scf::r#yield(&[], location));
        let old_yield = old_body.terminator().ok_or("an scf.for body without its yield")?;
        let yielded: Vec<Value> = old_yield.operands().collect();
        rewriter.erase_op(old_yield);
        let inherited: Vec<Value> = (0..1 + carried)
            .map(|i| body.argument_at(i).expect("an argument").into())
            .collect();
        rewriter.inline_block_before(old_body, placeholder, &inherited);
        let mut inside = state.clone();
        for (k, group) in groups.iter().enumerate() {
            Self::set_group(
                &mut inside,
                *group,
                body.argument_at(1 + carried + k).expect("a carried group").into(),
            );
        }
        self.block(body, &mut inside)?;
        self.close(placeholder, yielded, &inside, &groups);
        self.replace(old, new, carried, &groups, state);
        Ok(())
    }

    /// Ends a rebuilt region at `placeholder` with a yield of `yielded` and then the value of each
    /// of `groups` in `inside` (the slots as the region leaves them).
    fn close(
        &self,
        placeholder: OperationRef<'c, 'a>,
        mut yielded: Vec<Value<'c, 'a>>,
        inside: &State<'c, 'a>,
        groups: &[Group],
    ) {
        let b = Builder {
            context: self.context,
            location: placeholder.location(),
            threads: None,
        };
        yielded.extend(
            groups
                .iter()
                .map(|group| self.group_value(At::before(placeholder), inside, *group)),
        );
        b.insert(
            At::before(placeholder),
            melior::dialect::scf::r#yield(&yielded, b.location),
        );
        melior::IrRewriter::new(self.context)
            .as_rewriter_base()
            .erase_op(placeholder);
    }

    /// Replaces `old` by its rebuilt `new`: `old`'s `kept` results by `new`'s first ones, and the
    /// slots of `groups` in `state` by `new`'s results after them.
    fn replace(
        &self,
        old: OperationRef<'c, 'a>,
        new: OperationRef<'c, 'a>,
        kept: usize,
        groups: &[Group],
        state: &mut State<'c, 'a>,
    ) {
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        for k in 0..kept {
            rewriter.replace_all_uses_with(
                old.result_at(k).expect("a result").into(),
                new.result_at(k).expect("a result").into(),
            );
        }
        for (k, group) in groups.iter().enumerate() {
            Self::set_group(state, *group, new.result_at(kept + k).expect("a group's result").into());
        }
        rewriter.erase_op(old);
    }

    /// Rebuilds the `scf.if` `old` with a result per group its branches write, both promoted (an
    /// absent else yields the slots as they were).
    fn branch(&mut self, old: OperationRef<'c, 'a>, state: &mut State<'c, 'a>) -> Result<(), String> {
        let groups = self.groups(old);
        let location = old.location();
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        let kept = old.result_count();
        let mut results: Vec<Type> = old.results().map(|result| result.r#type()).collect();
        results.extend(groups.iter().map(|group| self.group_type(*group)));
        let condition = old
            .operand_at(0)
            .ok_or_else(|| tile_dialect::positions::missing("operand", 0))?;
        let (then_region, else_region) = (Region::new(), Region::new());
        then_region.append_block(Block::new(&[]));
        else_region.append_block(Block::new(&[]));
        let b = Builder {
            context: self.context,
            location,
            threads: None,
        };
        let new = b.insert(
            At::before(old),
            melior::dialect::scf::r#if(condition, &results, then_region, else_region, location),
        );
        for index in 0..2 {
            let block = new
                .region_at(index)
                .and_then(|region| region.first_block())
                .expect("a new branch");
            let placeholder = block.append_operation(melior::dialect::scf::r#yield(&[], location));
            let mut inside = state.clone();
            let mut yielded: Vec<Value> = Vec::new();
            if let Some(old_block) = old.region_at(index).and_then(|region| region.first_block()) {
                let old_yield = old_block.terminator().ok_or("an scf.if branch without its yield")?;
                yielded = old_yield.operands().collect();
                rewriter.erase_op(old_yield);
                rewriter.inline_block_before(old_block, placeholder, &[]);
                self.block(block, &mut inside)?;
            }
            self.close(placeholder, yielded, &inside, &groups);
        }
        self.replace(old, new, kept, &groups, state);
        Ok(())
    }

    /// The type `group` travels as: its element, or a vector of them.
    fn group_type(&self, group: Group) -> Type<'c> {
        let element = self.arrays[group.array].element;
        if group.width == 1 {
            element
        } else {
            crate::attributes::vector(group.width as i64, element)
        }
    }
}

tile_passes::rust_pass! {
    /// Creates `tile-promote-private` (on any op holding `gpu.func`s; the sm_90a backend runs it on
    /// each kernel module first).
    pub fn create_promote_private_pass() {
        argument: ARGUMENT,
        name: "TilePromotePrivate",
        description: "Replace the private arrays of lowered kernels that are indexed by constants by the values they hold, carried through scf.for and scf.if",
        anchor: "",
        dialects: [],
        run: |op| run(op, true),
    }
}

tile_passes::rust_pass! {
    /// Creates `tile-promote-private-vectors` (on any op holding `gpu.func`s; the gfx942 backend
    /// runs it on each kernel module first).
    pub fn create_promote_private_vectors_pass() {
        argument: VECTORS_ARGUMENT,
        name: "TilePromotePrivateVectors",
        description: "Replace the private arrays of lowered kernels that are indexed by constants and read or written as vectors somewhere (accumulators) by the values they hold; arrays only accessed slot by slot stay for LLVM's SROA",
        anchor: "",
        dialects: [],
        run: |op| run(op, false),
    }
}
