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
//! | `absf`, `floor`, `ceil`, `round`, `roundeven`, `trunc`, `fma`, `copysign` | the LLVM intrinsics, native on gfx942 | exact |
//! | `isinf` (any float) | comparisons against both infinities | exact |
//!
//! Anything else (f64, vectors, other ops; upstream lowers `ctlz`, `absi`, `isnan`, ... well) is
//! left for upstream, and `tile-check-external-calls` refuses a kernel in which that ends as a call
//! to `__ocml_*`.

use crate::math_rules::{Class, MathLowering, Rule};
use std::f64::consts::{FRAC_1_PI, LN_2, LOG2_E, LOG10_2};

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
        (
            "math.log10",
            Rule::ScaleOutput("llvm.amdgcn.log.f32", LOG10_2),
        ),
        ("math.rsqrt", Rule::Intrinsic("llvm.amdgcn.rsq.f32")),
        ("math.sqrt", Rule::Intrinsic("llvm.sqrt.f32")),
        (
            "math.sin",
            Rule::Revolutions(
                "llvm.amdgcn.sin.f32",
                "llvm.amdgcn.fract.f32",
                REVOLUTIONS_PER_RADIAN,
            ),
        ),
        (
            "math.cos",
            Rule::Revolutions(
                "llvm.amdgcn.cos.f32",
                "llvm.amdgcn.fract.f32",
                REVOLUTIONS_PER_RADIAN,
            ),
        ),
        ("math.absf", Rule::Intrinsic("llvm.fabs.f32")),
        ("math.floor", Rule::Intrinsic("llvm.floor.f32")),
        ("math.ceil", Rule::Intrinsic("llvm.ceil.f32")),
        ("math.round", Rule::Intrinsic("llvm.round.f32")),
        ("math.roundeven", Rule::Intrinsic("llvm.roundeven.f32")),
        ("math.trunc", Rule::Intrinsic("llvm.trunc.f32")),
        ("math.fma", Rule::Intrinsic("llvm.fma.f32")),
        ("math.copysign", Rule::Intrinsic("llvm.copysign.f32")),
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
        run: |op| crate::math_rules::lower(op, &ROCDL),
    }
}
