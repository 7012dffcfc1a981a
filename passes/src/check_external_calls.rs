//! `tile-check-external-calls`: the last check before a GPU kernel module is serialized. A call
//! left in a `gpu.module` to a function declared without a body that is not an LLVM intrinsic
//! (libdevice's `__nv_*`, ROCm's `__ocml_*`) would be written into PTX as `.extern .func` that the
//! driver refuses to load, or into AMDGCN as an unresolved symbol. Each such call is an error at
//! its location, which upstream's conversions carry from the op that needed it (a `math` op of the
//! kernel), naming the function, the target and what compiles instead. CUDA's `vprintf`, which
//! `gpu.printf` calls on NVIDIA chips, is the driver's own and passes. A `math` op that no
//! conversion took (`math.ipowi`: no instruction, expansion or approximation) would fail the
//! translation to LLVM IR with an internal-sounding message; it is refused here the same way.

use melior::ir::{
    ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::positions::OperationAt;
use tile_dialect::{
    diagnostics::emit_error,
    ops::{find_ops, op_name, string_attribute},
};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-check-external-calls";

/// The ops of a kernel module the check looks at, gathered in one walk (in program order each):
/// its kernels are large by now, and a walk per kind with a name copied per op was a few
/// percent of their upstream passes' time.
#[derive(Default)]
struct Gathered<'c, 'a> {
    math: Vec<OperationRef<'c, 'a>>,
    intrinsics: Vec<OperationRef<'c, 'a>>,
    functions: Vec<OperationRef<'c, 'a>>,
    calls: Vec<OperationRef<'c, 'a>>,
}

fn gather<'c, 'a>(module: OperationRef<'c, 'a>) -> Gathered<'c, 'a> {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let mut gathered = Gathered::default();
    module.walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        let list = if name.starts_with("math.") {
            &mut gathered.math
        } else if name.starts_with("llvm.intr.") {
            &mut gathered.intrinsics
        } else if name == "llvm.func" {
            &mut gathered.functions
        } else if name == "llvm.call" {
            &mut gathered.calls
        } else {
            return WalkResult::Advance;
        };
        // The walk hands out shorter-lived references to ops that live as long as `module`'s.
        list.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
    gathered
}

/// Returns the names of `functions` declared without a body, other than intrinsics, with their
/// printed types.
fn external_functions(functions: &[OperationRef]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for &function in functions {
        let has_body = function.body().is_some();
        let Some(name) = string_attribute(&function, "sym_name") else {
            continue;
        };
        if has_body || name.starts_with("llvm.") {
            continue;
        }
        let ty = function
            .attribute("function_type")
            .map(|ty| ty.to_string())
            .unwrap_or_default();
        found.push((name, ty));
    }
    found
}

/// Returns the `math` op a device-library function stands for and its precision (`erf`, `f64`
/// for `__nv_erf`), when it is one.
fn math_function(callee: &str, ty: &str) -> Option<(String, &'static str)> {
    // The type of the first parameter (`!llvm.func<i32 (f32)>` for `__nv_isnanf`).
    let parameters = ty.split_once('(').map_or(ty, |(_, parameters)| parameters);
    let precision = ["f64", "f16", "bf16", "f32", "i64", "i32", "i16", "i8"]
        .into_iter()
        .find(|precision| parameters.trim_start().starts_with(precision))
        .unwrap_or("f32");
    let base = if let Some(rest) = callee.strip_prefix("__nv_") {
        match precision {
            "f32" => rest.strip_suffix('f').unwrap_or(rest).to_string(),
            _ => rest.to_string(),
        }
    } else {
        let rest = callee.strip_prefix("__ocml_")?;
        rest.rsplit_once('_').map_or(rest, |(base, _)| base).to_string()
    };
    let op = match base.as_str() {
        "fabs" => "absf",
        "abs" | "llabs" => "absi",
        "clz" | "clzll" => "ctlz",
        "popc" | "popcll" => "ctpop",
        "finite" => "isfinite",
        "pow" => "powf",
        "powi" | "pown" => "fpowi",
        "rint" => "roundeven",
        other => other,
    };
    Some((format!("math.{op}"), precision))
}

/// Returns the chip of `module`'s first target attribute (`sm_90a`), or `the GPU`.
fn chip(module: OperationRef) -> String {
    let targets = module
        .attribute("targets")
        .map(|targets| targets.to_string())
        .unwrap_or_default();
    targets
        .split_once("chip = \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or_else(|| "the GPU".to_string(), |(chip, _)| chip.to_string())
}

/// The function `gpu.printf` becomes on NVIDIA chips, which the CUDA driver resolves.
const CUDA_PRINTF: &str = "vprintf";

/// The LLVM intrinsics (by their `math` names) that the GPU back ends lower only as library calls
/// on f64.
const LIBRARY_INTRINSICS: &[&str] = &[
    "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "sin", "cos", "tan", "exp", "exp2", "exp10", "log",
    "log2", "log10", "pow", "powi",
];

/// Reports every call to an external function in the `gpu.module`s under `root` (or `root`
/// itself); returns whether there was none.
fn check(root: OperationRef) -> bool {
    let mut modules = find_ops(root, "gpu.module");
    if op_name(&root) == "gpu.module" && !modules.contains(&root) {
        modules.push(root);
    }
    let mut clean = true;
    // One error a place and message: the unrolled copies of an op, and a kernel's twin for aligned
    // tensors, share the program's location.
    let mut reported = std::collections::HashSet::new();
    let mut emit_error = |location: melior::ir::Location, message: &str| {
        if reported.insert((location.to_string(), message.to_owned())) {
            emit_error(location, message);
        }
    };
    for module in modules {
        let chip = chip(module);
        let gathered = gather(module);
        for &op in &gathered.math {
            let name = op_name(&op);
            clean = false;
            let ty = op
                .operand_at(0)
                .map(|operand| operand.r#type().to_string())
                .unwrap_or_default();
            let instead = match name {
                "math.ipowi" => "an integer power by arith.muli, or math.fpowi on f32",
                _ => "other arith or math ops",
            };
            emit_error(
                op.location(),
                &format!(
                    "'{name}' on {ty} cannot be compiled for {chip}: no instruction, expansion or polynomial approximation takes it, and no device library is linked; compute it with {instead}"
                ),
            );
        }
        let (library, pass) = if chip.starts_with("sm_") {
            ("libdevice", crate::math_to_nvptx::ARGUMENT)
        } else {
            ("the ROCm device library", crate::math_to_rocdl::ARGUMENT)
        };
        // Upstream turns some math ops it maps to no library function into LLVM intrinsics that
        // the back ends can only lower as calls to a library (f64 `math.asin` on gfx942 ended as
        // "no libcall available for fasin", located nowhere): refused here, at the math op.
        for &op in &gathered.intrinsics {
            let name = op_name(&op);
            let Some(function) = name.strip_prefix("llvm.intr.") else {
                continue;
            };
            let Some(operand) = op.operand_at(0) else { continue };
            if !LIBRARY_INTRINSICS.contains(&function)
                || !melior::ir::TypeLike::is_f64(&tile_dialect::ops::scalar_type(operand.r#type()))
            {
                continue;
            }
            let ty = operand.r#type().to_string();
            clean = false;
            emit_error(
                op.location(),
                &format!(
                    "'math.{function}' on {ty} cannot be compiled for {chip}: its back end would call {library} for it, which {chip} kernels cannot load; compute it on f32, f16 or bf16, which {pass} lowers to hardware instructions or polynomial approximations"
                ),
            );
        }
        let externals = external_functions(&gathered.functions);
        if externals.is_empty() {
            continue;
        }
        for &call in &gathered.calls {
            let callee = call
                .attribute("callee")
                .map(|callee| callee.to_string())
                .unwrap_or_default();
            let callee = callee.trim_start_matches('@');
            // CUDA's printf (`gpu.printf`, `tile.print`): the driver provides it to every kernel.
            if callee == CUDA_PRINTF && chip.starts_with("sm_") {
                continue;
            }
            let Some((_, ty)) = externals.iter().find(|(name, _)| name == callee) else {
                continue;
            };
            clean = false;
            let message = match math_function(callee, ty) {
                Some((op, precision)) => format!(
                    "'{op}' on {precision} would call {callee} from {library}, an external function that {chip} kernels cannot load; compute it on f32, f16 or bf16, which {pass} lowers to hardware instructions or polynomial approximations"
                ),
                None => format!(
                    "this call to the external function {callee} cannot be resolved in a {chip} kernel (no device library is linked); call only functions defined in the kernel's module"
                ),
            };
            emit_error(call.location(), &message);
        }
    }
    clean
}

crate::rust_pass! {
    /// Creates the `tile-check-external-calls` pass (any op; checks the `gpu.module`s in it).
    pub fn create_check_external_calls_pass() {
        argument: ARGUMENT,
        name: "TileCheckExternalCalls",
        description: "Refuse GPU kernel modules that call external functions (device-library math) the kernel could not load, with an error at each call",
        anchor: "",
        dialects: [tile_dialect::registration::llvm_dialect()],
        run: |op| if check(op) { Ok(()) } else { Err(String::new()) },
    }
}
