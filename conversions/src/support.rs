//! What each target computes: the `math` ops its lowering and upstream passes turn into code
//! without calling a library the kernel does not link (PTX has no libdevice here, AMDGCN no ocml).
//! A kernel using another is refused at the op before anything is lowered, instead of a PTX kernel
//! calling an unresolved `__nv_erff`, an AMDGCN serialization error located nowhere, or a CPU
//! program whose translation fails.
//!
//! `arith.remf` (fmod) counts as one of them. The tables were measured: each op on f32 (and f16)
//! through `tile-compile` for every target and `tile-run --target cpu`. GPU targets take f32
//! operands only.

use melior::ir::{
    ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::{diagnostics::emit_error, ops::op_name};

/// How messages name a target.
fn display(target: &str) -> &str {
    if target == "cpu" {
        "the CPU reference"
    } else {
        target
    }
}

/// `math` ops on f32 that the sm_90a lowering builds (`tile-math-to-nvptx`, or plain LLVM).
const SM90A: &[&str] = &[
    "math.exp",
    "math.log",
    "math.sqrt",
    "math.absf",
    "math.trunc",
];
/// `math` ops on f32 that gfx942 builds.
const GFX942: &[&str] = &[
    "math.exp",
    "math.log",
    "math.sqrt",
    "math.rsqrt",
    "math.absf",
    "math.log1p",
    "math.expm1",
    "math.round",
    "math.roundeven",
    "math.trunc",
];
/// `math` ops on f32 that the SPIR-V targets build (GLSL.std.450 or expansions).
const SPIRV: &[&str] = &[
    "math.exp",
    "math.log",
    "math.tanh",
    "math.sqrt",
    "math.rsqrt",
    "math.absf",
    "math.sin",
    "math.cos",
    "math.log2",
    "math.log10",
    "math.log1p",
    "math.expm1",
    "math.floor",
    "math.ceil",
    "math.round",
    "math.roundeven",
    "math.tan",
    "math.atan",
    "math.sinh",
    "math.cosh",
    "math.asin",
    "math.acos",
    "math.asinh",
    "math.acosh",
    "math.atanh",
    "arith.remf",
];
/// `math` ops the CPU reference builds (f16, bf16 and f32; LLVM intrinsics or libm).
const CPU: &[&str] = &[
    "math.exp",
    "math.log",
    "math.tanh",
    "math.sqrt",
    "math.rsqrt",
    "math.absf",
    "math.sin",
    "math.cos",
    "math.exp2",
    "math.log2",
    "math.log10",
    "math.log1p",
    "math.expm1",
    "math.floor",
    "math.ceil",
    "math.round",
    "math.roundeven",
    "math.trunc",
    "math.tan",
    "math.atan",
    "math.sinh",
    "math.cosh",
    "math.asin",
    "math.acos",
    "arith.remf",
];

/// Returns the `math` ops `target` builds and whether it takes f32 operands only.
fn table(target: &str) -> (&'static [&'static str], bool) {
    match target {
        "sm_90a" => (SM90A, true),
        "gfx942" => (GFX942, true),
        "spirv" | "spirv-coopmat" => (SPIRV, true),
        _ => (CPU, false),
    }
}

/// Checks that the host functions of `module` take memrefs in the default memory space only: the
/// host code of every GPU target is lowered to LLVM, which has no address space for
/// `#gpu.address_space<global>` (upstream's error would be located nowhere). Emits an error at each
/// function that does not; returns false when there was one.
fn host_arguments_plain(module: OperationRef) -> bool {
    use melior::ir::{
        attribute::TypeAttribute,
        r#type::{FunctionType, MemRefType},
    };
    let mut plain = true;
    for function in tile_dialect::ops::find_ops(module, "func.func") {
        let Some(signature) = function
            .attribute("function_type")
            .ok()
            .and_then(|attr| TypeAttribute::try_from(attr).ok())
            .and_then(|attr| FunctionType::try_from(attr.value()).ok())
        else {
            continue;
        };
        for index in 0..signature.input_count() {
            let Ok(ty) = signature.input(index) else {
                continue;
            };
            if MemRefType::try_from(ty).is_ok_and(|memref| memref.memory_space().is_some()) {
                emit_error(
                    function.location(),
                    &format!(
                        "expects the host function's memrefs in the default memory space (a launch passes \
                         plain device pointers), but argument {index} is {ty}"
                    ),
                );
                plain = false;
                break;
            }
        }
    }
    plain
}

/// Checks every `math` op in the kernels of `module` against what `target` builds, and that no op
/// uses f8E4M3FN (no target converts 8-bit floats yet; the SPIR-V lowering says so itself); emits
/// an error at each op it cannot build and returns `Err` (empty: the errors are out) when there was
/// one.
pub fn check_supported(module: OperationRef, target: &str) -> Result<(), String> {
    let (ops, f32_only) = table(target);
    let mut failed = false;
    if target != "cpu" {
        failed |= !host_arguments_plain(module);
    }
    for kernel in tile_dialect::ops::find_ops(module, "tile.kernel") {
        for op in tile_dialect::ops::nested_ops(kernel) {
            let name = op_name(&op);
            let f8 = op
                .operands()
                .map(|value| value.r#type().to_string())
                .chain(op.results().map(|value| value.r#type().to_string()))
                .any(|ty| ty.contains("f8E4M3FN"));
            if f8 && !target.starts_with("spirv") {
                emit_error(
                    op.location(),
                    &format!(
                        "'{name}' op uses f8E4M3FN, which {} does not lower yet (no 8-bit float conversions); use f16 or f32",
                        display(target)
                    ),
                );
                failed = true;
                break; // one error a kernel: every op on the same tiles would say the same
            }
            // arith.remf is fmod: a library call on the GPU targets but SPIR-V's.
            if !name.starts_with("math.") && name != "arith.remf" {
                continue;
            }
            let types: Vec<String> = op
                .operands()
                .map(|value| value.r#type().to_string())
                .collect();
            let message = if !ops.contains(&name.as_str()) {
                let mut supported: Vec<&str> = ops
                    .iter()
                    .map(|op| op.trim_start_matches("math."))
                    .collect();
                supported.retain(|op| !op.contains('.'));
                supported.sort();
                format!(
                    "'{name}' op is not lowered for {} yet (it would call a math library the \
                     code cannot link); supported math ops there: {}",
                    display(target),
                    supported.join(", ")
                )
            } else if f32_only && types.iter().any(|ty| ty != "f32") {
                format!(
                    "'{name}' op on {} is not supported on {target}: math ops take f32 there (extend with arith.extf)",
                    types.join(", ")
                )
            } else {
                continue;
            };
            emit_error(op.location(), &message);
            failed = true;
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}
