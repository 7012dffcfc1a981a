//! The spirv-coopmat rules for an accumulator held in cooperative matrices (its layout is
//! `crate::layout::atoms::coopmat_accumulator`, and `crate::spirv::coopmat::held` found its uses in
//! two phases): subgroup `s` keeps its `tm`x`tn` matrices of the accumulator as matrix values from
//! the fill to the staging point, with no workgroup memory and no barrier between gemms.
//!
//! | op | lowering |
//! |----|----------|
//! | `tile.fill` | one `gpu.subgroup_mma_constant_matrix`, the value of every matrix |
//! | `tile.gemm` | per 16-deep K slice: the subgroup's `tm` A and `tn` B matrices loaded from the shared tiles, `tm * tn` `gpu.subgroup_mma_compute`; one barrier at the end (the tiles' next writers wait) |
//! | staging point | per round of `capacity` matrices: each subgroup stores them to its part of a workgroup area, barrier, every lane reads its 8 elements of each into the slots the layout gives, barrier |
//!
//! Between the ops a matrix lives in a placeholder (a `memref<256xf32>` alloca marked
//! [`crate::registers::promote::MATRIX_VARIABLE`], stored and loaded whole by the subgroup matrix ops);
//! `crate::registers::promote` replaces the placeholders by values carried through the loops,
//! once the loops are `scf.for`s.

use super::staged::{MATRIX, Source, load_matrix, load_operand, matrix_type, stored_row};
use super::*;
use crate::spirv::coopmat::config::SUBGROUP;
use tile_dialect::positions::OperationAt;
use tile_ir::tile::{AllocFragmentOperation, GemmOperation};

/// The most matrices a subgroup stages at once: 16 KiB of workgroup memory on 4 subgroups, the
/// staging's barriers few (it runs once a kernel) and the workgroups that fit on a multiprocessor
/// many.
const STAGED_AT_ONCE: i64 = 4;

/// An accumulator held in cooperative matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// Rows and columns of the accumulator.
    pub shape: (i64, i64),
    /// Subgroups along M and along N.
    pub subgroups: (i64, i64),
    /// Matrices of a subgroup staged at once (the workgroup area holds that many per subgroup).
    pub capacity: i64,
    /// The op before which it is staged into registers (by pointer; none when nothing reads it).
    pub staged_before: Option<usize>,
}

impl Held {
    /// Matrices of a subgroup along M and along N.
    pub fn matrices(&self) -> (i64, i64) {
        (
            self.shape.0 / self.subgroups.0 / MATRIX,
            self.shape.1 / self.subgroups.1 / MATRIX,
        )
    }

    /// Matrices a subgroup holds.
    pub fn count(&self) -> i64 {
        let (tm, tn) = self.matrices();
        tm * tn
    }

    /// f32 elements of the workgroup area its staging goes through.
    pub fn staging_elements(&self) -> i64 {
        if self.staged_before.is_none() {
            return 0;
        }
        self.subgroups.0 * self.subgroups.1 * self.capacity * MATRIX * MATRIX
    }
}

/// Whether `gemm` is one the held rule multiplies: f16 x f16 -> f32 with shared A and B and K a
/// multiple of 16.
fn held_gemm(gemm: &OperationRef) -> bool {
    let [Some(a), Some(b), Some(c)] = [0, 1, 2].map(|i| gemm.operand_at(i)) else {
        return false;
    };
    let f16 = |value: Value| element_type(value).is_f16();
    let shared = |value: Value| level(value) == Some(MemoryLevel::Shared);
    let a_shape = memref_shape(a);
    let depth = if gemm.attribute("transpose_a").is_ok() {
        a_shape[0]
    } else {
        a_shape[a_shape.len() - 1]
    };
    f16(a) && f16(b) && element_type(c).is_f32() && shared(a) && shared(b) && a_shape.len() == 2 && depth % MATRIX == 0
}

/// The accumulators of `kernel` held in cooperative matrices, by allocation: those whose recorded
/// layout is the cooperative-matrix one for the kernel's subgroups, whose uses fall in the two
/// phases, whose gemms the rule takes, and whose staging fits in the `free` bytes of workgroup
/// memory. Any other fragment (one laid out by hand, say) is an ordinary register fragment.
pub fn held_plan<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    threads: i64,
    free: i64,
) -> HashMap<usize, Held> {
    let mut held = HashMap::new();
    for allocation in ops.iter().filter(|op| tile_ir::is(*op, AllocFragmentOperation::name)) {
        let Some(placed) = layouts.fragment(allocation) else {
            continue;
        };
        let &[m, n] = &placed.layout.shape[..] else { continue };
        if placed.layout.origin != crate::layout::atoms::COOPMAT_ACCUMULATOR {
            continue;
        }
        let Ok(subgroups) = crate::spirv::coopmat::config::subgroup_split(threads, m, n) else {
            continue;
        };
        if !placed
            .layout
            .same_placement(&crate::layout::atoms::coopmat_accumulator(m, n, subgroups))
        {
            continue;
        }
        let fragment: Value = allocation.result_at(0).expect("a fragment").into();
        let Ok(point) = crate::spirv::coopmat::held::staging_point(kernel, fragment) else {
            continue;
        };
        let gemms_fit = ops
            .iter()
            .filter(|op| tile_ir::is(*op, GemmOperation::name) && op.operand_at(2).is_some_and(|c| c == fragment))
            .all(held_gemm);
        let mut plan = Held {
            shape: (m, n),
            subgroups,
            capacity: 1,
            staged_before: point.map(|op| key(&op)),
        };
        let per_matrix = subgroups.0 * subgroups.1 * MATRIX * MATRIX * 4;
        plan.capacity = (free / per_matrix).min(plan.count()).min(STAGED_AT_ONCE);
        if gemms_fit && (plan.capacity >= 1 || point.is_none()) {
            held.insert(key(allocation), plan);
        }
    }
    held
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// The subgroup of this invocation, and its first row and column in an accumulator held as
    /// `held`.
    fn subgroup_origin(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        held: &Held,
    ) -> (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>) {
        let width = b.index(at, SUBGROUP);
        let subgroup = b.divui(at, self.tid, width);
        let along_n = b.index(at, held.subgroups.1);
        let (sm, sn) = (b.divui(at, subgroup, along_n), b.remui(at, subgroup, along_n));
        let rows = b.index(at, held.shape.0 / held.subgroups.0);
        let columns = b.index(at, held.shape.1 / held.subgroups.1);
        (subgroup, b.muli(at, sm, rows), b.muli(at, sn, columns))
    }

    /// Loads matrix variable `variable` (a placeholder until `promote`).
    fn load_held(&self, b: &Builder<'c>, at: At<'c, 'a>, variable: Value<'c, 'a>) -> Value<'c, 'a> {
        load_matrix(
            self.context,
            b,
            at,
            variable,
            &[self.zero_index],
            MATRIX,
            false,
            matrix_type(self.context, "f32", "COp"),
        )
    }

    /// Stores `matrix` into matrix variable `variable`.
    fn store_held(&self, b: &Builder<'c>, at: At<'c, 'a>, matrix: Value<'c, 'a>, variable: Value<'c, 'a>) {
        store_matrix(self.context, b, at, matrix, variable, self.zero_index);
    }

    /// `tile.fill` of a held accumulator: every matrix the constant.
    pub(super) fn fill_held(&self, op: OperationRef<'c, 'a>, variables: &[Value<'c, 'a>]) {
        let b = self.builder(&op);
        let at = At::before(op);
        let value = op.operand_at(1).expect("fill value");
        let value = convert(&b, at, value, Type::float32(self.context));
        let matrix = b.value(
            at,
            tile_ir::gpu::subgroup_mma_constant_matrix(
                self.context,
                matrix_type(self.context, "f32", "COp"),
                value,
                b.location,
            )
            .into(),
        );
        for variable in variables {
            self.store_held(&b, at, matrix, *variable);
        }
        erase(self.context, op);
    }

    /// `C += A B` into a held accumulator: the subgroup's matrices, 16 deep at a time.
    pub(super) fn gemm_held(&self, op: OperationRef<'c, 'a>, held: &Held, variables: &[Value<'c, 'a>]) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, _] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let (transpose_a, transpose_b) = (op.attribute("transpose_a").is_ok(), op.attribute("transpose_b").is_ok());
        let a_shape = memref_shape(a);
        let depth = if transpose_a { a_shape[0] } else { a_shape[1] };
        let a_source = Source {
            tile: a,
            row: stored_row(self.layouts, a),
            flat: false,
            k_last: !transpose_a,
        };
        let b_source = Source {
            tile: bb,
            row: stored_row(self.layouts, bb),
            flat: false,
            k_last: transpose_b,
        };
        let (_, row0, column0) = self.subgroup_origin(&b, at, held);
        let (tm, tn) = held.matrices();
        let mut accumulators: Vec<Value> = variables
            .iter()
            .map(|variable| self.load_held(&b, at, *variable))
            .collect();
        for slice in 0..depth / MATRIX {
            let k = b.index(at, slice * MATRIX);
            let rows: Vec<Value> = (0..tm)
                .map(|i| {
                    let shift = b.index(at, i * MATRIX);
                    let row = b.addi(at, row0, shift);
                    load_operand(self.context, &b, at, a_source, row, k, "AOp")
                })
                .collect();
            let columns: Vec<Value> = (0..tn)
                .map(|j| {
                    let shift = b.index(at, j * MATRIX);
                    let column = b.addi(at, column0, shift);
                    load_operand(self.context, &b, at, b_source, column, k, "BOp")
                })
                .collect();
            for (i, x) in rows.iter().enumerate() {
                for (j, y) in columns.iter().enumerate() {
                    let t = i * tn as usize + j;
                    let product = tile_ir::gpu::subgroup_mma_compute(
                        self.context,
                        matrix_type(self.context, "f32", "COp"),
                        *x,
                        *y,
                        accumulators[t],
                        b.location,
                    );
                    accumulators[t] = b.value(at, product.into());
                }
            }
        }
        for (matrix, variable) in accumulators.iter().zip(variables) {
            self.store_held(&b, at, *matrix, *variable);
        }
        // The operand tiles' next writers wait for every subgroup's loads.
        b.barrier(at);
        erase(self.context, op);
    }

    /// Stages the held accumulator `fragment` into its registers before `at` (see the module):
    /// matrix `t` of subgroup `s` goes through `staging[(s * capacity + t % capacity) * 256 ..]`,
    /// row-major, and lane `l` reads its elements `l + 32 r` into slot `8 t + r`.
    pub(super) fn stage_held(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        fragment: Value<'c, 'a>,
        held: &Held,
        variables: &[Value<'c, 'a>],
        staging: Value<'c, 'a>,
    ) {
        let placed = placed(self.layouts, fragment).expect("a held fragment has a layout");
        let array = self.private(fragment);
        let width = b.index(at, SUBGROUP);
        let subgroup = b.divui(at, self.tid, width);
        let lane = b.remui(at, self.tid, width);
        let area = b.index(at, held.capacity * MATRIX * MATRIX);
        let base = b.muli(at, subgroup, area);
        let place = |q: i64| {
            let offset = b.index(at, q * MATRIX * MATRIX);
            b.addi(at, base, offset)
        };
        let rounds: Vec<Vec<usize>> = (0..variables.len())
            .collect::<Vec<_>>()
            .chunks(held.capacity as usize)
            .map(<[usize]>::to_vec)
            .collect();
        for round in rounds {
            for (q, t) in round.iter().enumerate() {
                let matrix = self.load_held(b, at, variables[*t]);
                store_matrix(self.context, b, at, matrix, staging, place(q as i64));
            }
            b.barrier(at);
            for (q, t) in round.iter().enumerate() {
                let first = place(q as i64);
                let start = b.addi(at, first, lane);
                for r in 0..MATRIX * MATRIX / SUBGROUP {
                    let shift = b.index(at, r * SUBGROUP);
                    let index = b.addi(at, start, shift);
                    let value = b.load(at, staging, &[index]);
                    self.set_slot(b, at, value, array, placed, *t as i64 * 8 + r);
                }
            }
            b.barrier(at);
        }
    }
}

/// `gpu.subgroup_mma_store_matrix matrix, memref[index] {leadDimension = 16}`.
fn store_matrix<'c, 'a>(
    context: &'c Context,
    b: &Builder<'c>,
    at: At<'c, 'a>,
    matrix: Value<'c, 'a>,
    memref: Value<'c, 'a>,
    index: Value<'c, 'a>,
) {
    let lead = IntegerAttribute::new(Type::index(context), MATRIX);
    b.insert(
        at,
        tile_ir::gpu::subgroup_mma_store_matrix(context, matrix, memref, &[index], lead, b.location).into(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    /// Runs the staging on integers as the rule writes it (subgroup `s`'s matrix `t` at its place
    /// in the subgroup tile, stored row-major; lane `l` reading elements `l + 32 r` into slot
    /// `8 t + r`) and checks that every element lands where the recorded layout says.
    fn staged_where_the_layout_says(m: i64, n: i64, threads: i64) {
        let subgroups = crate::spirv::coopmat::config::subgroup_split(threads, m, n).expect("a split");
        let layout = atoms::coopmat_accumulator(m, n, subgroups);
        let held = Held {
            shape: (m, n),
            subgroups,
            capacity: 1,
            staged_before: None,
        };
        let (tm, tn) = held.matrices();
        let mut seen = std::collections::HashSet::new();
        for s in 0..subgroups.0 * subgroups.1 {
            let (row0, column0) = (s / subgroups.1 * (m / subgroups.0), s % subgroups.1 * (n / subgroups.1));
            for t in 0..tm * tn {
                let (i0, j0) = (row0 + t / tn * MATRIX, column0 + t % tn * MATRIX);
                for lane in 0..SUBGROUP {
                    for r in 0..MATRIX * MATRIX / SUBGROUP {
                        let e = lane + SUBGROUP * r;
                        let element = [i0 + e / MATRIX, j0 + e % MATRIX];
                        assert_eq!(
                            layout.owners(&element).collect::<Vec<_>>(),
                            vec![s * SUBGROUP + lane],
                            "{element:?} of {m}x{n} on {threads}"
                        );
                        assert_eq!(
                            layout.slot_of(&element),
                            t * 8 + r,
                            "{element:?} of {m}x{n} on {threads}"
                        );
                        assert!(seen.insert(element), "{element:?} staged twice");
                    }
                }
            }
        }
        assert_eq!(seen.len() as i64, m * n);
        assert_eq!(held.count() * 8, layout.slots());
    }

    #[test]
    fn staging_puts_every_element_where_the_layout_says() {
        for (m, n, threads) in [
            (128, 128, 128),
            (128, 256, 256),
            (128, 128, 256),
            (64, 64, 128),
            (32, 64, 256),
            (64, 128, 64),
            (16, 16, 32),
        ] {
            staged_where_the_layout_says(m, n, threads);
        }
    }
}
