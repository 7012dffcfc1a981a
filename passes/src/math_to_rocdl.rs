//! `tile-math-to-rocdl`: lowers the `math` ops of kernels to AMDGCN instructions and upstream
//! polynomial approximations, so that no kernel calls ROCm's device library (`__ocml_*`), which
//! `tile-to-rocdl` does not link.
//!
//! | ops (f32; f16/bf16 computed in f32) | become | accuracy |
//! |---|---|---|
//! | `exp`, `exp2` | `v_exp_f32` (`llvm.amdgcn.exp2`, of `x log2 e` for `exp`) | 1 ulp + argument rounding, denormal results flushed |
//! | `log`, `log2`, `log10` | `v_log_f32` (`llvm.amdgcn.log`), times `ln 2` / `log10 2` | 1 ulp of log2, denormal inputs flushed |
//! | `rsqrt` / `sqrt` | `v_rsq_f32` (`llvm.amdgcn.rsq`) / `llvm.sqrt` (correctly rounded) | 1 ulp / exact |
//! | `sin`, `cos` | `v_sin_f32`/`v_cos_f32` on `fract(x / 2pi)` (they take revolutions) | about 2^-20 absolute |
//! | `powf` | `2^(y log2 |x|)` with C's signs for negative `x` (upstream's `exp(y log x)` is NaN there) | a few ulp times `|y|` |
//! | `tan`, `fpowi`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh` | upstream expansions into the ops above (`fpowi`: multiplications for a constant exponent, else `powf`) | |
//! | `tanh`, `erf`, `erfc`, `atan`, `atan2`, `asin`, `acos`, `cbrt`, `expm1`, `log1p` | upstream polynomial approximations (their `exp`/`log` too) | about 1e-6 relative |
//! | `absf`, `floor`, `ceil`, `round`, `roundeven`, `trunc`, `fma` | the LLVM intrinsics, native on gfx942 | exact |
//! | `copysign` | `y`'s sign bit selecting `-|x|` or `|x|` (LLVM 22's AMDGPU backend aborts on the `fcopysign` of bf16 by f16 it makes of a copysign rounded to bf16) | exact |
//! | `isinf` (any float) | comparisons against both infinities | exact |
//!
//! Anything else (f64, vectors, other ops; upstream lowers `ctlz`, `absi`, `isnan`, ... well) is
//! left for upstream, and `tile-check-external-calls` refuses a kernel in which that ends as a call
//! to `__ocml_*`.
//!
//! `arith.maximumf` / `arith.minimumf` against a constant that is not NaN (a ReLU, a clamp) become
//! one unordered comparison and a select, the same values bit for bit: gfx942 has no NaN-propagating
//! `v_max`, and LLVM expands `llvm.maximum` into `v_max`, `v_cmp_o` and `v_cndmask` (three
//! instructions an element where two do).

use crate::math_rules::{Class, MathLowering, Rule};
use std::f64::consts::{FRAC_1_PI, LN_2, LOG2_E, LOG10_2};
use tile_dialect::positions::OperationAt;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-math-to-rocdl";

/// One revolution per 2 pi radians.
const REVOLUTIONS_PER_RADIAN: f64 = FRAC_1_PI / 2.0;

/// The AMDGCN lowering table.
pub const ROCDL: MathLowering = MathLowering {
    expand: &["tan", "fpowi", "sinh", "cosh", "asinh", "acosh", "atanh"],
    approximate: &[
        "math.tanh",
        "math.erf",
        "math.erfc",
        "math.atan",
        "math.atan2",
        "math.asin",
        "math.acos",
        "math.cbrt",
        "math.expm1",
        "math.log1p",
    ],
    follow: &["math.exp", "math.log"],
    rules: &[
        ("math.powf", Rule::PowBySign),
        ("math.exp", Rule::ScaleInput("llvm.amdgcn.exp2.f32", LOG2_E)),
        ("math.exp2", Rule::Intrinsic("llvm.amdgcn.exp2.f32")),
        ("math.log", Rule::ScaleOutput("llvm.amdgcn.log.f32", LN_2)),
        ("math.log2", Rule::Intrinsic("llvm.amdgcn.log.f32")),
        ("math.log10", Rule::ScaleOutput("llvm.amdgcn.log.f32", LOG10_2)),
        ("math.rsqrt", Rule::Intrinsic("llvm.amdgcn.rsq.f32")),
        ("math.sqrt", Rule::Intrinsic("llvm.sqrt.f32")),
        (
            "math.sin",
            Rule::Revolutions("llvm.amdgcn.sin.f32", "llvm.amdgcn.fract.f32", REVOLUTIONS_PER_RADIAN),
        ),
        (
            "math.cos",
            Rule::Revolutions("llvm.amdgcn.cos.f32", "llvm.amdgcn.fract.f32", REVOLUTIONS_PER_RADIAN),
        ),
        ("math.absf", Rule::Intrinsic("llvm.fabs.f32")),
        ("math.floor", Rule::Intrinsic("llvm.floor.f32")),
        ("math.ceil", Rule::Intrinsic("llvm.ceil.f32")),
        ("math.round", Rule::Intrinsic("llvm.round.f32")),
        ("math.roundeven", Rule::Intrinsic("llvm.roundeven.f32")),
        ("math.trunc", Rule::Intrinsic("llvm.trunc.f32")),
        ("math.fma", Rule::Intrinsic("llvm.fma.f32")),
        ("math.copysign", Rule::SignBySelect("llvm.fabs.f32")),
        // Upstream lowers isnan and isfinite (llvm.is.fpclass) but not isinf.
        ("math.isinf", Rule::Classify(Class::Infinite)),
    ],
    extend: &[],
};

crate::rust_pass! {
    /// Creates the `tile-math-to-rocdl` pass (any op).
    pub fn create_math_to_rocdl_pass() {
        argument: ARGUMENT,
        name: "TileMathToRocdl",
        description: "Lower math ops to AMDGCN instructions, LLVM intrinsics and upstream polynomial approximations, so no ROCm device library is needed",
        anchor: "",
        dialects: [tile_dialect::registration::math_dialect(), tile_dialect::registration::llvm_dialect()],
        run: |op| {
            crate::math_rules::lower(op, &ROCDL)?;
            bound_by_constant(op);
            Ok(())
        },
    }
}

/// Rewrites every scalar `arith.maximumf(x, c)` / `arith.minimumf(x, c)` under `root` (either
/// operand the constant, `c` not NaN) as `select(x > c or x is NaN, x, c)` (`<` for the minimum).
/// Where `x` equals `c` the select returns `c`, which is the answer except for the zeros of
/// opposite sign: against `-0.0` the maximum compares `>=` (so `max(+0, -0)` is `+0`), against
/// `+0.0` the minimum compares `<=` (`min(-0, +0)` is `-0`).
fn bound_by_constant(root: melior::ir::OperationRef) {
    use melior::dialect::arith::{cmpf, select};
    use melior::ir::operation::OperationLike;
    use melior::ir::{BlockLike, TypeLike, Value, ValueLike};
    use tile_dialect::ops::{constant_float, find_ops, with_context};
    // The constant an operand is, if it is one that is not NaN.
    let constant = |value: Value| constant_float(value).filter(|value| !value.is_nan());
    with_context(root, |context| {
        let rewriter = melior::IrRewriter::new(context);
        let rewriter = rewriter.as_rewriter_base();
        for (name, maximum) in [("arith.maximumf", true), ("arith.minimumf", false)] {
            for op in find_ops(root, name) {
                let (Some(a), Some(b)) = (op.operand_at(0), op.operand_at(1)) else {
                    continue;
                };
                if !a.r#type().is_float() {
                    continue;
                }
                let (x, bound, c) = match (constant(a), constant(b)) {
                    (_, Some(c)) => (a, b, c),
                    (Some(c), None) => (b, a, c),
                    (None, None) => continue,
                };
                let predicate = keeps_operand(maximum, c);
                let location = op.location();
                let block = op.block().expect("op in a block");
                let keep = block.insert_operation_before(op, cmpf(context, predicate, x, bound, location));
                let keep = keep.result_at(0).expect("one result").into();
                let chosen = block.insert_operation_before(op, select(keep, x, bound, location));
                rewriter.replace_op_with_values(op, &[chosen.result_at(0).expect("one result").into()]);
            }
        }
    });
}

/// The comparison of `x` with the constant `c` under which `maximumf(x, c)` (`minimumf` when not
/// `maximum`) is `x`, the select returning `c` otherwise: unordered, so that a NaN `x` is kept.
fn keeps_operand(maximum: bool, c: f64) -> melior::dialect::arith::CmpfPredicate {
    use melior::dialect::arith::CmpfPredicate;
    let zero = c == 0.0;
    match (maximum, zero && c.is_sign_negative(), zero && c.is_sign_positive()) {
        (true, true, _) => CmpfPredicate::Uge,
        (true, false, _) => CmpfPredicate::Ugt,
        (false, _, true) => CmpfPredicate::Ule,
        (false, _, false) => CmpfPredicate::Ult,
    }
}

#[cfg(test)]
mod tests {
    use super::keeps_operand;
    use melior::dialect::arith::CmpfPredicate;

    /// IEEE 754-2019 maximum / minimum: NaN if either is, -0 below +0.
    fn reference(maximum: bool, x: f64, c: f64) -> f64 {
        if x.is_nan() || c.is_nan() {
            return f64::NAN;
        }
        if x == c {
            let negative = if maximum {
                x.is_sign_negative() && c.is_sign_negative()
            } else {
                x.is_sign_negative() || c.is_sign_negative()
            };
            return if negative { -x.abs() } else { x.abs() };
        }
        if (x > c) == maximum { x } else { c }
    }

    /// What `arith.cmpf predicate, x, c` answers.
    fn compare(predicate: CmpfPredicate, x: f64, c: f64) -> bool {
        let unordered = x.is_nan() || c.is_nan();
        match predicate {
            CmpfPredicate::Ugt => unordered || x > c,
            CmpfPredicate::Uge => unordered || x >= c,
            CmpfPredicate::Ult => unordered || x < c,
            CmpfPredicate::Ule => unordered || x <= c,
            other => panic!("unexpected predicate {other:?}"),
        }
    }

    #[test]
    fn the_select_is_the_maximum_and_minimum_bit_for_bit() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.5,
            -2.5,
            f64::MIN_POSITIVE / 2.0,
            -f64::MIN_POSITIVE / 2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for maximum in [true, false] {
            for &c in values.iter().filter(|c| !c.is_nan()) {
                for &x in &values {
                    let chosen = if compare(keeps_operand(maximum, c), x, c) { x } else { c };
                    let expected = reference(maximum, x, c);
                    assert!(
                        chosen.to_bits() == expected.to_bits() || (chosen.is_nan() && expected.is_nan()),
                        "{}({x}, {c}) = {expected}, the select gives {chosen}",
                        if maximum { "maximum" } else { "minimum" }
                    );
                }
            }
        }
    }
}
