//! The tile ops that move and combine whole tiles: `tile.copy`, `tile.gemm`, `tile.reduce`,
//! `tile.scan`; and `tile.matmul`, the host op on whole tensors.
//!
//! Invariants (the contract's semantics, `docs/contract.md`):
//! - `tile.copy`: the tile shape is the shape of the side without offsets; element (t) of the tile
//!   moves between `offsets + t` on the other side and `t` on the tile side; on a global buffer an
//!   index past the end reads 0 and drops the write (clipping); any other index outside a buffer,
//!   and any negative index, is an out-of-bounds error; the element converts to the destination
//!   type as the `arith` casts do;
//! - `tile.gemm`: `C[i][j]` accumulates `op(A)[i][k] * op(B)[k][j]` for k = 0, 1, ... in order,
//!   rounded to C's element type after every addition (f32 for f16/bf16/f8 inputs, whose products
//!   f32 holds exactly; i32 for i8, wrapping);
//! - `tile.matmul` (host code, global tensors of run-time sizes): `C[i][j]` is overwritten with
//!   `Σ_k A[i][k] * op(B)[k][j]`, summed in f32 for k = 0, 1, ... in order as `tile.gemm` sums,
//!   then rounded once to C's element type; K = 0 gives zeros, M = 0 or N = 0 writes nothing;
//!   C is not read; batched (A BxMxK, C BxMxN), the same for each batch b with A[b], C[b] and
//!   B[b] (B BxKxN) or B itself (one KxN B for every batch); the batch sizes must agree;
//! - `tile.reduce`: each result element folds its line of `src` along `dim` in index order, starting
//!   from the kind's identity (`clear`) or from the result's current value, rounded to the result's
//!   element type after every step; `max`/`min` propagate NaN like `arith.maximumf`.
//! - `tile.scan`: each element of `dst` folds its line of `src` along `dim` from index 0 up to its
//!   own (exclusive: up to the one before, the identity first), in index order, rounded after every
//!   step;

use crate::arith::{cast, maximum, minimum};
use crate::bound;
use crate::error::Result;
use crate::exec::{Machine, clips, undefined};
use crate::ir::{Op, Update};
use crate::memory::{Level, for_each_index};
use crate::scalar::{Float, Scalar, Val};
use tile_dialect::ops::ReductionKind;

/// Where one tile element is in a buffer: inside it, past its end on a clipping buffer, or outside.
enum Place {
    At(usize),
    Clipped,
    Outside(Vec<i64>),
}

fn place(machine: &Machine, id: usize, offsets: &[i64], spans: &[usize], tile: &[usize]) -> Place {
    let buffer = &machine.buffers[id];
    let tile: Vec<i64> = tile.iter().map(|t| *t as i64).collect();
    let index: Vec<i64> = if offsets.is_empty() {
        tile
    } else {
        // A rank-r tile in a rank-n buffer lies in the r dimensions it spans; the other offsets
        // pick the batch or head (an extent of 1 in those dimensions).
        tile_dialect::ops::place_in(offsets, spans, &tile, |offset, index| offset + index)
    };
    if let Some(position) = buffer.position(&index) {
        return Place::At(position);
    }
    let past_end =
        index.iter().all(|i| *i >= 0) && index.iter().zip(&buffer.shape).any(|(i, size)| *i as usize >= *size);
    if past_end && clips(buffer.level) && index.len() == buffer.shape.len() {
        Place::Clipped
    } else {
        Place::Outside(index)
    }
}

impl Machine {
    /// Runs `tile.copy` with `operands` offsets and limits after its buffers, the tile spanning
    /// dimensions `spans` of the side with offsets; with `saturate` a value past the destination's
    /// largest finite one becomes it. An element at or past a limit is neither read nor written.
    pub fn copy(
        &mut self,
        op: &Op,
        operands: crate::ir::CopyOperands,
        atomic: Option<tile_dialect::ops::ReductionKind>,
        spans: &[usize],
        saturate: bool,
    ) -> Result<()> {
        let (src_offsets, dst_offsets) = (operands.src_offsets, operands.dst_offsets);
        let src = self.buffer(op, 0)?;
        let src_origin = self.ints(op, 1..1 + src_offsets)?;
        let dst = self.buffer(op, 1 + src_offsets)?;
        let dst_origin = self.ints(op, 2 + src_offsets..2 + src_offsets + dst_offsets)?;
        let limits_at = 2 + src_offsets + dst_offsets;
        let limits = self.ints(op, limits_at..limits_at + operands.limits)?;
        let tile = if src_offsets > 0 {
            self.buffers[dst].shape.clone()
        } else {
            self.buffers[src].shape.clone()
        };
        for (origin, id) in [(&src_origin, src), (&dst_origin, dst)] {
            if !origin.is_empty() && origin.len() != self.buffers[id].shape.len() {
                return Err(undefined(op, "expects one offset per dimension"));
            }
        }
        if src_offsets == 0 && dst_offsets == 0 && self.buffers[dst].shape != tile {
            return Err(undefined(
                op,
                format!(
                    "copies a tile of {} into {}",
                    self.buffers[src].describe(),
                    self.buffers[dst].describe()
                ),
            ));
        }
        let (from, to) = (self.buffers[src].element, self.buffers[dst].element);
        let mut moves = Vec::with_capacity(tile.iter().product());
        let mut reads = Vec::with_capacity(tile.iter().product());
        for_each_index(&tile, |t| {
            if limits.iter().zip(t).any(|(limit, index)| *index as i64 >= *limit) {
                return Ok(());
            }
            let (value, read) = match place(self, src, &src_origin, spans, t) {
                Place::At(position) => (self.buffers[src].load(position), Some(position)),
                Place::Clipped => (zero(from), None),
                Place::Outside(index) => return Err(self.out_of_bounds(op, "read", index, src)),
            };
            match place(self, dst, &dst_origin, spans, t) {
                Place::At(position) => {
                    // Only an element that lands somewhere is read: one whose destination is past
                    // the end of a global buffer is dropped, whatever it holds.
                    if let Some(read) = read {
                        self.defined(op, src, read, "its source")?;
                        reads.push(read);
                    }
                    let converted = match (from == to, saturate, value, to) {
                        (true, _, value, _) => value,
                        (false, true, Val::F(x, e), Scalar::Float(float)) => {
                            let largest = float.largest_finite();
                            cast(op, Val::F(x.clamp(-largest, largest), e), from, to, true)?
                        }
                        (false, _, value, _) => cast(op, value, from, to, true)?,
                    };
                    moves.push((position, converted));
                }
                Place::Clipped => {}
                Place::Outside(index) => return Err(self.out_of_bounds(op, "write", index, dst)),
            }
            Ok(())
        })?;
        for position in reads {
            self.note_read(op, src, position)?;
        }
        let Some(kind) = atomic else {
            for (position, value) in moves {
                self.write(op, dst, position, value)?;
            }
            return Ok(());
        };
        let float = matches!(to, Scalar::Float(_));
        let update = tile_dialect::atomic::AtomicKind::of_copy(kind, float)
            .ok_or_else(|| format!("by {kind:?}"))
            .and_then(|kind| Update::of(kind, to))
            .map_err(|why| undefined(op, format!("cannot update {to} elements atomically {why}")))?;
        for (position, value) in moves {
            self.update(op, dst, position, update, value, false)?;
        }
        Ok(())
    }

    /// Runs `tile.gemm`: `C += op(A) * op(B)`.
    pub fn gemm(&mut self, op: &Op, transpose_a: bool, transpose_b: bool) -> Result<()> {
        let (a, b, c) = (self.buffer(op, 0)?, self.buffer(op, 1)?, self.buffer(op, 2)?);
        let matrix = |id: usize| -> Result<[usize; 2]> {
            match self.buffers[id].shape[..] {
                [rows, columns] => Ok([rows, columns]),
                _ => Err(undefined(
                    op,
                    format!("expects 2-D operands, but got {}", self.buffers[id].describe()),
                )),
            }
        };
        let ([a_rows, a_columns], [b_rows, b_columns], [m, n]) = (matrix(a)?, matrix(b)?, matrix(c)?);
        let (a_m, k) = if transpose_a {
            (a_columns, a_rows)
        } else {
            (a_rows, a_columns)
        };
        let (b_k, b_n) = if transpose_b {
            (b_columns, b_rows)
        } else {
            (b_rows, b_columns)
        };
        if a_m != m || b_n != n || b_k != k {
            return Err(undefined(op, "expects MxK, KxN and MxN operands"));
        }
        // Every element of A and B is read, and so is C: the gemm adds to what C holds.
        self.all_defined(op, a, "its operand A")?;
        self.all_defined(op, b, "its operand B")?;
        self.all_defined(op, c, "its accumulator")?;
        if !self.scopes.is_empty() {
            for (id, len) in [(a, a_rows * a_columns), (b, b_rows * b_columns), (c, m * n)] {
                for position in 0..len {
                    self.note_read(op, id, position)?;
                }
            }
        }
        let before = self.buffers[c].data.clone();
        // op(A) as M rows of K, op(B) as N columns of K: the inner loop walks k contiguously; each
        // element with its error bound.
        let gather = |id: usize, outer: usize, at: &dyn Fn(usize, usize) -> usize| {
            let buffer = &self.buffers[id];
            let mut values = vec![(0.0, 0.0); outer * k];
            for i in 0..outer {
                for p in 0..k {
                    let position = at(i, p);
                    values[i * k + p] = (buffer.data[position], buffer.bound[position]);
                }
            }
            values
        };
        let rows = gather(a, m, &|i, p| if transpose_a { p * m + i } else { i * k + p });
        let columns = gather(b, n, &|j, p| if transpose_b { j * k + p } else { p * n + j });
        let accumulator = self.buffers[c].element;
        let buffer = &mut self.buffers[c];
        for i in 0..m {
            let row = &rows[i * k..(i + 1) * k];
            for j in 0..n {
                let column = &columns[j * k..(j + 1) * k];
                let at = i * n + j;
                let mut sum = buffer.data[at];
                match accumulator {
                    Scalar::Float(float) => {
                        // K products added to C in an order the target picks ([`crate::bound`]).
                        let (mut propagated, mut magnitude) = (buffer.bound[at], sum.abs());
                        for ((x, ex), (y, ey)) in row.iter().zip(column) {
                            sum = float.round(sum + x * y);
                            propagated += bound::times(x.abs(), *ey) + bound::times(y.abs(), *ex);
                            magnitude += (x * y).abs();
                        }
                        buffer.bound[at] = bound::sum(float, k, propagated, magnitude);
                    }
                    Scalar::Int(width) => {
                        let mut total = sum as i64;
                        for ((x, _), (y, _)) in row.iter().zip(column) {
                            total = crate::scalar::wrap(total.wrapping_add(*x as i64 * *y as i64), width);
                        }
                        sum = total as f64;
                    }
                    Scalar::Index => return Err(undefined(op, "expects a numeric accumulator")),
                }
                buffer.data[at] = sum;
            }
        }
        for (position, old) in before.into_iter().enumerate() {
            self.note_write(op, c, position, (true, old))?;
        }
        Ok(())
    }

    /// Runs `tile.matmul A, B, C {transpose_b?}`: `C = A * op(B)` on whole global tensors, sizes
    /// read from the buffers: matrices, or batches of them (A BxMxK and C BxMxN, batch first; B
    /// BxKxN, multiplied batch by batch, or one KxN matrix for every batch).
    pub fn matmul(&mut self, op: &Op, transpose_b: bool) -> Result<()> {
        let (a, b, c) = (self.buffer(op, 0)?, self.buffer(op, 1)?, self.buffer(op, 2)?);
        for (id, role) in [(a, "A"), (b, "B"), (c, "C")] {
            let buffer = &self.buffers[id];
            if !matches!(buffer.shape.len(), 2 | 3) || buffer.level != Level::Global {
                return Err(undefined(
                    op,
                    format!(
                        "expects {role} to be a 2-D global tensor, or a 3-D one with a batch dimension first, but got {}",
                        buffer.describe()
                    ),
                ));
            }
            if !matches!(buffer.element, Scalar::Float(_)) {
                return Err(undefined(
                    op,
                    format!("expects {role} to hold floats, but got {}", buffer.describe()),
                ));
            }
        }
        let shapes = |id: usize| self.buffers[id].shape.clone();
        let (a_shape, b_shape, c_shape) = (shapes(a), shapes(b), shapes(c));
        let batched = a_shape.len() == 3;
        let describe = |this: &Self| {
            format!(
                "A {}, B {} and C {}",
                this.buffers[a].describe(),
                this.buffers[b].describe(),
                this.buffers[c].describe()
            )
        };
        if c_shape.len() != a_shape.len() || (!batched && b_shape.len() == 3) {
            return Err(undefined(
                op,
                format!(
                    "expects A and C of one rank (a batch dimension on both or neither) and B batched only with them, but got {}",
                    describe(self)
                ),
            ));
        }
        // The batch size (1 for matrices), and whether each batch has a B of its own.
        let batch = if batched { a_shape[0] } else { 1 };
        let b_batched = b_shape.len() == 3;
        if batched && (c_shape[0] != batch || (b_batched && b_shape[0] != batch)) {
            return Err(undefined(
                op,
                format!("expects one batch size, but got {}", describe(self)),
            ));
        }
        // The matrices: the trailing two dimensions.
        let matrix = |shape: &[usize]| [shape[shape.len() - 2], shape[shape.len() - 1]];
        let [m, k] = matrix(&a_shape);
        let (b_k, n) = match matrix(&b_shape) {
            [rows, columns] if transpose_b => (columns, rows),
            [rows, columns] => (rows, columns),
        };
        if b_k != k || matrix(&c_shape) != [m, n] {
            let batch_form = if batched { "Bx" } else { "" };
            return Err(undefined(
                op,
                format!(
                    "expects {batch_form}MxK, {}{} and {batch_form}MxN tensors, but got {}",
                    if b_batched { "Bx" } else { "" },
                    if transpose_b { "NxK" } else { "KxN" },
                    describe(self)
                ),
            ));
        }
        // Every element of A is read when C has columns, every element of B when C has rows (in
        // some batch); C is only written.
        let reads_a = n > 0;
        let reads_b = m > 0 && batch > 0;
        if reads_a {
            self.all_defined(op, a, "its operand A")?;
        }
        if reads_b {
            self.all_defined(op, b, "its operand B")?;
        }
        if !self.scopes.is_empty() {
            for (id, reads) in [(a, reads_a), (b, reads_b)] {
                for position in 0..if reads { self.buffers[id].data.len() } else { 0 } {
                    self.note_read(op, id, position)?;
                }
            }
        }
        // A matrix as `outer` vectors of K from element `start` on, each element with its error
        // bound: A's as M rows, op(B)'s as N columns.
        let gather = |id: usize, start: usize, outer: usize, at: &dyn Fn(usize, usize) -> usize| {
            let buffer = &self.buffers[id];
            let mut values = Vec::with_capacity(outer * k);
            for i in 0..outer {
                for p in 0..k {
                    let position = start + at(i, p);
                    values.push((buffer.data[position], buffer.bound[position]));
                }
            }
            values
        };
        let b_at = |j: usize, p: usize| if transpose_b { j * k + p } else { p * n + j };
        // One op(B) for every batch, or each batch's own.
        let mut columns = Vec::new();
        let mut results = Vec::with_capacity(batch * m * n);
        for batch_index in 0..batch {
            if batch_index == 0 || b_batched {
                columns = gather(b, batch_index * k * n, n, &b_at);
            }
            let rows = gather(a, batch_index * m * k, m, &|i, p| i * k + p);
            for i in 0..m {
                let row = &rows[i * k..(i + 1) * k];
                for j in 0..n {
                    let column = &columns[j * k..(j + 1) * k];
                    // f16 and bf16 products are exact in f32 (as in f64); summed in f32 in K's
                    // order, as tile.gemm sums (the kernels the targets write for a matmul are
                    // gemms); the store rounds the sum to C's element type.
                    let (mut sum, mut propagated, mut magnitude) = (0.0, 0.0, 0.0);
                    for ((x, ex), (y, ey)) in row.iter().zip(column) {
                        let product = x * y;
                        sum = Float::F32.round(sum + product);
                        propagated += bound::times(x.abs(), *ey) + bound::times(y.abs(), *ex);
                        magnitude += product.abs();
                    }
                    // K products summed in f32 in an order the target picks
                    // ([`crate::bound::sum`]); the store adds the rounding to C's element type.
                    let e = bound::sum(Float::F32, k, propagated, magnitude);
                    results.push(Val::F(sum, e));
                }
            }
        }
        for (position, value) in results.into_iter().enumerate() {
            self.write(op, c, position, value)?;
        }
        Ok(())
    }

    /// Runs `tile.reduce <kind> src, dst dim(dim) {clear}`.
    pub fn reduce(&mut self, op: &Op, kind: ReductionKind, dim: usize, clear: bool) -> Result<()> {
        let (src, dst) = (self.buffer(op, 0)?, self.buffer(op, 1)?);
        let shape = self.buffers[src].shape.clone();
        let mut expected = shape.clone();
        if dim >= shape.len() {
            return Err(undefined(
                op,
                format!("reduces dimension {dim} of a rank-{} tile", shape.len()),
            ));
        }
        let length = expected.remove(dim);
        if self.buffers[dst].shape != expected {
            return Err(undefined(op, "expects a result of the source's shape without dim"));
        }
        let Scalar::Float(float) = self.buffers[dst].element else {
            return Err(undefined(op, "expects a floating-point result"));
        };
        // Every element of the source is read; without `clear`, the result's too.
        self.all_defined(op, src, "its source")?;
        if !clear {
            self.all_defined(op, dst, "its result (clear = false)")?;
        }
        if !self.scopes.is_empty() {
            for position in 0..self.buffers[src].data.len() {
                self.note_read(op, src, position)?;
            }
            if !clear {
                for position in 0..self.buffers[dst].data.len() {
                    self.note_read(op, dst, position)?;
                }
            }
        }
        let stride = self.buffers[src].strides[dim];
        let mut results = Vec::new();
        for_each_index(&expected, |index| {
            let mut full: Vec<i64> = index.iter().map(|i| *i as i64).collect();
            full.insert(dim, 0);
            let start = self.buffers[src].position(&full).expect("inside the source");
            let out = self.buffers[dst]
                .position(
                    &full
                        .iter()
                        .enumerate()
                        .filter(|(d, _)| *d != dim)
                        .map(|(_, i)| *i)
                        .collect::<Vec<_>>(),
                )
                .expect("inside the result");
            let (mut acc, mut propagated) = if clear {
                (identity(kind), 0.0)
            } else {
                (self.buffers[dst].data[out], self.buffers[dst].bound[out])
            };
            let mut magnitude = if clear { 0.0 } else { acc.abs() };
            for r in 0..length {
                let x = self.buffers[src].data[start + r * stride];
                let ex = self.buffers[src].bound[start + r * stride];
                propagated = propagate(kind, propagated, ex);
                magnitude += x.abs();
                acc = float.round(combine(kind, acc, x));
            }
            let e = if sums(kind) {
                bound::sum(float, length, propagated, magnitude)
            } else {
                propagated
            };
            results.push((out, acc, e));
            Ok(())
        })?;
        for (position, value, e) in results {
            self.write(op, dst, position, Val::F(value, e))?;
        }
        Ok(())
    }

    /// Runs `tile.scan`: each line of `src` along `dim`, combined in increasing index order up to
    /// each element (or up to the one before it, `exclusive`), rounded after every step.
    pub fn scan(&mut self, op: &Op, kind: ReductionKind, dim: usize, exclusive: bool) -> Result<()> {
        let (src, dst) = (self.buffer(op, 0)?, self.buffer(op, 1)?);
        let shape = self.buffers[src].shape.clone();
        if dim >= shape.len() || self.buffers[dst].shape != shape {
            return Err(undefined(op, "expects a result of the source's shape and dim in it"));
        }
        let Scalar::Float(float) = self.buffers[dst].element else {
            return Err(undefined(op, "expects a floating-point result"));
        };
        self.all_defined(op, src, "its source")?;
        if !self.scopes.is_empty() {
            for position in 0..self.buffers[src].data.len() {
                self.note_read(op, src, position)?;
            }
        }
        let mut lines = shape.clone();
        let length = lines[dim];
        lines[dim] = 1;
        let mut results = Vec::new();
        for_each_index(&lines, |index| {
            let (mut acc, mut propagated, mut magnitude) = (identity(kind), 0.0, 0.0);
            for r in 0..length {
                let mut at: Vec<i64> = index.iter().map(|i| *i as i64).collect();
                at[dim] = r as i64;
                let from = self.buffers[src].position(&at).expect("inside the source");
                let to = self.buffers[dst].position(&at).expect("inside the result");
                let (x, ex) = (self.buffers[src].data[from], self.buffers[src].bound[from]);
                let before = (acc, propagated, magnitude);
                propagated = propagate(kind, propagated, ex);
                magnitude += x.abs();
                acc = float.round(combine(kind, acc, x));
                let (value, e, m, count) = if exclusive {
                    (before.0, before.1, before.2, r)
                } else {
                    (acc, propagated, magnitude, r + 1)
                };
                let e = if sums(kind) { bound::sum(float, count, e, m) } else { e };
                results.push((to, value, e));
            }
            Ok(())
        })?;
        for (position, value, e) in results {
            self.write(op, dst, position, Val::F(value, e))?;
        }
        Ok(())
    }
}

/// The value a fold of `kind` (`tile.reduce`, `tile.scan`) starts from.
fn identity(kind: ReductionKind) -> f64 {
    match kind {
        ReductionKind::Sum | ReductionKind::AbsSum | ReductionKind::AbsMax => 0.0,
        ReductionKind::Max => f64::NEG_INFINITY,
        ReductionKind::Min => f64::INFINITY,
    }
}

/// One step of a fold of `kind`: `acc` combined with `x`, before rounding.
fn combine(kind: ReductionKind, acc: f64, x: f64) -> f64 {
    match kind {
        ReductionKind::Sum => acc + x,
        ReductionKind::AbsSum => acc + x.abs(),
        ReductionKind::Max => maximum(acc, x),
        ReductionKind::Min => minimum(acc, x),
        ReductionKind::AbsMax => maximum(acc, x.abs()),
    }
}

/// Whether a fold of `kind` adds its terms (its error bound grows with their count and magnitude).
fn sums(kind: ReductionKind) -> bool {
    matches!(kind, ReductionKind::Sum | ReductionKind::AbsSum)
}

/// The error bound carried by a fold of `kind` after a term of bound `ex`: a sum adds its terms'
/// bounds; max and min keep the larger one.
fn propagate(kind: ReductionKind, propagated: f64, ex: f64) -> f64 {
    if sums(kind) {
        propagated + ex
    } else {
        propagated.max(ex)
    }
}

fn zero(element: Scalar) -> Val {
    match element {
        Scalar::Float(_) => Val::F(0.0, 0.0),
        _ => Val::int(0),
    }
}

impl Machine {
    /// `tile.print`: the scalar, or every element of the tile in row-major order, as lines of
    /// [`crate::print::line`] on standard output. Reading an element no op wrote is an error, as
    /// any other read of it.
    pub(crate) fn print(&mut self, op: &Op, message: &str) -> Result<()> {
        use crate::print::{Printed, line};
        let block = self.block.clone().unwrap_or_default();
        let block = [0, 1, 2].map(|d| block.get(d).copied().unwrap_or(0));
        let printed = |value: Val| match value {
            Val::F(x, _) => Printed::Float(x),
            Val::I(x, _) => Printed::Int(x),
            _ => Printed::Int(0),
        };
        let value = self.frame[op.operands[0]];
        let Val::M(id) = value else {
            println!("{}", line(message, block, None, printed(value)));
            return Ok(());
        };
        self.all_defined(op, id, "the printed tile")?;
        let buffer = &self.buffers[id];
        for position in 0..buffer.data.len() {
            let index = buffer.index_of(position);
            println!("{}", line(message, block, Some(&index), printed(buffer.load(position))));
        }
        Ok(())
    }
}
