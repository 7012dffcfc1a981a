//! The owned op tree the machine runs: what each op does, its operand and result slots, its regions.
//!
//! Invariants: slots number the SSA values of one function (see [`crate::decode`]); a [`Kind`] holds
//! everything static about an op (types, predicates, attributes), so running it reads no MLIR.

use crate::error::Site;
use crate::memory::Level;
use crate::scalar::{Float, Scalar, Val};
use std::rc::Rc;
use tile_dialect::{atomic::AtomicKind, ops::ReductionKind};

/// A memref type: element, sizes (`None` when dynamic), and its text for messages.
#[derive(Clone, Debug)]
pub struct MemType {
    /// Element type.
    pub element: Scalar,
    /// Sizes, `None` for dynamic ones.
    pub shape: Vec<Option<usize>>,
    /// The type as MLIR prints it.
    pub text: Rc<str>,
}

/// Binary integer operations (`arith` and `index`).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDivS,
    CeilDivU,
    FloorDivS,
    MinS,
    MaxS,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
}

/// Binary float operations (`arith` and `math`).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Maximum,
    Minimum,
    MaxNum,
    MinNum,
    Pow,
    Atan2,
    CopySign,
}

/// Unary float operations (`arith.negf` and `math`).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Neg,
    Abs,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Tanh,
    Sin,
    Cos,
    Tan,
    Atan,
    Floor,
    Ceil,
    Round,
    RoundEven,
    Trunc,
    Acos,
    Asin,
    Cbrt,
    Cosh,
    Sinh,
    Erf,
    Erfc,
}

/// Unary integer bit counts (`math.ctlz`, `math.cttz`, `math.ctpop`).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum BitCount {
    LeadingZeros,
    TrailingZeros,
    Ones,
}

/// What a `memref.atomic_rmw` computes from the element and its operand (the element is the left
/// operand).
#[derive(Clone, Copy, Debug)]
pub enum Update {
    /// A float op at a type.
    Float(FloatOp, Float),
    /// An integer op at a width.
    Int(IntOp, u32),
    /// The operand replaces the element.
    Assign,
}

impl Update {
    /// The update of `kind` on elements of `scalar`, or why the interpreter has none (a float
    /// kind on integers, or the reverse; a product, which no target makes atomically).
    pub fn of(kind: AtomicKind, scalar: Scalar) -> Result<Update, String> {
        let float = || match scalar {
            Scalar::Float(float) => Ok(float),
            other => Err(format!("on {other}")),
        };
        let width = || scalar.width().ok_or_else(|| format!("on {scalar}"));
        Ok(match kind {
            AtomicKind::AddF => Update::Float(FloatOp::Add, float()?),
            AtomicKind::MaximumF => Update::Float(FloatOp::Maximum, float()?),
            AtomicKind::MaxNumF => Update::Float(FloatOp::MaxNum, float()?),
            AtomicKind::MinimumF => Update::Float(FloatOp::Minimum, float()?),
            AtomicKind::MinNumF => Update::Float(FloatOp::MinNum, float()?),
            AtomicKind::AddI => Update::Int(IntOp::Add, width()?),
            AtomicKind::AndI => Update::Int(IntOp::And, width()?),
            AtomicKind::OrI => Update::Int(IntOp::Or, width()?),
            AtomicKind::XorI => Update::Int(IntOp::Xor, width()?),
            AtomicKind::MaxS => Update::Int(IntOp::MaxS, width()?),
            AtomicKind::MaxU => Update::Int(IntOp::MaxU, width()?),
            AtomicKind::MinS => Update::Int(IntOp::MinS, width()?),
            AtomicKind::MinU => Update::Int(IntOp::MinU, width()?),
            AtomicKind::Assign => Update::Assign,
            AtomicKind::MulF | AtomicKind::MulI => {
                return Err(format!("of kind {} (no target multiplies atomically)", kind.name()));
            }
        })
    }
}

/// The operands of a `tile.copy` after its source and destination: offsets into the source, into
/// the destination, and limits (where the tile written ends).
#[derive(Clone, Copy, Debug)]
pub struct CopyOperands {
    /// Offsets into the source (0: the source is the tile).
    pub src_offsets: usize,
    /// Offsets into the destination (0: the destination is the tile).
    pub dst_offsets: usize,
    /// Limits, one per tile dimension (0: the whole tile is written).
    pub limits: usize,
}

/// What an op does, with its static data.
#[derive(Clone, Debug)]
pub enum Kind {
    /// `arith.constant`, `index.constant`.
    Constant(Val),
    /// A binary integer op at a width.
    Int(IntOp, u32),
    /// `math.absi` at a width.
    AbsI(u32),
    /// A bit count at a width.
    Bits(BitCount, u32),
    /// `math.isnan` (true) or `math.isfinite` (false): an `i1`.
    FloatClass(bool),
    /// `math.fpowi`: a float to an integer power.
    PowI(Float),
    /// `arith.cmpi`/`index.cmp`: predicate (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge) and width.
    CmpI(i64, u32),
    /// A binary float op.
    Float(FloatOp, Float),
    /// A unary float op.
    Unary(UnaryOp, Float),
    /// `math.fma`.
    Fma(Float),
    /// `arith.cmpf` with its predicate number (false, oeq, ogt, ..., uno, true).
    CmpF(i64),
    /// `arith.select`.
    Select,
    /// A conversion between scalar types; `signed` picks sign- or zero-extension of integers.
    Cast {
        /// The operand's type.
        from: Scalar,
        /// The result's type.
        to: Scalar,
        /// Integers are read signed (`extsi`, `sitofp`, `fptosi`, `index_cast`).
        signed: bool,
    },
    /// `arith.bitcast` between scalars of one width.
    Bitcast {
        /// The operand's type.
        from: Scalar,
        /// The result's type.
        to: Scalar,
    },
    /// `memref.load`.
    Load,
    /// `memref.store`.
    Store,
    /// `memref.atomic_rmw`: the update it applies.
    Atomic(Update),
    /// `memref.dim`.
    Dim,
    /// `memref.extract_aligned_pointer_as_index`: the buffer's address (see `exec`).
    Address,
    /// `memref.alloc`/`memref.alloca`/`tile.alloc_*`: a fresh buffer at a level.
    Alloc(MemType, Level),
    /// `memref.dealloc`: nothing to do.
    Dealloc,
    /// `scf.for`, comparing unsigned when asked.
    For(bool),
    /// `scf.if`.
    If,
    /// Region terminators: `scf.yield`, `tile.yield`, `func.return`.
    Yield,
    /// `tile.kernel`, with the blocks its `tile.splits` makes a cluster of (a split reduction's
    /// `tile.split_sum`).
    Kernel(Option<i64>),
    /// `tile.pipelined`.
    Pipelined,
    /// `tile.parallel` with its extents.
    Parallel(Vec<i64>),
    /// `tile.copy` with the number of offsets on each side and of limits, for an atomic copy how it updates, and
    /// the dimensions the tile spans on the side with offsets (`tile.copy_async`: a copy that has
    /// landed when it returns), and whether it saturates (8-bit floats: values past the largest
    /// finite one become it).
    Copy(CopyOperands, Option<tile_dialect::ops::ReductionKind>, Vec<usize>, bool),
    /// `tile.slot`: the tile of the result's type at a slot of a ring.
    Slot(MemType),
    /// `tile.alloc_barriers`: an identity for the barriers (the copies being synchronous, the
    /// barriers hold nothing but their arrivals).
    Barriers,
    /// `gpu.barrier`: one thread runs the block, the copies are synchronous; nothing to wait for.
    Sync,
    /// `tile.arrive`: counts an arrival on a barrier of the array.
    Arrive,
    /// `tile.wait`: where a producer runs beside the block, runs its iterations until the
    /// barrier's phase has completed (see [`crate::exec`]); otherwise nothing to wait for.
    Wait,
    /// `tile.producer`: its region's loop runs beside the block, an iteration at a time, as the
    /// block's waits need them.
    Producer,
    /// `tile.gemm` with transpose_a, transpose_b.
    Gemm(bool, bool),
    /// `tile.matmul` (host code, on whole global tensors), with transpose_b.
    Matmul(bool),
    /// `tile.fill`.
    Fill,
    /// `tile.reduce`: kind, dim, clear.
    Reduce(ReductionKind, usize, bool),
    /// `tile.scan` with its kind, dimension and whether it is exclusive.
    Scan(ReductionKind, usize, bool),
    /// `tile.print` with its message.
    Print(String),
    /// `tile.split_sum` over its splits.
    SplitSum(i64),
}

/// One op: what it does, its operand and result slots, its regions.
#[derive(Clone, Debug)]
pub struct Op {
    /// What it does.
    pub kind: Kind,
    /// Operand slots, in order.
    pub operands: Vec<usize>,
    /// Result slots, in order.
    pub results: Vec<usize>,
    /// Regions, each one block (an empty region is an empty body).
    pub regions: Vec<Body>,
    /// The op's name and location, for errors.
    pub site: Rc<Site>,
}

/// One block: argument slots and ops, the terminator last.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// Argument slots.
    pub arguments: Vec<usize>,
    /// Ops in order.
    pub ops: Vec<Op>,
}

/// A host function: its memref arguments and body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// The argument types (memrefs only).
    pub arguments: Vec<MemType>,
    /// The body.
    pub body: Body,
    /// How many slots the frame needs.
    pub slots: usize,
}
