//! `tile-math-to-nvptx`: lowers the `math` ops of kernels to NVPTX instructions and upstream
//! polynomial approximations, so that no kernel calls libdevice (`__nv_*`), which an offline build
//! without the CUDA toolkit cannot link and which PTX loaded by the driver cannot resolve.
//!
//! | ops (f32; f16/bf16 computed in f32) | become | accuracy |
//! |---|---|---|
//! | `exp`, `exp2` | `ex2.approx.f32` (of `x log2 e` for `exp`) | 2 ulp + argument rounding |
//! | `exp2` with `afn` or `fast` | `ex2.approx.ftz.f32`: results below 2^-126 are 0 (no denormal scaling) | 2 ulp |
//! | `log`, `log2`, `log10` | `lg2.approx.f32`, times `ln 2` / `log10 2` | 2^-22 absolute near 1 |
//! | `rsqrt` / `sqrt` | `rsqrt.approx.f32` / `sqrt.rn.f32` (`llvm.sqrt`) | 2^-22.9 relative / exact |
//! | `tanh` | `tanh.approx.f32` (sm_75+; `llvm.tanh` with `afn`, as LLVM 22 spells it) | 2^-10.9 relative |
//! | `sin`, `cos` | `sin.approx.f32`, `cos.approx.f32` | 2^-20.9 absolute on [-pi, pi] |
//! | `powf` | `2^(y log2 |x|)` with C's signs for negative `x` (upstream's `exp(y log x)` is NaN there) | a few ulp times `|y|` |
//! | `tan`, `fpowi`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh` | upstream expansions into the ops above (`fpowi`: multiplications for a constant exponent, else `powf`) | |
//! | `erf`, `erfc`, `atan`, `atan2`, `asin`, `acos`, `cbrt`, `expm1`, `log1p` | upstream polynomial approximations (their `exp`/`log` too) | about 1e-6 relative |
//! | `absf`, `floor`, `ceil`, `round`, `roundeven`, `trunc`, `fma`, `copysign` | the LLVM intrinsics, single PTX instructions | exact |
//!
//! | `ctlz`, `cttz`, `ctpop`, `absi` (i32, i64) | `llvm.ctlz`/`cttz`/`ctpop`/`abs`: `clz`, `brev` + `clz`, `popc`, `abs` | exact |
//! | `isnan`, `isinf`, `isfinite` (any float) | comparisons (`x` unordered with itself, against both infinities) | exact |
//!
//! Anything else (f64, vectors, other ops) is left for upstream, and `tile-check-external-calls`
//! refuses a kernel in which that ends as a call to libdevice.

use crate::math_rules::{Class, MathLowering, Rule};
use std::f64::consts::{LN_2, LOG2_E, LOG10_2};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-math-to-nvptx";

/// The NVPTX lowering table.
pub const NVPTX: MathLowering = MathLowering {
    expand: &["tan", "fpowi", "sinh", "cosh", "asinh", "acosh", "atanh"],
    approximate: &[
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
        ("math.exp", Rule::ScaleInput("llvm.nvvm.ex2.approx.f32", LOG2_E)),
        (
            "math.exp2",
            Rule::FlushedWhenFast("llvm.nvvm.ex2.approx.f32", "llvm.nvvm.ex2.approx.ftz.f32"),
        ),
        ("math.log", Rule::ScaleOutput("llvm.nvvm.lg2.approx.f", LN_2)),
        ("math.log2", Rule::Intrinsic("llvm.nvvm.lg2.approx.f")),
        ("math.log10", Rule::ScaleOutput("llvm.nvvm.lg2.approx.f", LOG10_2)),
        ("math.rsqrt", Rule::Intrinsic("llvm.nvvm.rsqrt.approx.f")),
        ("math.sqrt", Rule::Intrinsic("llvm.sqrt.f32")),
        ("math.tanh", Rule::Approximate("llvm.tanh.f32")),
        ("math.sin", Rule::Intrinsic("llvm.nvvm.sin.approx.f")),
        ("math.cos", Rule::Intrinsic("llvm.nvvm.cos.approx.f")),
        ("math.absf", Rule::Intrinsic("llvm.fabs.f32")),
        ("math.floor", Rule::Intrinsic("llvm.floor.f32")),
        ("math.ceil", Rule::Intrinsic("llvm.ceil.f32")),
        ("math.round", Rule::Intrinsic("llvm.round.f32")),
        ("math.roundeven", Rule::Intrinsic("llvm.roundeven.f32")),
        ("math.trunc", Rule::Intrinsic("llvm.trunc.f32")),
        ("math.fma", Rule::Intrinsic("llvm.fma.f32")),
        ("math.copysign", Rule::Intrinsic("llvm.copysign.f32")),
        ("math.ctlz", Rule::Bits("llvm.ctlz", true)),
        ("math.cttz", Rule::Bits("llvm.cttz", true)),
        ("math.ctpop", Rule::Bits("llvm.ctpop", false)),
        ("math.absi", Rule::Bits("llvm.abs", true)),
        ("math.isnan", Rule::Classify(Class::Nan)),
        ("math.isinf", Rule::Classify(Class::Infinite)),
        ("math.isfinite", Rule::Classify(Class::Finite)),
    ],
    extend: &[],
};

crate::rust_pass! {
    /// Creates the `tile-math-to-nvptx` pass (any op).
    pub fn create_math_to_nvptx_pass() {
        argument: ARGUMENT,
        name: "TileMathToNvptx",
        description: "Lower math ops to NVPTX approximation instructions, LLVM intrinsics and upstream polynomial approximations, so no libdevice is needed",
        anchor: "",
        dialects: [tile_dialect::registration::math_dialect(), tile_dialect::registration::llvm_dialect()],
        run: |op| crate::math_rules::lower(op, &NVPTX),
    }
}
