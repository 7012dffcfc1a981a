//! The gfx942 matrix-core rule: `tile.gemm` on `amdgpu.mfma` when its accumulator has the mfma
//! layout (`tile-infer-layouts` anchors it, origin `mfma.32x32` or `mfma.16x16`).
//!
//! The instruction (CDNA3 ISA, `V_MFMA_F32_32X32X8_F16` / `_BF16_1K` and `V_MFMA_F32_16X16X16_F16`
//! / `_BF16_1K`, one block), for an output tile of `size`x`size` and a K depth of `256 / size`:
//! - A operand: lane `l` holds 4 elements, element `e` being `A[l % size][4 (l / size) + e]`;
//! - B operand: lane `l` element `e` is `B[4 (l / size) + e][l % size]`;
//! - accumulator (`size * size / 64` f32 a lane): lane `l` register `v` is `D[i][l % size]` with
//!   `i = 8 (v / 4) + 4 (l / 32) + v % 4` (32x32) or `i = 4 (l / 16) + v` (16x16).
//!
//! The accumulator's layout ([`crate::layout::atoms::mfma_accumulator`]) splits the waves over the
//! tile and numbers each wave's slots (instruction tile along M, along N, accumulator register), so
//! the registers of one instruction tile are consecutive slots in the instruction's order. The rule
//! reads each lane's A and B elements from the shared tiles and issues one mfma per instruction
//! tile and K step, the accumulators carried through a loop over K. Where K runs along a tile's
//! stored rows (its last dimension, or its first where its layout stores it transposed:
//! [`crate::layout::stored`]) a lane's elements are read as one vector: 8 elements of K for two K
//! steps where both operands are so read ([`paired_element`]: one 16-byte read per operand and
//! pair of steps), 4 a step otherwise; element by element elsewhere. A fragment A
//! operand in the instruction's A-operand layout ([`crate::layout::atoms::mfma_a_operand`]) is
//! read from its registers (the K steps unrolled, so that they are indexed by constants); any
//! other fragment A is first written to its scratch tile, row-major, as the scalar rule does (its
//! rows lie on other lanes: an accumulator's layout is the transpose of the A-operand layout, so
//! a gemm's result never feeds the next gemm's A in registers).
//!
//! The index arithmetic is written once, over [`Arith`], and runs both as IR and, in the tests, on
//! integers against a model of the instruction.

use super::*;
use crate::amdgpu::config::{MFMA_16, MFMA_32};
use melior::ir::{ShapedTypeLike, attribute::ArrayAttribute};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::tile::{GemmOperation, KernelOperation};

/// A gemm on mfma: the instruction and the wave split its accumulator's layout says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MfmaGemm {
    /// Rows and columns of one instruction's output tile (32 or 16).
    pub size: i64,
    /// K depth of one instruction (8 or 16).
    pub k: i64,
    /// Waves along M and along N.
    pub waves: (i64, i64),
    /// Rows and columns of the accumulator.
    pub shape: (i64, i64),
    /// K of the gemm (0 until checked against the operands).
    pub depth: i64,
    /// A is a fragment in the mfma A-operand layout: its registers are the instruction's operands.
    pub register_a: bool,
    /// The accumulator's registers are read and written as one vector per instruction tile
    /// (see [`vector_accumulators`]).
    pub vector_accumulators: bool,
}

impl MfmaGemm {
    /// f32 accumulators a lane holds for one instruction tile.
    pub fn accumulators(&self) -> i64 {
        self.size * self.size / 64
    }

    /// Rows and columns of one wave's tile.
    pub fn wave_tile(&self) -> (i64, i64) {
        (self.shape.0 / self.waves.0, self.shape.1 / self.waves.1)
    }

    /// Instruction tiles of one wave (along M, along N).
    pub fn tiles(&self) -> (i64, i64) {
        let (rows, columns) = self.wave_tile();
        (rows / self.size, columns / self.size)
    }

    /// The accumulator slot of register `v` of instruction tile (`tm`, `tn`): the mfma layout's
    /// slot order.
    pub fn slot(&self, tm: i64, tn: i64, v: i64) -> i64 {
        (tm * self.tiles().1 + tn) * self.accumulators() + v
    }

    /// The slot of a fragment A operand in the mfma A-operand layout
    /// ([`crate::layout::atoms::mfma_a_operand`]) that holds element `e` of this lane's operand of
    /// instruction tile `tm` at K step `step`.
    pub fn a_slot(&self, tm: i64, step: i64, e: i64) -> i64 {
        (tm * (self.depth / self.k) + step) * 4 + e
    }

    /// The instruction's name as `amdgpu.mfma` spells its shape.
    pub fn name(&self) -> String {
        format!("{0}x{0}x{1}", self.size, self.k)
    }

    /// The gemm of an accumulator laid out as `layout` with the mfma layout of some split of its
    /// waves, or why not.
    pub fn of_layout(layout: &tile_dialect::layout::FragmentLayout) -> Result<MfmaGemm, String> {
        let origin = &layout.origin;
        let instruction = [MFMA_32, MFMA_16]
            .into_iter()
            .find(|instruction| *origin == format!("mfma.{0}x{0}", instruction.size))
            .ok_or_else(|| format!("has an accumulator layout '{origin}' that names no mfma instruction of gfx942 (mfma.32x32, mfma.16x16)"))?;
        let [m, n] = layout.shape[..] else {
            return Err(format!("has a {}-D accumulator", layout.shape.len()));
        };
        let waves = layout.threads / 64;
        let wanted = crate::layout::Layout::Fragment(layout.clone());
        (1..=waves)
            .filter(|wm| layout.threads % 64 == 0 && waves % wm == 0)
            .map(|wm| (wm, waves / wm))
            .filter(|(wm, wn)| m % (wm * instruction.size) == 0 && n % (wn * instruction.size) == 0)
            .find(|waves| wanted.agrees(&crate::layout::Layout::Fragment(crate::layout::atoms::mfma_accumulator(m, n, *waves, instruction.size))))
            .map(|waves| MfmaGemm { size: instruction.size, k: instruction.k, waves, shape: (m, n), depth: 0, register_a: false, vector_accumulators: false })
            .ok_or_else(|| format!("has an accumulator layout named '{origin}' that is not the {origin} layout of any split of its {waves} waves over the {m}x{n} tile"))
    }
}

/// Which gemms of a kernel run on mfma (by op), and the gemms whose accumulator has an mfma layout
/// that the rule cannot build, with the reason (they keep the scalar rule, with a warning).
pub fn mfma_plan<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    layouts: &Layouts,
    threads: i64,
) -> (HashMap<usize, MfmaGemm>, Vec<(OperationRef<'c, 'a>, String)>) {
    let all: Vec<OperationRef> = ops
        .iter()
        .copied()
        .filter(|op| tile_ir::is(op, GemmOperation::name))
        .collect();
    let chained = all.len() > 1;
    // A gemm with no mfma layout: say why. (Where inference would have given one, the program
    // wrote another layout by hand: its choice, nothing to warn about.)
    plan_gemms(
        &all,
        layouts,
        |origin| origin.starts_with("mfma."),
        |gemm| crate::amdgpu::anchors::mfma_unavailable(gemm, threads, chained),
        |gemm, [a, b, c], accumulator| {
            let plan = check_gemm(gemm, a, b, c, accumulator, layouts)?;
            Ok(MfmaGemm {
                vector_accumulators: vector_accumulators(*gemm, c, ops),
                ..plan
            })
        },
    )
}

/// Whether the accumulator `c` of `gemm` is moved between its slots and the instruction's
/// vectors as whole vectors (one load and one store per instruction tile, where the tile's
/// registers are consecutive): where the gemm sits in a loop in which nothing but gemms touches the
/// accumulator (a GEMM's main loop). LLVM's SROA then carries the accumulators across the loop as
/// vectors, and the SLP vectorizer has no element-by-element vectors to try to rebuild (a fifth
/// of a gfx942 GEMM kernel's compilation, for the same code). Where other ops touch it in the
/// loop (attention's rescaling of its output), the slots are moved one by one as before: the
/// vectorizer's work there shapes LLVM's later unrolling and peeling decisions.
fn vector_accumulators(gemm: OperationRef, c: Value, ops: &[OperationRef]) -> bool {
    let Some(body) = gemm
        .parent_operation()
        .filter(|parent| !tile_ir::is(parent, KernelOperation::name))
    else {
        return false;
    };
    let inside = |op: &OperationRef| {
        let mut parent = op.parent_operation();
        while let Some(current) = parent {
            if current == body {
                return true;
            }
            if tile_ir::is(&current, KernelOperation::name) {
                return false;
            }
            parent = current.parent_operation();
        }
        false
    };
    !ops.iter().any(|op| {
        !tile_ir::is(op, GemmOperation::name)
            && (0..op.operand_count()).any(|i| op.operand_at(i).is_some_and(|operand| operand == c))
            && inside(op)
    })
}

fn check_gemm(
    gemm: &OperationRef,
    a: Value,
    b: Value,
    c: Value,
    accumulator: &Placed,
    layouts: &Layouts,
) -> Result<MfmaGemm, String> {
    let plan = MfmaGemm::of_layout(&accumulator.layout)?;
    use tile_dialect::element::Element;
    let inputs = crate::registers::patterns::MatrixInputs {
        inputs: &[Element::F16, Element::BF16, Element::F8E4M3FN, Element::F8E5M2],
        accumulator: Element::F32,
        takes: crate::amdgpu::anchors::MFMA_INPUTS,
    };
    let name = format!("mfma.{}", plan.name());
    let depth =
        crate::registers::patterns::matrix_gemm_depth_taking(gemm, [a, b, c], &name, "gfx942", plan.k, &inputs)?;
    let transpose_a = gemm.attribute("transpose_a").is_ok();
    // A fragment A already in the instruction's operand layout is read from its registers.
    let register_a = !transpose_a
        && level(a) == Some(MemoryLevel::Fragment)
        && placed(layouts, a).is_ok_and(|operand| {
            let wanted = crate::layout::atoms::mfma_a_operand(plan.shape.0, depth, plan.waves, plan.size);
            crate::layout::Layout::Fragment(operand.layout.clone()).agrees(&crate::layout::Layout::Fragment(wanted))
        });
    Ok(MfmaGemm {
        depth,
        register_a,
        ..plan
    })
}

/// Whether the mfma gemm `gemm` reads its fragment A operand from registers (it needs no scratch).

// ---- the index arithmetic, written once --------------------------------------------------------

/// The arithmetic the rule's indices need: on integers (the tests' model) or as IR.
pub(crate) trait Arith<V: Copy> {
    fn constant(&self, value: i64) -> V;
    fn add(&self, x: V, y: V) -> V;
    fn mul(&self, x: V, y: V) -> V;
    fn div(&self, x: V, y: V) -> V;
    fn rem(&self, x: V, y: V) -> V;
}

/// Where a lane works: its wave's first row and column of the accumulator, its row (A) or column
/// (B) in an instruction tile, and the first element of K it feeds.
pub(crate) struct Lane<V> {
    row0: V,
    column0: V,
    mn: V,
    k: V,
}

/// The lane of thread `tid`.
pub(crate) fn lane<V: Copy>(math: &impl Arith<V>, plan: &MfmaGemm, tid: V) -> Lane<V> {
    let c = |value| math.constant(value);
    let lane = math.rem(tid, c(64));
    let wave = math.div(tid, c(64));
    let (rows, columns) = plan.wave_tile();
    let wave_m = math.div(wave, c(plan.waves.1));
    let wave_n = math.rem(wave, c(plan.waves.1));
    let group = math.div(lane, c(plan.size));
    Lane {
        row0: math.mul(wave_m, c(rows)),
        column0: math.mul(wave_n, c(columns)),
        mn: math.rem(lane, c(plan.size)),
        k: math.mul(group, c(4)),
    }
}

/// Which operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    A,
    B,
}

/// How an operand is stored: a 2-D tile, or a flat row-major scratch of `columns` columns; with K
/// as its last dimension (`k_last`) or first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Storage {
    pub k_last: bool,
    pub flat: Option<i64>,
}

/// The (M or N, K) element of `operand` this lane feeds as element `e` of instruction tile `t`
/// (along M for A, along N for B) at the K step starting at `step`.
pub(crate) fn operand_element<V: Copy>(
    math: &impl Arith<V>,
    plan: &MfmaGemm,
    lane: &Lane<V>,
    operand: Operand,
    t: i64,
    step: V,
    e: i64,
) -> (V, V) {
    let origin = match operand {
        Operand::A => lane.row0,
        Operand::B => lane.column0,
    };
    let first = if t == 0 {
        origin
    } else {
        math.add(origin, math.constant(t * plan.size))
    };
    let mn = math.add(first, lane.mn);
    let k = math.add(step, lane.k);
    let k = if e == 0 { k } else { math.add(k, math.constant(e)) };
    (mn, k)
}

/// The indices of element (mn, k) of an operand stored as `storage`.
pub(crate) fn stored_at<V: Copy>(math: &impl Arith<V>, storage: Storage, mn: V, k: V) -> Vec<V> {
    let (row, column) = if storage.k_last { (mn, k) } else { (k, mn) };
    match storage.flat {
        Some(columns) => vec![math.add(math.mul(row, math.constant(columns)), column)],
        None => vec![row, column],
    }
}

/// The (M or N, K) element of `operand` this lane feeds as element `e` of instruction tile `t` at
/// step `half` (0 or 1) of the pair of K steps from `k0`, where the steps are read in pairs: the
/// lane's eight consecutive elements of K from `k0 + 8 (l / size)`, the first four for the first
/// step. Every element of the pair's K goes to one lane group and step, for A and B alike.
#[allow(clippy::too_many_arguments)]
pub(crate) fn paired_element<V: Copy>(
    math: &impl Arith<V>,
    plan: &MfmaGemm,
    lane: &Lane<V>,
    operand: Operand,
    t: i64,
    k0: V,
    half: i64,
    e: i64,
) -> (V, V) {
    let doubled = Lane {
        row0: lane.row0,
        column0: lane.column0,
        mn: lane.mn,
        k: math.add(lane.k, lane.k),
    };
    operand_element(math, plan, &doubled, operand, t, k0, 4 * half + e)
}

/// An operand tile read along K as vectors: its stored memref in LDS's numbered memory space
/// (`vector.load` of a `#gpu.address_space<workgroup>` memref would reach
/// convert-vector-to-llvm before the address space is numbered), whether its stored dimensions
/// are the tile's swapped, and the elements of a stored row.
struct VectorSource<'c, 'a> {
    memref: Value<'c, 'a>,
    swapped: bool,
    row: i64,
}

/// Whether K runs along the stored rows of `tile` (read as `storage` says): its last dimension,
/// or its first where its layout stores it transposed (`crate::layout::stored`).
fn k_along_stored_rows(tile: Value, storage: Storage) -> bool {
    match crate::layout::stored::stored(tile) {
        Some(stored) => storage.k_last != stored.layout.transposed,
        None => storage.k_last,
    }
}

/// How `tile`, stored as `storage` says, is read as vectors: where K runs along its stored rows
/// (the tile's last dimension, or its first where its layout stores it transposed:
/// `crate::layout::stored`) and a stored row is a multiple of 4 long (a lane's four elements are
/// then 8-byte aligned); `None` otherwise (element by element).
fn vector_source<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    tile: Value<'c, 'a>,
    storage: Storage,
) -> Option<VectorSource<'c, 'a>> {
    let in_lds = |value: Value| {
        tile_dialect::level::memory_level(value.r#type()) == Some(tile_dialect::level::MemoryLevel::Shared)
    };
    if !k_along_stored_rows(tile, storage) {
        return None;
    }
    let (memref, swapped, row) = match crate::layout::stored::stored(tile) {
        Some(stored) => (stored.allocation, stored.layout.transposed, stored.shape[1]),
        None => (
            tile,
            false,
            storage.flat.unwrap_or_else(|| *memref_shape(tile).last().unwrap_or(&0)),
        ),
    };
    if row % 4 != 0 || !in_lds(memref) {
        return None;
    }
    let ty = tile_dialect::ops::as_memref(memref.r#type())?;
    let lds = crate::layout::stored::stored_type(b.context, ty.element(), &memref_shape(memref), Some(ty.layout()));
    let memref = b.cast(at, tile_ir::memref::memory_space_cast, memref, lds);
    Some(VectorSource { memref, swapped, row })
}

impl<'c, 'a> VectorSource<'c, 'a> {
    /// Reads `width` elements of K from element (mn, k) as `ty`, aligned as far as the stored rows
    /// and `width` allow (`k` is a multiple of `width`).
    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        b: &Builder<'c>,
        at: At<'c, 'a>,
        storage: Storage,
        mn: Value<'c, 'a>,
        k: Value<'c, 'a>,
        ty: Type<'c>,
        width: i64,
    ) -> Value<'c, 'a> {
        let mut indices = stored_at(&InIr { b, at }, storage, mn, k);
        if self.swapped {
            indices.reverse();
        }
        let elements = (1..=width)
            .rev()
            .find(|size: &i64| (*size as u64).is_power_of_two() && width % size == 0 && self.row % size == 0)
            .unwrap_or(1);
        let bytes = elements
            * tile_dialect::ops::as_memref(self.memref.r#type())
                .and_then(|memref| tile_dialect::element::Element::of(memref.element()))
                .map_or(1, |element| element.bytes() as i64);
        b.value(
            at,
            tile_ir::vector::LoadOperation::builder(b.context, b.location)
                .result(ty)
                .base(self.memref)
                .indices(&indices)
                .alignment(crate::attributes::alignment(b.context, bytes))
                .build()
                .into(),
        )
    }
}

/// [`Arith`] as IR at one place.
struct InIr<'b, 'c, 'a> {
    b: &'b Builder<'c>,
    at: At<'c, 'a>,
}

impl<'c, 'a> Arith<Value<'c, 'a>> for InIr<'_, 'c, 'a> {
    fn constant(&self, value: i64) -> Value<'c, 'a> {
        self.b.index(self.at, value)
    }
    fn add(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.b.addi(self.at, x, y)
    }
    fn mul(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.b.muli(self.at, x, y)
    }
    fn div(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.b.divui(self.at, x, y)
    }
    fn rem(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.b.remui(self.at, x, y)
    }
}

impl<'c, 'a> Lowering<'c, 'a, '_> {
    /// `C += A B` on `amdgpu.mfma`: per K step, each lane loads its A and B elements of every
    /// instruction tile of its wave, and each instruction tile takes one mfma; the accumulators are
    /// the fragment's slots, carried through the loop over K as vectors.
    pub(super) fn mfma(&self, op: OperationRef<'c, 'a>, scratch: Option<Value<'c, 'a>>, plan: MfmaGemm) {
        let b = self.builder(&op);
        let at = At::before(op);
        let [a, bb, c] = [0, 1, 2].map(|i| op.operand_at(i).expect("gemm operand"));
        let (transpose_a, transpose_b) = (op.attribute("transpose_a").is_ok(), op.attribute("transpose_b").is_ok());
        let a_shape = memref_shape(a);
        let depth = if transpose_a { a_shape[0] } else { a_shape[1] };
        // A fragment A operand goes to its scratch, row-major in its own shape.
        let (a_tile, a_storage) = match scratch.filter(|_| level(a) == Some(MemoryLevel::Fragment) && !plan.register_a)
        {
            Some(staged) => {
                let columns = a_shape[1];
                self.stage(&b, at, a, staged, &|b, at, coordinates| {
                    stored_at(
                        &InIr { b, at },
                        Storage {
                            k_last: true,
                            flat: Some(columns),
                        },
                        coordinates[0],
                        coordinates[1],
                    )[0]
                });
                b.barrier(at);
                (
                    staged,
                    Storage {
                        k_last: !transpose_a,
                        flat: Some(columns),
                    },
                )
            }
            None => (
                a,
                Storage {
                    k_last: !transpose_a,
                    flat: None,
                },
            ),
        };
        let b_storage = Storage {
            k_last: transpose_b,
            flat: None,
        };
        // A fragment A in the mfma A-operand layout: its registers, read per K step.
        let a_registers = plan
            .register_a
            .then(|| (self.private(a), placed(self.layouts, a).expect("checked")));
        // How A and B are read: as vectors where K runs along the stored rows, else element by
        // element through the tiles' views.
        let a_vectors = if plan.register_a {
            None
        } else {
            vector_source(&b, at, a_tile, a_storage)
        };
        let b_vectors = vector_source(&b, at, bb, b_storage);
        // A shared tile another gemm reads the other way round is stored for that gemm (the first
        // one's preference, `crate::layout::anchors::Anchor::preferred`): this one reads it element
        // by element.
        let unstaged_a = (a_tile == a && !plan.register_a).then_some(("A", a, a_storage));
        for (role, tile, storage) in unstaged_a.into_iter().chain([("B", bb, b_storage)]) {
            if level(tile) == Some(MemoryLevel::Shared) && !k_along_stored_rows(tile, storage) {
                tile_dialect::diagnostics::emit_warning(
                    op.location(),
                    &format!(
                        "'tile.gemm' op reads its {role} operand element by element on gfx942, not as vectors along K: its shared tile is stored with K across its rows (as another gemm reads it, or as its tile.layout says); a tile of its own would be stored K-major"
                    ),
                );
            }
        }
        // Both read as vectors: each lane reads 8 elements of K for two K steps at once (one
        // 16-byte read instead of two 8-byte ones; the pair's steps take K in another order than
        // the instruction's, the same for A and B, which the sum over K does not see).
        let paired = a_vectors.is_some() && b_vectors.is_some() && depth % (2 * plan.k) == 0;
        let accumulator = placed(self.layouts, c).expect("checked");
        let array = self.private(c);
        let input = element_type(a);
        let f32_type = Type::float32(self.context);
        let operand_type: Type = Type::parse(self.context, &format!("vector<4x{input}>")).expect("operand vector");
        let pair_type: Type = Type::parse(self.context, &format!("vector<8x{input}>")).expect("operand pair vector");
        let accumulator_type: Type =
            Type::parse(self.context, &format!("vector<{}xf32>", plan.accumulators())).expect("accumulator vector");
        let (tiles_m, tiles_n) = plan.tiles();
        let tiles: Vec<(i64, i64)> = (0..tiles_m)
            .flat_map(|tm| (0..tiles_n).map(move |tn| (tm, tn)))
            .collect();
        let outside = InIr { b: &b, at };
        let lane = lane(&outside, &plan, self.tid);
        // The accumulators of each instruction tile, from the fragment's slots: one vector load
        // where the tile's registers are consecutive in the array (the mfma layout's own order),
        // so that LLVM's SROA keeps them as vectors across the loops and the SLP vectorizer finds
        // no element-by-element vectors to rebuild (it spent a fifth of a gfx942 kernel's
        // compilation on them, to the same code).
        let first_register = |tm: i64, tn: i64| {
            let registers: Vec<i64> = (0..plan.accumulators())
                .map(|v| accumulator.register(plan.slot(tm, tn, v)))
                .collect();
            (plan.vector_accumulators && registers.windows(2).all(|pair| pair[1] == pair[0] + 1))
                .then_some(registers[0])
        };
        // The array in the private memory space's number, as the LDS tiles are read
        // (`vector_source`): convert-vector-to-llvm runs before `#gpu.address_space<private>`
        // is numbered.
        let numbered = tiles.iter().any(|&(tm, tn)| first_register(tm, tn).is_some()).then(|| {
            let private = MemRefType::new(
                f32_type,
                &[accumulator.register_count()],
                None,
                Some(Attribute::parse(self.context, "5").expect("memory space 5")),
            );
            b.cast(at, tile_ir::memref::memory_space_cast, array, private.into())
        });
        let initial: Vec<Value> = tiles
            .iter()
            .map(|&(tm, tn)| {
                if let (Some(first), Some(numbered)) = (first_register(tm, tn), numbered) {
                    let index = b.index(at, first);
                    return b.value(
                        at,
                        tile_ir::vector::load(self.context, accumulator_type, numbered, &[index], b.location).into(),
                    );
                }
                let values: Vec<Value> = (0..plan.accumulators())
                    .map(|v| self.slot_value(&b, at, array, accumulator, plan.slot(tm, tn, v)))
                    .collect();
                b.value(
                    at,
                    tile_ir::vector::from_elements(self.context, accumulator_type, &values, b.location).into(),
                )
            })
            .collect();
        let i32_attribute = |value: i64| IntegerAttribute::new(IntegerType::new(self.context, 32).into(), value);
        // 8-bit float operands run on the f16 instruction, widened (exactly) as they enter it.
        let widened_type = tile_dialect::element::Element::of(input)
            .is_some_and(tile_dialect::element::Element::is_f8)
            .then(|| Type::parse(self.context, "vector<4xf16>").expect("operand vector"));
        let widen = |at: At<'c, 'a>, value: Value<'c, 'a>| match widened_type {
            Some(ty) => b.cast(at, tile_ir::arith::extf, value, ty),
            None => value,
        };
        // One mfma per instruction tile on the accumulators `carried`, with the tiles' operands.
        let issue = |at: At<'c, 'a>,
                     a_values: &[Value<'c, 'a>],
                     b_values: &[Value<'c, 'a>],
                     carried: &[Value<'c, 'a>]|
         -> Vec<Value<'c, 'a>> {
            let a_values: Vec<Value> = a_values.iter().map(|value| widen(at, *value)).collect();
            let b_values: Vec<Value> = b_values.iter().map(|value| widen(at, *value)).collect();
            tiles
                .iter()
                .zip(carried)
                .map(|(&(tm, tn), carried)| {
                    b.value(
                        at,
                        tile_ir::amdgpu::MFMAOperation::builder(self.context, b.location)
                            .dest_d(accumulator_type)
                            .source_a(a_values[tm as usize])
                            .source_b(b_values[tn as usize])
                            .dest_c(*carried)
                            .m(i32_attribute(plan.size))
                            .n(i32_attribute(plan.size))
                            .k(i32_attribute(plan.k))
                            .blocks(i32_attribute(1))
                            .cbsz(i32_attribute(0))
                            .abid(i32_attribute(0))
                            .blgp(Attribute::parse(self.context, "#amdgpu<mfma_perm_b none>").expect("blgp"))
                            .build()
                            .into(),
                    )
                })
                .collect()
        };
        // One K step at `k0` (the `step`-th, where A is read from registers): each lane's four
        // elements of K of each operand, then the mfma.
        let k_step = |at: At<'c, 'a>, k0: Value<'c, 'a>, step: i64, carried: &[Value<'c, 'a>]| -> Vec<Value<'c, 'a>> {
            let math = InIr { b: &b, at };
            let vector = |values: &[Value<'c, 'a>]| {
                b.value(
                    at,
                    tile_ir::vector::from_elements(self.context, operand_type, values, b.location).into(),
                )
            };
            let read = |operand: Operand,
                        tile: Value<'c, 'a>,
                        storage: Storage,
                        source: &Option<VectorSource<'c, 'a>>,
                        t: i64|
             -> Value<'c, 'a> {
                if let Some(source) = source {
                    let (mn, k) = operand_element(&math, &plan, &lane, operand, t, k0, 0);
                    return source.read(&b, at, storage, mn, k, operand_type, 4);
                }
                let values: Vec<Value> = (0..4)
                    .map(|e| {
                        let (mn, k) = operand_element(&math, &plan, &lane, operand, t, k0, e);
                        b.load(at, tile, &stored_at(&math, storage, mn, k))
                    })
                    .collect();
                vector(&values)
            };
            let a_values: Vec<Value> = (0..tiles_m)
                .map(|tm| match a_registers {
                    Some((array, operand)) => vector(
                        &(0..4)
                            .map(|e| self.slot_value(&b, at, array, operand, plan.a_slot(tm, step, e)))
                            .collect::<Vec<_>>(),
                    ),
                    None => read(Operand::A, a_tile, a_storage, &a_vectors, tm),
                })
                .collect();
            let b_values: Vec<Value> = (0..tiles_n)
                .map(|tn| read(Operand::B, bb, b_storage, &b_vectors, tn))
                .collect();
            issue(at, &a_values, &b_values, carried)
        };
        // Two K steps from `k0` (paired): each lane's eight elements of K of each operand, the
        // first four for the first step's mfma, the others for the second's.
        let k_pair = |at: At<'c, 'a>, k0: Value<'c, 'a>, carried: &[Value<'c, 'a>]| -> Vec<Value<'c, 'a>> {
            let math = InIr { b: &b, at };
            let read =
                |operand: Operand, source: &Option<VectorSource<'c, 'a>>, storage: Storage, t: i64| -> Value<'c, 'a> {
                    let (mn, k) = paired_element(&math, &plan, &lane, operand, t, k0, 0, 0);
                    source
                        .as_ref()
                        .expect("paired operands are read as vectors")
                        .read(&b, at, storage, mn, k, pair_type, 8)
                };
            let a_pairs: Vec<Value> = (0..tiles_m)
                .map(|tm| read(Operand::A, &a_vectors, a_storage, tm))
                .collect();
            let b_pairs: Vec<Value> = (0..tiles_n)
                .map(|tn| read(Operand::B, &b_vectors, b_storage, tn))
                .collect();
            // `[value]`, an array of one i64.
            let one_i64 = |value: i64| -> Attribute {
                let element = IntegerAttribute::new(IntegerType::new(self.context, 64).into(), value).into();
                ArrayAttribute::new(self.context, &[element]).into()
            };
            // Built by name: melior's generated `vector.extract_strided_slice` constructor gives the
            // op no result (its result type is neither a parameter nor inferred).
            let half = |pair: &Value<'c, 'a>, which: i64| {
                b.value(
                    at,
                    OperationBuilder::new(tile_ir::vector::ExtractStridedSliceOperation::name(), b.location)
                        .add_operands(&[*pair])
                        .add_attributes(&[
                            (Identifier::new(self.context, "offsets"), one_i64(4 * which)),
                            (Identifier::new(self.context, "sizes"), one_i64(4)),
                            (Identifier::new(self.context, "strides"), one_i64(1)),
                        ])
                        .add_results(&[operand_type])
                        .build()
                        .expect("vector.extract_strided_slice"),
                )
            };
            (0..2).fold(carried.to_vec(), |carried, which| {
                let a_values: Vec<Value> = a_pairs.iter().map(|pair| half(pair, which)).collect();
                let b_values: Vec<Value> = b_pairs.iter().map(|pair| half(pair, which)).collect();
                issue(at, &a_values, &b_values, &carried)
            })
        };
        let results: Vec<Value> = if a_registers.is_some() {
            // A's registers are indexed by constants: the K steps are unrolled.
            (0..depth / plan.k).fold(initial, |carried, step| {
                let k0 = b.index(at, step * plan.k);
                k_step(at, k0, step, &carried)
            })
        } else {
            // scf.for over the K steps (pairs of them), the accumulators carried.
            let index = Type::index(self.context);
            let (zero, end, step) = (
                b.index(at, 0),
                b.index(at, depth),
                b.index(at, if paired { 2 * plan.k } else { plan.k }),
            );
            let mut arguments = vec![(index, b.location)];
            arguments.extend(tiles.iter().map(|_| (accumulator_type, b.location)));
            let region = melior::ir::Region::new();
            region.append_block(melior::ir::Block::new(&arguments));
            let for_op = b.insert(
                at,
                tile_ir::scf::r#for(
                    self.context,
                    &vec![accumulator_type; tiles.len()],
                    zero,
                    end,
                    step,
                    &initial,
                    region,
                    b.location,
                )
                .into(),
            );
            let body = for_op.body().expect("loop body");
            let placeholder = body.append_operation(melior::dialect::scf::r#yield(&[], b.location));
            let inner = At {
                block: body,
                before: placeholder,
            };
            let k0: Value = body.argument_at(0).expect("induction variable").into();
            let carried: Vec<Value> = (0..tiles.len())
                .map(|position| body.argument_at(position + 1).expect("carried accumulator").into())
                .collect();
            let updated = if paired {
                k_pair(inner, k0, &carried)
            } else {
                k_step(inner, k0, 0, &carried)
            };
            b.insert(inner, melior::dialect::scf::r#yield(&updated, b.location));
            erase(self.context, placeholder);
            (0..tiles.len())
                .map(|position| for_op.result_at(position).expect("loop result").into())
                .collect()
        };
        // The results back to the fragment's slots (one vector store where they are consecutive).
        for (&result, &(tm, tn)) in results.iter().zip(&tiles) {
            if let (Some(first), Some(numbered)) = (first_register(tm, tn), numbered) {
                let index = b.index(at, first);
                b.insert(
                    at,
                    tile_ir::vector::store(self.context, result, numbered, &[index], b.location).into(),
                );
                continue;
            }
            for v in 0..plan.accumulators() {
                // Its result type (f32, the accumulators' element) is inferred.
                let position = crate::attributes::i64_array(self.context, &[v]);
                let element = b.value(
                    at,
                    tile_ir::vector::extract(self.context, result, &[], position, b.location).into(),
                );
                self.set_slot(&b, at, element, array, accumulator, plan.slot(tm, tn, v));
            }
        }
        // The operand tiles may be refilled after this: every wave is done reading them.
        b.barrier(at);
        erase(self.context, op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::atoms;

    struct Integers;

    impl Arith<i64> for Integers {
        fn constant(&self, value: i64) -> i64 {
            value
        }
        fn add(&self, x: i64, y: i64) -> i64 {
            x + y
        }
        fn mul(&self, x: i64, y: i64) -> i64 {
            x * y
        }
        fn div(&self, x: i64, y: i64) -> i64 {
            x / y
        }
        fn rem(&self, x: i64, y: i64) -> i64 {
            x % y
        }
    }

    /// The documented instruction (CDNA3 ISA, one block): `a[l][e]`, `b[l][e]` are lane `l`'s
    /// operand registers, `d[l][v]` its accumulators, updated to `D + A B`.
    fn mfma_model(size: i64, a: &[[i64; 4]], b: &[[i64; 4]], d: &mut [Vec<i64>]) {
        let depth = 256 / size;
        // A[i][k] is lane i + size (k / 4), element k % 4; B[k][j] is lane j + size (k / 4).
        let a_at = |i: i64, k: i64| a[(i + size * (k / 4)) as usize][(k % 4) as usize];
        let b_at = |k: i64, j: i64| b[(j + size * (k / 4)) as usize][(k % 4) as usize];
        for (l, registers) in d.iter_mut().enumerate() {
            let l = l as i64;
            for (v, register) in registers.iter_mut().enumerate() {
                let v = v as i64;
                let (i, j) = if size == 32 {
                    (8 * (v / 4) + 4 * (l / 32) + v % 4, l % 32)
                } else {
                    (4 * (l / 16) + v, l % 16)
                };
                *register += (0..depth).map(|k| a_at(i, k) * b_at(k, j)).sum::<i64>();
            }
        }
    }

    /// A small deterministic generator of operand values.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> i64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % 7) as i64 - 3
        }
    }

    /// Runs the rule's reads and slot mapping on every lane of every wave, the instruction as
    /// documented, and compares the accumulator (read through its layout) with `C + A B`.
    #[allow(clippy::too_many_arguments)]
    fn simulate_with(
        m: i64,
        n: i64,
        depth: i64,
        threads: i64,
        size: i64,
        chained: bool,
        transpose_a: bool,
        transpose_b: bool,
        staged_a: bool,
        register_a: bool,
    ) {
        simulate_paired(
            m,
            n,
            depth,
            threads,
            size,
            chained,
            transpose_a,
            transpose_b,
            staged_a,
            register_a,
            false,
        );
    }

    /// [`simulate_with`], the K steps read in pairs ([`paired_element`]) where `paired`.
    #[allow(clippy::too_many_arguments)]
    fn simulate_paired(
        m: i64,
        n: i64,
        depth: i64,
        threads: i64,
        size: i64,
        chained: bool,
        transpose_a: bool,
        transpose_b: bool,
        staged_a: bool,
        register_a: bool,
        paired: bool,
    ) {
        let waves = if chained {
            (threads / 64, 1)
        } else {
            crate::amdgpu::config::wave_split(threads, m, n).expect("a split").0
        };
        let layout = atoms::mfma_accumulator(m, n, waves, size);
        let plan = MfmaGemm::of_layout(&layout).expect("an mfma layout");
        assert_eq!((plan.size, plan.waves), (size, waves));
        let mut random =
            Random(m as u64 * 31 + n as u64 * 7 + depth as u64 + u64::from(transpose_a) * 2 + u64::from(transpose_b));
        let a: Vec<Vec<i64>> = (0..m).map(|_| (0..depth).map(|_| random.next()).collect()).collect();
        let bm: Vec<Vec<i64>> = (0..depth).map(|_| (0..n).map(|_| random.next()).collect()).collect();
        let c: Vec<Vec<i64>> = (0..m).map(|_| (0..n).map(|_| random.next()).collect()).collect();
        // The stored operands: A as MxK or KxM (flat row-major when staged), B as KxN or NxK.
        let a_storage = Storage {
            k_last: !transpose_a,
            flat: staged_a.then_some(if transpose_a { m } else { depth }),
        };
        let b_storage = Storage {
            k_last: transpose_b,
            flat: None,
        };
        let load = |storage: Storage, matrix: &dyn Fn(i64, i64) -> i64, rows: i64, indices: Vec<i64>| -> i64 {
            let (row, column) = match storage.flat {
                Some(columns) => (indices[0] / columns, indices[0] % columns),
                None => (indices[0], indices[1]),
            };
            assert!(row < rows, "row {row} outside {rows}");
            // `matrix` takes (mn, k): undo the storage's orientation.
            if storage.k_last {
                matrix(row, column)
            } else {
                matrix(column, row)
            }
        };
        let a_of = |mn: i64, k: i64| a[mn as usize][k as usize];
        // A in registers: each thread's slots of the A-operand layout.
        let a_layout = atoms::mfma_a_operand(m, depth, waves, size);
        let mut a_registers = vec![vec![0i64; a_layout.slots() as usize]; threads as usize];
        for element in a_layout.elements() {
            for thread in a_layout.owner_set(&element) {
                a_registers[thread as usize][a_layout.slot_of(&element) as usize] =
                    a[element[0] as usize][element[1] as usize];
            }
        }
        let plan = MfmaGemm {
            depth,
            register_a: register_a && !transpose_a,
            ..plan
        };
        let b_of = |mn: i64, k: i64| bm[k as usize][mn as usize];
        let (a_rows, b_rows) = (if transpose_a { depth } else { m }, if transpose_b { n } else { depth });
        // Registers: thread -> slot -> value, filled from C through the layout.
        let mut registers = vec![vec![0i64; layout.slots() as usize]; threads as usize];
        for element in layout.elements() {
            for thread in layout.owner_set(&element) {
                registers[thread as usize][layout.slot_of(&element) as usize] =
                    c[element[0] as usize][element[1] as usize];
            }
        }
        let (tiles_m, tiles_n) = plan.tiles();
        for wave in 0..threads / 64 {
            let lanes: Vec<Lane<i64>> = (0..64).map(|l| lane(&Integers, &plan, wave * 64 + l)).collect();
            for tm in 0..tiles_m {
                for tn in 0..tiles_n {
                    let mut d: Vec<Vec<i64>> = (0..64)
                        .map(|l| {
                            (0..plan.accumulators())
                                .map(|v| registers[(wave * 64 + l) as usize][plan.slot(tm, tn, v) as usize])
                                .collect()
                        })
                        .collect();
                    let steps: Vec<(i64, Option<i64>)> = if paired {
                        (0..depth)
                            .step_by(2 * plan.k as usize)
                            .flat_map(|step| [(step, Some(0)), (step, Some(1))])
                            .collect()
                    } else {
                        (0..depth).step_by(plan.k as usize).map(|step| (step, None)).collect()
                    };
                    for (step, half) in steps {
                        let operand = |which: Operand,
                                       t: i64,
                                       storage: Storage,
                                       matrix: &dyn Fn(i64, i64) -> i64,
                                       rows: i64|
                         -> Vec<[i64; 4]> {
                            lanes
                                .iter()
                                .map(|lane| {
                                    std::array::from_fn(|e| {
                                        let (mn, k) = match half {
                                            Some(half) => {
                                                paired_element(&Integers, &plan, lane, which, t, step, half, e as i64)
                                            }
                                            None => operand_element(&Integers, &plan, lane, which, t, step, e as i64),
                                        };
                                        load(storage, matrix, rows, stored_at(&Integers, storage, mn, k))
                                    })
                                })
                                .collect()
                        };
                        let a_operand = if plan.register_a {
                            (0..64)
                                .map(|l| {
                                    std::array::from_fn(|e| {
                                        a_registers[(wave * 64 + l) as usize]
                                            [plan.a_slot(tm, step / plan.k, e as i64) as usize]
                                    })
                                })
                                .collect()
                        } else {
                            operand(Operand::A, tm, a_storage, &a_of, a_rows)
                        };
                        let b_registers = operand(Operand::B, tn, b_storage, &b_of, b_rows);
                        mfma_model(size, &a_operand, &b_registers, &mut d);
                    }
                    for l in 0..64 {
                        for v in 0..plan.accumulators() {
                            registers[(wave * 64 + l) as usize][plan.slot(tm, tn, v) as usize] =
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
                "element ({i}, {j}) of a {m}x{n}x{depth} gemm on mfma {size}, waves {waves:?}, transpose_a {transpose_a}, transpose_b {transpose_b}, staged {staged_a}"
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn simulate(
        m: i64,
        n: i64,
        depth: i64,
        threads: i64,
        size: i64,
        chained: bool,
        transpose_a: bool,
        transpose_b: bool,
        staged_a: bool,
    ) {
        simulate_with(
            m,
            n,
            depth,
            threads,
            size,
            chained,
            transpose_a,
            transpose_b,
            staged_a,
            false,
        );
    }

    #[test]
    fn a_register_operand_in_the_a_layout_computes_the_product() {
        for transpose_b in [false, true] {
            // Waves along M only (gemm chains), and 2x2 waves (A replicated on the waves along N).
            simulate_with(64, 64, 64, 128, 32, true, false, transpose_b, false, true);
            simulate_with(128, 128, 32, 256, 32, false, false, transpose_b, false, true);
            simulate_with(64, 64, 32, 256, 16, false, false, transpose_b, false, true);
            simulate_with(64, 16, 32, 128, 16, true, false, transpose_b, false, true);
        }
    }

    #[test]
    fn the_rule_computes_the_product_on_32x32x8() {
        for (transpose_a, transpose_b, staged_a) in [
            (false, false, false),
            (false, true, false),
            (true, false, false),
            (false, false, true),
            (true, true, true),
        ] {
            // Attention's scores and output (chained: waves split M), a GEMM's 2x2 waves.
            simulate(64, 64, 64, 128, 32, true, transpose_a, transpose_b, staged_a);
            simulate(128, 64, 16, 256, 32, false, transpose_a, transpose_b, staged_a);
        }
        simulate(64, 128, 32, 128, 32, true, false, false, true);
        // A GEMM's wave tile of 4x2 instruction tiles.
        simulate(128, 128, 16, 128, 32, false, false, true, false);
        simulate(128, 128, 16, 128, 32, false, true, false, true);
    }

    #[test]
    fn pairs_of_k_steps_compute_the_product() {
        // Each lane's 8 consecutive elements of K feed two steps: on both instructions, A and B in
        // every orientation, staged A, 2x2 and chained wave splits.
        for (transpose_a, transpose_b, staged_a) in [
            (false, false, false),
            (false, true, false),
            (true, false, false),
            (false, false, true),
            (true, true, true),
        ] {
            simulate_paired(
                64,
                64,
                64,
                128,
                32,
                true,
                transpose_a,
                transpose_b,
                staged_a,
                false,
                true,
            );
            simulate_paired(
                128,
                128,
                32,
                128,
                32,
                false,
                transpose_a,
                transpose_b,
                staged_a,
                false,
                true,
            );
            simulate_paired(
                64,
                48,
                32,
                256,
                16,
                false,
                transpose_a,
                transpose_b,
                staged_a,
                false,
                true,
            );
            simulate_paired(
                64,
                16,
                64,
                64,
                16,
                true,
                transpose_a,
                transpose_b,
                staged_a,
                false,
                true,
            );
        }
    }

    #[test]
    fn a_pair_covers_each_element_of_k_once() {
        // Lane groups and the pair's two steps: every k of the 2 x k of a pair exactly once.
        for (size, k) in [(32, 8), (16, 16)] {
            let plan = MfmaGemm {
                size,
                k,
                waves: (1, 1),
                shape: (size, size),
                depth: 2 * k,
                register_a: false,
                vector_accumulators: false,
            };
            let mut seen = vec![0; 2 * k as usize];
            for l in (0..64).step_by(size as usize) {
                let lane = lane(&Integers, &plan, l);
                for half in 0..2 {
                    for e in 0..4 {
                        seen[paired_element(&Integers, &plan, &lane, Operand::B, 0, 0, half, e).1 as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|count| *count == 1), "{size}x{size}x{k}: {seen:?}");
        }
    }

    #[test]
    fn the_rule_computes_the_product_on_16x16x16() {
        for (transpose_a, transpose_b, staged_a) in [
            (false, false, false),
            (false, true, false),
            (true, false, true),
            (false, false, true),
        ] {
            simulate(64, 48, 32, 256, 16, false, transpose_a, transpose_b, staged_a);
            simulate(64, 16, 16, 64, 16, true, transpose_a, transpose_b, staged_a);
            simulate(64, 64, 32, 64, 16, false, transpose_a, transpose_b, staged_a);
        }
    }

    #[test]
    fn lanes_read_the_old_templates_operand_places() {
        // The GEMM template's reads: lane l takes row l % size of its tile at K 4 (l / size).
        let plan = MfmaGemm {
            size: 32,
            k: 8,
            waves: (2, 2),
            shape: (128, 128),
            depth: 64,
            register_a: false,
            vector_accumulators: false,
        };
        let lane = lane(&Integers, &plan, 64 * 3 + 37);
        let (mn, k) = operand_element(&Integers, &plan, &lane, Operand::A, 1, 16, 2);
        assert_eq!((mn, k), (64 + 32 + 5, 16 + 4 + 2));
        let (mn, k) = operand_element(&Integers, &plan, &lane, Operand::B, 0, 8, 0);
        assert_eq!((mn, k), (64 + 5, 8 + 4));
        assert_eq!(
            stored_at(
                &Integers,
                Storage {
                    k_last: false,
                    flat: None
                },
                mn,
                k
            ),
            vec![k, mn]
        );
        assert_eq!(
            stored_at(
                &Integers,
                Storage {
                    k_last: true,
                    flat: Some(64)
                },
                mn,
                k
            ),
            vec![mn * 64 + k]
        );
    }

    #[test]
    fn only_mfma_layouts_of_a_wave_split_are_taken() {
        let plan = MfmaGemm::of_layout(&atoms::mfma_accumulator(128, 128, (1, 2), 32)).expect("mfma");
        assert_eq!((plan.waves, plan.k, plan.tiles()), ((1, 2), 8, (4, 2)));
        let plan = MfmaGemm::of_layout(&atoms::mfma_accumulator(64, 64, (2, 2), 16)).expect("mfma");
        assert_eq!((plan.waves, plan.k, plan.accumulators()), ((2, 2), 16, 4));
        let blocked = atoms::blocked(&[64, 64], 128);
        assert!(MfmaGemm::of_layout(&blocked).is_err());
        let renamed = tile_dialect::layout::FragmentLayout {
            origin: "mfma.32x32".into(),
            ..blocked
        };
        assert!(
            MfmaGemm::of_layout(&renamed)
                .unwrap_err()
                .contains("not the mfma.32x32 layout")
        );
    }
}
