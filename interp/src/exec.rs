//! The machine: runs a decoded function, op by op, in program order.
//!
//! Invariants:
//! - one frame of slots holds every SSA value of the function; a region's values are overwritten by
//!   each run of the region (a loop iteration, a grid block);
//! - a `tile.kernel` runs its blocks one after another (x fastest, then y, then z); each block
//!   allocates its own tiles, freed when the block ends; `tile.pipelined` is the plain loop it
//!   means; `tile.parallel` runs each iteration once, in row-major order (the contract leaves the
//!   order free, and a program whose result depends on it is racy on a GPU); a `tile.producer`'s
//!   loop runs beside its block an iteration at a time, as the block's `tile.wait`s need
//!   ([`Producer`]);
//! - every op's result is rounded to its type (see [`crate::scalar`]); an operation MLIR leaves
//!   undefined (division by zero, shifts past the width, out-of-range float-to-integer conversion,
//!   non-positive steps) stops the run with [`Error::Undefined`] at that op.

use crate::arith::{binary, bit_count, cast, integer, unary};
use crate::bound;
use crate::error::{Error, OutOfBounds, Result, UndefinedRead};
use crate::ir::{Body, FloatOp, Kind, Op, Update};
use crate::memory::{Buf, Level};
use crate::race::Scope;
use crate::scalar::{Scalar, Val, unsigned, wrap};

/// The state of one run: the frame and the buffers.
pub struct Machine {
    /// One value per slot.
    pub frame: Vec<Val>,
    /// Every live buffer; global buffers first.
    pub buffers: Vec<Buf>,
    /// The grid block being run, for messages.
    pub block: Option<Vec<i64>>,
    /// The buffer of each (ring, slot) taken by `tile.slot`: a ring is only read and written
    /// through its slots.
    pub slots: std::collections::HashMap<(usize, i64), usize>,
    /// The unordered scopes running now, outermost first: a kernel's blocks, a parallel's
    /// iterations (see [`crate::race`]).
    pub scopes: Vec<Scope>,
    /// Barrier arrays allocated so far: the next array's identity.
    pub barriers: i64,
    /// Arrivals on each (barrier array, barrier).
    pub arrivals: std::collections::HashMap<(i64, i64), i64>,
    /// The block's producer, where a `tile.producer` has started one.
    pub producer: Option<Producer>,
    /// Whether a producer iteration is running.
    pub producing: bool,
    /// The fragments a cluster's blocks other than its first left at each `tile.split_sum` (by
    /// the op's place in the function), with their ranks.
    pub partials: std::collections::HashMap<usize, Vec<(i64, Vec<Val>)>>,
}

/// A `tile.producer`'s loop, run an iteration at a time beside its block: the block's
/// `tile.wait` on a barrier whose phase has not completed runs the producer's next iterations
/// until it has (what the GPU's producer warpgroup, running ahead, would have done by then). A
/// producer's own wait on a phase the block has not completed while the block waits for the
/// producer is a deadlock. The order of the copies is the GPU's up to the barriers' guarantees;
/// that the rings' slots are reused only once released is what this checks.
#[derive(Clone, Debug)]
pub struct Producer {
    /// The loop's body (`scf.for`).
    pub body: Body,
    /// The values the loop carries into its next iteration.
    pub carried: Vec<Val>,
    /// The next iteration's induction value.
    pub next: i64,
    /// The loop's end.
    pub upper: i64,
    /// The loop's step.
    pub step: i64,
    /// Whether the loop compares unsigned.
    pub unsigned: bool,
}

/// Returns an [`Error::Undefined`] at `op`.
pub fn undefined(op: &Op, message: impl Into<String>) -> Error {
    Error::Undefined((*op.site).clone(), message.into())
}

impl Machine {
    /// Returns the value in `slot`.
    fn get(&self, slot: usize) -> Val {
        self.frame[slot]
    }

    /// Returns operand `index` of `op` as an integer.
    pub fn int(&self, op: &Op, index: usize) -> Result<i64> {
        self.int_bounded(op, index).map(|(x, _)| x)
    }

    /// Returns operand `index` of `op` as an integer and its error bound.
    fn int_bounded(&self, op: &Op, index: usize) -> Result<(i64, f64)> {
        match self.get(op.operands[index]) {
            Val::I(x, d) => Ok((x, d)),
            other => Err(undefined(
                op,
                format!("expects an integer operand {index}, but got {other}"),
            )),
        }
    }

    /// Whether any of operands `range` of `op` (indices) has an error bound: where it points
    /// depends on a discontinuity another target may land on the other side of.
    fn uncertain_index(&self, op: &Op, range: std::ops::Range<usize>) -> bool {
        range
            .into_iter()
            .any(|index| matches!(self.get(op.operands[index]), Val::I(_, d) if d != 0.0))
    }

    /// Returns operand `index` of `op` as a float.
    fn float(&self, op: &Op, index: usize) -> Result<f64> {
        self.bounded(op, index).map(|(x, _)| x)
    }

    /// Returns operand `index` of `op` as a float and its error bound.
    fn bounded(&self, op: &Op, index: usize) -> Result<(f64, f64)> {
        match self.get(op.operands[index]) {
            Val::F(x, e) => Ok((x, e)),
            other => Err(undefined(
                op,
                format!("expects a float operand {index}, but got {other}"),
            )),
        }
    }

    /// Returns operand `index` of `op` as a buffer number.
    pub fn buffer(&self, op: &Op, index: usize) -> Result<usize> {
        match self.get(op.operands[index]) {
            Val::M(id) => Ok(id),
            other => Err(undefined(
                op,
                format!("expects a buffer operand {index}, but got {other}"),
            )),
        }
    }

    /// Returns operands `range` of `op` as integers (indices, offsets, sizes).
    pub fn ints(&self, op: &Op, range: std::ops::Range<usize>) -> Result<Vec<i64>> {
        range.map(|index| self.int(op, index)).collect()
    }

    /// Returns an out-of-bounds error of `op` accessing `index` in buffer `id`.
    pub fn out_of_bounds(&self, op: &Op, access: &'static str, index: Vec<i64>, id: usize) -> Error {
        Error::OutOfBounds(Box::new(OutOfBounds {
            site: (*op.site).clone(),
            access,
            index,
            buffer: self.buffers[id].describe(),
            block: self.block.clone(),
        }))
    }

    /// Returns an error unless element `position` of buffer `id` was written since it was
    /// allocated: `op` reads it as `role` (`its accumulator`, ...; empty for a plain load).
    pub fn defined(&self, op: &Op, id: usize, position: usize, role: &'static str) -> Result<()> {
        let buffer = &self.buffers[id];
        if buffer.is_written(position) {
            return Ok(());
        }
        Err(self.undefined_read(op, id, position, role))
    }

    /// Returns an error unless every element of buffer `id` was written: `op` reads all of it.
    pub fn all_defined(&self, op: &Op, id: usize, role: &'static str) -> Result<()> {
        let buffer = &self.buffers[id];
        match buffer.written.first_unwritten(buffer.data.len()) {
            None => Ok(()),
            Some(position) => Err(self.undefined_read(op, id, position, role)),
        }
    }

    fn undefined_read(&self, op: &Op, id: usize, position: usize, role: &'static str) -> Error {
        let buffer = &self.buffers[id];
        Error::UndefinedRead(Box::new(UndefinedRead {
            site: (*op.site).clone(),
            role,
            index: buffer.index_of(position),
            buffer: buffer.describe(),
            origin: buffer
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| op.site.as_ref().clone()),
            block: self.block.clone(),
        }))
    }

    /// Notes that `op` reads element `position` of buffer `id`: a race when another agent of an
    /// enclosing unordered scope (block, iteration) changed it.
    pub fn note_read(&mut self, op: &Op, id: usize, position: usize) -> Result<()> {
        let len = self.buffers[id].data.len();
        for index in 0..self.scopes.len() {
            if let Some((how, other)) = self.scopes[index].read(id, len, position) {
                return Err(self.race(op, index, id, position, "reads", how, other));
            }
        }
        Ok(())
    }

    /// Stores `value` at element `position` of buffer `id` for `op`: a race when the store changes
    /// the element and another agent of an enclosing unordered scope changed or read it.
    pub fn write(&mut self, op: &Op, id: usize, position: usize, value: Val) -> Result<()> {
        let buffer = &mut self.buffers[id];
        let before = (buffer.is_written(position), buffer.data[position]);
        buffer.store(position, value);
        self.note_write(op, id, position, before)
    }

    /// Notes that `op` wrote element `position` of buffer `id`, which held `before` (written, and
    /// its value) until then.
    pub fn note_write(&mut self, op: &Op, id: usize, position: usize, before: (bool, f64)) -> Result<()> {
        if self.scopes.is_empty() {
            return Ok(());
        }
        let buffer = &self.buffers[id];
        if before.0 && before.1.to_bits() == buffer.data[position].to_bits() {
            return Ok(());
        }
        let len = buffer.data.len();
        for index in 0..self.scopes.len() {
            if let Some((how, other)) = self.scopes[index].change(id, len, position) {
                return Err(self.race(op, index, id, position, "writes", how, other));
            }
        }
        Ok(())
    }

    /// Updates element `position` of buffer `id` atomically with `value` as `update` says (the
    /// element is the left operand; `uncertain`: where the element lies depends on a rounding);
    /// returns what it held.
    pub fn update(
        &mut self,
        op: &Op,
        id: usize,
        position: usize,
        update: Update,
        value: Val,
        uncertain: bool,
    ) -> Result<Val> {
        self.defined(op, id, position, "")?;
        let old = self.buffers[id].load(position);
        let new = match (update, old, value) {
            (Update::Float(kind, float), Val::F(a, d), Val::F(b, e)) => {
                let r = float.round(binary(kind, a, b));
                Val::F(r, bound::binary(kind, float, (a, d), (b, e), r))
            }
            (Update::Int(kind, width), Val::I(a, d), Val::I(b, e)) => Val::I(
                integer(op, kind, width, a, b)?,
                bound::integer(kind, width, (a, d), (b, e)),
            ),
            (Update::Assign, _, value) => value,
            (_, old, value) => {
                return Err(undefined(
                    op,
                    format!("cannot update the element {old} with {value} as its kind says"),
                ));
            }
        };
        self.buffers[id].store(position, if uncertain { unbounded(new) } else { new });
        self.note_update(op, id, position)?;
        Ok(old)
    }

    /// Notes that `op` updated element `position` of buffer `id` atomically: a race when another
    /// agent of an enclosing unordered scope changed or read it plainly (atomic updates by several
    /// agents are ordered by the memory system, one after another).
    pub fn note_update(&mut self, op: &Op, id: usize, position: usize) -> Result<()> {
        let len = self.buffers[id].data.len();
        for index in 0..self.scopes.len() {
            if let Some((how, other)) = self.scopes[index].update(id, len, position) {
                return Err(self.race(op, index, id, position, "updates", how, other));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn race(
        &self,
        op: &Op,
        scope: usize,
        id: usize,
        position: usize,
        access: &str,
        how: &str,
        other: Option<u32>,
    ) -> Error {
        let scope = &self.scopes[scope];
        let buffer = &self.buffers[id];
        let index: Vec<String> = buffer.index_of(position).iter().map(i64::to_string).collect();
        let mut message = format!(
            "races: {} of a {} {access} element [{}] of {}, which {} {how} (the {}s of a {} are unordered)",
            scope.current(),
            scope.op,
            index.join(", "),
            buffer.describe(),
            scope.describe(other),
            scope.what,
            scope.op
        );
        if scope.what == "iteration"
            && let Some(block) = &self.block
        {
            let block: Vec<String> = block.iter().map(i64::to_string).collect();
            message.push_str(&format!(" (in block [{}])", block.join(", ")));
        }
        undefined(op, message)
    }

    /// Runs `body` with its arguments set to `arguments`; returns the values its terminator yields.
    pub fn run(&mut self, body: &Body, arguments: &[Val]) -> Result<Vec<Val>> {
        for (slot, value) in body.arguments.iter().zip(arguments) {
            self.frame[*slot] = *value;
        }
        for op in &body.ops {
            if let Kind::Yield = op.kind {
                return Ok(op.operands.iter().map(|slot| self.get(*slot)).collect());
            }
            self.op(op)?;
        }
        Ok(Vec::new())
    }

    /// Runs `body` like [`Machine::run`], then frees the buffers it allocated unless it yields one.
    pub fn run_scoped(&mut self, body: &Body, arguments: &[Val]) -> Result<Vec<Val>> {
        let mark = self.buffers.len();
        let yielded = self.run(body, arguments)?;
        // The slots of a ring that outlives this body live as long as the ring.
        let ring_slots = self.slots.iter().any(|((ring, _), id)| *ring < mark && *id >= mark);
        if self.buffers.len() > mark && !ring_slots && !yielded.iter().any(|v| matches!(v, Val::M(id) if *id >= mark)) {
            self.buffers.truncate(mark);
            self.slots.retain(|(ring, _), id| *ring < mark && *id < mark);
        }
        Ok(yielded)
    }

    fn set(&mut self, op: &Op, value: Val) {
        self.frame[op.results[0]] = value;
    }

    fn op(&mut self, op: &Op) -> Result<()> {
        match &op.kind {
            Kind::Constant(value) => self.set(op, *value),
            Kind::Int(kind, width) => {
                let (a, b) = (self.int_bounded(op, 0)?, self.int_bounded(op, 1)?);
                let value = integer(op, *kind, *width, a.0, b.0)?;
                self.set(op, Val::I(value, bound::integer(*kind, *width, a, b)));
            }
            Kind::Bits(kind, width) => {
                let (value, d) = self.int_bounded(op, 0)?;
                let d = if d == 0.0 { 0.0 } else { f64::INFINITY };
                self.set(op, Val::I(bit_count(*kind, value, *width), d));
            }
            Kind::FloatClass(nan) => {
                let x = self.float(op, 0)?;
                let holds = if *nan { x.is_nan() } else { x.is_finite() };
                self.set(op, Val::int(holds as i64));
            }
            Kind::PowI(float) => {
                let ((x, e), (n, dn)) = (self.bounded(op, 0)?, self.int_bounded(op, 1)?);
                let r = float.round(x.powi(n as i32));
                // d(x^n) = n x^(n-1) dx, and n - 1 roundings of repeated multiplication.
                let propagated = bound::times((n as f64 * x.powi(n as i32 - 1)).abs(), e);
                let rounds = (n.unsigned_abs() as f64).max(1.0);
                let exponent = if dn == 0.0 { 0.0 } else { f64::INFINITY };
                self.set(
                    op,
                    Val::F(r, propagated + rounds * bound::rounding(*float, r) + exponent),
                );
            }
            Kind::AbsI(width) => {
                let (value, d) = self.int_bounded(op, 0)?;
                self.set(op, Val::I(wrap(value.wrapping_abs(), *width), d));
            }
            Kind::CmpI(predicate, width) => {
                let ((a, da), (b, db)) = (self.int_bounded(op, 0)?, self.int_bounded(op, 1)?);
                let (ua, ub) = (unsigned(a, *width), unsigned(b, *width));
                let holds = match predicate {
                    0 => a == b,
                    1 => a != b,
                    2 => a < b,
                    3 => a <= b,
                    4 => a > b,
                    5 => a >= b,
                    6 => ua < ub,
                    7 => ua <= ub,
                    8 => ua > ub,
                    9 => ua >= ub,
                    other => return Err(undefined(op, format!("has no predicate {other}"))),
                };
                let flips = bound::may_flip(a as f64, b as f64, da, db);
                self.set(op, Val::I(-(holds as i64), if flips { 1.0 } else { 0.0 }));
            }
            Kind::CmpF(predicate) => {
                let ((a, ea), (b, eb)) = (self.bounded(op, 0)?, self.bounded(op, 1)?);
                let unordered = a.is_nan() || b.is_nan();
                let relation = |p: i64| match p {
                    1 => a == b,
                    2 => a > b,
                    3 => a >= b,
                    4 => a < b,
                    5 => a <= b,
                    _ => a != b,
                };
                let holds = match predicate {
                    0 => false,
                    1..=6 => !unordered && relation(*predicate),
                    7 => !unordered,
                    8..=13 => unordered || relation(predicate - 7),
                    14 => unordered,
                    _ => true,
                };
                // Always and never hold whatever the operands.
                let flips = !matches!(predicate, 0 | 15) && bound::may_flip(a, b, ea, eb);
                self.set(op, Val::I(-(holds as i64), if flips { 1.0 } else { 0.0 }));
            }
            Kind::Select => {
                let (condition, flips) = self.int_bounded(op, 0)?;
                let chosen = if condition != 0 { 1 } else { 2 };
                let value = self.get(op.operands[chosen]);
                // On a condition that may flip, either arm.
                let value = match (flips != 0.0, value, self.get(op.operands[3 - chosen])) {
                    (true, Val::F(x, e), Val::F(y, f)) => Val::F(x, bound::either(x, y, e, f)),
                    (true, Val::I(x, d), Val::I(y, f)) => Val::I(x, bound::either(x as f64, y as f64, d, f)),
                    _ => value,
                };
                self.set(op, value);
            }
            Kind::Float(kind, float) => {
                let (a, b) = (self.bounded(op, 0)?, self.bounded(op, 1)?);
                let r = float.round(binary(*kind, a.0, b.0));
                self.set(op, Val::F(r, bound::binary(*kind, *float, a, b, r)));
            }
            Kind::Unary(kind, float) => {
                let x = self.bounded(op, 0)?;
                let r = float.round(unary(*kind, x.0));
                self.set(op, Val::F(r, bound::unary(*kind, *float, x, r)));
            }
            Kind::Fma(float) => {
                let (a, b, c) = (self.bounded(op, 0)?, self.bounded(op, 1)?, self.bounded(op, 2)?);
                let r = float.round(a.0.mul_add(b.0, c.0));
                // A target may round the product too (no fused multiply-add).
                let product = bound::binary(FloatOp::Mul, *float, a, b, a.0 * b.0);
                let e = bound::binary(FloatOp::Add, *float, (a.0 * b.0, product), c, r);
                self.set(op, Val::F(r, e));
            }
            Kind::Bitcast { from, to } => {
                let value = crate::arith::bitcast(self.get(op.operands[0]), *from, *to);
                self.set(op, value);
            }
            Kind::Cast { from, to, signed } => {
                let value = cast(op, self.get(op.operands[0]), *from, *to, *signed)?;
                self.set(op, value);
            }
            Kind::Load => {
                let id = self.buffer(op, 0)?;
                let index = self.ints(op, 1..op.operands.len())?;
                let Some(position) = self.buffers[id].position(&index) else {
                    return Err(self.out_of_bounds(op, "read", index, id));
                };
                self.defined(op, id, position, "")?;
                self.note_read(op, id, position)?;
                let value = self.buffers[id].load(position);
                let value = if self.uncertain_index(op, 1..op.operands.len()) {
                    unbounded(value)
                } else {
                    value
                };
                self.set(op, value);
            }
            Kind::Store => {
                let value = self.get(op.operands[0]);
                let id = self.buffer(op, 1)?;
                let index = self.ints(op, 2..op.operands.len())?;
                let Some(position) = self.buffers[id].position(&index) else {
                    return Err(self.out_of_bounds(op, "write", index, id));
                };
                let value = if self.uncertain_index(op, 2..op.operands.len()) {
                    unbounded(value)
                } else {
                    value
                };
                self.write(op, id, position, value)?;
            }
            Kind::Atomic(update) => {
                let id = self.buffer(op, 1)?;
                let index = self.ints(op, 2..op.operands.len())?;
                let Some(position) = self.buffers[id].position(&index) else {
                    return Err(self.out_of_bounds(op, "update", index, id));
                };
                let uncertain = self.uncertain_index(op, 2..op.operands.len());
                let old = self.update(op, id, position, *update, self.get(op.operands[0]), uncertain)?;
                self.set(op, old);
            }
            Kind::Dim => {
                let id = self.buffer(op, 0)?;
                let dim = self.int(op, 1)?;
                let size = usize::try_from(dim)
                    .ok()
                    .and_then(|dim| self.buffers[id].shape.get(dim))
                    .ok_or_else(|| {
                        undefined(
                            op,
                            format!(
                                "asks for dimension {dim} of a rank-{} buffer",
                                self.buffers[id].shape.len()
                            ),
                        )
                    })?;
                self.set(op, Val::int(*size as i64));
            }
            Kind::Address => {
                // Each buffer at an address of its own, as far from the next as any buffer is
                // long and aligned as a CUDA allocation is (to 256 bytes and more): programs that
                // choose a kernel by their tensors' alignment take the aligned one.
                let id = self.buffer(op, 0)?;
                self.set(op, Val::int(((id as i64) + 1) << 40));
            }
            Kind::Alloc(r#type, level) => {
                let mut sizes = self.ints(op, 0..op.operands.len())?.into_iter();
                let mut shape = Vec::new();
                for size in &r#type.shape {
                    let size = match size {
                        Some(size) => *size as i64,
                        None => sizes.next().unwrap_or(-1),
                    };
                    if size < 0 {
                        return Err(undefined(op, format!("allocates a negative size {size}")));
                    }
                    shape.push(size as usize);
                }
                self.buffers.push(Buf::new(r#type, shape, *level, op.site.clone()));
                self.set(op, Val::M(self.buffers.len() - 1));
            }
            Kind::Dealloc => {}
            Kind::For(unsigned_compare) => self.scf_for(op, *unsigned_compare)?,
            Kind::If => {
                let (condition, flips) = self.int_bounded(op, 0)?;
                let region = if condition != 0 { 0 } else { 1 };
                let yielded = match op.regions.get(region) {
                    Some(body) => self.run_scoped(body, &[])?,
                    None => Vec::new(),
                };
                for (slot, value) in op.results.iter().zip(yielded) {
                    self.frame[*slot] = if flips != 0.0 { unbounded(value) } else { value };
                }
            }
            Kind::Yield => {}
            Kind::Kernel(splits) => self.kernel(op, *splits)?,
            Kind::Pipelined => {
                let (lower, upper) = (self.int(op, 0)?, self.int(op, 1)?);
                let step = if op.operands.len() > 2 { self.int(op, 2)? } else { 1 };
                if step <= 0 {
                    return Err(undefined(op, format!("expects a positive step, but got {step}")));
                }
                let mut k = lower;
                while k < upper {
                    self.run_scoped(&op.regions[0], &[Val::int(k)])?;
                    k = match k.checked_add(step) {
                        Some(next) => next,
                        None => break,
                    };
                }
            }
            Kind::Parallel(extents) => {
                let shape: Vec<usize> = extents.iter().map(|extent| (*extent).max(0) as usize).collect();
                let mut arguments = vec![Val::Unset; shape.len()];
                self.scopes
                    .push(Scope::new(self.buffers.len(), "iteration", shape.clone(), false));
                let mut agent = 0;
                let result = crate::memory::for_each_index(&shape, |index| {
                    for (argument, i) in arguments.iter_mut().zip(index) {
                        *argument = Val::int(*i as i64);
                    }
                    if let Some(scope) = self.scopes.last_mut() {
                        scope.agent = agent;
                    }
                    agent += 1;
                    self.run_scoped(&op.regions[0], &arguments).map(drop)
                });
                self.scopes.pop();
                result?;
            }
            Kind::Copy(operands, atomic, spans, saturate) => self.copy(op, *operands, *atomic, spans, *saturate)?,
            Kind::Slot(r#type) => {
                let ring = self.buffer(op, 0)?;
                let slot = self.int(op, 1)?;
                let slots = self.buffers[ring].shape.first().copied().unwrap_or(0) as i64;
                if !(0..slots).contains(&slot) {
                    return Err(undefined(op, format!("takes slot {slot} of a ring of {slots}")));
                }
                let id = match self.slots.get(&(ring, slot)) {
                    Some(id) => *id,
                    None => {
                        let shape = self.buffers[ring].shape[1..].to_vec();
                        self.buffers
                            .push(Buf::new(r#type, shape, Level::Shared, op.site.clone()));
                        self.slots.insert((ring, slot), self.buffers.len() - 1);
                        self.buffers.len() - 1
                    }
                };
                self.set(op, Val::M(id));
            }
            Kind::Barriers => {
                self.barriers += 1;
                self.set(op, Val::int(self.barriers));
            }
            Kind::Sync => {}
            Kind::Arrive => {
                let key = (self.int(op, 0)?, self.int(op, 1)?);
                *self.arrivals.entry(key).or_insert(0) += 1;
            }
            Kind::Wait => self.wait(op)?,
            Kind::Producer => self.start_producer(op)?,
            Kind::Gemm(transpose_a, transpose_b) => self.gemm(op, *transpose_a, *transpose_b)?,
            Kind::Matmul(transpose_b) => self.matmul(op, *transpose_b)?,
            Kind::Fill => {
                let id = self.buffer(op, 0)?;
                let value = self.get(op.operands[1]);
                for position in 0..self.buffers[id].data.len() {
                    self.write(op, id, position, value)?;
                }
            }
            Kind::Reduce(kind, dim, clear) => self.reduce(op, *kind, *dim, *clear)?,
            Kind::Scan(kind, dim, exclusive) => self.scan(op, *kind, *dim, *exclusive)?,
            Kind::Print(message) => self.print(op, message)?,
            Kind::SplitSum(splits) => self.split_sum(op, *splits)?,
        }
        Ok(())
    }

    fn scf_for(&mut self, op: &Op, unsigned_compare: bool) -> Result<()> {
        let (lower, upper, step) = (self.int(op, 0)?, self.int(op, 1)?, self.int(op, 2)?);
        let below = |i: i64| {
            if unsigned_compare {
                (i as u64) < (upper as u64)
            } else {
                i < upper
            }
        };
        if step <= 0 && (unsigned_compare || below(lower)) {
            return Err(undefined(op, format!("expects a positive step, but got {step}")));
        }
        let mut carried: Vec<Val> = op.operands[3..].iter().map(|slot| self.get(*slot)).collect();
        let mut i = lower;
        while below(i) {
            let mut arguments = vec![Val::int(i)];
            arguments.extend_from_slice(&carried);
            carried = self.run_scoped(&op.regions[0], &arguments)?;
            i = match i.checked_add(step) {
                Some(next) => next,
                None => break,
            };
        }
        for (slot, value) in op.results.iter().zip(carried) {
            self.frame[*slot] = value;
        }
        Ok(())
    }

    /// The phases of a barrier that have completed: its arrivals (one `tile.arrive` a phase: the
    /// block's threads arrive together, a producer's one thread once).
    fn completed(&self, key: (i64, i64)) -> i64 {
        self.arrivals.get(&key).copied().unwrap_or(0)
    }

    fn wait(&mut self, op: &Op) -> Result<()> {
        let key = (self.int(op, 0)?, self.int(op, 1)?);
        let round = self.int(op, 2)?;
        if self.producing {
            if self.completed(key) <= round {
                return Err(undefined(
                    op,
                    format!(
                        "in the producer waits for phase {round} of a barrier the block has completed {} phases of, while the block waits for the producer: on the GPU, a deadlock",
                        self.completed(key)
                    ),
                ));
            }
            return Ok(());
        }
        if self.producer.is_none() {
            return Ok(());
        }
        while self.completed(key) <= round {
            if !self.producer_step(op)? {
                return Err(undefined(
                    op,
                    format!(
                        "waits for phase {round} of a barrier with {} completed phases, which the producer, done with its iterations, never completes: on the GPU, a hang",
                        self.completed(key)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Starts the block's producer: the ops of its region before its loop run now, the loop an
    /// iteration at a time as the block's waits need (see [`Producer`]).
    fn start_producer(&mut self, op: &Op) -> Result<()> {
        let body = &op.regions[0];
        let loops: Vec<usize> = (0..body.ops.len())
            .filter(|i| matches!(body.ops[*i].kind, Kind::For(_)))
            .collect();
        // Another form of producer is a limit of the interpreter, not of the program.
        let shape = |why: &str| {
            Error::UnsupportedForm(
                (*op.site).clone(),
                format!(
                    "with {why} (the interpreter runs a producer whose region is one loop after its index arithmetic)"
                ),
            )
        };
        let [at] = loops[..] else {
            return Err(shape("no loop or several"));
        };
        if body.ops[at + 1..].iter().any(|op| !matches!(op.kind, Kind::Yield)) || self.producer.is_some() {
            return Err(shape("ops after its loop, or beside another producer"));
        }
        for inner in &body.ops[..at] {
            self.op(inner)?;
        }
        let looped = &body.ops[at];
        let Kind::For(unsigned) = looped.kind else {
            unreachable!("a loop")
        };
        let (lower, upper, step) = (self.int(looped, 0)?, self.int(looped, 1)?, self.int(looped, 2)?);
        if step <= 0 {
            return Err(undefined(looped, format!("expects a positive step, but got {step}")));
        }
        self.producer = Some(Producer {
            body: looped.regions[0].clone(),
            carried: looped.operands[3..].iter().map(|slot| self.get(*slot)).collect(),
            next: lower,
            upper,
            step,
            unsigned,
        });
        Ok(())
    }

    /// Runs the producer's next iteration for the wait `op`; false where it has none left.
    fn producer_step(&mut self, op: &Op) -> Result<bool> {
        let Some(mut producer) = self.producer.take() else {
            return Ok(false);
        };
        let below = match producer.unsigned {
            true => (producer.next as u64) < (producer.upper as u64),
            false => producer.next < producer.upper,
        };
        if !below {
            self.producer = Some(producer);
            return Ok(false);
        }
        let i = producer.next;
        producer.next = i.checked_add(producer.step).unwrap_or(producer.upper);
        self.producing = true;
        let mut arguments = vec![Val::int(i)];
        arguments.extend_from_slice(&producer.carried);
        let ran = self.run_scoped(&producer.body, &arguments);
        self.producing = false;
        if let Ok(carried) = &ran {
            producer.carried.clone_from(carried);
        }
        self.producer = Some(producer);
        ran.map_err(|error| match error {
            Error::Undefined(..) => error,
            other => undefined(
                op,
                format!("waits for the producer, whose iteration {i} failed: {other:?}"),
            ),
        })?;
        Ok(true)
    }

    /// `tile.split_sum`: the blocks of a cluster run from its last rank to its first
    /// ([`Machine::kernel`]); each but the first leaves a copy of its fragment, and the first adds
    /// them to its own in rank order, each sum rounded to the fragment's type.
    fn split_sum(&mut self, op: &Op, splits: i64) -> Result<()> {
        let id = self.buffer(op, 0)?;
        let rank = self.int(op, 2)?;
        let place = op as *const Op as usize;
        if rank != 0 {
            let buffer = &self.buffers[id];
            let values = (0..buffer.data.len()).map(|position| buffer.load(position)).collect();
            self.partials.entry(place).or_default().push((rank, values));
            return Ok(());
        }
        let element = self.buffers[id].element;
        let mut partials = self.partials.remove(&place).unwrap_or_default();
        partials.sort_by_key(|(rank, _)| *rank);
        if partials.iter().map(|(rank, _)| *rank).ne(1..splits) {
            return Err(undefined(
                op,
                format!(
                    "sums {splits} splits, but the cluster's other blocks reached it as ranks {:?}",
                    partials.iter().map(|(rank, _)| *rank).collect::<Vec<_>>()
                ),
            ));
        }
        for (_, values) in partials {
            for (position, value) in values.into_iter().enumerate() {
                let sum = match (element, self.buffers[id].load(position), value) {
                    (Scalar::Float(float), Val::F(a, e), Val::F(b, f)) => {
                        let r = float.round(a + b);
                        Val::F(r, crate::bound::binary(FloatOp::Add, float, (a, e), (b, f), r))
                    }
                    (_, Val::I(a, d), Val::I(b, c)) => {
                        let width = element.width().unwrap_or(64);
                        Val::I(wrap(a.wrapping_add(b), width), crate::bound::flips(width, d + c))
                    }
                    _ => return Err(undefined(op, "sums an element that no block wrote")),
                };
                self.write(op, id, position, sum)?;
            }
        }
        Ok(())
    }

    fn kernel(&mut self, op: &Op, splits: Option<i64>) -> Result<()> {
        let grid = self.ints(op, 0..op.operands.len())?;
        if let Some(size) = grid.iter().find(|size| **size < 0) {
            return Err(undefined(
                op,
                format!("expects a non-negative grid, but got a size {size}"),
            ));
        }
        let shape: Vec<usize> = grid.iter().rev().map(|size| *size as usize).collect();
        let outer = self.block.take();
        self.scopes
            .push(Scope::new(self.buffers.len(), "block", shape.clone(), true));
        let mut agent = 0;
        let result = crate::memory::for_each_index(&shape, |reversed| {
            let mut block: Vec<i64> = reversed.iter().rev().map(|i| *i as i64).collect();
            // A cluster's blocks from its last rank to its first, so that the first finds the
            // others' parts at its tile.split_sum (on the GPU they run side by side).
            if let Some(splits) = splits.filter(|splits| *splits > 1 && grid[0] % *splits == 0) {
                if block[0] % splits == 0 {
                    self.partials.clear();
                }
                block[0] = block[0] / splits * splits + (splits - 1 - block[0] % splits);
            }
            let arguments: Vec<Val> = block.iter().map(|i| Val::int(*i)).collect();
            self.block = Some(block);
            if let Some(scope) = self.scopes.last_mut() {
                scope.agent = agent;
            }
            agent += 1;
            // A block's producer runs beside it alone.
            self.producer = None;
            let ran = self.run_scoped(&op.regions[0], &arguments).map(drop);
            self.producer = None;
            ran
        });
        self.scopes.pop();
        self.block = outer;
        result
    }
}

/// `value` with no error bound (infinite): what depends on a discontinuity that is not modelled.
fn unbounded(value: Val) -> Val {
    match value {
        Val::F(x, _) => Val::F(x, f64::INFINITY),
        Val::I(x, _) => Val::I(x, f64::INFINITY),
        other => other,
    }
}

/// Returns true when `level` clips tiles copied across its end.
pub fn clips(level: Level) -> bool {
    level == Level::Global
}
