//! Reads a parsed, verified module into an owned tree of ops the machine runs.
//!
//! Invariants:
//! - every SSA value of a function gets one slot number (its index in the machine's frame), given
//!   in definition order; operands refer to slots already given (structured regions define a
//!   value before its uses);
//! - every op the tree holds is one the machine implements with its documented semantics: an op
//!   it does not is an [`Error::Unsupported`] at that op, found here, before anything runs;
//! - nothing of MLIR is kept: the tree holds numbers, types and location strings only.
//!
//! This reads the IR with melior's safe API and `tile_dialect`'s op accessors only.

use crate::error::{Error, Result, Site};
use crate::ir::{BitCount, Body, CopyOperands, FloatOp, Function, IntOp, Kind, MemType, Op, UnaryOp, Update};
use crate::memory::Level;
use crate::scalar::{Scalar, Val};
use melior::ir::{
    BlockLike, RegionLike, ShapedTypeLike, Type, TypeLike, Value, ValueLike,
    attribute::{BoolAttribute, DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute, TypeAttribute},
    block::BlockRef,
    operation::{OperationLike, OperationRef},
    r#type::{FunctionType, MemRefType},
};
use std::{collections::HashMap, rc::Rc};
use tile_dialect::atomic::AtomicKind;
use tile_dialect::ops::{copy_parts, integer_attribute, reduction_kind};

/// Returns `file:line:col` for a location with one, or MLIR's text of it.
pub fn location_text(location: melior::ir::Location) -> String {
    if location.is_file_line_col_range() {
        format!(
            "{}:{}:{}",
            location
                .file_line_col_range_filename()
                .as_string_ref()
                .as_str()
                .unwrap_or("?"),
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column()
        )
    } else if location.is_name() {
        location_text(location.name_child_location())
    } else if location.is_call_site() {
        location_text(location.call_site_caller())
    } else if location.is_fused() && location.fused_num_locations() > 0 {
        location_text(location.fused_location(0))
    } else {
        location.to_string()
    }
}

/// Returns the memref type of `type`, or why the interpreter cannot hold it.
pub fn mem_type(r#type: Type) -> std::result::Result<MemType, String> {
    let text = r#type.to_string();
    let memref = MemRefType::try_from(r#type).map_err(|_| format!("of type {text}"))?;
    if text.contains("affine_map") || text.contains("strided") {
        return Err(format!("on {text} (a non-identity layout)"));
    }
    let element = Scalar::parse(&memref.element().to_string())
        .filter(|element| element.fits_storage())
        .ok_or_else(|| format!("on {text} (elements of {})", memref.element()))?;
    let shape = tile_dialect::ops::static_sizes(memref)
        .into_iter()
        .map(|size| size.map(|size| size as usize))
        .collect();
    Ok(MemType {
        element,
        shape,
        text: text.into(),
    })
}

fn scalar_type(r#type: Type) -> Option<Scalar> {
    Scalar::parse(&r#type.to_string())
}

/// Decodes every public host function of a module.
pub struct Decoder {
    slots: HashMap<usize, usize>,
    in_kernel: bool,
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl Decoder {
    /// Decodes the function `op` (a `func.func` with a body).
    pub fn function(op: OperationRef) -> Result<Function> {
        let site = site(&op);
        let name = op
            .attribute("sym_name")
            .ok()
            .and_then(tile_dialect::ops::attribute_text)
            .unwrap_or_default();
        let signature = op
            .attribute("function_type")
            .ok()
            .and_then(|attr| TypeAttribute::try_from(attr).ok())
            .and_then(|attr| FunctionType::try_from(attr.value()).ok())
            .ok_or_else(|| Error::UnsupportedForm(site.clone(), "without a function type".into()))?;
        let mut arguments = Vec::new();
        for index in 0..signature.input_count() {
            let r#type = signature.input(index).map_err(|e| Error::Arguments(e.to_string()))?;
            arguments.push(
                mem_type(r#type)
                    .map_err(|why| Error::UnsupportedForm(site.clone(), format!("argument {index} {why}")))?,
            );
        }
        let mut decoder = Self {
            slots: HashMap::new(),
            in_kernel: false,
        };
        let region = op.region(0).map_err(|_| Error::NoFunction(name.clone()))?;
        let block = region.first_block().ok_or_else(|| Error::NoFunction(name.clone()))?;
        let body = decoder.block(block)?;
        Ok(Function {
            name,
            arguments,
            body,
            slots: decoder.slots.len(),
        })
    }

    fn define(&mut self, value: Value) -> usize {
        let next = self.slots.len();
        *self.slots.entry(key(value)).or_insert(next)
    }

    fn use_of(&self, value: Value, site: &Rc<Site>) -> Result<usize> {
        self.slots.get(&key(value)).copied().ok_or_else(|| {
            Error::UnsupportedForm((**site).clone(), "using a value defined outside its function".into())
        })
    }

    fn block(&mut self, block: BlockRef) -> Result<Body> {
        let mut body = Body::default();
        for index in 0..block.argument_count() {
            let argument = block.argument(index).expect("in range");
            body.arguments.push(self.define(argument.into()));
        }
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            body.ops.push(self.op(op)?);
        }
        Ok(body)
    }

    fn op(&mut self, op: OperationRef) -> Result<Op> {
        let site = Rc::new(site(&op));
        let kind = self.kind(&op, &site)?;
        let mut operands = Vec::new();
        for value in op.operands() {
            operands.push(self.use_of(value, &site)?);
        }
        let was_in_kernel = self.in_kernel;
        self.in_kernel |= matches!(kind, Kind::Kernel(_));
        let mut regions = Vec::new();
        for region in op.regions() {
            let Some(block) = region.first_block() else {
                regions.push(Body::default());
                continue;
            };
            if block.next_in_region().is_some() {
                return Err(Error::UnsupportedForm(
                    (*site).clone(),
                    "with a multi-block region".into(),
                ));
            }
            regions.push(self.block(block)?);
        }
        self.in_kernel = was_in_kernel;
        let results = op.results().map(|result| self.define(result.into())).collect();
        Ok(Op {
            kind,
            operands,
            results,
            regions,
            site,
        })
    }

    fn kind(&self, op: &OperationRef, site: &Rc<Site>) -> Result<Kind> {
        let name = site.op.as_str();
        let unsupported = || Error::Unsupported((**site).clone());
        let form = |what: String| Error::UnsupportedForm((**site).clone(), what);
        let result_type = || -> Result<Scalar> {
            let r#type = op.result(0).map_err(|_| unsupported())?.r#type();
            scalar_type(r#type).ok_or_else(|| form(format!("with a result of type {type}")))
        };
        let operand_type = |index: usize| -> Result<Scalar> {
            let r#type = op.operand(index).map_err(|_| unsupported())?.r#type();
            scalar_type(r#type).ok_or_else(|| form(format!("with an operand of type {type}")))
        };
        let float = |scalar: Scalar| match scalar {
            Scalar::Float(float) => Ok(float),
            other => Err(form(format!("on {other}"))),
        };
        let width = |scalar: Scalar| scalar.width().ok_or_else(|| form(format!("on {scalar}")));
        let int = |kind: IntOp| -> Result<Kind> { Ok(Kind::Int(kind, width(result_type()?)?)) };
        let binary = |kind: FloatOp| -> Result<Kind> { Ok(Kind::Float(kind, float(result_type()?)?)) };
        let unary = |kind: UnaryOp| -> Result<Kind> { Ok(Kind::Unary(kind, float(result_type()?)?)) };
        let cast = |signed: bool| -> Result<Kind> {
            Ok(Kind::Cast {
                from: operand_type(0)?,
                to: result_type()?,
                signed,
            })
        };
        let memory = |kind: Kind| -> Result<Kind> {
            // Every memref operand must be one the machine can hold.
            for value in op.operands() {
                if value.r#type().is_mem_ref() {
                    mem_type(value.r#type()).map_err(form)?;
                }
            }
            Ok(kind)
        };
        let alloc = |level: Level| -> Result<Kind> {
            let r#type = op.result(0).map_err(|_| unsupported())?.r#type();
            Ok(Kind::Alloc(mem_type(r#type).map_err(form)?, level))
        };
        Ok(match name {
            "arith.constant" | "index.constant" => {
                let attr = op.attribute("value").map_err(|_| unsupported())?;
                let scalar = result_type()?;
                let value = if let Ok(integer) = IntegerAttribute::try_from(attr) {
                    Val::int(integer.value())
                } else if let Ok(float) = FloatAttribute::try_from(attr) {
                    Val::F(float.value(), 0.0)
                } else {
                    return Err(form(format!("with value {attr}")));
                };
                // Every target rounds a literal alike: a constant is exact (bound 0).
                Kind::Constant(match scalar.round(value) {
                    Val::F(x, _) => Val::F(x, 0.0),
                    other => other,
                })
            }
            "arith.addi" | "index.add" => int(IntOp::Add)?,
            "arith.subi" | "index.sub" => int(IntOp::Sub)?,
            "arith.muli" | "index.mul" => int(IntOp::Mul)?,
            "arith.divsi" | "index.divs" => int(IntOp::DivS)?,
            "arith.divui" | "index.divu" => int(IntOp::DivU)?,
            "arith.remsi" | "index.rems" => int(IntOp::RemS)?,
            "arith.remui" | "index.remu" => int(IntOp::RemU)?,
            "arith.ceildivsi" | "index.ceildivs" => int(IntOp::CeilDivS)?,
            "arith.ceildivui" | "index.ceildivu" => int(IntOp::CeilDivU)?,
            "arith.floordivsi" | "index.floordivs" => int(IntOp::FloorDivS)?,
            "arith.minsi" | "index.mins" => int(IntOp::MinS)?,
            "arith.maxsi" | "index.maxs" => int(IntOp::MaxS)?,
            "arith.minui" | "index.minu" => int(IntOp::MinU)?,
            "arith.maxui" | "index.maxu" => int(IntOp::MaxU)?,
            "arith.andi" | "index.and" => int(IntOp::And)?,
            "arith.ori" | "index.or" => int(IntOp::Or)?,
            "arith.xori" | "index.xor" => int(IntOp::Xor)?,
            "arith.shli" | "index.shl" => int(IntOp::Shl)?,
            "arith.shrsi" | "index.shrs" => int(IntOp::ShrS)?,
            "arith.shrui" | "index.shru" => int(IntOp::ShrU)?,
            "math.absi" => Kind::AbsI(width(result_type()?)?),
            "math.ctlz" => Kind::Bits(BitCount::LeadingZeros, width(result_type()?)?),
            "math.cttz" => Kind::Bits(BitCount::TrailingZeros, width(result_type()?)?),
            "math.ctpop" => Kind::Bits(BitCount::Ones, width(result_type()?)?),
            "math.isnan" => Kind::FloatClass(true),
            "math.isfinite" => Kind::FloatClass(false),
            "math.fpowi" => Kind::PowI(float(result_type()?)?),
            "arith.cmpi" => {
                let predicate = integer_attribute(op, "predicate").ok_or_else(unsupported)?;
                Kind::CmpI(predicate, width(operand_type(0)?)?)
            }
            "index.cmp" => {
                let text = op.attribute("pred").map(|attr| attr.to_string()).unwrap_or_default();
                let names = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
                let predicate = names
                    .iter()
                    .position(|name| text.ends_with(&format!(" {name}>")))
                    .ok_or_else(|| form(format!("with predicate {text}")))?;
                Kind::CmpI(predicate as i64, 64)
            }
            "arith.cmpf" => Kind::CmpF(integer_attribute(op, "predicate").ok_or_else(unsupported)?),
            "arith.select" => {
                if op.operand(0).map(|v| v.r#type().to_string()).as_deref() != Ok("i1") {
                    return Err(form("with a non-scalar condition".into()));
                }
                result_type()?;
                Kind::Select
            }
            "arith.addf" => binary(FloatOp::Add)?,
            "arith.subf" => binary(FloatOp::Sub)?,
            "arith.mulf" => binary(FloatOp::Mul)?,
            "arith.divf" => binary(FloatOp::Div)?,
            "arith.remf" => binary(FloatOp::Rem)?,
            "arith.maximumf" => binary(FloatOp::Maximum)?,
            "arith.minimumf" => binary(FloatOp::Minimum)?,
            "arith.maxnumf" => binary(FloatOp::MaxNum)?,
            "arith.minnumf" => binary(FloatOp::MinNum)?,
            "math.powf" => binary(FloatOp::Pow)?,
            "math.atan2" => binary(FloatOp::Atan2)?,
            "math.copysign" => binary(FloatOp::CopySign)?,
            "arith.negf" => unary(UnaryOp::Neg)?,
            "math.absf" => unary(UnaryOp::Abs)?,
            "math.exp" => unary(UnaryOp::Exp)?,
            "math.exp2" => unary(UnaryOp::Exp2)?,
            "math.expm1" => unary(UnaryOp::Expm1)?,
            "math.log" => unary(UnaryOp::Log)?,
            "math.log2" => unary(UnaryOp::Log2)?,
            "math.log10" => unary(UnaryOp::Log10)?,
            "math.log1p" => unary(UnaryOp::Log1p)?,
            "math.sqrt" => unary(UnaryOp::Sqrt)?,
            "math.rsqrt" => unary(UnaryOp::Rsqrt)?,
            "math.tanh" => unary(UnaryOp::Tanh)?,
            "math.sin" => unary(UnaryOp::Sin)?,
            "math.cos" => unary(UnaryOp::Cos)?,
            "math.tan" => unary(UnaryOp::Tan)?,
            "math.atan" => unary(UnaryOp::Atan)?,
            "math.floor" => unary(UnaryOp::Floor)?,
            "math.ceil" => unary(UnaryOp::Ceil)?,
            "math.round" => unary(UnaryOp::Round)?,
            "math.roundeven" => unary(UnaryOp::RoundEven)?,
            "math.trunc" => unary(UnaryOp::Trunc)?,
            "math.acos" => unary(UnaryOp::Acos)?,
            "math.asin" => unary(UnaryOp::Asin)?,
            "math.cbrt" => unary(UnaryOp::Cbrt)?,
            "math.cosh" => unary(UnaryOp::Cosh)?,
            "math.sinh" => unary(UnaryOp::Sinh)?,
            "math.erf" => unary(UnaryOp::Erf)?,
            "math.erfc" => unary(UnaryOp::Erfc)?,
            "math.fma" => Kind::Fma(float(result_type()?)?),
            "arith.truncf" if op.has_attribute("roundingmode") => {
                return Err(form("with a rounding mode".into()));
            }
            "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.fptosi" | "arith.extsi" | "arith.trunci"
            | "arith.index_cast" | "index.casts" => cast(true)?,
            "arith.uitofp" | "arith.fptoui" | "arith.extui" | "arith.index_castui" | "index.castu" => cast(false)?,
            "arith.bitcast" => {
                let (from, to) = (operand_type(0)?, result_type()?);
                let packed = |scalar: Scalar| scalar == Scalar::Float(crate::scalar::Float::F4E2M1FN);
                if from.bits().is_none() || from.bits() != to.bits() || packed(from) || packed(to) {
                    return Err(form(format!("from {from} to {to}")));
                }
                Kind::Bitcast { from, to }
            }
            "memref.load" => {
                result_type()?;
                memory(Kind::Load)?
            }
            "memref.store" => {
                operand_type(0)?;
                memory(Kind::Store)?
            }
            "memref.atomic_rmw" => {
                let number = integer_attribute(op, "kind").ok_or_else(unsupported)?;
                let kind = AtomicKind::of(number).ok_or_else(|| form(format!("of kind {number}")))?;
                memory(Kind::Atomic(Update::of(kind, operand_type(0)?).map_err(form)?))?
            }
            "memref.dim" => memory(Kind::Dim)?,
            "memref.extract_aligned_pointer_as_index" => memory(Kind::Address)?,
            "memref.alloc" | "memref.alloca" => {
                let kind = alloc(if self.in_kernel { Level::Local } else { Level::Global })?;
                if let Kind::Alloc(r#type, _) = &kind
                    && op.operand_count() != r#type.shape.iter().filter(|size| size.is_none()).count()
                {
                    return Err(form("with symbol operands".into()));
                }
                kind
            }
            "memref.dealloc" => Kind::Dealloc,
            "scf.for" => Kind::For(op.has_attribute("unsignedCmp")),
            "scf.if" => Kind::If,
            "scf.yield" | "tile.yield" | "func.return" => Kind::Yield,
            "tile.kernel" => Kind::Kernel(integer_attribute(op, "tile.splits")),
            "tile.split_sum" => Kind::SplitSum(integer_attribute(op, "splits").ok_or_else(unsupported)?),
            "tile.pipelined" => Kind::Pipelined,
            "tile.parallel" => {
                let extents = op
                    .attribute("extents")
                    .ok()
                    .and_then(|attr| DenseI64ArrayAttribute::try_from(attr).ok())
                    .ok_or_else(unsupported)?;
                Kind::Parallel((0..extents.len()).filter_map(|i| extents.element(i).ok()).collect())
            }
            "tile.alloc_shared" => alloc(Level::Shared)?,
            "tile.alloc_fragment" => alloc(Level::Fragment)?,
            "tile.copy" => {
                let parts = copy_parts(op).ok_or_else(unsupported)?;
                let atomic = tile_dialect::ops::copy_atomic(op);
                memory(Kind::Copy(
                    CopyOperands {
                        src_offsets: parts.src_offsets.len(),
                        dst_offsets: parts.dst_offsets.len(),
                        limits: parts.limits.len(),
                    },
                    atomic,
                    parts.spans,
                    tile_dialect::ops::copy_saturates(op),
                ))?
            }
            "tile.copy_async" => {
                let (parts, _, _) = tile_dialect::ops::copy_async_parts(op).ok_or_else(unsupported)?;
                for value in [parts.src, parts.dst] {
                    mem_type(value.r#type()).map_err(form)?;
                }
                Kind::Copy(
                    CopyOperands {
                        src_offsets: parts.src_offsets.len(),
                        dst_offsets: 0,
                        limits: 0,
                    },
                    None,
                    parts.spans,
                    false,
                )
            }
            "tile.slot" => {
                let r#type = op.result(0).map_err(|_| unsupported())?.r#type();
                Kind::Slot(mem_type(r#type).map_err(form)?)
            }
            "tile.alloc_barriers" => Kind::Barriers,
            "gpu.barrier" => Kind::Sync,
            "tile.arrive" => Kind::Arrive,
            "tile.wait" => Kind::Wait,
            "tile.producer" => Kind::Producer,
            "tile.gemm" => memory(Kind::Gemm(
                op.has_attribute("transpose_a"),
                op.has_attribute("transpose_b"),
            ))?,
            "tile.matmul" => {
                // A launch of its own: in a kernel it would be a nested launch (the verifier
                // rejects it there).
                if self.in_kernel {
                    return Err(form("inside a tile.kernel (it runs in host code)".into()));
                }
                memory(Kind::Matmul(op.has_attribute("transpose_b")))?
            }
            "tile.fill" => {
                operand_type(1)?;
                memory(Kind::Fill)?
            }
            "tile.reduce" => {
                let kind = reduction_kind(op).ok_or_else(unsupported)?;
                let dim = integer_attribute(op, "dim").ok_or_else(unsupported)?;
                let clear = op
                    .attribute("clear")
                    .ok()
                    .and_then(|attr| BoolAttribute::try_from(attr).ok())
                    .is_none_or(|attr| attr.value());
                memory(Kind::Reduce(kind, dim as usize, clear))?
            }
            "tile.scan" => {
                let kind = reduction_kind(op).ok_or_else(unsupported)?;
                let dim = integer_attribute(op, "dim").ok_or_else(unsupported)?;
                memory(Kind::Scan(kind, dim as usize, op.has_attribute("exclusive")))?
            }
            "tile.print" => {
                let message = tile_dialect::ops::string_attribute(op, "message").ok_or_else(unsupported)?;
                memory(Kind::Print(message))?
            }
            _ => return Err(unsupported()),
        })
    }
}

fn site(op: &OperationRef) -> Site {
    Site {
        op: op.name().as_string_ref().as_str().unwrap_or("?").to_owned(),
        location: location_text(op.location()),
    }
}
