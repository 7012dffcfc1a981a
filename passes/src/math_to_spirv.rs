//! `tile-math-to-spirv`: rewrites the `math` ops that upstream's `convert-math-to-spirv` cannot
//! take into ones it can, so that every function a `tile.parallel` body uses reaches SPIR-V's
//! GLSL extended instructions (which Vulkan drivers implement; no library is involved).
//!
//! | ops (f32; f16/bf16 computed in f32) | become |
//! |---|---|
//! | `exp2` | `exp(x ln 2)` |
//! | `powf` | `2^(y log2 |x|)` with C's signs for negative `x` (GLSL's `Pow` is undefined there) |
//! | `fpowi` | upstream's expansion: multiplications for a constant exponent, else `powf` |
//! | `erf`, `erfc`, `atan2`, `cbrt` | upstream polynomial approximations (about 1e-6 relative) |
//! | `asin`, `acos` | the same: GLSL's `Acos` is only required to be as accurate as `atan2`, and lavapipe's is 1.2e-4 off |
//! | `trunc` | `copysign(floor(|x|), x)` |
//! | `cttz` (i32, i64) | `ctpop((x & -x) - 1)` |
//! | `ctpop` (i32, i64) | bits summed in pairs, nibbles and bytes (shifts, masks, one multiplication) |
//! | `isfinite` | ordered and unequal to both infinities (upstream's `OpIsFinite` needs the `Kernel` capability, which Vulkan lacks) |
//!
//! Every other math op is left for `convert-math-to-spirv`, computed in f32 for f16 arguments
//! (which that conversion, finding no target environment on the kernel module, would otherwise
//! emulate with casts that `convert-gpu-to-spirv` refuses).

use crate::math_rules::{Class, MathLowering, Rule};
use std::f64::consts::LN_2;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-math-to-spirv";

/// The SPIR-V table: only what upstream's conversion lacks.
pub const SPIRV: MathLowering = MathLowering {
    expand: &["fpowi"],
    approximate: &[
        "math.erf",
        "math.erfc",
        "math.atan2",
        "math.cbrt",
        "math.asin",
        "math.acos",
    ],
    follow: &[],
    rules: &[
        ("math.powf", Rule::PowBySign),
        ("math.exp2", Rule::ScaleInput("math.exp", LN_2)),
        ("math.trunc", Rule::TruncByFloor),
        ("math.cttz", Rule::CttzByCtpop),
        ("math.ctpop", Rule::PopcountBySwar),
        ("math.isfinite", Rule::Classify(Class::Finite)),
    ],
    // convert-math-to-spirv finds no target environment on the kernel module (it is the module's
    // gpu target there), so it would emulate f16 in f32 with casts convert-gpu-to-spirv refuses:
    // every f16 math op is computed in f32 here instead.
    extend: &[
        "math.exp",
        "math.log",
        "math.log2",
        "math.log10",
        "math.log1p",
        "math.expm1",
        "math.sqrt",
        "math.rsqrt",
        "math.tanh",
        "math.sin",
        "math.cos",
        "math.tan",
        "math.atan",
        "math.absf",
        "math.floor",
        "math.ceil",
        "math.round",
        "math.roundeven",
        "math.fma",
        "math.copysign",
        "math.sinh",
        "math.cosh",
        "math.asinh",
        "math.acosh",
        "math.atanh",
    ],
};

crate::rust_pass! {
    /// Creates the `tile-math-to-spirv` pass (any op).
    pub fn create_math_to_spirv_pass() {
        argument: ARGUMENT,
        name: "TileMathToSpirv",
        description: "Rewrite the math ops upstream's convert-math-to-spirv cannot take (erf, erfc, atan2, cbrt, exp2, fpowi, trunc, cttz, ctpop, isfinite) or takes imprecisely (asin, acos, powf of negative numbers) into ones it can",
        anchor: "",
        dialects: [tile_dialect::registration::math_dialect()],
        run: |op| crate::math_rules::lower(op, &SPIRV),
    }
}
