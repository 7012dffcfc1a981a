//! Registration: the dialect (with its Rust hooks) and passes in MLIR's global registry.

use crate::{canonicalize, diagnostics::catch_panic, ffi, verify};
use melior::{
    Context, StringRef,
    dialect::{Dialect, DialectHandle, DialectRegistry},
    ir::operation::OperationRef,
    pass::Pass,
};
use mlir_sys::{MlirContext, MlirOperation, MlirPass, MlirRewritePatternSet, MlirStringRef};
use std::{
    collections::HashSet,
    ffi::c_void,
    sync::{Mutex, Once},
};

static HOOKS: Once = Once::new();

/// Installs the Rust verifiers and canonicalization patterns into the C++ op classes. Every
/// registration entry point calls it; calling it again does nothing.
pub fn install_hooks() {
    HOOKS.call_once(|| unsafe { ffi::tileShimSetHooks(Some(verify_hook), Some(canonicalize_hook)) });
}

thread_local! {
    /// Whether this thread is inside a Rust verifier: melior prints an op into the error of a
    /// missing operand or result, and printing an invalid op verifies it again, which would call
    /// the same verifier on the same op without end (a stack overflow on a `memref.load` with no
    /// operands in a kernel, found by the fuzzer, seed 6161).
    static VERIFYING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

unsafe extern "C" fn verify_hook(op: MlirOperation, sink: ffi::TileMessageSink, user_data: *mut c_void) -> bool {
    // A verification started by our own verifier's printing: the outer one decides.
    if VERIFYING.with(|verifying| verifying.replace(true)) {
        return true;
    }
    let outcome = catch_panic(|| verify::verify_op(unsafe { OperationRef::from_raw(op) }));
    VERIFYING.with(|verifying| verifying.set(false));
    let message = match outcome {
        Ok(Ok(())) => return true,
        Ok(Err(message)) => message,
        Err(panic) => format!("{panic} (in the Rust verifier)"),
    };
    if let Some(sink) = sink {
        unsafe { sink(user_data, StringRef::new(&message).to_raw()) };
    }
    false
}

/// Copies a string MLIR hands over. Unlike melior's `StringRef::as_str`, an empty string (which C++
/// may pass with a null pointer) is fine: `as_str` panics on it, and a panic here would cross into C++.
///
/// # Safety
/// `text` must point to `text.length` readable bytes, or have length 0.
pub(crate) unsafe fn owned_string(text: MlirStringRef) -> String {
    if text.length == 0 || text.data.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) }).into_owned()
}

unsafe extern "C" fn canonicalize_hook(op_name: MlirStringRef, patterns: MlirRewritePatternSet, context: MlirContext) {
    let name = unsafe { owned_string(op_name) };
    // A panic here only loses patterns; it must not unwind into C++.
    let _ = catch_panic(|| {
        let context = unsafe { melior::ContextRef::from_raw(context) };
        for pattern in canonicalize::patterns_for(unsafe { context.to_ref() }, &name) {
            unsafe { mlir_sys::mlirRewritePatternSetAdd(patterns, pattern.into_raw()) };
        }
    });
}

/// Returns the handle of the tile dialect (with its hooks installed).
pub fn dialect_handle() -> DialectHandle {
    install_hooks();
    unsafe { DialectHandle::from_raw(ffi::tileShimGetDialectHandle()) }
}

/// Registers the tile dialect in `registry`.
pub fn register(registry: &DialectRegistry) {
    dialect_handle().insert_dialect(registry);
}

/// Loads the tile dialect (and the dialects it depends on) into `context`.
pub fn load(context: &Context) -> Dialect<'_> {
    dialect_handle().load_dialect(context)
}

/// Inserts the tile dialect into a C++ `mlir::DialectRegistry`.
///
/// # Safety
///
/// `registry` must point to a live `mlir::DialectRegistry` (the argument of an MLIR dialect-plugin
/// callback).
pub unsafe fn insert_into_cxx_registry(registry: *mut c_void) {
    install_hooks();
    unsafe { ffi::tileShimInsertDialect(registry) }
}

/// The passes registered so far: their constructors, indexed by the id handed to C++.
static PASSES: Mutex<Vec<fn() -> Pass>> = Mutex::new(Vec::new());
static REGISTERED_ARGUMENTS: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Claims a pass or pipeline argument; false when it was registered already.
fn first_registration(argument: &str) -> bool {
    REGISTERED_ARGUMENTS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(argument.to_owned())
}

/// Appends `item` to `list` and returns its index: the id C++ hands back.
fn push_entry<T>(list: &Mutex<Vec<T>>, item: T) -> i32 {
    let mut list = list.lock().unwrap_or_else(|poison| poison.into_inner());
    list.push(item);
    (list.len() - 1) as i32
}

unsafe extern "C" fn create_registered_pass(id: i32) -> MlirPass {
    let create = PASSES.lock().unwrap_or_else(|poison| poison.into_inner())[id as usize];
    create().to_raw()
}

/// Registers the pass made by `create` in MLIR's global pass registry under `argument`, so that
/// `--pass-pipeline=` finds it (in `tile-opt` and in stock `mlir-opt` with the plugin). Registering
/// the same argument twice does nothing.
pub fn register_pass(argument: &str, create: fn() -> Pass) {
    install_hooks();
    if !first_registration(argument) {
        return;
    }
    let id = push_entry(&PASSES, create);
    unsafe { ffi::tileShimRegisterPass(Some(create_registered_pass), id) };
}

/// Returns the handles of the upstream dialects the GPU lowerings create ops of (a pass lists them
/// as dependent dialects so that they are loaded before it runs).
pub fn gpu_lowering_dialects() -> Vec<DialectHandle> {
    use mlir_sys::*;
    unsafe {
        [
            mlirGetDialectHandle__arith__(),
            mlirGetDialectHandle__func__(),
            mlirGetDialectHandle__gpu__(),
            mlirGetDialectHandle__llvm__(),
            mlirGetDialectHandle__math__(),
            mlirGetDialectHandle__memref__(),
            mlirGetDialectHandle__nvgpu__(),
            mlirGetDialectHandle__nvvm__(),
            mlirGetDialectHandle__scf__(),
            mlirGetDialectHandle__vector__(),
            // Folds of the vector ops the lowerings build make `ub.poison`: loaded up front, since
            // a dialect loaded while other threads compile other parts races with them.
            mlirGetDialectHandle__ub__(),
        ]
        .into_iter()
        .map(|handle| DialectHandle::from_raw(handle))
        .collect()
    }
}

/// Returns the handles of the dialects `convert-vector-to-scf`'s patterns create ops of.
pub fn vector_to_scf_dialects() -> Vec<DialectHandle> {
    use mlir_sys::*;
    unsafe {
        [
            mlirGetDialectHandle__affine__(),
            mlirGetDialectHandle__arith__(),
            mlirGetDialectHandle__memref__(),
            mlirGetDialectHandle__scf__(),
            mlirGetDialectHandle__tensor__(),
            mlirGetDialectHandle__vector__(),
        ]
        .into_iter()
        .map(|handle| DialectHandle::from_raw(handle))
        .collect()
    }
}

/// What a target pipeline was asked for: `name{chip=... serialize=...}`.
pub struct PipelineOptions<'a> {
    /// The chip (empty: the pipeline's first).
    pub chip: &'a str,
    /// Whether the kernel modules become `gpu.binary` code; without, they stay in the LLVM dialect.
    pub serialize: bool,
    /// The ops the pass manager runs on (`builtin.module`, or `any`, where the pipeline was nested
    /// properly).
    pub anchor: &'a str,
}

/// Builds a target pipeline into a pass manager as `options` ask.
pub type PipelineBuild = fn(&melior::pass::OperationPassManager, &PipelineOptions);

static PIPELINES: Mutex<Vec<PipelineBuild>> = Mutex::new(Vec::new());

unsafe extern "C" fn build_registered_pipeline(
    id: i32,
    pm: mlir_sys::MlirOpPassManager,
    chip: MlirStringRef,
    serialize: bool,
    anchor: MlirStringRef,
) {
    let build = PIPELINES.lock().unwrap_or_else(|poison| poison.into_inner())[id as usize];
    let (chip, anchor) = unsafe { (owned_string(chip), owned_string(anchor)) };
    let manager = unsafe { melior::pass::OperationPassManager::from_raw(pm) };
    let options = PipelineOptions {
        chip: &chip,
        serialize,
        anchor: &anchor,
    };
    // A panic here would unwind into the pass registry; there is no diagnostic engine at pipeline
    // build time, so it is reported on stderr and the pipeline stays as built so far.
    if let Err(panic) = catch_panic(|| build(&manager, &options)) {
        eprintln!("tile: building the pipeline failed: {panic}");
    }
}

/// Registers a pipeline `name{chip=... serialize=...}` in MLIR's global registry; `build` adds its
/// passes for the options asked for. Registering the same name twice does nothing.
pub fn register_pipeline(name: &'static std::ffi::CStr, description: &'static std::ffi::CStr, build: PipelineBuild) {
    install_hooks();
    if !first_registration(&name.to_string_lossy()) {
        return;
    }
    let id = push_entry(&PIPELINES, build);
    unsafe { ffi::tileShimRegisterPipeline(name.as_ptr(), description.as_ptr(), Some(build_registered_pipeline), id) };
}

/// Appends the textual pass list `passes` (e.g. `"cse,canonicalize"`) to `manager`.
pub fn add_pipeline(manager: &melior::pass::OperationPassManager, passes: &str) -> Result<(), String> {
    let mut message = String::new();
    unsafe extern "C" fn collect(text: MlirStringRef, user_data: *mut c_void) {
        let message = unsafe { &mut *(user_data as *mut String) };
        message.push_str(&unsafe { owned_string(text) });
    }
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            StringRef::new(passes).to_raw(),
            Some(collect),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value == 0 { Err(message) } else { Ok(()) }
}

/// Returns the handle of the upstream `vector` dialect (`tile-pack-narrow-types` widens both
/// halves of a byte as one pair of 16-bit floats).
pub fn vector_dialect() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__vector__()) }
}

/// Returns the handle of the upstream `math` dialect (the CPU lowering creates `math.absf`).
pub fn math_dialect() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__math__()) }
}

/// Returns the handle of the upstream `amdgpu` dialect (the gfx942 lowering creates `amdgpu.mfma`).
pub fn amdgpu_dialect() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__amdgpu__()) }
}

/// Returns the handle of the upstream `spirv` dialect (the SPIR-V lowering names storage classes).
pub fn spirv_dialect() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__spirv__()) }
}

/// Returns the handle of the upstream `llvm` dialect.
pub fn llvm_dialect() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__llvm__()) }
}
