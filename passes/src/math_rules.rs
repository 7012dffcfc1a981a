//! What the `tile-math-to-*` passes share: each target's lowering of `math` ops is a [`MathLowering`]
//! table, applied by [`lower`] in four steps, so that no kernel needs a vendor math library
//! (libdevice's `__nv_*`, ROCm's `__ocml_*`) and SPIR-V gets only what upstream can convert:
//!
//! ```text
//!   f16/bf16 op ── extend ──> arith.extf, f32 op, arith.truncf        (every op a table names)
//!   f32 op ─────── expand ──> upstream math::populateExpansionPatterns (tan, powf, fpowi, sinh ...)
//!           ── approximate ─> upstream polynomial approximations       (erf, atan, cbrt, expm1 ...)
//!                             (atan2 first given C's values at the origin: [`atan2_at_origin`])
//!           ────── rules ───> llvm.call_intrinsic / math ops the target has
//! ```
//!
//! Invariants: only scalar f16, bf16 and f32 ops are rewritten (f64 and vectors are left to
//! upstream, and to `tile-check-external-calls` on GPU targets); an approximation's own helper ops
//! (`math.exp` inside `math.expm1`'s) are approximated too when the table's `follow` names them,
//! while the kernel's own ops of that name go to the rules.

use melior::{
    Context,
    ir::{
        Attribute, BlockLike, BlockRef, Identifier, Location, Type, TypeLike, Value, ValueLike,
        attribute::FloatAttribute,
        operation::{Operation, OperationBuilder, OperationLike, OperationRef},
    },
};
use std::collections::HashSet;
use tile_dialect::ops::{find_ops, with_context};
use tile_dialect::positions::OperationAt;

/// How one f32 op becomes what the target has (`x` is the op's first operand). A function named
/// `llvm.*` is an intrinsic (`llvm.call_intrinsic`), any other an op of that name.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// `intrinsic(operands...)`.
    Intrinsic(&'static str),
    /// `intrinsic(operands...)` with the `afn` fast-math flag, which lets the backend pick its
    /// approximation instruction (NVPTX selects `llvm.tanh` only so, as `tanh.approx.f32`).
    Approximate(&'static str),
    /// The first intrinsic, or the second (which flushes denormal results to zero) when the op
    /// carries the `afn` or `fast` fast-math flag: NVPTX's `ex2.approx.f32` keeps denormals with
    /// a scaling around the instruction, three more instructions an exponential.
    FlushedWhenFast(&'static str, &'static str),
    /// `function(x * factor)`: a base change on the argument (`exp(x) = 2^(x log2 e)`).
    ScaleInput(&'static str, f64),
    /// `function(x) * factor`: a base change on the result (`ln x = log2(x) ln 2`).
    ScaleOutput(&'static str, f64),
    /// `intrinsic(fract(x * factor))` with `fract` another intrinsic: AMDGCN's `sin`/`cos` take
    /// revolutions, valid on a reduced range.
    Revolutions(&'static str, &'static str, f64),
    /// `copysign(floor(|x|), x)` in `math` ops (SPIR-V's GLSL set has no trunc upstream reaches).
    TruncByFloor,
    /// `copysign(x, y)` as `y`'s sign bit selecting between `-|x|` and `|x|` (`fabs` the
    /// intrinsic), the same bits. LLVM 22 folds a copysign rounded to bf16 whose sign operand
    /// widens an f16 into an `fcopysign` of bf16 by f16, which AMDGPU's instruction selection
    /// cannot take (it aborts); LLVM's optimizer turns the integer masks of a copysign back into
    /// one, but not this select.
    SignBySelect(&'static str),
    /// `powf(x, y)` as `2^(y log2 |x|)` in `math` ops, negated when `x < 0` and `y` is an odd
    /// integer, NaN when `x < 0` and `y` is not an integer, 1 when `y = 0` (C's `powf`; upstream's
    /// expansion `exp(y log x)` is NaN for every negative `x`, and so would `fpowi` be, which
    /// upstream expands into `powf` when the exponent is not a constant).
    PowBySign,
    /// `intrinsic.iN(x)` on i32/i64, with a `false` (defined at zero) second operand when the
    /// flag is set: LLVM's bit-counting intrinsics (`llvm.ctlz`, `llvm.ctpop`).
    Bits(&'static str, bool),
    /// `ctpop((x & -x) - 1)` on i32/i64 in `arith` and `math` ops: the trailing zeros as the ones
    /// below the lowest set bit (all of them for `x = 0`).
    CttzByCtpop,
    /// The population count of an i32/i64 by adding bits in ever wider fields, in `arith` ops.
    PopcountBySwar,
    /// `isnan`, `isinf`, `isfinite` of any float type as comparisons (`x` unordered with itself;
    /// equal to either infinity; ordered and unequal to both).
    Classify(Class),
}

/// What a [`Rule::Classify`] asks of a float.
#[derive(Clone, Copy, Debug)]
pub enum Class {
    /// NaN.
    Nan,
    /// Plus or minus infinity.
    Infinite,
    /// Neither NaN nor infinite.
    Finite,
}

/// One target's lowering of `math` ops.
pub struct MathLowering {
    /// Mnemonics expanded by upstream's `populateExpansionPatterns` (`tan`, `powf`).
    pub expand: &'static [&'static str],
    /// Op names replaced by upstream's polynomial approximations (`math.erf`).
    pub approximate: &'static [&'static str],
    /// Op names approximated too when an approximation creates them (`math.exp` in `math.expm1`'s).
    pub follow: &'static [&'static str],
    /// The f32 ops left after that, and what each becomes.
    pub rules: &'static [(&'static str, Rule)],
    /// Op names computed in f32 for f16/bf16 arguments besides those above, left for upstream.
    pub extend: &'static [&'static str],
}

impl MathLowering {
    /// Returns every op name the lowering takes, in f32 and, extended, in f16/bf16.
    fn op_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.expand.iter().map(|mnemonic| format!("math.{mnemonic}")).collect();
        names.extend(self.approximate.iter().map(|name| name.to_string()));
        names.extend(self.rules.iter().map(|(name, _)| name.to_string()));
        names.extend(self.extend.iter().map(|name| name.to_string()));
        names.sort();
        names.dedup();
        names
    }
}

/// Returns the names of the `math` ops under `root` (one walk).
fn math_ops_present(root: OperationRef) -> HashSet<String> {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let mut present = HashSet::new();
    root.walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        if let Ok(name) = name.as_string_ref().as_str() {
            if name.starts_with("math.") && !present.contains(name) {
                present.insert(name.to_owned());
            }
        }
        WalkResult::Advance
    });
    present
}

/// Applies `lowering` to every op under `root`: extend, expand, approximate, then the rules. Each
/// step runs only for the op names under `root` (one walk, again after a step that made new ops),
/// not once per name of the table: a walk of a whole kernel per name was most of the pass's time.
pub fn lower(root: OperationRef, lowering: &MathLowering) -> Result<(), String> {
    let mut present = math_ops_present(root);
    if present.is_empty() {
        return Ok(());
    }
    let names = lowering.op_names();
    for name in names.iter().filter(|name| present.contains(name.as_str())) {
        extend_to_f32(root, name);
    }
    let expanded: Vec<String> = lowering
        .expand
        .iter()
        .map(|mnemonic| format!("math.{mnemonic}"))
        .collect();
    if expanded.iter().any(|name| present.contains(name)) {
        let expanded: Vec<&str> = expanded.iter().map(String::as_str).collect();
        tile_dialect::math::rewrite(root, &expanded, lowering.expand, &[]).map_err(|error| error.to_string())?;
        present = math_ops_present(root);
    }
    if lowering.approximate.contains(&ATAN2) && present.contains(ATAN2) {
        atan2_at_origin(root);
    }
    if lowering.approximate.iter().any(|name| present.contains(*name)) {
        let mut approximated = lowering.approximate.to_vec();
        approximated.extend(lowering.follow);
        tile_dialect::math::rewrite(root, lowering.approximate, &[], &approximated)
            .map_err(|error| error.to_string())?;
        present = math_ops_present(root);
    }
    for (name, rule) in lowering.rules {
        // A rule may write ops that later rules take (`trunc` as `floor` and `copysign`).
        if present.contains(*name) {
            apply(root, name, *rule);
            present = math_ops_present(root);
        }
    }
    Ok(())
}

const ATAN2: &str = "math.atan2";

/// Gives every f32 `math.atan2(y, x)` under `root` C's values where both operands are zero (`+-0`
/// where `x` is `+0`, `+-pi` where it is `-0`, the sign `y`'s) before upstream's polynomial
/// approximation, which the GPU targets use, replaces it: the approximation gives `+-pi/2` (or
/// NaN) wherever `x` is zero. (A Vulkan shader need not keep a zero's sign, so on SPIR-V `-0` may
/// arrive as `+0`.)
fn atan2_at_origin(root: OperationRef) {
    use melior::dialect::arith::{CmpfPredicate, CmpiPredicate, andi, cmpf, cmpi, select};
    with_context(root, |context| {
        let i32_type: Type = melior::ir::r#type::IntegerType::new(context, 32).into();
        let rewriter = melior::IrRewriter::new(context);
        for op in find_ops(root, ATAN2) {
            let operands: Vec<Value> = op.operands().collect();
            let (Some(result), &[y, x]) = (op.result_at(0), &operands[..]) else {
                continue;
            };
            if !result.r#type().is_f32() {
                continue;
            }
            let emit = Emitter::at(context, op);
            let location = emit.location;
            let negative = |value| {
                let bits = emit.op(OperationBuilder::new("arith.bitcast", location)
                    .add_operands(&[value])
                    .add_results(&[i32_type]));
                emit.op_value(cmpi(context, CmpiPredicate::Slt, bits, emit.integer(32, 0), location))
            };
            let zero = |value| emit.op_value(cmpf(context, CmpfPredicate::Oeq, value, emit.constant(0.0), location));
            let origin = emit.op_value(andi(zero(y), zero(x), location));
            let pi = emit.constant(std::f64::consts::PI);
            let magnitude = emit.op_value(select(negative(x), pi, emit.constant(0.0), location));
            let negated = emit.unary("arith.negf", magnitude);
            let signed = emit.op_value(select(negative(y), negated, magnitude, location));
            let approximated = emit.binary(ATAN2, y, x);
            let value = emit.op_value(select(origin, signed, approximated, location));
            rewriter.as_rewriter_base().replace_op_with_values(op, &[value]);
        }
    });
}

/// Returns whether `ty` is a float type narrower than f32 that the rules compute in f32.
fn is_narrow_float(ty: Type) -> bool {
    ty.is_f16() || ty.is_bf16()
}

/// Rewrites every `name` op under `root` whose result is f16/bf16 as the same op on f32 operands
/// (`arith.extf` before, `arith.truncf` after); integer operands (`fpowi`'s exponent) stay.
fn extend_to_f32(root: OperationRef, name: &str) {
    with_context(root, |context| {
        let rewriter = melior::IrRewriter::new(context);
        let rewriter = rewriter.as_rewriter_base();
        let f32 = Type::float32(context);
        for op in find_ops(root, name) {
            let Some(result) = op.result_at(0) else { continue };
            let narrow = result.r#type();
            if op.result_count() != 1 || !is_narrow_float(narrow) {
                continue;
            }
            let emit = Emitter::at(context, op);
            let operands: Vec<Value> = op
                .operands()
                .map(|operand| {
                    if operand.r#type() == narrow {
                        emit.op(OperationBuilder::new("arith.extf", emit.location)
                            .add_operands(&[operand])
                            .add_results(&[f32]))
                    } else {
                        operand
                    }
                })
                .collect();
            let attributes: Vec<(Identifier, Attribute)> = op.attributes().collect();
            let wide = emit.op(OperationBuilder::new(name, emit.location)
                .add_operands(&operands)
                .add_results(&[f32])
                .add_attributes(&attributes));
            let narrowed = emit.op(OperationBuilder::new("arith.truncf", emit.location)
                .add_operands(&[wide])
                .add_results(&[narrow]));
            rewriter.replace_op_with_values(op, &[narrowed]);
        }
    });
}

/// Replaces every f32 `name` op under `root` as `rule` says.
fn apply(root: OperationRef, name: &str, rule: Rule) {
    with_context(root, |context| {
        let rewriter = melior::IrRewriter::new(context);
        let rewriter = rewriter.as_rewriter_base();
        for op in find_ops(root, name) {
            let operands: Vec<Value> = op.operands().collect();
            let Some(&x) = operands.first() else { continue };
            let width = melior::ir::r#type::IntegerType::try_from(x.r#type())
                .ok()
                .filter(|integer| integer.is_signless() && matches!(integer.width(), 32 | 64))
                .map_or(0, |integer| integer.width());
            let takes = match rule {
                Rule::Bits(..) | Rule::CttzByCtpop | Rule::PopcountBySwar => width > 0,
                Rule::Classify(_) => x.r#type().is_float(),
                _ => x.r#type().is_f32(),
            };
            if !takes || op.result_count() != 1 {
                continue;
            }
            let emit = Emitter::at(context, op);
            let result = match rule {
                Rule::Intrinsic(intrinsic) => emit.intrinsic(intrinsic, &operands, "none"),
                Rule::Approximate(intrinsic) => emit.intrinsic(intrinsic, &operands, "afn"),
                Rule::FlushedWhenFast(exact, flushed) => {
                    // `#arith.fastmath<afn,contract>`: the flags between the angle brackets.
                    let fast = op.attribute("fastmath").is_ok_and(|flags| {
                        let text = flags.to_string();
                        let inner = text
                            .split_once('<')
                            .and_then(|(_, rest)| rest.split_once('>'))
                            .map_or("", |(inner, _)| inner);
                        inner.split(',').any(|flag| matches!(flag.trim(), "afn" | "fast"))
                    });
                    emit.intrinsic(if fast { flushed } else { exact }, &operands, "none")
                }
                Rule::ScaleInput(function, factor) => {
                    let scaled = emit.binary("arith.mulf", x, emit.constant(factor));
                    emit.call(function, scaled)
                }
                Rule::ScaleOutput(function, factor) => {
                    let value = emit.call(function, x);
                    emit.binary("arith.mulf", value, emit.constant(factor))
                }
                Rule::Revolutions(intrinsic, fract, factor) => {
                    let turns = emit.binary("arith.mulf", x, emit.constant(factor));
                    let reduced = emit.intrinsic(fract, &[turns], "none");
                    emit.intrinsic(intrinsic, &[reduced], "none")
                }
                Rule::TruncByFloor => {
                    let magnitude = emit.unary("math.absf", x);
                    let floor = emit.unary("math.floor", magnitude);
                    emit.binary("math.copysign", floor, x)
                }
                Rule::SignBySelect(fabs) => {
                    use melior::dialect::arith::{CmpiPredicate, bitcast, cmpi, select};
                    let (context, location) = (emit.context, emit.location);
                    let magnitude = emit.intrinsic(fabs, &[x], "none");
                    let negated = emit.unary("arith.negf", magnitude);
                    let i32 = melior::ir::r#type::IntegerType::new(context, 32).into();
                    let bits = emit.op_value(bitcast(operands[1], i32, location));
                    let negative =
                        emit.op_value(cmpi(context, CmpiPredicate::Slt, bits, emit.integer(32, 0), location));
                    emit.op_value(select(negative, negated, magnitude, location))
                }
                Rule::PowBySign => pow_by_sign(&emit, x, operands[1]),
                Rule::Bits(intrinsic, defined_at_zero) => {
                    let mut arguments = vec![x];
                    if defined_at_zero {
                        arguments.push(emit.integer(1, 0));
                    }
                    emit.intrinsic(&format!("{intrinsic}.i{width}"), &arguments, "none")
                }
                Rule::CttzByCtpop => {
                    let negated = emit.binary("arith.subi", emit.integer(width, 0), x);
                    let lowest = emit.binary("arith.andi", x, negated);
                    let below = emit.binary("arith.subi", lowest, emit.integer(width, 1));
                    emit.unary("math.ctpop", below)
                }
                Rule::PopcountBySwar => popcount_by_swar(&emit, x, width),
                Rule::Classify(class) => classify(&emit, x, class),
            };
            rewriter.replace_op_with_values(op, &[result]);
        }
    });
}

/// Returns `powf(x, y)` as [`Rule::PowBySign`] says, in `math` and `arith` ops.
fn pow_by_sign<'c, 'a>(emit: &Emitter<'c, 'a>, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
    use melior::dialect::arith::{CmpfPredicate, andi, cmpf, select};
    let magnitude = emit.unary("math.exp2", {
        let log = emit.unary("math.log2", emit.unary("math.absf", x));
        emit.binary("arith.mulf", y, log)
    });
    let (context, location) = (emit.context, emit.location);
    let compare = |predicate, a, b| emit.op_value(cmpf(context, predicate, a, b, location));
    let floor_y = emit.unary("math.floor", y);
    let half_y = emit.binary("arith.mulf", y, emit.constant(0.5));
    let negative = compare(CmpfPredicate::Olt, x, emit.constant(0.0));
    let integral = compare(CmpfPredicate::Oeq, floor_y, y);
    let fractional = compare(CmpfPredicate::Une, floor_y, y);
    let odd = compare(CmpfPredicate::One, emit.unary("math.floor", half_y), half_y);
    let odd = emit.op_value(andi(integral, odd, location));
    let flip = emit.op_value(andi(negative, odd, location));
    let undefined = emit.op_value(andi(negative, fractional, location));
    let negated = emit.unary("arith.negf", magnitude);
    let signed = emit.op_value(select(flip, negated, magnitude, location));
    let signed = emit.op_value(select(undefined, emit.constant(f64::NAN), signed, location));
    let zero = compare(CmpfPredicate::Oeq, y, emit.constant(0.0));
    emit.op_value(select(zero, emit.constant(1.0), signed, location))
}

/// Returns the number of set bits of the `width`-bit integer `x`: pairs, nibbles and bytes
/// summed in place, then the bytes summed by a multiplication into the top byte.
fn popcount_by_swar<'c, 'a>(emit: &Emitter<'c, 'a>, x: Value<'c, 'a>, width: u32) -> Value<'c, 'a> {
    let mask = |byte: u64| emit.integer(width, (byte * (u64::MAX / 255)) as i64);
    let shift = |value, bits| emit.binary("arith.shrui", value, emit.integer(width, bits));
    let pairs = emit.binary("arith.andi", shift(x, 1), mask(0x55));
    let x = emit.binary("arith.subi", x, pairs);
    let low = emit.binary("arith.andi", x, mask(0x33));
    let high = emit.binary("arith.andi", shift(x, 2), mask(0x33));
    let x = emit.binary("arith.addi", low, high);
    let x = emit.binary("arith.addi", x, shift(x, 4));
    let x = emit.binary("arith.andi", x, mask(0x0f));
    let x = emit.binary("arith.muli", x, mask(0x01));
    shift(x, i64::from(width) - 8)
}

/// Returns whether the float `x` is of `class`, as an `i1`.
fn classify<'c, 'a>(emit: &Emitter<'c, 'a>, x: Value<'c, 'a>, class: Class) -> Value<'c, 'a> {
    use melior::dialect::arith::{CmpfPredicate, cmpf};
    let (context, location) = (emit.context, emit.location);
    if let Class::Nan = class {
        return emit.op_value(cmpf(context, CmpfPredicate::Uno, x, x, location));
    }
    let constant = |value: f64| {
        let attribute: Attribute = FloatAttribute::new(context, x.r#type(), value).into();
        emit.op_value(melior::dialect::arith::constant(context, attribute, location))
    };
    // Only comparisons, so that no other math op needs lowering after this one.
    let (predicate, combine) = match class {
        Class::Infinite => (CmpfPredicate::Oeq, "arith.ori"),
        _ => (CmpfPredicate::One, "arith.andi"),
    };
    let above = emit.op_value(cmpf(context, predicate, x, constant(f64::INFINITY), location));
    let below = emit.op_value(cmpf(context, predicate, x, constant(f64::NEG_INFINITY), location));
    emit.binary(combine, above, below)
}

/// Builds ops before one op, at its location.
struct Emitter<'c, 'a> {
    context: &'c Context,
    block: BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
    location: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    /// Creates an emitter inserting before `op`.
    fn at(context: &'c Context, op: OperationRef<'c, 'a>) -> Self {
        Self {
            context,
            block: op.block().expect("op in a block"),
            before: op,
            location: op.location(),
        }
    }

    /// Inserts `builder`'s op and returns its only result.
    fn op(&self, builder: OperationBuilder<'c>) -> Value<'c, 'a> {
        let op: Operation<'c> = builder.build().expect("math lowering op");
        self.block
            .insert_operation_before(self.before, op)
            .result_at(0)
            .expect("one result")
            .into()
    }

    /// Inserts `op` and returns its only result.
    fn op_value(&self, op: Operation<'c>) -> Value<'c, 'a> {
        self.block
            .insert_operation_before(self.before, op)
            .result_at(0)
            .expect("one result")
            .into()
    }

    /// Returns `function(a)`: an intrinsic call for `llvm.*`, else the op `function`.
    fn call(&self, function: &str, a: Value<'c, 'a>) -> Value<'c, 'a> {
        if function.starts_with("llvm.") {
            self.intrinsic(function, &[a], "none")
        } else {
            self.unary(function, a)
        }
    }

    /// Returns an integer constant of `width` bits.
    fn integer(&self, width: u32, value: i64) -> Value<'c, 'a> {
        let ty = melior::ir::r#type::IntegerType::new(self.context, width).into();
        let attribute = melior::ir::attribute::IntegerAttribute::new(ty, value).into();
        self.op_value(melior::dialect::arith::constant(self.context, attribute, self.location))
    }

    /// Returns an f32 constant.
    fn constant(&self, value: f64) -> Value<'c, 'a> {
        let attribute: Attribute = FloatAttribute::new(self.context, Type::float32(self.context), value).into();
        self.op(OperationBuilder::new("arith.constant", self.location)
            .add_attributes(&[(Identifier::new(self.context, "value"), attribute)])
            .add_results(&[Type::float32(self.context)]))
    }

    /// Returns `name(a)` with the operand's type.
    fn unary(&self, name: &str, a: Value<'c, 'a>) -> Value<'c, 'a> {
        self.op(OperationBuilder::new(name, self.location)
            .add_operands(&[a])
            .add_results(&[a.r#type()]))
    }

    /// Returns `name(a, b)` with the operands' type.
    fn binary(&self, name: &str, a: Value<'c, 'a>, b: Value<'c, 'a>) -> Value<'c, 'a> {
        self.op(OperationBuilder::new(name, self.location)
            .add_operands(&[a, b])
            .add_results(&[a.r#type()]))
    }

    /// Returns `llvm.call_intrinsic "intrinsic"(operands)` with the first operand's type and the
    /// fast-math flags `flags` (`none`, `afn`).
    fn intrinsic(&self, intrinsic: &str, operands: &[Value<'c, 'a>], flags: &str) -> Value<'c, 'a> {
        let attribute = |name: &str, text: &str| {
            (
                Identifier::new(self.context, name),
                Attribute::parse(self.context, text).expect("attribute"),
            )
        };
        self.op(OperationBuilder::new("llvm.call_intrinsic", self.location)
            .add_operands(operands)
            .add_results(&[operands[0].r#type()])
            .add_attributes(&[
                attribute("intrin", &format!("\"{intrinsic}\"")),
                attribute("fastmathFlags", &format!("#llvm.fastmath<{flags}>")),
                attribute("op_bundle_sizes", "array<i32>"),
                attribute("operandSegmentSizes", &format!("array<i32: {}, 0>", operands.len())),
            ]))
    }
}
