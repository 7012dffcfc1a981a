//! The launch manifest of one compiled tile kernel: everything a launcher needs to run the kernel's
//! code without MLIR (entry point, block and grid, shared memory, and the kernel's parameters in
//! order).
//!
//! One schema for every target, written by the compiler (`tile-conversions` builds a [`Manifest`]
//! and attaches [`Manifest::to_json`] to the kernel's `gpu.module`) and read by every launcher
//! (`tile-vulkan`, `tile-launch`, `bench/bench.py`). Invariants:
//! - [`Manifest::version`] is [`SCHEMA_VERSION`]; [`Manifest::from_json`] refuses any other, so a
//!   launcher never misreads a manifest of another layout. Fields added without changing the meaning
//!   of the old ones keep the version (readers ignore unknown fields).
//! - [`Manifest::compiler`] is the compiler's version ([`COMPILER_VERSION`]); launchers that load code
//!   check it with [`Manifest::check_loadable`], together with the chip.
//! - Launch sizes are [`Expr`]s: numbers, or integer arithmetic over the host arguments' sizes, which
//!   [`Expr::evaluate`] computes. A launch the host function makes under `scf.if` has a condition,
//!   [`Manifest::when`] (an [`Expr`] of comparisons: nonzero runs it), and says
//!   [`CONDITIONAL_SCHEMA_VERSION`], so that no reader of version 1 launches it unconditionally;
//!   [`Manifest::runs`] evaluates it.
//! - The JSON text keeps the layout the compiler wrote before this crate existed (`", "` and `": "`
//!   separators, fields in a fixed order), so textual checks keep working.
//!
//! Which fields a manifest has depends on how the kernel was lowered:
//!
//! | lowering | launch fields |
//! |---|---|
//! | sm_90a TMA + wgmma | `chip`, `block`, `dynamic_shared_bytes`, `params` (tensor maps, scalars), `tile` |
//! | gfx942 mfma (the deleted template; still read) | `chip`, `block`, `lds_bytes`, `params` (memrefs, scalars), `calling_convention`, `tile` |
//! | plain / registers strategy (every GPU kernel but the sm_90a template's), the deleted cooperative-matrix template | `host_function`, `strategy`, `workgroup_size`, `shared_bytes`, `bindings` (`subgroup_size` on spirv-coopmat, `tile` for the old cooperative-matrix kernels; on sm_90a `params` after the bindings: the tensor maps of copies on TMA) |

#![deny(missing_docs)]

use serde::{Deserialize, Serialize};
use std::fmt;

/// The layout version of the manifests this crate reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The layout version of a manifest whose launch has a condition ([`Manifest::when`]): a reader of
/// version 1 would ignore it and launch the kernel whatever the condition.
pub const CONDITIONAL_SCHEMA_VERSION: u32 = 2;

/// The version of the compiler (and of this crate: the workspace shares one version).
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything that can go wrong reading a manifest or computing its launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The text is not a manifest (malformed JSON, a missing or mistyped field).
    Json(String),
    /// The manifest has another layout version than [`SCHEMA_VERSION`] (or none: written before
    /// manifests were versioned).
    Schema {
        /// The version the manifest says, if any.
        found: Option<u32>,
    },
    /// The manifest was written by another compiler version than the launcher's.
    Compiler {
        /// The compiler version the manifest names.
        found: String,
    },
    /// The kernel was compiled for another chip or target than the launcher runs on.
    Chip {
        /// What the manifest was compiled for.
        found: String,
        /// What the launcher runs on.
        expected: String,
    },
    /// A launch size cannot be computed (a missing argument, a division by zero, an overflow).
    Evaluate(String),
    /// A host argument's data breaks what the kernel relies on ([`Check`]).
    Check(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::Json(message) => write!(f, "not a launch manifest: {message}"),
            Error::Schema { found: None } => write!(
                f,
                "the manifest has no version (written by a compiler older than manifest version {SCHEMA_VERSION}); compile the kernel again"
            ),
            Error::Schema { found: Some(found) } => write!(
                f,
                "expects manifest version {SCHEMA_VERSION} or {CONDITIONAL_SCHEMA_VERSION}, but got {found}; compile the kernel again"
            ),
            Error::Compiler { found } => write!(
                f,
                "expects a kernel compiled by tile {COMPILER_VERSION}, but got one compiled by tile {found}; compile the kernel again"
            ),
            Error::Chip { found, expected } => {
                write!(
                    f,
                    "expects a kernel compiled for {expected}, but got one compiled for {found}"
                )?;
                match (nvidia_architecture(found), nvidia_architecture(expected)) {
                    (Some(needed), Some(device)) if needed > device => write!(
                        f,
                        " (its code needs compute capability {}.{} or newer)",
                        needed / 10,
                        needed % 10
                    ),
                    _ => Ok(()),
                }
            }
            Error::Evaluate(message) => write!(f, "cannot compute the launch: {message}"),
            Error::Check(message) => write!(f, "refuses the launch: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The launch manifest of one kernel (see the module documentation for which fields each
/// lowering writes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The layout version, [`SCHEMA_VERSION`].
    pub version: u32,
    /// The version of the compiler that wrote it.
    pub compiler: String,
    /// The kernel's entry point (the symbol in the code).
    pub entry: String,
    /// The host function of the tile program whose launch this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_function: Option<String>,
    /// The target compiled for (`sm_90a`, `gfx942`, `spirv`, `spirv-coopmat`).
    pub target: String,
    /// The chip, for the tensor-core lowerings (the same as `target`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chip: Option<String>,
    /// How the kernel was lowered, for the plain-strategy and cooperative-matrix kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// Threads per block, for the tensor-core lowerings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<[u32; 3]>,
    /// Threads per block (workgroup), for the plain strategy and cooperative matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workgroup_size: Option<[u32; 3]>,
    /// The subgroup width the code assumes, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgroup_size: Option<u32>,
    /// Blocks per dimension.
    pub grid: Vec<Expr>,
    /// The condition the host function launches the kernel under (`scf.if`), if any: it runs
    /// where this evaluates to nonzero ([`Manifest::runs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Expr>,
    /// Dynamic shared memory (sm_90a tensor-core kernels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_shared_bytes: Option<u64>,
    /// Static shared (workgroup) memory of the plain strategy and cooperative matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bytes: Option<u64>,
    /// LDS of the gfx942 mfma kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lds_bytes: Option<u64>,
    /// The kernel parameters in order (tensor-core lowerings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<Param>>,
    /// The global tensors in kernel-argument (or descriptor-binding) order (plain strategy and
    /// cooperative matrices; on sm_90a and gfx942 each is passed as an MLIR memref descriptor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bindings: Option<Vec<Binding>>,
    /// How memref parameters are passed, where they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calling_convention: Option<String>,
    /// The tile configuration of a tensor-core kernel (informative: launchers need none of it except
    /// `transpose_a`/`transpose_b` to build reference results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile: Option<TileConfig>,
    /// What the launcher checks of the host arguments' data before it launches the kernel (the
    /// host function's partition arguments: the kernel reads them on the device, where a wrong one
    /// would make it race or skip work).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<Check>>,
}

/// How a partition argument splits one dimension of another host tensor into consecutive parts
/// (the sequences of a packed batch, the groups of a grouped GEMM).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partition {
    /// Cumulative offsets: part `i` is `[offsets[i], offsets[i + 1])`; at least two entries, none
    /// below 0 or past the dimension's size, none below the one before.
    Offsets,
    /// Part sizes, consecutive from 0: at least one entry, none below 0, summing to at most the
    /// dimension's size.
    Sizes,
}

impl Partition {
    /// The word the program's attribute and the messages use (`offsets`, `sizes`).
    pub fn word(self) -> &'static str {
        match self {
            Partition::Offsets => "offsets",
            Partition::Sizes => "sizes",
        }
    }

    /// Checks the entries of a partition of a dimension of `size` elements; the message says the
    /// first entry that breaks the rule and what holds instead.
    pub fn check(self, entries: &[i64], size: i64) -> std::result::Result<(), String> {
        match self {
            Partition::Offsets => {
                if entries.len() < 2 {
                    return Err(format!(
                        "expects at least 2 offsets (one part), but got {}",
                        entries.len()
                    ));
                }
                for (index, offset) in entries.iter().enumerate() {
                    if *offset < 0 || *offset > size {
                        return Err(format!("offset {index} is {offset}, outside [0, {size}]"));
                    }
                    if index > 0 && *offset < entries[index - 1] {
                        return Err(format!(
                            "offset {index} is {offset}, below offset {} ({}): offsets must not decrease",
                            index - 1,
                            entries[index - 1]
                        ));
                    }
                }
                Ok(())
            }
            Partition::Sizes => {
                if entries.is_empty() {
                    return Err("expects at least one part size, but got none".into());
                }
                let mut total: i64 = 0;
                for (index, part) in entries.iter().enumerate() {
                    if *part < 0 {
                        return Err(format!("size {index} is {part}, below 0"));
                    }
                    total = total.saturating_add(*part);
                    if total > size {
                        return Err(format!(
                            "sizes 0 to {index} sum to {total}, past the {size} the dimension holds"
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}

/// A check of one host argument's data before a launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The host argument checked: a 1-D integer tensor.
    pub argument: usize,
    /// What its entries are.
    pub partition: Partition,
    /// The size of the dimension they partition.
    pub within: Expr,
}

impl Check {
    /// Checks the argument's `entries` for the host arguments `host`; the message names the
    /// argument and the rule.
    pub fn check<H: HostArguments + ?Sized>(&self, entries: &[i64], host: &H) -> Result<()> {
        self.check_within(entries, self.within.evaluate(host)?)
    }

    /// Checks the argument's `entries` against a dimension of `size` (the value of
    /// [`Check::within`] for the launch's arguments).
    pub fn check_within(&self, entries: &[i64], size: i64) -> Result<()> {
        self.partition.check(entries, size).map_err(|message| {
            Error::Check(format!(
                "host argument {} ({} of a dimension of {size}): {message}",
                self.argument,
                self.partition.word()
            ))
        })
    }
}

/// How a kernel was lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The CPU reference's loops dealt out to the block's threads.
    Plain,
    /// The plain strategy with fragments in registers, laid out by their layouts.
    Registers,
    /// KHR cooperative matrices.
    CooperativeMatrix,
}

/// One kernel parameter of a tensor-core kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// What it is: `A`, `B`, `C` (the GEMM's tensors), `size`, `tiles_x`, `tiles_y`.
    pub role: String,
    /// How it is passed.
    #[serde(flatten)]
    pub kind: ParamKind,
}

/// How a kernel parameter is passed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParamKind {
    /// A CUDA tensor map (`CUtensorMap`, 128 bytes, passed by value) over a host tensor.
    TensorMap {
        /// The host function's argument the map covers.
        host_argument: i64,
        /// Its sizes, outermost first; `None` where the size is dynamic.
        shape: Vec<Option<i64>>,
        /// Its element type, as MLIR writes it.
        element: String,
        /// The box one copy moves, one size per dimension, outermost first (1 in the leading
        /// dimensions of an N-D tensor, then rows and inner elements).
        #[serde(rename = "box")]
        box_: Vec<u32>,
        /// The swizzle in bytes (0, 32, 64, 128).
        swizzle: u32,
        /// What out-of-bounds loads read (`zero`).
        oob_fill: String,
    },
    /// An integer the host computes.
    Scalar {
        /// Its type (`i64`, `index`).
        #[serde(rename = "type")]
        ty: String,
        /// How the host computes it.
        value: Expr,
    },
    /// An MLIR memref descriptor (allocated, aligned, offset, sizes, strides) of a host tensor:
    /// described by `shape` and `element` (sm_90a epilogue tensors) or by its memref `type`
    /// (gfx942).
    Memref {
        /// The host function's argument passed.
        host_argument: i64,
        /// Its sizes, outermost first; `None` where dynamic.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shape: Option<Vec<Option<i64>>>,
        /// Its element type, as MLIR writes it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
        /// Its memref type, as MLIR writes it.
        #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
        ty: Option<String>,
    },
}

/// A global tensor of a plain-strategy or cooperative-matrix kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// The descriptor set (SPIR-V).
    pub set: u32,
    /// The binding in the set (SPIR-V), which is also the kernel-argument position.
    pub binding: u32,
    /// The host function's argument bound here (-1 when it is none).
    pub host_argument: i64,
    /// Sizes, outermost first; `None` where the size is dynamic.
    pub shape: Vec<Option<i64>>,
    /// Element type, as MLIR writes it (`f16`, `f32`, ...).
    pub element: String,
    /// Whether the kernel writes it.
    pub written: bool,
    /// An integer the host computes (a size of a host tensor, a host scalar) that the launcher
    /// writes into this binding's 4-byte buffer (SPIR-V kernels read dynamic sizes so); none for a
    /// tensor's binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Expr>,
}

/// The tile configuration of a tensor-core kernel; which fields are set depends on the target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TileConfig {
    /// Rows of the block's output tile.
    pub m: u32,
    /// Columns of the block's output tile.
    pub n: u32,
    /// The reduction step.
    pub k: u32,
    /// Pipeline stages (sm_90a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<u32>,
    /// Warpgroups (sm_90a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warpgroups: Option<u32>,
    /// Waves per dimension (gfx942).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waves: Option<[u32; 2]>,
    /// The mfma instruction (gfx942), `MxNxK`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfma: Option<String>,
    /// Subgroups per dimension (cooperative matrices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgroups: Option<[u32; 2]>,
    /// The cooperative matrix shape, `MxNxK`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<String>,
    /// Whether A is stored transposed (sm_90a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transpose_a: Option<bool>,
    /// Whether B is stored transposed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transpose_b: Option<bool>,
    /// sm_90a: the output tiles a persistent launch walks (`null` when each block takes one).
    #[serde(default, skip_serializing_if = "Persistence::is_absent")]
    pub persistent: Persistence,
}

/// Whether an sm_90a launch is persistent: absent (other targets), `null` (one tile a block), or
/// the output tiles its blocks walk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Persistence {
    /// Not said (targets without persistent launches).
    #[default]
    #[serde(skip)]
    Absent,
    /// Persistent: the blocks walk `tiles` output tiles ([x, y]).
    Tiles {
        /// Output tiles per dimension.
        tiles: [Expr; 2],
    },
    /// One output tile a block (`null`).
    OneTileABlock(()),
}

impl Persistence {
    fn is_absent(&self) -> bool {
        matches!(self, Persistence::Absent)
    }
}

/// An integer arithmetic op a launcher evaluates (MLIR's `arith` op names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostOp {
    /// Addition.
    #[serde(rename = "arith.addi")]
    Add,
    /// Subtraction.
    #[serde(rename = "arith.subi")]
    Sub,
    /// Multiplication.
    #[serde(rename = "arith.muli")]
    Mul,
    /// Unsigned division.
    #[serde(rename = "arith.divui")]
    DivU,
    /// Signed division (towards zero).
    #[serde(rename = "arith.divsi")]
    DivS,
    /// Unsigned ceiling division.
    #[serde(rename = "arith.ceildivui")]
    CeilDivU,
    /// Signed ceiling division.
    #[serde(rename = "arith.ceildivsi")]
    CeilDivS,
    /// Unsigned remainder.
    #[serde(rename = "arith.remui")]
    RemU,
    /// Signed remainder.
    #[serde(rename = "arith.remsi")]
    RemS,
    /// Unsigned minimum.
    #[serde(rename = "arith.minui")]
    MinU,
    /// Unsigned maximum.
    #[serde(rename = "arith.maxui")]
    MaxU,
    /// Signed minimum.
    #[serde(rename = "arith.minsi")]
    MinS,
    /// Signed maximum.
    #[serde(rename = "arith.maxsi")]
    MaxS,
    /// Equality (1 or 0).
    #[serde(rename = "arith.cmpi eq")]
    Eq,
    /// Inequality.
    #[serde(rename = "arith.cmpi ne")]
    Ne,
    /// Signed less than.
    #[serde(rename = "arith.cmpi slt")]
    SLt,
    /// Signed less or equal.
    #[serde(rename = "arith.cmpi sle")]
    SLe,
    /// Signed greater than.
    #[serde(rename = "arith.cmpi sgt")]
    SGt,
    /// Signed greater or equal.
    #[serde(rename = "arith.cmpi sge")]
    SGe,
    /// Unsigned less than.
    #[serde(rename = "arith.cmpi ult")]
    ULt,
    /// Unsigned less or equal.
    #[serde(rename = "arith.cmpi ule")]
    ULe,
    /// Unsigned greater than.
    #[serde(rename = "arith.cmpi ugt")]
    UGt,
    /// Unsigned greater or equal.
    #[serde(rename = "arith.cmpi uge")]
    UGe,
    /// Bitwise and (of conditions: both).
    #[serde(rename = "arith.andi")]
    And,
    /// Bitwise or (of conditions: either).
    #[serde(rename = "arith.ori")]
    Or,
    /// Bitwise exclusive or (of a condition and 1: not).
    #[serde(rename = "arith.xori")]
    Xor,
}

impl HostOp {
    /// Returns the op named `name` (an `arith` op name), if a launcher can evaluate it.
    pub fn from_name(name: &str) -> Option<HostOp> {
        serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
    }

    fn apply(self, a: i64, b: i64) -> Result<i64> {
        let overflow = || Error::Evaluate(format!("{self:?} of {a} and {b} overflows or divides by zero"));
        let (ua, ub) = (a as u64, b as u64);
        Ok(match self {
            HostOp::Add => a.checked_add(b).ok_or_else(overflow)?,
            HostOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
            HostOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
            HostOp::DivU => ua.checked_div(ub).ok_or_else(overflow)? as i64,
            HostOp::DivS => a.checked_div(b).ok_or_else(overflow)?,
            HostOp::CeilDivU => ua.checked_div(ub).ok_or_else(overflow)? as i64 + i64::from(ub != 0 && ua % ub != 0),
            HostOp::CeilDivS => {
                let quotient = a.checked_div(b).ok_or_else(overflow)?;
                quotient + i64::from(a % b != 0 && ((a < 0) == (b < 0)))
            }
            HostOp::RemU => ua.checked_rem(ub).ok_or_else(overflow)? as i64,
            HostOp::RemS => a.checked_rem(b).ok_or_else(overflow)?,
            HostOp::MinU => ua.min(ub) as i64,
            HostOp::MaxU => ua.max(ub) as i64,
            HostOp::MinS => a.min(b),
            HostOp::MaxS => a.max(b),
            HostOp::Eq => i64::from(a == b),
            HostOp::Ne => i64::from(a != b),
            HostOp::SLt => i64::from(a < b),
            HostOp::SLe => i64::from(a <= b),
            HostOp::SGt => i64::from(a > b),
            HostOp::SGe => i64::from(a >= b),
            HostOp::ULt => i64::from(ua < ub),
            HostOp::ULe => i64::from(ua <= ub),
            HostOp::UGt => i64::from(ua > ub),
            HostOp::UGe => i64::from(ua >= ub),
            HostOp::And => a & b,
            HostOp::Or => a | b,
            HostOp::Xor => a ^ b,
        })
    }
}

/// How the host computes a launch value from its arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expr {
    /// A number.
    Const(i64),
    /// Size `dim[1]` of host tensor argument `dim[0]`.
    Dim {
        /// [argument, dimension].
        dim: [usize; 2],
    },
    /// Scalar host argument `argument`.
    Argument {
        /// Its position among the host function's arguments.
        argument: usize,
    },
    /// The device address of host tensor argument `address` (of its first element): what a kernel
    /// specialized on its tensors' alignment is launched under.
    Address {
        /// Its position among the host function's arguments.
        address: usize,
    },
    /// An integer op over two values.
    Op {
        /// The op.
        op: HostOp,
        /// Its operands.
        args: Vec<Expr>,
    },
}

/// What an [`Expr`] reads: the host arguments' sizes, scalar values and addresses.
pub trait HostArguments {
    /// Returns size `dim` of host tensor argument `argument`, if it is a tensor of that rank.
    fn size(&self, argument: usize, dim: usize) -> Option<i64>;
    /// Returns the value of scalar host argument `argument`, if it is one.
    fn scalar(&self, argument: usize) -> Option<i64> {
        let _ = argument;
        None
    }
    /// Returns the device address of host tensor argument `argument`, if the launcher knows it.
    fn address(&self, argument: usize) -> Option<i64> {
        let _ = argument;
        None
    }
}

/// Host tensors given by their shapes alone (no scalar arguments).
impl HostArguments for [Vec<i64>] {
    fn size(&self, argument: usize, dim: usize) -> Option<i64> {
        self.get(argument)?.get(dim).copied()
    }
}

impl Expr {
    /// Returns the value of the expression for the host arguments `host`.
    pub fn evaluate<H: HostArguments + ?Sized>(&self, host: &H) -> Result<i64> {
        match self {
            Expr::Const(value) => Ok(*value),
            Expr::Dim { dim: [argument, dim] } => host.size(*argument, *dim).ok_or_else(|| {
                Error::Evaluate(format!(
                    "host argument {argument} is not a tensor with a dimension {dim}"
                ))
            }),
            Expr::Argument { argument } => host
                .scalar(*argument)
                .ok_or_else(|| Error::Evaluate(format!("host argument {argument} is not a scalar"))),
            Expr::Address { address: argument } => host.address(*argument).ok_or_else(|| {
                Error::Evaluate(format!(
                    "host argument {argument} is not a tensor whose address this launcher knows"
                ))
            }),
            Expr::Op { op, args } => match args.as_slice() {
                [a, b] => op.apply(a.evaluate(host)?, b.evaluate(host)?),
                _ => Err(Error::Evaluate(format!(
                    "{op:?} expects two operands, but got {}",
                    args.len()
                ))),
            },
        }
    }

    /// Whether the expression reads an argument's address: its value may change with the tensors
    /// a launch of the same shapes is given.
    pub fn reads_addresses(&self) -> bool {
        match self {
            Expr::Address { .. } => true,
            Expr::Op { args, .. } => args.iter().any(Expr::reads_addresses),
            _ => false,
        }
    }

    /// Returns the number, if the expression is one.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Expr::Const(value) => Some(*value),
            _ => None,
        }
    }
}

impl From<i64> for Expr {
    fn from(value: i64) -> Self {
        Expr::Const(value)
    }
}

/// Writes JSON the way the compiler always has: `", "` between items and `": "` after keys.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

impl Manifest {
    /// Creates a manifest of this schema and compiler version for `entry` on `target`, launched on
    /// `grid`; the launch fields are set by the lowering that builds it.
    pub fn new(entry: impl Into<String>, target: impl Into<String>, grid: Vec<Expr>) -> Self {
        Manifest {
            version: SCHEMA_VERSION,
            compiler: COMPILER_VERSION.to_owned(),
            entry: entry.into(),
            host_function: None,
            target: target.into(),
            chip: None,
            strategy: None,
            block: None,
            workgroup_size: None,
            subgroup_size: None,
            grid,
            when: None,
            dynamic_shared_bytes: None,
            shared_bytes: None,
            lds_bytes: None,
            params: None,
            bindings: None,
            calling_convention: None,
            tile: None,
            checks: None,
        }
    }

    /// Reads a manifest from its JSON text; refuses another [`SCHEMA_VERSION`].
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|error| Error::Json(error.to_string()))?;
        let version = value.get("version").and_then(serde_json::Value::as_u64);
        let conditional = value.get("when").is_some();
        // A condition needs the version that says it (an older reader would launch regardless).
        let accepted = match version {
            Some(found) if conditional => found == u64::from(CONDITIONAL_SCHEMA_VERSION),
            Some(found) => found == u64::from(SCHEMA_VERSION) || found == u64::from(CONDITIONAL_SCHEMA_VERSION),
            None => false,
        };
        if !accepted {
            return Err(Error::Schema {
                found: version.map(|version| version as u32),
            });
        }
        serde_json::from_value(value).map_err(|error| Error::Json(error.to_string()))
    }

    /// Sets the condition the kernel is launched under, and the version that says it.
    pub fn launched_when(&mut self, condition: Expr) {
        self.when = Some(condition);
        self.version = CONDITIONAL_SCHEMA_VERSION;
    }

    /// Returns whether the kernel runs for the host arguments `host`: always, or where its
    /// condition ([`Manifest::when`]) evaluates to nonzero.
    pub fn runs<H: HostArguments + ?Sized>(&self, host: &H) -> Result<bool> {
        self.when
            .as_ref()
            .map_or(Ok(true), |condition| Ok(condition.evaluate(host)? != 0))
    }

    /// Returns the JSON text of the manifest.
    pub fn to_json(&self) -> String {
        let mut bytes = Vec::new();
        let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, Spaced);
        self.serialize(&mut serializer).expect("manifests always serialize");
        String::from_utf8(bytes).expect("JSON is UTF-8")
    }

    /// Checks that a launcher of this compiler version running on `chip` (`sm_90a`, `gfx942`,
    /// `spirv`, ...) may load the kernel.
    pub fn check_loadable(&self, chip: &str) -> Result<()> {
        if self.compiler != COMPILER_VERSION {
            return Err(Error::Compiler {
                found: self.compiler.clone(),
            });
        }
        if !loads_on(&self.target, chip) {
            return Err(Error::Chip {
                found: self.target.clone(),
                expected: chip.to_owned(),
            });
        }
        Ok(())
    }

    /// Returns the threads per block, whichever lowering wrote the manifest.
    pub fn threads(&self) -> [u32; 3] {
        self.block.or(self.workgroup_size).unwrap_or([1, 1, 1])
    }

    /// Returns the shared memory a block needs, whichever lowering wrote the manifest.
    pub fn shared_memory_bytes(&self) -> u64 {
        self.dynamic_shared_bytes
            .or(self.shared_bytes)
            .or(self.lds_bytes)
            .unwrap_or(0)
    }

    /// Returns the grid for the host arguments `host`, padded to three dimensions.
    pub fn evaluate_grid<H: HostArguments + ?Sized>(&self, host: &H) -> Result<[u32; 3]> {
        let mut grid = [1u32; 3];
        for (slot, size) in grid.iter_mut().zip(&self.grid) {
            let value = size.evaluate(host)?;
            *slot = u32::try_from(value)
                .ok()
                .filter(|value| *value > 0)
                .ok_or_else(|| Error::Evaluate(format!("a grid size of {value}")))?;
        }
        Ok(grid)
    }
}

/// Returns the size in bytes of the element type `element` (as MLIR writes it), if a launcher
/// knows it.
pub fn element_bytes(element: &str) -> Option<usize> {
    Some(match element {
        "i8" | "f8E4M3FN" | "f8E5M2" => 1,
        "f16" | "bf16" | "i16" => 2,
        "f32" | "i32" => 4,
        "f64" | "i64" | "index" => 8,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;

/// The compute capability (major * 10 + minor) of an NVIDIA chip as the compiler names it
/// (`sm_80`: 80; `sm_90a`: 90), `None` for other targets.
fn nvidia_architecture(chip: &str) -> Option<u32> {
    chip.strip_prefix("sm_")?
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .ok()
}

/// Whether code compiled for `target` loads on the device the compiler names `chip`: the same
/// name, or PTX for a plain NVIDIA architecture (`sm_80`) on a device of that compute capability
/// or a later one (the driver compiles PTX for the chip it runs on). Architecture-specific code
/// (`sm_90a`: wgmma, `setmaxnreg`) loads on its own chip alone.
pub fn loads_on(target: &str, chip: &str) -> bool {
    if target == chip {
        return true;
    }
    let plain = target
        .strip_prefix("sm_")
        .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()));
    match (nvidia_architecture(target), nvidia_architecture(chip)) {
        (Some(needed), Some(device)) => plain && needed <= device,
        _ => false,
    }
}
