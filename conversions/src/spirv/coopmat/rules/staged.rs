//! The spirv-coopmat matrix rule: `tile.gemm` on 16x16x16 KHR cooperative matrices
//! (`gpu.subgroup_mma_*`, which upstream `convert-gpu-to-spirv` lowers to
//! `spirv.KHR.CooperativeMatrixLoad/MulAdd/Store`), for f16 x f16 -> f32 gemms whose B operand is a
//! shared tile, whose A operand is a shared tile or a fragment, and whose accumulator is a fragment
//! in any layout, in the kernels the plain strategy runs (attention, GEMM chains, epilogues that
//! read other tensors).
//!
//! A cooperative matrix is opaque: which invocation holds which of its elements is the device's
//! secret, so the accumulator cannot stay in a fragment's registers across the gemm. The rule goes
//! through a small workgroup staging area of `capacity` 16x16 f32 matrices (one per 32-wide
//! subgroup, fewer where the kernel's shared tiles leave less room, the other subgroups idling;
//! shared by every such gemm of the kernel): the accumulator's 16x16 output matrices are taken in
//! rounds of `capacity`, and in each round
//!
//! ```text
//! every thread writes the slots whose elements lie in this round's matrices to the staging area
//! barrier
//! subgroup s loads staged matrix s (invocations 32 s .. 32 s + 31 form subgroup s),
//!   multiplies it by its 16-row strip of A and 16-column strip of B, 16 deep at a time
//!   (A and B loaded as cooperative matrices from the shared tiles), and stores it back
//! barrier
//! every thread reads its slots of this round back
//! barrier
//! ```
//!
//! A fragment A operand is first written to its scratch tile, row-major, as the scalar rule does
//! (a thread's slots are not a cooperative matrix either). Like the GEMM template, the rule is
//! written for 32-wide subgroups (the target environment's, NVIDIA's); every branch around a
//! cooperative op is uniform in its subgroup. Operand loads are 16-byte aligned as Vulkan requires
//! (every offset and row length is a multiple of 16 elements). The kernel's manifest keeps the
//! `registers` strategy; launchers see the cooperative matrices in the binary's capabilities.

use super::*;
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{
    gpu::SubgroupMmaLoadMatrixOperation,
    tile::{AllocSharedOperation, GemmOperation},
};

/// Rows, columns and depth of one cooperative matrix (the target environment's one shape).
pub const MATRIX: i64 = crate::spirv::coopmat::config::MATRIX;

/// Invocations per staged matrix: the staging area holds one matrix per 32-wide subgroup.
const INVOCATIONS_PER_MATRIX: i64 = 32;

/// A gemm on cooperative matrices: its shape and how its operands are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopmatGemm {
    /// Rows and columns of the accumulator.
    pub shape: (i64, i64),
    /// K of the gemm.
    pub depth: i64,
    /// Matrices the staging area holds (one round's worth).
    pub capacity: i64,
}

impl CoopmatGemm {
    /// 16x16 output matrices along N.
    pub fn columns(&self) -> i64 {
        self.shape.1 / MATRIX
    }

    /// 16x16 output matrices in all.
    pub fn matrices(&self) -> i64 {
        self.shape.0 / MATRIX * self.columns()
    }

    /// Rounds through the staging area.
    pub fn rounds(&self) -> i64 {
        (self.matrices() + self.capacity - 1) / self.capacity
    }

    /// Where element (i, j) of the accumulator is staged: (round, index in the staging area).
    #[cfg(test)]
    pub fn staged(&self, i: i64, j: i64) -> (i64, i64) {
        let matrix = i / MATRIX * self.columns() + j / MATRIX;
        (
            matrix / self.capacity,
            matrix % self.capacity * MATRIX * MATRIX + i % MATRIX * MATRIX + j % MATRIX,
        )
    }

    /// The first row and column of output matrix `matrix`.
    #[cfg(test)]
    pub fn origin(&self, matrix: i64) -> (i64, i64) {
        (matrix / self.columns() * MATRIX, matrix % self.columns() * MATRIX)
    }
}

/// Which gemms of a kernel run on cooperative matrices (by op), and the gemms with a fragment
/// accumulator that the rule cannot take, with the reason (they keep the scalar rule, with a
/// warning). The staging area holds one matrix per subgroup where the workgroup memory that the
/// kernel's shared tiles and scratch leave allows, fewer otherwise (the other subgroups idle).
pub fn coopmat_plan<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    held: &HashMap<usize, Held>,
    threads: i64,
    shuffles: Option<i64>,
    limit: i64,
) -> (HashMap<usize, CoopmatGemm>, Vec<(OperationRef<'c, 'a>, String)>) {
    let mut gemms = HashMap::new();
    let mut refused = Vec::new();
    let free = free_workgroup_bytes(ops, layouts, shuffles, limit);
    let matrix_bytes = MATRIX * MATRIX * 4;
    let capacity = (threads / INVOCATIONS_PER_MATRIX).min(free / matrix_bytes);
    for gemm in ops.iter().filter(|op| tile_ir::is(*op, GemmOperation::name)) {
        let (Some(a), Some(b), Some(c)) = (gemm.operand_at(0), gemm.operand_at(1), gemm.operand_at(2)) else {
            continue;
        };
        if level(c) != Some(MemoryLevel::Fragment) || placed(layouts, c).is_err() {
            continue;
        }
        // Held in matrices: the held rule's ([`super::held`]).
        if allocation(c).is_some_and(|allocation| held.contains_key(&key(&allocation))) {
            continue;
        }
        let checked = check_gemm(gemm, a, b, c, threads).and_then(|plan| {
            if capacity < 1 {
                return Err(format!(
                    "needs {matrix_bytes} bytes of workgroup memory to stage its accumulator for cooperative matrices, but the kernel's shared tiles and scratch leave {} of spirv-coopmat's {limit}; use smaller tiles",
                    free.max(0)
                ));
            }
            Ok(CoopmatGemm { capacity, ..plan })
        });
        match checked {
            Ok(plan) => {
                gemms.insert(key(gemm), plan);
            }
            Err(reason) => refused.push((*gemm, reason)),
        }
    }
    (gemms, refused)
}

/// Bytes of spirv-coopmat's workgroup memory that the kernel's shared tiles and scratch (the
/// exchanges of the reductions `shuffles` lanes cannot do, planned before) leave for staging
/// accumulators.
pub fn free_workgroup_bytes(ops: &[OperationRef], layouts: &Layouts, shuffles: Option<i64>, limit: i64) -> i64 {
    let bytes = |ty: Type, elements: i64| {
        elements * tile_dialect::element::Element::of(ty).map_or(4, |element| element.bytes() as i64)
    };
    let tiles: i64 = ops
        .iter()
        .filter(|op| tile_ir::is(*op, AllocSharedOperation::name))
        .filter_map(|op| Some((op, op.result_at(0)?)))
        .map(|(op, tile)| {
            bytes(
                element_type(tile.into()),
                padded_shape(layouts, op, tile.into()).iter().product(),
            )
        })
        .sum();
    let scratch: i64 = scratch_needs(ops, layouts, shuffles)
        .iter()
        .map(|(_, ty, elements)| bytes(*ty, *elements))
        .sum();
    limit - tiles - scratch
}

/// The shape `tile` (of allocation `op`) is allocated in: its rows longer by the padding its layout
/// records.
pub(super) fn padded_shape(layouts: &Layouts, op: &OperationRef, tile: Value) -> Vec<i64> {
    let mut shape = memref_shape(tile);
    if let (Some(last), Some(padding)) = (shape.last_mut(), layouts.padding.get(&key(op))) {
        *last += padding;
    }
    shape
}

/// Elements of a stored row of the shared tile `tile`: its last dimension and the padding its
/// layout records (the lead dimension of the matrix loads from it).
pub(super) fn stored_row(layouts: &Layouts, tile: Value) -> i64 {
    let allocation = tile_dialect::ops::as_result(tile)
        .map(|result| result.owner())
        .filter(|owner| tile_ir::is(owner, AllocSharedOperation::name));
    match allocation {
        Some(allocation) => *padded_shape(layouts, &allocation, tile).last().expect("a 2-D tile"),
        None => *memref_shape(tile).last().expect("a 2-D tile"),
    }
}

/// Elements (f32) of the staging area of the kernel whose gemms are `gemms`.
pub fn staging_elements(gemms: &HashMap<usize, CoopmatGemm>) -> i64 {
    gemms
        .values()
        .map(|gemm| gemm.capacity * MATRIX * MATRIX)
        .max()
        .unwrap_or(0)
}

fn check_gemm(gemm: &OperationRef, a: Value, b: Value, c: Value, threads: i64) -> Result<CoopmatGemm, String> {
    if !crate::support::product_of(
        a,
        b,
        c,
        tile_dialect::element::Element::F16,
        tile_dialect::element::Element::F32,
    ) {
        return Err(format!(
            "multiplies {} by {} into {}; cooperative matrices on spirv-coopmat take f16 x f16 -> f32",
            element_type(a),
            element_type(b),
            element_type(c)
        ));
    }
    if level(b) != Some(MemoryLevel::Shared) || !matches!(level(a), Some(MemoryLevel::Shared | MemoryLevel::Fragment)) {
        return Err("reads an operand that is neither a shared tile nor (A) a fragment".into());
    }
    let (a_shape, b_shape, c_shape) = (memref_shape(a), memref_shape(b), memref_shape(c));
    let ([a0, a1], [_, _], [m, n]) = (&a_shape[..], &b_shape[..], &c_shape[..]) else {
        return Err("has operands that are not 2-D tiles".into());
    };
    let (m, n) = (*m, *n);
    let depth = if gemm.attribute("transpose_a").is_ok() {
        *a0
    } else {
        *a1
    };
    if [m, n, depth].iter().any(|size| size % MATRIX != 0) {
        return Err(format!(
            "is a {m}x{n}x{depth} gemm; cooperative matrices on spirv-coopmat need M, N and K to be multiples of {MATRIX}"
        ));
    }
    if threads < INVOCATIONS_PER_MATRIX {
        return Err(format!(
            "runs on {threads} invocations, fewer than one 32-wide subgroup"
        ));
    }
    Ok(CoopmatGemm {
        shape: (m, n),
        depth,
        capacity: threads / INVOCATIONS_PER_MATRIX,
    })
}

/// How an operand's 16x16 matrices are read: from `tile` (2-D, or flat row-major with `flat`
/// columns), K along its last dimension (`k_last`) or its first.
#[derive(Clone, Copy)]
pub(super) struct Source<'c, 'a> {
    pub tile: Value<'c, 'a>,
    /// Elements per stored row (the load's lead dimension).
    pub row: i64,
    pub flat: bool,
    pub k_last: bool,
}

/// Loads the `use_` ("AOp" or "BOp") matrix of `source` whose rows (A) or columns (B) start at `mn`
/// and whose K starts at `k`.
pub(super) fn load_operand<'c, 'a>(
    context: &'c Context,
    b: &Builder<'c>,
    at: At<'c, 'a>,
    source: Source<'c, 'a>,
    mn: Value<'c, 'a>,
    k: Value<'c, 'a>,
    use_: &str,
) -> Value<'c, 'a> {
    // The stored (row, column) of the matrix's first element, and whether the stored rows run
    // along K (the matrix is read column-major: transposed).
    let (row, column) = if source.k_last { (mn, k) } else { (k, mn) };
    let indices = if source.flat {
        let width = b.index(at, source.row);
        let start = b.muli(at, row, width);
        vec![b.addi(at, start, column)]
    } else {
        vec![row, column]
    };
    // A is MxK: stored with K last it is row-major. B is KxN: stored with K last (NxK) it is the
    // transpose.
    let transposed = if use_ == "AOp" { !source.k_last } else { source.k_last };
    load_matrix(
        context,
        b,
        at,
        source.tile,
        &indices,
        source.row,
        transposed,
        matrix_type(context, "f16", use_),
    )
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// `C += A B` on cooperative matrices through the staging area `staging` (see the module).
    pub(super) fn coopmat(
        &self,
        op: OperationRef<'c, 'a>,
        scratch: Option<Value<'c, 'a>>,
        staging: Value<'c, 'a>,
        plan: CoopmatGemm,
    ) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, c] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let (transpose_a, transpose_b) = (op.attribute("transpose_a").is_ok(), op.attribute("transpose_b").is_ok());
        let a_shape = memref_shape(a);
        // A fragment A goes to its scratch, row-major in its own shape.
        let a_source = match scratch.filter(|_| level(a) == Some(MemoryLevel::Fragment)) {
            Some(staged) => {
                let columns = a_shape[1];
                self.stage(&b, at, a, staged, &|b, at, coordinates| {
                    let width = b.index(at, columns);
                    let row = b.muli(at, coordinates[0], width);
                    b.addi(at, row, coordinates[1])
                });
                Source {
                    tile: staged,
                    row: columns,
                    flat: true,
                    k_last: !transpose_a,
                }
            }
            None => Source {
                tile: a,
                row: stored_row(self.layouts, a),
                flat: false,
                k_last: !transpose_a,
            },
        };
        let b_source = Source {
            tile: bb,
            row: stored_row(self.layouts, bb),
            flat: false,
            k_last: transpose_b,
        };

        // Each slot of the accumulator: its guard, and its round and place in the staging area.
        let accumulator = placed(self.layouts, c).expect("checked");
        let array = self.private(c);
        let offsets = self.offsets(&b, at, accumulator);
        let rounds = plan.rounds();
        let slots: Vec<(usize, Option<Value>, Option<Value>, Value)> = accumulator
            .distribution
            .used_slots()
            .map(|slot| {
                let coordinates = self.coordinates(&b, at, accumulator, &offsets, slot);
                let fits = self.in_tile(&b, at, accumulator, &coordinates);
                let (i, j) = (coordinates[0], coordinates[1]);
                let sixteen = b.index(at, MATRIX);
                let (row_matrix, column_matrix) = (b.divui(at, i, sixteen), b.divui(at, j, sixteen));
                let columns = b.index(at, plan.columns());
                let row_start = b.muli(at, row_matrix, columns);
                let matrix = b.addi(at, row_start, column_matrix);
                let capacity = b.index(at, plan.capacity);
                let (round, position) = if rounds > 1 {
                    (Some(b.divui(at, matrix, capacity)), b.remui(at, matrix, capacity))
                } else {
                    (None, matrix)
                };
                let (row_in, column_in) = (b.remui(at, i, sixteen), b.remui(at, j, sixteen));
                let elements = b.index(at, MATRIX * MATRIX);
                let base = b.muli(at, position, elements);
                let row_offset = b.muli(at, row_in, sixteen);
                let within = b.addi(at, row_offset, column_in);
                let index = b.addi(at, base, within);
                (slot, fits, round, index)
            })
            .collect();
        // Where a slot takes part in round `r`: under its guard and its round's test.
        let in_round = |at: At<'c, 'a>,
                        r: Option<Value<'c, 'a>>,
                        fits: Option<Value<'c, 'a>>,
                        round: Option<Value<'c, 'a>>|
         -> At<'c, 'a> {
            let now = match (r, round) {
                (Some(r), Some(round)) => Some(b.compare(at, "eq", round, r)),
                _ => None,
            };
            let condition = match (fits, now) {
                (Some(fits), Some(now)) => Some(b.andi(at, fits, now)),
                (one, None) | (None, one) => one,
            };
            match condition {
                Some(condition) => b.if_then(at, condition),
                None => at,
            }
        };
        let round = |at: At<'c, 'a>, r: Option<Value<'c, 'a>>| {
            for (slot, fits, round, index) in &slots {
                let inner = in_round(at, r, *fits, *round);
                let value = self.slot_value(&b, inner, array, accumulator, *slot as i64);
                b.store(inner, value, staging, &[*index]);
            }
            b.barrier(at);
            self.multiply_staged(&b, at, &plan, r, a_source, b_source, staging);
            b.barrier(at);
            for (slot, fits, round, index) in &slots {
                let inner = in_round(at, r, *fits, *round);
                let value = b.load(inner, staging, &[*index]);
                self.set_slot(&b, inner, value, array, accumulator, *slot as i64);
            }
            // The staging area's next writers, and the operand tiles' next writers, wait for this.
            b.barrier(at);
        };
        if rounds > 1 {
            let (zero, one, end) = (b.index(at, 0), b.index(at, 1), b.index(at, rounds));
            let (body, r) = b.for_loop(at, zero, end, one);
            round(body, Some(r));
        } else {
            // A staged fragment A was written after a barrier: the one after the accumulator's
            // writes makes both visible.
            round(at, None);
        }
        erase(self.context, op);
    }

    /// Each subgroup's share of round `r` (`None`: the only round): the staged output matrix at
    /// its own position, loaded, multiplied over K and stored back.
    #[allow(clippy::too_many_arguments)]
    fn multiply_staged(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        plan: &CoopmatGemm,
        r: Option<Value<'c, 'a>>,
        a: Source<'c, 'a>,
        bb: Source<'c, 'a>,
        staging: Value<'c, 'a>,
    ) {
        let index_type = Type::index(self.context);
        // Subgroup s is invocations 32 s .. 32 s + 31 (the rule is written for 32-wide subgroups,
        // as the GEMM template is); it takes staged matrix s of each round.
        let width = b.index(at, INVOCATIONS_PER_MATRIX);
        let position = b.divui(at, self.tid, width);
        let capacity = b.index(at, plan.capacity);
        let body = at;
        let matrix = match r {
            Some(r) => {
                let first = b.muli(body, r, capacity);
                b.addi(body, first, position)
            }
            None => position,
        };
        // Subgroups past the staging area's matrices idle; the last round may hold fewer matrices
        // than the staging area (both uniform in the subgroup).
        let subgroups = self.threads / INVOCATIONS_PER_MATRIX;
        let body = if plan.capacity < subgroups {
            let works = b.compare(body, "ult", position, capacity);
            b.if_then(body, works)
        } else {
            body
        };
        let body = if plan.rounds() * plan.capacity > plan.matrices() {
            let total = b.index(body, plan.matrices());
            let exists = b.compare(body, "ult", matrix, total);
            b.if_then(body, exists)
        } else {
            body
        };
        let columns = b.index(body, plan.columns());
        let sixteen = b.index(body, MATRIX);
        let row_matrix = b.divui(body, matrix, columns);
        let column_matrix = b.remui(body, matrix, columns);
        let row0 = b.muli(body, row_matrix, sixteen);
        let column0 = b.muli(body, column_matrix, sixteen);
        let elements = b.index(body, MATRIX * MATRIX);
        let staged_at = b.muli(body, position, elements);
        let accumulator_type = matrix_type(self.context, "f32", "COp");
        let loaded = load_matrix(
            self.context,
            b,
            body,
            staging,
            &[staged_at],
            MATRIX,
            false,
            accumulator_type,
        );
        // scf.for over K, the accumulator carried.
        let (zero, end) = (b.index(body, 0), b.index(body, plan.depth));
        let region = melior::ir::Region::new();
        region.append_block(melior::ir::Block::new(&[
            (index_type, b.location),
            (accumulator_type, b.location),
        ]));
        let for_op = b.insert(
            body,
            tile_ir::scf::r#for(
                self.context,
                &[accumulator_type],
                zero,
                end,
                sixteen,
                &[loaded],
                region,
                b.location,
            )
            .into(),
        );
        let block = for_op.body().expect("loop body");
        let placeholder = block.append_operation(melior::dialect::scf::r#yield(&[], b.location));
        let inner = At {
            block,
            before: placeholder,
        };
        let k0: Value = block.argument_at(0).expect("induction variable").into();
        let carried: Value = block.argument_at(1).expect("carried accumulator").into();
        let x = load_operand(self.context, b, inner, a, row0, k0, "AOp");
        let y = load_operand(self.context, b, inner, bb, column0, k0, "BOp");
        let product = b.value(
            inner,
            tile_ir::gpu::subgroup_mma_compute(self.context, accumulator_type, x, y, carried, b.location).into(),
        );
        b.insert(inner, melior::dialect::scf::r#yield(&[product], b.location));
        erase(self.context, placeholder);
        let result: Value = for_op.result_at(0).expect("loop result").into();
        let lead = IntegerAttribute::new(index_type, MATRIX);
        b.insert(
            body,
            tile_ir::gpu::subgroup_mma_store_matrix(self.context, result, staging, &[staged_at], lead, b.location)
                .into(),
        );
    }
}

/// `!gpu.mma_matrix<16x16x{element}, "{use_}">`.
pub(super) fn matrix_type<'c>(context: &'c Context, element: &str, use_: &str) -> Type<'c> {
    Type::parse(
        context,
        &format!("!gpu.mma_matrix<{MATRIX}x{MATRIX}x{element}, \"{use_}\">"),
    )
    .expect("mma matrix type")
}

/// `gpu.subgroup_mma_load_matrix tile[indices] {leadDimension = lead (, transpose)}`.
#[allow(clippy::too_many_arguments)]
pub(super) fn load_matrix<'c, 'a>(
    context: &'c Context,
    b: &Builder<'c>,
    at: At<'c, 'a>,
    tile: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
    lead: i64,
    transpose: bool,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let load = SubgroupMmaLoadMatrixOperation::builder(context, b.location)
        .res(ty)
        .src_memref(tile)
        .indices(indices)
        .lead_dimension(IntegerAttribute::new(Type::index(context), lead));
    let load = if transpose {
        load.transpose(Attribute::unit(context))
    } else {
        load
    };
    b.value(at, load.build().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    /// Runs the rule on integers: the accumulator's slots through the staging area, round by
    /// round, each staged matrix multiplied as a subgroup would, and compares with `C + A B`.
    fn simulate(m: i64, n: i64, depth: i64, threads: i64, capacity: i64) {
        let layout = atoms::blocked(&[m, n], threads);
        let plan = CoopmatGemm {
            shape: (m, n),
            depth,
            capacity,
        };
        let value = |seed: i64, i: i64, j: i64| (seed * 31 + i * 7 + j * 3) % 11 - 5;
        let c = |i, j| value(1, i, j);
        let a = |i, k| value(2, i, k);
        let bm = |k, j| value(3, k, j);
        let mut registers = vec![vec![0i64; layout.slots() as usize]; threads as usize];
        for element in layout.elements() {
            for thread in layout.owner_set(&element) {
                registers[thread as usize][layout.slot_of(&element) as usize] = c(element[0], element[1]);
            }
        }
        let subgroups = threads / INVOCATIONS_PER_MATRIX;
        for round in 0..plan.rounds() {
            let mut staging = vec![None; (plan.capacity * MATRIX * MATRIX) as usize];
            for element in layout.elements() {
                let (r, index) = plan.staged(element[0], element[1]);
                if r == round {
                    for thread in layout.owner_set(&element) {
                        let slot = registers[thread as usize][layout.slot_of(&element) as usize];
                        assert!(
                            staging[index as usize].is_none_or(|old| old == slot),
                            "two elements staged at {index}"
                        );
                        staging[index as usize] = Some(slot);
                    }
                }
            }
            for subgroup in 0..subgroups {
                if subgroup < plan.capacity {
                    let position = subgroup;
                    let matrix = round * plan.capacity + position;
                    if matrix >= plan.matrices() {
                        continue;
                    }
                    let (row0, column0) = plan.origin(matrix);
                    for e in 0..MATRIX * MATRIX {
                        let (i, j) = (row0 + e / MATRIX, column0 + e % MATRIX);
                        let at = (position * MATRIX * MATRIX + e) as usize;
                        let product: i64 = (0..depth).map(|k| a(i, k) * bm(k, j)).sum();
                        staging[at] = Some(staging[at].expect("every element of a staged matrix is written") + product);
                    }
                }
            }
            for element in layout.elements() {
                let (r, index) = plan.staged(element[0], element[1]);
                if r == round {
                    for thread in layout.owner_set(&element) {
                        registers[thread as usize][layout.slot_of(&element) as usize] =
                            staging[index as usize].expect("staged");
                    }
                }
            }
        }
        for element in layout.elements() {
            let (i, j) = (element[0], element[1]);
            let expected = c(i, j) + (0..depth).map(|k| a(i, k) * bm(k, j)).sum::<i64>();
            for thread in layout.owner_set(&element) {
                assert_eq!(
                    registers[thread as usize][layout.slot_of(&element) as usize],
                    expected,
                    "({i}, {j}) of {m}x{n}x{depth} on {threads}"
                );
            }
        }
    }

    #[test]
    fn every_accumulator_element_goes_through_one_staged_matrix() {
        // Attention's 64x64 (16 matrices, 4 rounds), the MLP's 64x128, a 16x16 on 4 subgroups
        // (three idle), uneven last rounds, 8 subgroups, a staging area smaller than the subgroups.
        for (m, n, depth, threads, capacity) in [
            (64, 64, 64, 128, 4),
            (64, 128, 32, 128, 4),
            (16, 16, 16, 128, 4),
            (48, 32, 16, 128, 4),
            (64, 64, 32, 256, 8),
            (32, 48, 16, 64, 2),
            (64, 128, 32, 256, 3),
            (64, 64, 16, 128, 1),
        ] {
            simulate(m, n, depth, threads, capacity);
        }
    }

    #[test]
    fn rounds_and_places() {
        let plan = CoopmatGemm {
            shape: (64, 64),
            depth: 64,
            capacity: 4,
        };
        assert_eq!((plan.matrices(), plan.rounds()), (16, 4));
        assert_eq!(plan.staged(17, 35), (1, 2 * 256 + 16 + 3));
        assert_eq!(plan.origin(6), (16, 32));
    }
}
