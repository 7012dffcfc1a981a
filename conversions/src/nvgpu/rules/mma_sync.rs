//! The sm_90a rule for the gemms wgmma cannot take (fewer than 64 accumulator rows a warpgroup,
//! blocks that are no whole warpgroups, i8 inputs): `tile.gemm` on `nvvm.mma.sync` (m16n8k16 for
//! f16 and bf16, m16n8k32 for i8) when its accumulator has the mma layout (`tile-infer-layouts`
//! anchors it, origin `mma.m16n8k16`).
//!
//! The instruction (PTX ISA, `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` and
//! `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32`), lane `l` with `g = l / 4` and `t = l % 4`,
//! `E` elements a 32-bit register (2 of 16 bits, 4 of i8) and `K = 8 E` a step:
//! - A (16xK, four registers): register `r` holds `A[g + 8 (r % 2)][E t + K/2 (r / 2) + e]`;
//! - B (Kx8, two registers): register `r` holds `B[E t + K/2 r + e][g]` (`e` below `E`);
//! - accumulator (16x8 f32 or s32, four): `v` is `D[g + 8 (v / 2)][2 t + v % 2]`, for both.
//!
//! The accumulator's layout ([`crate::layout::atoms::mma_accumulator`]) splits the warps over the
//! tile and numbers each warp's slots (instruction tile along M, along N, accumulator), so the
//! four registers of one instruction tile are consecutive slots. The rule unrolls the K steps:
//! per step, each lane reads its A and B elements of every instruction tile of its warp from the
//! shared tiles (a fragment A in the mma A-operand layout from its registers; any other fragment A
//! staged in its scratch first, as the scalar rule does) and each instruction tile takes one
//! `mma.sync`.

use super::*;
use melior::ir::attribute::BoolAttribute;
use tile_dialect::positions::OperationAt;

/// The inputs of an `mma.sync`: what its operand registers hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaInput {
    F16,
    BF16,
    /// i8 as the instruction's signed 8-bit integers, into an i32 accumulator.
    S8,
}

impl MmaInput {
    /// Elements one 32-bit operand register holds.
    pub fn per_register(self) -> i64 {
        match self {
            MmaInput::S8 => 4,
            MmaInput::F16 | MmaInput::BF16 => 2,
        }
    }

    /// K of one instruction (16 or 32): four registers of A hold a 16xK tile.
    pub fn depth(self) -> i64 {
        8 * self.per_register()
    }

    fn ptx(self) -> &'static str {
        match self {
            MmaInput::F16 => "f16",
            MmaInput::BF16 => "bf16",
            MmaInput::S8 => "s8",
        }
    }
}

/// A gemm on `mma.sync`: the warp split its accumulator's layout says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaGemm {
    /// Warps along M and along N.
    pub warps: (i64, i64),
    /// Rows and columns of the accumulator.
    pub shape: (i64, i64),
    /// K of the gemm.
    pub depth: i64,
    /// A is a fragment in the mma A-operand layout: its registers are the instruction's operands.
    pub register_a: bool,
    /// What A and B hold.
    pub input: MmaInput,
    /// The rule ends with a barrier of the block: a shared operand may be written again before
    /// the next barrier (see [`operands_rewritten`]).
    pub barrier_after: bool,
}

impl MmaGemm {
    /// Rows and columns of one warp's tile.
    pub fn warp_tile(&self) -> (i64, i64) {
        (self.shape.0 / self.warps.0, self.shape.1 / self.warps.1)
    }

    /// Instruction tiles of one warp (along M, along N).
    pub fn tiles(&self) -> (i64, i64) {
        let (rows, columns) = self.warp_tile();
        (rows / 16, columns / 8)
    }

    /// The accumulator slot of register `v` of instruction tile (`tm`, `tn`).
    pub fn slot(&self, tm: i64, tn: i64, v: i64) -> i64 {
        (tm * self.tiles().1 + tn) * 4 + v
    }

    /// The slot of a register A operand ([`crate::layout::atoms::mma_a_operand`]) holding element
    /// `e` of register `r` of instruction tile `tm` at K step `step`.
    pub fn a_slot(&self, tm: i64, step: i64, r: i64, e: i64) -> i64 {
        (tm * (self.depth / 8) + 2 * step + r / 2) * 4 + (r % 2) * 2 + e
    }

    /// The gemm of an accumulator laid out as `layout`: the mma layout of some split of its warps,
    /// or why not.
    pub fn of_layout(layout: &tile_dialect::layout::FragmentLayout) -> Result<MmaGemm, String> {
        let origin = &layout.origin;
        if origin != crate::layout::atoms::MMA_ACCUMULATOR {
            return Err(format!(
                "has an accumulator layout '{origin}' that names no mma.sync shape ({})",
                crate::layout::atoms::MMA_ACCUMULATOR
            ));
        }
        let [m, n] = layout.shape[..] else {
            return Err(format!("has a {}-D accumulator", layout.shape.len()));
        };
        let warps = layout.threads / 32;
        let wanted = crate::layout::Layout::Fragment(layout.clone());
        (1..=warps)
            .filter(|wm| layout.threads % 32 == 0 && warps % wm == 0)
            .map(|wm| (wm, warps / wm))
            .filter(|(wm, wn)| m % (16 * wm) == 0 && n % (8 * wn) == 0)
            .find(|split| wanted.agrees(&crate::layout::Layout::Fragment(crate::layout::atoms::mma_accumulator(m, n, *split))))
            .map(|warps| MmaGemm {
                warps,
                shape: (m, n),
                depth: 0,
                register_a: false,
                input: MmaInput::F16,
                barrier_after: true,
            })
            .ok_or_else(|| format!("has an accumulator layout named '{origin}' that is not the mma layout of any split of its {warps} warps over the {m}x{n} tile"))
    }
}

/// Which gemms of a kernel that are not on wgmma run on `mma.sync` (by op), and the gemms whose
/// accumulator has the mma layout that the rule cannot take, with the reason.
pub fn mma_plan<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    wgmma: &HashSet<usize>,
    core_tiles: &HashMap<usize, Vec<usize>>,
    target: &Target,
    say_unlaid: bool,
) -> (HashMap<usize, MmaGemm>, Vec<(OperationRef<'c, 'a>, String)>) {
    let gemms: Vec<OperationRef> = ops
        .iter()
        .copied()
        .filter(|op| is(op, tile::GemmOperation::name) && !wgmma.contains(&key(op)))
        .collect();
    // A gemm with neither layout already has wgmma's warning where the target has wgmma; elsewhere
    // (`say_unlaid`) it is told why it gets no mma layout.
    let chained = ops.iter().filter(|op| is(*op, tile::GemmOperation::name)).count() > 1;
    let unlaid = |gemm: OperationRef<'c, 'a>| {
        let accumulator = gemm.operand_at(2).and_then(|c| placed(layouts, c).ok())?;
        let operands = crate::layout::anchors::operands(gemm)?;
        let (threads, origin) = (accumulator.distribution.threads, &accumulator.layout.origin);
        say_unlaid.then(|| {
            format!(
                "does not fit mma.sync ({})",
                super::misfit::off_mma_sync(&operands, threads, chained, origin)
            )
        })
    };
    plan_gemms(
        &gemms,
        layouts,
        |origin| origin == crate::layout::atoms::MMA_ACCUMULATOR,
        unlaid,
        |gemm, [a, b, c], accumulator| {
            check_gemm(gemm, a, b, c, accumulator, layouts, core_tiles, target).map(|plan| MmaGemm {
                barrier_after: operands_rewritten(gemm, [a, b], ops, target),
                ..plan
            })
        },
    )
}

/// Whether a shared operand of `gemm` (`operands`: A and B) may be written after the gemm before
/// the next barrier of the block, so that the rule must end with one. A ring slot awaited by
/// cp.async groups is refilled only after the next iteration's barrier; a shared tile that every
/// writer fills before the gemm, outside every loop around it (a FlashAttention kernel's query
/// tile), is never written again; a fragment is no shared tile. Any other shared operand may be.
fn operands_rewritten(gemm: &OperationRef, operands: [Value; 2], ops: &[OperationRef], target: &Target) -> bool {
    operands.into_iter().any(|tile| {
        level(tile) == Some(MemoryLevel::Shared)
            && !(target.cp_async_rings && ring_slot(tile))
            && !crate::pipeline::rings::tile_allocation(tile)
                .is_some_and(|allocation| settled_before(allocation, gemm, ops))
    })
}

/// Whether every op that may write the shared tile `allocation` makes (`ops`: the kernel's, in
/// program order) comes before `gemm` and shares no loop with it: no write follows the gemm. Uses
/// through views (subviews, casts, ring slots) count; an op that uses the tile other than as a
/// gemm operand, a copy's source, a load or a view counts as a writer.
fn settled_before(allocation: OperationRef, gemm: &OperationRef, ops: &[OperationRef]) -> bool {
    let Some(tile) = allocation.result_at(0).map(Value::from) else {
        return false;
    };
    let mut views = vec![tile];
    let mut before = true;
    for op in ops {
        if op == gemm {
            before = false;
            continue;
        }
        let uses = op.operands().any(|operand| views.contains(&operand));
        if !uses {
            continue;
        }
        let reads = tile_ir::match_op!(op, {
            tile::GemmOperation => op.operand_at(2).is_some_and(|c| !views.contains(&c)),
            tile::CopyOperation => {
                tile_dialect::ops::copy_parts(op).is_some_and(|parts| !views.contains(&parts.dst))
            },
            memref::LoadOperation => true,
            vector::LoadOperation => true,
            nvgpu::LdMatrixOperation => true,
            memref::SubViewOperation => true,
            memref::ReinterpretCastOperation => true,
            memref::CastOperation => true,
            tile::SlotOperation => true,
            _ => false,
        });
        if reads {
            views.extend(
                op.results()
                    .map(Value::from)
                    .filter(|result| result.r#type().is_mem_ref()),
            );
            continue;
        }
        if !before || shares_a_loop(op, gemm) {
            return false;
        }
    }
    true
}

/// Whether some op around `gemm` that may run its body more than once (anything with regions
/// but the kernel and `scf.if`) holds `op` too.
fn shares_a_loop(op: &OperationRef, gemm: &OperationRef) -> bool {
    let mut around = gemm.parent_operation();
    while let Some(ancestor) = around {
        if is(&ancestor, tile::KernelOperation::name) {
            return false;
        }
        let holds = {
            let mut inner = op.parent_operation();
            loop {
                match inner {
                    Some(parent) if parent == ancestor => break true,
                    Some(parent) => inner = parent.parent_operation(),
                    None => break false,
                }
            }
        };
        if holds && !is(&ancestor, tile_ir::scf::IfOperation::name) {
            return true;
        }
        around = ancestor.parent_operation();
    }
    false
}

#[allow(clippy::too_many_arguments)]
fn check_gemm(
    gemm: &OperationRef,
    a: Value,
    b: Value,
    c: Value,
    accumulator: &Placed,
    layouts: &Layouts,
    core_tiles: &HashMap<usize, Vec<usize>>,
    target: &Target,
) -> Result<MmaGemm, String> {
    let plan = MmaGemm::of_layout(&accumulator.layout)?;
    let (input, depth) = if crate::support::i8_product(a, b, c) {
        (
            MmaInput::S8,
            matrix_gemm_depth_of(gemm, [a, b, c], "mma.sync.m16n8k32", target.name, 32, true)?,
        )
    } else {
        let depth = matrix_gemm_depth(gemm, [a, b, c], "mma.sync.m16n8k16", target.name, 16)?;
        let bf16 = crate::support::element_of(a) == Some(tile_dialect::element::Element::BF16);
        (if bf16 { MmaInput::BF16 } else { MmaInput::F16 }, depth)
    };
    // A shared tile kept as wgmma core matrices is no row-major tile.
    let core = |tile: Value| {
        crate::pipeline::rings::tile_allocation(tile)
            .is_some_and(|allocation| core_tiles.contains_key(&key(&allocation)))
    };
    if core(a) || core(b) {
        return Err("reads a shared tile that wgmma gemms read as core matrices".into());
    }
    let transpose_a = gemm.attribute("transpose_a").is_ok();
    let register_a = !transpose_a
        && input != MmaInput::S8
        && plan.warps.1 == 1
        && level(a) == Some(MemoryLevel::Fragment)
        && placed(layouts, a).is_ok_and(|operand| {
            let wanted = crate::layout::atoms::mma_a_operand(plan.shape.0, depth, plan.warps.0);
            crate::layout::Layout::Fragment(operand.layout.clone()).agrees(&crate::layout::Layout::Fragment(wanted))
        });
    Ok(MmaGemm {
        depth,
        register_a,
        input,
        ..plan
    })
}

/// Where lane `l` of a warp works in one instruction tile of `input`: the A element of register
/// `r`, element `e` at K step `step` (row, k within the warp tile), and the B element (k, column).
pub(crate) fn a_element(input: MmaInput, lane: i64, tm: i64, step: i64, r: i64, e: i64) -> (i64, i64) {
    let (per, depth) = (input.per_register(), input.depth());
    (
        16 * tm + lane / 4 + 8 * (r % 2),
        depth * step + per * (lane % 4) + depth / 2 * (r / 2) + e,
    )
}

pub(crate) fn b_element(input: MmaInput, lane: i64, tn: i64, step: i64, r: i64, e: i64) -> (i64, i64) {
    let (per, depth) = (input.per_register(), input.depth());
    (depth * step + per * (lane % 4) + depth / 2 * r + e, 8 * tn + lane / 4)
}

/// How a gemm operand in a shared tile is read with `ldmatrix` (eight rows of 16 bytes a matrix,
/// one row address a lane): `Some(transpose)` where every row it reads starts 16 bytes aligned
/// (a 2-D tile whose stored rows are multiples of 16 bytes; ring slots and tiles start at least
/// that aligned), `transpose` where K runs down the stored columns, which the instruction
/// transposes on the way only for 16-bit elements (an i8 operand stored so is read element by
/// element). `k_along_rows`: the operand stores K along its rows (A as MxK, B as NxK).
fn ldmatrix_reads(tile: Value, k_along_rows: bool, input: MmaInput) -> Option<bool> {
    if level(tile) != Some(MemoryLevel::Shared) || (!k_along_rows && input == MmaInput::S8) {
        return None;
    }
    let row = match crate::layout::stored::stored(tile) {
        Some(stored) if stored.layout.transposed => return None,
        Some(stored) => stored.shape[1],
        None => match memref_shape(tile)[..] {
            [_, row] => row,
            _ => return None,
        },
    };
    let bytes = 4 / input.per_register();
    (row > 0 && (row * bytes) % 16 == 0).then_some(!k_along_rows)
}

/// Whether `tile` is a ring's slot (`tile.slot`, or the view of its padded rows).
fn ring_slot(tile: Value) -> bool {
    let Some(owner) = tile_dialect::ops::as_result(tile).map(|result| result.owner()) else {
        return false;
    };
    is(&owner, tile::SlotOperation::name)
        || (is(&owner, memref::ReinterpretCastOperation::name) && owner.operand_at(0).is_some_and(ring_slot))
}

/// The (M or N, K) place, within an instruction tile's operand at one K step, of the row whose
/// address lane `lane` gives to an ldmatrix ([`ldmatrix_reads`]): row `lane % 8` of matrix
/// `lane / 8`, the matrix's M (N) offset from bit `mn_bit` of its number (A: bit 0, B: bit 1), its
/// K offset (`chunk` elements, 16 bytes) from the other; the eight rows run along K where the
/// load transposes.
pub(crate) fn ldmatrix_row(lane: i64, transpose: bool, mn_bit: i64, chunk: i64) -> (i64, i64) {
    let bit = |b: i64| (lane / (8 << b)) % 2;
    let (mn, k) = (8 * bit(mn_bit), chunk * bit(1 - mn_bit));
    if transpose {
        (mn, k + lane % 8)
    } else {
        (mn + lane % 8, k)
    }
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// `C += A B` on `mma.sync`: per K step (unrolled), each lane's A and B elements of every
    /// instruction tile of its warp, then one instruction per tile; the accumulators are the
    /// fragment's slots, carried as values through the steps.
    pub(super) fn mma_sync(
        &self,
        op: OperationRef<'c, 'a>,
        scratch: Option<Value<'c, 'a>>,
        tensor_cores: &TensorCorePlan,
    ) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, c] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let plan = tensor_cores.mma[&key(&op)];
        let (transpose_a, transpose_b) = (op.attribute("transpose_a").is_ok(), op.attribute("transpose_b").is_ok());
        let a_shape = memref_shape(a);
        // Any other fragment A goes to its scratch, row-major in its own shape.
        let (a_tile, flat) = match scratch.filter(|_| level(a) == Some(MemoryLevel::Fragment) && !plan.register_a) {
            Some(staged) => {
                let columns = a_shape[1];
                self.stage(&b, at, a, staged, &|b, at, coordinates| {
                    let row = b.muli(at, coordinates[0], b.index(at, columns));
                    b.addi(at, row, coordinates[1])
                });
                b.barrier(at);
                (staged, true)
            }
            None => (a, false),
        };
        let per_register = plan.input.per_register();
        let packed_type = crate::attributes::vector(per_register, element_type(a));
        let i32_type: Type = IntegerType::new(self.context, 32).into();
        let accumulator_type = element_type(c);
        let results = crate::attributes::struct_of(self.context, accumulator_type, 4);
        // This lane's place: its warp tile's first row and column, and its row and the K offset of its register elements (E t).
        let (rows, columns) = plan.warp_tile();
        let (lane, warp) = (
            b.remui(at, self.tid, b.index(at, 32)),
            b.divui(at, self.tid, b.index(at, 32)),
        );
        let group = b.divui(at, lane, b.index(at, 4));
        let lane_k = b.muli(at, b.remui(at, lane, b.index(at, 4)), b.index(at, per_register));
        let row0 = b.muli(at, b.divui(at, warp, b.index(at, plan.warps.1)), b.index(at, rows));
        let column0 = b.muli(at, b.remui(at, warp, b.index(at, plan.warps.1)), b.index(at, columns));
        let (a_row, b_column) = (b.addi(at, row0, group), b.addi(at, column0, group));
        let plus = |value: Value<'c, 'a>, constant: i64| {
            if constant == 0 {
                value
            } else {
                b.addi(at, value, b.index(at, constant))
            }
        };
        // Element (row, k) of A and (k, column) of B as stored.
        let load_a = |row: Value<'c, 'a>, k: Value<'c, 'a>| {
            let (first, second) = if transpose_a { (k, row) } else { (row, k) };
            if flat {
                let start = b.muli(at, first, b.index(at, a_shape[1]));
                b.load(at, a_tile, &[b.addi(at, start, second)])
            } else {
                b.load(at, a_tile, &[first, second])
            }
        };
        let load_b = |k: Value<'c, 'a>, column: Value<'c, 'a>| {
            b.load(at, bb, &if transpose_b { [column, k] } else { [k, column] })
        };
        // A register's elements as one 32-bit operand (bf16 pairs and i8 quads as i32, as the
        // instruction's bf16 and s8 forms take them).
        let operand = |packed: Value<'c, 'a>| {
            if plan.input != MmaInput::F16 {
                b.value(at, llvm::bitcast(self.context, i32_type, packed, b.location).into())
            } else {
                packed
            }
        };
        let register = |elements: &[Value<'c, 'a>]| {
            operand(b.value(
                at,
                vector::from_elements(self.context, packed_type, elements, b.location).into(),
            ))
        };
        // Shared operands read with ldmatrix ([`ldmatrix_reads`]): lane l gives the address of row
        // l % 8 of matrix (l / 8) % count. An A tile's four matrices are an instruction tile's
        // registers in order (rows 0-7 and 8-15 at the first 16 bytes of the step's K, then at the
        // next); a B tile's four are two instruction tiles' two registers. The eight rows of a
        // matrix run along M (N) where K runs along the stored rows, else along K (transposed).
        let matrices_a = (!flat && !plan.register_a)
            .then(|| ldmatrix_reads(a_tile, !transpose_a, plan.input))
            .flatten();
        let matrices_b = ldmatrix_reads(bb, transpose_b, plan.input);
        let chunk = plan.input.depth() / 2;
        let row_in_matrix = b.remui(at, lane, b.index(at, 8));
        let matrix_bit = |bit: i64| b.remui(at, b.divui(at, lane, b.index(at, 8 << bit)), b.index(at, 2));
        let lane_terms = [(1, row_in_matrix), (8, matrix_bit(0)), (16, matrix_bit(1))];
        // The lane's (M or N, K) place in the matrices it addresses: [`ldmatrix_row`] is linear in
        // the lane's row and its matrix's two bits, so its values at lanes 1, 8 and 16 are their
        // coefficients.
        let lane_place = |transpose: bool, mn_bit: i64, mn_start: Value<'c, 'a>| {
            let (mut mn, mut k) = (mn_start, b.index(at, 0));
            for (unit, term) in lane_terms {
                let (mn_step, k_step) = ldmatrix_row(unit, transpose, mn_bit, chunk);
                if mn_step != 0 {
                    mn = b.addi(at, mn, b.muli(at, term, b.index(at, mn_step)));
                }
                if k_step != 0 {
                    k = b.addi(at, k, b.muli(at, term, b.index(at, k_step)));
                }
            }
            (mn, k)
        };
        let place_a = matrices_a.map(|transpose| lane_place(transpose, 0, row0));
        let place_b = matrices_b.map(|transpose| lane_place(transpose, 1, column0));
        let element = element_type(bb);
        let ldmatrix = |tile: Value<'c, 'a>, transpose: bool, mn: Value<'c, 'a>, k: Value<'c, 'a>, count: i64| {
            let indices = if transpose { [k, mn] } else { [mn, k] };
            let loaded = b.value(
                at,
                nvgpu::LdMatrixOperation::builder(self.context, b.location)
                    .res(Type::vector(&[count as u64, per_register as u64], element))
                    .src_memref(tile)
                    .indices(&indices)
                    .transpose(BoolAttribute::new(self.context, transpose).into())
                    .num_tiles(IntegerAttribute::new(i32_type, count))
                    .build()
                    .into(),
            );
            (0..count)
                .map(|matrix| {
                    let position = crate::attributes::i64_array(self.context, &[matrix]);
                    operand(b.value(
                        at,
                        vector::extract(self.context, loaded, &[], position, b.location).into(),
                    ))
                })
                .collect::<Vec<Value>>()
        };
        let accumulator = placed(self.layouts, c).expect("checked");
        let array = self.private(c);
        let operand_a = plan
            .register_a
            .then(|| (self.private(a), placed(self.layouts, a).expect("checked")));
        let (tiles_m, tiles_n) = plan.tiles();
        let tiles: Vec<(i64, i64)> = (0..tiles_m)
            .flat_map(|tm| (0..tiles_n).map(move |tn| (tm, tn)))
            .collect();
        let mut carried: Vec<Vec<Value>> = tiles
            .iter()
            .map(|&(tm, tn)| {
                (0..4)
                    .map(|v| self.slot_value(&b, at, array, accumulator, plan.slot(tm, tn, v)))
                    .collect()
            })
            .collect();
        // The instruction's attributes, made once: NVVM's have no builders in melior, so they are
        // read from their syntax.
        let attribute = |text: &str| Attribute::parse(self.context, text).expect("mma attribute");
        let (row, column) = (attribute("#nvvm.mma_layout<row>"), attribute("#nvvm.mma_layout<col>"));
        let ptx_type = attribute(&format!("#nvvm.mma_type<{}>", plan.input.ptx()));
        let shape = attribute(&format!("#nvvm.shape<m = 16, n = 8, k = {}>", plan.input.depth()));
        // i32 sums wrap, as the dialect's integer arithmetic (and the interpreter) does.
        let wrapping = (plan.input == MmaInput::S8).then(|| attribute("#nvvm.mma_int_overflow<wrapped>"));
        let elements: Vec<i64> = (0..per_register).collect();
        for step in 0..plan.depth / plan.input.depth() {
            // A lane's element places are its base (`a_row`, `b_column`, `lane_k`) plus the
            // constant parts `a_element` and `b_element` give at lane 0.
            let a_registers: Vec<Vec<Value>> = (0..tiles_m)
                .map(|tm| {
                    if let (Some(transpose), Some((mn, k))) = (matrices_a, place_a) {
                        return ldmatrix(
                            a_tile,
                            transpose,
                            plus(mn, 16 * tm),
                            plus(k, plan.input.depth() * step),
                            4,
                        );
                    }
                    (0..4)
                        .map(|r| {
                            let values: Vec<Value> = elements
                                .iter()
                                .map(|&e| match operand_a {
                                    Some((array, operand)) => {
                                        self.slot_value(&b, at, array, operand, plan.a_slot(tm, step, r, e))
                                    }
                                    None => {
                                        let (row, k) = a_element(plan.input, 0, tm, step, r, e);
                                        load_a(plus(a_row, row), plus(lane_k, k))
                                    }
                                })
                                .collect();
                            register(&values)
                        })
                        .collect()
                })
                .collect();
            let b_registers: Vec<Vec<Value>> = match (matrices_b, place_b) {
                // Two instruction tiles a load (the last alone where their count is odd).
                (Some(transpose), Some((mn, k))) => (0..tiles_n)
                    .step_by(2)
                    .flat_map(|tn| {
                        let count = 2 * (tiles_n - tn).min(2);
                        let registers = ldmatrix(
                            bb,
                            transpose,
                            plus(mn, 8 * tn),
                            plus(k, plan.input.depth() * step),
                            count,
                        );
                        registers.chunks(2).map(|pair| pair.to_vec()).collect::<Vec<_>>()
                    })
                    .collect(),
                _ => (0..tiles_n)
                    .map(|tn| {
                        (0..2)
                            .map(|r| {
                                let values: Vec<Value> = elements
                                    .iter()
                                    .map(|&e| {
                                        let (k, column) = b_element(plan.input, 0, tn, step, r, e);
                                        load_b(plus(lane_k, k), plus(b_column, column))
                                    })
                                    .collect();
                                register(&values)
                            })
                            .collect()
                    })
                    .collect(),
            };
            for tm in 0..tiles_m {
                for tn in 0..tiles_n {
                    let tile = (tm * tiles_n + tn) as usize;
                    let instruction = nvvm::MmaOperation::builder(self.context, b.location)
                        .res(results)
                        .operand_a(&a_registers[tm as usize])
                        .operand_b(&b_registers[tn as usize])
                        .operand_c(&carried[tile])
                        .shape(shape)
                        .layout_a(row)
                        .layout_b(column)
                        .multiplicand_a_ptx_type(ptx_type)
                        .multiplicand_b_ptx_type(ptx_type);
                    let instruction = match wrapping {
                        Some(wrapping) => instruction.int_overflow_behavior(wrapping),
                        None => instruction,
                    };
                    // Four A registers, two B registers, four accumulators.
                    let product = b.value(
                        at,
                        tile_ir::with_segments(self.context, instruction.build(), &[4, 2, 4]),
                    );
                    carried[tile] = (0..4).map(|v| b.extract(at, product, v, accumulator_type)).collect();
                }
            }
        }
        for (&(tm, tn), values) in tiles.iter().zip(&carried) {
            for (v, value) in values.iter().enumerate() {
                self.set_slot(&b, at, *value, array, accumulator, plan.slot(tm, tn, v as i64));
            }
        }
        // The operand tiles (and A's scratch) may be written after this: every warp is done reading
        // them, unless nothing writes them before the next barrier (`barrier_after`).
        if flat || plan.barrier_after {
            b.barrier(at);
        }
        erase(self.context, op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    /// The documented instruction, written from the PTX ISA's fragment tables (not from the
    /// rule's `a_element`/`b_element`): `a[l][r][e]`, `b[l][r][e]` are lane `l`'s operand
    /// registers (`per` elements each: 2 for m16n8k16, 4 for m16n8k32), `d[l][v]` its
    /// accumulators, updated to `D + A B`.
    fn mma_model(per: usize, a: &[Vec<Vec<i64>>], b: &[Vec<Vec<i64>>], d: &mut [[i64; 4]]) {
        let depth = 8 * per;
        let mut a_matrix = vec![vec![0i64; depth]; 16];
        let mut b_matrix = vec![vec![0i64; 8]; depth];
        for l in 0..32usize {
            let (group, thread) = (l / 4, l % 4);
            for r in 0..4 {
                for e in 0..per {
                    // m16n8k16: a0 (row g, k 2t..), a1 (row g+8), a2 (row g, k 8+2t..), a3;
                    // m16n8k32: the same with k 4t.. and 16+4t...
                    a_matrix[group + 8 * (r % 2)][per * thread + depth / 2 * (r / 2) + e] = a[l][r][e];
                }
            }
            for r in 0..2 {
                for e in 0..per {
                    b_matrix[per * thread + depth / 2 * r + e][group] = b[l][r][e];
                }
            }
        }
        for (l, registers) in d.iter_mut().enumerate() {
            for (v, register) in registers.iter_mut().enumerate() {
                let (i, j) = (l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2);
                *register += (0..depth).map(|k| a_matrix[i][k] * b_matrix[k][j]).sum::<i64>();
            }
        }
    }

    /// Runs the rule's element places and slot mapping on every lane of every warp, the
    /// instruction as documented, and compares the accumulator (read through its layout) with
    /// `C + A B`.
    fn simulate(m: i64, n: i64, depth: i64, threads: i64, chained: bool, register_a: bool) {
        simulate_input(MmaInput::F16, m, n, depth, threads, chained, register_a);
    }

    fn simulate_input(input: MmaInput, m: i64, n: i64, depth: i64, threads: i64, chained: bool, register_a: bool) {
        let warps = crate::nvgpu::chip::mma_warp_split(threads, m, n, chained).expect("a split");
        let layout = atoms::mma_accumulator(m, n, warps);
        let plan = MmaGemm {
            depth,
            register_a,
            input,
            ..MmaGemm::of_layout(&layout).expect("an mma layout")
        };
        let per = input.per_register() as usize;
        assert_eq!(plan.warps, warps);
        let value = |seed: i64| (seed * 7919 + 13) % 11 - 5;
        let a: Vec<Vec<i64>> = (0..m)
            .map(|i| (0..depth).map(|k| value(i * 131 + k)).collect())
            .collect();
        let bm: Vec<Vec<i64>> = (0..depth)
            .map(|k| (0..n).map(|j| value(k * 37 + j * 3 + 1)).collect())
            .collect();
        let c: Vec<Vec<i64>> = (0..m).map(|i| (0..n).map(|j| value(i + j * 5 + 2)).collect()).collect();
        let mut registers = vec![vec![0i64; layout.slots() as usize]; threads as usize];
        for element in layout.elements() {
            for thread in layout.owner_set(&element) {
                registers[thread as usize][layout.slot_of(&element) as usize] =
                    c[element[0] as usize][element[1] as usize];
            }
        }
        let a_layout = atoms::mma_a_operand(m, depth, warps.0);
        let mut a_registers = vec![vec![0i64; a_layout.slots() as usize]; threads as usize];
        for element in a_layout.elements() {
            for thread in a_layout.owner_set(&element) {
                a_registers[thread as usize][a_layout.slot_of(&element) as usize] =
                    a[element[0] as usize][element[1] as usize];
            }
        }
        let (rows, columns) = plan.warp_tile();
        let (tiles_m, tiles_n) = plan.tiles();
        for warp in 0..threads / 32 {
            let (row0, column0) = ((warp / warps.1) * rows, (warp % warps.1) * columns);
            for tm in 0..tiles_m {
                for tn in 0..tiles_n {
                    let mut d: Vec<[i64; 4]> = (0..32)
                        .map(|l| {
                            std::array::from_fn(|v| {
                                registers[(warp * 32 + l) as usize][plan.slot(tm, tn, v as i64) as usize]
                            })
                        })
                        .collect();
                    for step in 0..depth / input.depth() {
                        let a_operand: Vec<Vec<Vec<i64>>> = (0..32)
                            .map(|l| {
                                (0..4)
                                    .map(|r| {
                                        (0..per as i64)
                                            .map(|e| {
                                                if register_a {
                                                    a_registers[(warp * 32 + l) as usize]
                                                        [plan.a_slot(tm, step, r, e) as usize]
                                                } else {
                                                    let (row, k) = a_element(input, l, tm, step, r, e);
                                                    a[(row0 + row) as usize][k as usize]
                                                }
                                            })
                                            .collect()
                                    })
                                    .collect()
                            })
                            .collect();
                        let b_operand: Vec<Vec<Vec<i64>>> = (0..32)
                            .map(|l| {
                                (0..2)
                                    .map(|r| {
                                        (0..per as i64)
                                            .map(|e| {
                                                let (k, column) = b_element(input, l, tn, step, r, e);
                                                bm[k as usize][(column0 + column) as usize]
                                            })
                                            .collect()
                                    })
                                    .collect()
                            })
                            .collect();
                        mma_model(per, &a_operand, &b_operand, &mut d);
                    }
                    for l in 0..32 {
                        for v in 0..4 {
                            registers[(warp * 32 + l) as usize][plan.slot(tm, tn, v) as usize] =
                                d[l as usize][v as usize];
                        }
                    }
                }
            }
        }
        for element in layout.elements() {
            let (i, j) = (element[0] as usize, element[1] as usize);
            let expected = c[i][j] + (0..depth as usize).map(|k| a[i][k] * bm[k][j]).sum::<i64>();
            let thread = layout.owner_set(&element)[0];
            assert_eq!(
                registers[thread as usize][layout.slot_of(&element) as usize],
                expected,
                "element ({i}, {j}) of a {m}x{n}x{depth} gemm on {threads} threads, warps {warps:?}"
            );
        }
    }

    #[test]
    fn the_rule_computes_the_product() {
        // Attention on two warps (chained: warps split M), a 2x2 split, one warp, N split alone.
        simulate(32, 32, 32, 64, true, false);
        simulate(64, 64, 32, 128, false, false);
        simulate(16, 8, 16, 32, false, false);
        simulate(16, 64, 48, 64, false, false);
        simulate(64, 24, 16, 128, true, false);
    }

    #[test]
    fn i8_products_on_m16n8k32_compute_the_product() {
        simulate_input(MmaInput::S8, 64, 64, 64, 128, false, false);
        simulate_input(MmaInput::S8, 16, 8, 32, 32, false, false);
        simulate_input(MmaInput::S8, 32, 32, 96, 64, true, false);
    }

    #[test]
    fn a_register_operand_in_the_a_layout_computes_the_product() {
        simulate(32, 32, 32, 64, true, true);
        simulate(64, 16, 64, 128, true, true);
        simulate(16, 40, 16, 32, true, true);
    }

    /// What lane `l` receives in register `i` of an ldmatrix whose lanes gave the rows
    /// `rows[j]` (the stored row address of row j % 8 of matrix j / 8, as `(row, column)` of
    /// `stored`), written from the PTX ISA: untransposed, row l / 4 of matrix i, its `per`
    /// elements from (l % 4) per; transposed (16-bit), element [2 (l % 4) + e][l / 4].
    fn ldmatrix_model(
        stored: &[Vec<i64>],
        rows: &[(i64, i64)],
        l: usize,
        i: usize,
        per: i64,
        transpose: bool,
    ) -> Vec<i64> {
        (0..per)
            .map(|e| {
                let (row, column) = if transpose {
                    (2 * (l as i64 % 4) + e, l as i64 / 4)
                } else {
                    (l as i64 / 4, per * (l as i64 % 4) + e)
                };
                let (start_row, start_column) = rows[i * 8 + row as usize];
                stored[start_row as usize][(start_column + column) as usize]
            })
            .collect()
    }

    /// Each orientation's ldmatrix loads (A at 16-row tile `tm`, B at 8-column tiles `tn`, `tn +
    /// 1`, every K step) give every lane the elements `a_element` and `b_element` say its
    /// registers hold.
    #[test]
    fn ldmatrix_rows_give_each_lane_its_operand_registers() {
        for input in [MmaInput::F16, MmaInput::S8] {
            let (per, depth) = (input.per_register(), input.depth());
            let chunk = depth / 2;
            // A 32xK operand (M or N by K), as stored both ways: entry (mn, k) holds 1000 mn + k.
            let value = |mn: i64, k: i64| 1000 * mn + k;
            let k_rows: Vec<Vec<i64>> = (0..32)
                .map(|mn| (0..2 * depth).map(|k| value(mn, k)).collect())
                .collect();
            let k_columns: Vec<Vec<i64>> = (0..2 * depth)
                .map(|k| (0..32).map(|mn| value(mn, k)).collect())
                .collect();
            for transpose in [false, true].into_iter().filter(|t| !t || input != MmaInput::S8) {
                let stored = if transpose { &k_columns } else { &k_rows };
                for step in 0..2 {
                    let address = |mn_bit: i64, mn_start: i64| -> Vec<(i64, i64)> {
                        (0..32)
                            .map(|lane| {
                                let (mn, k) = ldmatrix_row(lane, transpose, mn_bit, chunk);
                                let (mn, k) = (mn_start + mn, depth * step + k);
                                if transpose { (k, mn) } else { (mn, k) }
                            })
                            .collect()
                    };
                    let (a_rows, b_rows) = (address(0, 16), address(1, 8));
                    for l in 0..32usize {
                        for r in 0..4 {
                            let expected: Vec<i64> = (0..per)
                                .map(|e| {
                                    let (row, k) = a_element(input, l as i64, 1, step, r, e);
                                    value(row, k)
                                })
                                .collect();
                            let got = ldmatrix_model(stored, &a_rows, l, r as usize, per, transpose);
                            assert_eq!(
                                got, expected,
                                "A, {input:?}, transpose {transpose}, lane {l}, register {r}"
                            );
                        }
                        for (i, (tn, r)) in [(1, 0), (1, 1), (2, 0), (2, 1)].into_iter().enumerate() {
                            let expected: Vec<i64> = (0..per)
                                .map(|e| {
                                    let (k, column) = b_element(input, l as i64, tn, step, r, e);
                                    value(column, k)
                                })
                                .collect();
                            let got = ldmatrix_model(stored, &b_rows, l, i, per, transpose);
                            assert_eq!(
                                got, expected,
                                "B, {input:?}, transpose {transpose}, lane {l}, matrix {i}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn only_mma_layouts_of_a_warp_split_are_taken() {
        let plan = MmaGemm::of_layout(&atoms::mma_accumulator(64, 64, (2, 2))).expect("mma");
        assert_eq!((plan.warps, plan.tiles()), ((2, 2), (2, 4)));
        let blocked = atoms::blocked(&[32, 32], 64);
        assert!(MmaGemm::of_layout(&blocked).is_err());
        let renamed = tile_dialect::layout::FragmentLayout {
            origin: atoms::MMA_ACCUMULATOR.into(),
            ..blocked
        };
        assert!(MmaGemm::of_layout(&renamed).unwrap_err().contains("not the mma layout"));
    }
}
