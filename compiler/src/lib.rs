//! One call from tile IR and a target to every kernel's code and launch manifest.
//!
//! ```text
//! tile IR (text, file or module) ──parse──▶ builtin.module
//!   ──split into parts (runs of functions closed under calls, see `parts`)
//!   ──the target's decisions and lowering, per part──▶ gpu.modules with tile.manifest ──────────────┐ manifests read here
//!   ──each gpu.module in a unit of its own: its cleanup (fold bounds, canonicalize, cse), the       │
//!        target's upstream passes, verify, serialize──▶ gpu.binary (PTX / AMDGCN) or spirv.module │
//!   ──meanwhile the host code's cleanup (inline, canonicalize, cse) per part; the units back──▶     │
//!   ──the host code per part (NVIDIA, AMD)──▶ merged back into the module                           │
//!   ──▶ Compilation { kernels: [Kernel { name, code, manifest }], diagnostics } ◀───────────────────┘
//! ```
//!
//! The parts and the units are ops of one container module each, so MLIR's pass manager runs them
//! on the context's threads; each kernel module gets the passes it would get in the whole module,
//! in the same order, and its code is the same. Kernel modules are verified once before they are
//! serialized rather than after every pass. gfx942 code objects are assembled and linked from the
//! assembly (LLVM's MC layer, then lld's ELF driver, both in process), not generated a second time.
//!
//! Invariants: nothing is printed; every MLIR diagnostic raised during the call is collected, with
//! its location, into the [`Compilation`] (warnings) or the [`Error`] (what failed and why). Each
//! kernel's manifest is the typed [`tile_manifest::Manifest`] its lowering wrote. Scratch files live
//! in `tempfile` directories removed when the call returns. With `TILE_COMPILE_PASS_TIMING` set in
//! the environment, each pass manager prints MLIR's pass timing report.
//!
//! `tile-compile` is a thin tool over [`compile_file`]; the C header's `tileCompile` is one over
//! [`compile_source`].

#![deny(missing_docs)]

mod diagnostics;
mod parts;

pub use diagnostics::{Diagnostic, Severity, SourceLocation};
pub use tile_manifest::Manifest;

use diagnostics::Collector;
use melior::{
    Context,
    ir::{
        Module,
        operation::{OperationLike, OperationRef},
    },
};
use std::{
    fmt,
    path::Path,
    time::{Duration, Instant},
};
use tile_conversions::target::{Code as CodeKind, Target};
/// Returns a pass manager running `pipeline`; with `TILE_COMPILE_PASS_TIMING` set in the
/// environment, it prints MLIR's pass timing report (`--mlir-timing`) when dropped.
fn pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
) -> std::result::Result<melior::pass::PassManager<'c>, String> {
    let manager = tile_dialect::driver::pass_manager(context, pipeline)?;
    if std::env::var_os("TILE_COMPILE_PASS_TIMING").is_some() {
        unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
    }
    Ok(manager)
}

/// Everything that can make a compilation fail; each variant carries the diagnostics that say
/// where and why.
#[derive(Clone, Debug)]
pub enum Error {
    /// The target is none of [`targets`].
    UnknownTarget {
        /// The target asked for.
        target: String,
    },
    /// The source could not be read, or does not parse and verify.
    Parse {
        /// The source name.
        source: String,
        /// Why (a file error, or MLIR's located errors).
        diagnostics: Vec<Diagnostic>,
    },
    /// A tile lowering refused the program (errors at the ops concerned).
    Lowering {
        /// The target.
        target: String,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// The input has no `tile.kernel` (an empty file, host code only): nothing would be written.
    NothingToCompile {
        /// The error, at the input.
        diagnostics: Vec<Diagnostic>,
    },
    /// An upstream pass after the lowering failed (code generation, serialization).
    CodeGeneration {
        /// The target.
        target: String,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// The compiler broke an invariant of its own (a manifest that does not read, a kernel without
    /// code, a scratch directory that cannot be made).
    Internal {
        /// What went wrong.
        message: String,
        /// Diagnostics collected until then.
        diagnostics: Vec<Diagnostic>,
    },
}

impl Error {
    /// Returns the diagnostics that explain the error.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::UnknownTarget { .. } => &[],
            Error::Parse { diagnostics, .. }
            | Error::NothingToCompile { diagnostics }
            | Error::Lowering { diagnostics, .. }
            | Error::CodeGeneration { diagnostics, .. }
            | Error::Internal { diagnostics, .. } => diagnostics,
        }
    }
}

impl fmt::Display for Error {
    /// Writes a one-line summary, then each diagnostic.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Error::UnknownTarget { target } => write!(
                f,
                "unknown target {target}: expected {} ({})",
                targets().join(", "),
                tile_conversions::target::summaries()
            )?,
            Error::Parse { source, .. } => write!(f, "{source}: cannot be compiled")?,
            Error::Lowering { target, .. } => write!(f, "lowering for {target} failed")?,
            Error::NothingToCompile { .. } => write!(f, "nothing to compile")?,
            Error::CodeGeneration { target, .. } => write!(f, "code generation for {target} failed")?,
            Error::Internal { message, .. } => write!(f, "internal error: {message}")?,
        }
        for diagnostic in self.diagnostics() {
            write!(f, "\n{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns the targets [`compile_source`] compiles for.
pub fn targets() -> Vec<&'static str> {
    tile_conversions::target::names()
}

/// The code of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Code {
    /// PTX text (sm_90a).
    Ptx(String),
    /// AMDGCN (gfx942): the assembly, and the HSA code object (`None` only where the kernel has
    /// no manifest: another frontend's).
    Amdgcn {
        /// The assembly text.
        assembly: String,
        /// The code object (`.hsaco`), if it could be linked.
        code_object: Option<Vec<u8>>,
    },
    /// A SPIR-V binary (spirv, spirv-coopmat).
    Spirv(Vec<u32>),
}

impl Code {
    /// Returns the code as the bytes `tile-compile` writes (PTX or assembly text, SPIR-V words
    /// little-endian).
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Code::Ptx(text) | Code::Amdgcn { assembly: text, .. } => text.as_bytes().to_vec(),
            Code::Spirv(words) => words.iter().flat_map(|word| word.to_le_bytes()).collect(),
        }
    }

    /// Returns the file extension of the code (`ptx`, `s`, `spv`).
    pub fn extension(&self) -> &'static str {
        match self {
            Code::Ptx(_) => "ptx",
            Code::Amdgcn { .. } => "s",
            Code::Spirv(_) => "spv",
        }
    }
}

/// One compiled kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Its entry point (also the name `tile-compile` gives its files).
    pub name: String,
    /// The symbol of the `gpu.module` it was lowered into.
    pub module: String,
    /// Its code.
    pub code: Code,
    /// Its launch manifest.
    pub manifest: Manifest,
    /// The text of its `spirv.module` (SPIR-V targets).
    pub spirv_module: Option<String>,
}

/// How long each phase took.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Parsing and verifying.
    pub parse: Duration,
    /// Our lowering and its cleanups.
    pub lowering: Duration,
    /// The upstream passes to code.
    pub code_generation: Duration,
}

/// What a successful compilation returns.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// The kernels, in program order.
    pub kernels: Vec<Kernel>,
    /// Warnings and remarks raised on the way.
    pub diagnostics: Vec<Diagnostic>,
    /// How long each phase took.
    pub timings: Timings,
}

/// Returns a context with every dialect, translation and pass a compilation needs (upstream's and
/// ours), for [`compile_module`].
pub fn context() -> Context {
    tile_conversions::context()
}

/// What a compilation keeps besides each kernel's code and manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Keep the text of each SPIR-V kernel's `spirv.module` ([`Kernel::spirv_module`]). Printing
    /// them is a serial step after the parallel compilation (about a fifth of a SPIR-V
    /// compilation's time: MLIR prints every `spirv.Constant`'s type to name it, building a fresh
    /// printer state each time), so callers that only want code leave it off. On by default.
    pub spirv_module_text: bool,
    /// The workgroup memory a block may use on the device the SPIR-V code is for, where it differs
    /// from the target's default (set as the module's `tile.shared_memory_bytes`, which a program
    /// may also carry itself); refused on targets whose chip fixes it.
    pub shared_memory_bytes: Option<i64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            spirv_module_text: true,
            shared_memory_bytes: None,
        }
    }
}

/// Compiles the tile program in the file `path` for `target`.
pub fn compile_file(path: &Path, target: &str) -> Result<Compilation> {
    compile_file_with(path, target, Options::default())
}

/// Compiles the tile program in the file `path` for `target`, keeping what `options` asks for.
pub fn compile_file_with(path: &Path, target: &str, options: Options) -> Result<Compilation> {
    let context = context();
    let collector = Collector::attach(&context, str::to_owned);
    let started = Instant::now();
    let name = path.display().to_string();
    let parsed = std::fs::metadata(path)
        .map_err(|error| error.to_string())
        .and_then(|_| tile_dialect::driver::parse_file(&context, &name).ok_or_else(String::new));
    let mut module = parsed.map_err(|message| parse_error(&name, message, &collector))?;
    compile_parsed(
        &context,
        &mut module,
        (target, Some(&name)),
        options,
        &collector,
        started,
    )
}

/// Compiles the tile program `source` for `target`; diagnostics name the file `source_name`.
pub fn compile_source(source: &str, source_name: &str, target: &str) -> Result<Compilation> {
    let context = context();
    // Parsed from a file so that locations carry `source_name`, which replaces the scratch path.
    let scratch = tempfile::tempdir().map_err(|error| internal(format!("a scratch directory: {error}"), Vec::new()))?;
    let file_name = Path::new(source_name)
        .file_name()
        .map_or("input.mlir".into(), |name| name.to_owned());
    let path = scratch.path().join(file_name);
    std::fs::write(&path, source).map_err(|error| internal(format!("{}: {error}", path.display()), Vec::new()))?;
    let scratch_name = path.display().to_string();
    let (from, to) = (scratch_name.clone(), source_name.to_owned());
    let collector = Collector::attach(
        &context,
        move |file| {
            if file == from { to.clone() } else { file.to_owned() }
        },
    );
    let started = Instant::now();
    let mut module = tile_dialect::driver::parse_file(&context, &scratch_name)
        .ok_or_else(|| parse_error(source_name, String::new(), &collector))?;
    compile_parsed(
        &context,
        &mut module,
        (target, Some(&scratch_name)),
        Options::default(),
        &collector,
        started,
    )
}

/// Compiles `module` (tile IR in `context`, which must hold the dialects and passes of
/// [`context`]) for `target`, lowering it in place: afterwards it holds the target's code.
pub fn compile_module<'c>(context: &'c Context, module: &mut Module<'c>, target: &str) -> Result<Compilation> {
    let collector = Collector::attach(context, str::to_owned);
    if !module.as_operation().verify() {
        return Err(parse_error("the module", String::new(), &collector));
    }
    compile_parsed(
        context,
        module,
        (target, None),
        Options::default(),
        &collector,
        Instant::now(),
    )
}

fn parse_error(source: &str, message: String, collector: &Collector) -> Error {
    let mut diagnostics = collector.take();
    if !message.is_empty() {
        diagnostics.push(Diagnostic {
            severity: Severity::Error,
            location: None,
            location_text: source.to_owned(),
            message,
            notes: Vec::new(),
        });
    }
    Error::Parse {
        source: source.to_owned(),
        diagnostics,
    }
}

fn internal(message: String, diagnostics: Vec<Diagnostic>) -> Error {
    Error::Internal { message, diagnostics }
}

/// Makes the HSA code object (`.hsaco`) of each kernel's AMDGCN `assembly` for `chip`: assembled
/// in process by LLVM's MC layer (what llvm-mc does, without loading LLVM in a process per
/// kernel), linked by lld's ELF driver in process (what `ld.lld -shared` does: MLIR's ROCDL
/// serialization runs that program), as `gpu-module-to-binary{format=bin}` makes it (the same
/// bytes), without generating the code a second time. The kernels are spread over the machine's
/// cores.
fn code_objects(chip: &str, assembly: &[(String, &str)]) -> std::result::Result<Vec<(String, Vec<u8>)>, String> {
    let scratch = tempfile::tempdir().map_err(|error| format!("a scratch directory: {error}"))?;
    let one = |index: usize| -> std::result::Result<Vec<u8>, String> {
        let (name, text) = &assembly[index];
        let object = scratch.path().join(format!("{index}.o"));
        let linked = scratch.path().join(format!("{index}.hsaco"));
        let bytes = tile_dialect::driver::assemble_amdgcn(text, chip)
            .map_err(|message| format!("{name}: the assembler failed: {message}"))?;
        std::fs::write(&object, bytes).map_err(|error| format!("{}: {error}", object.display()))?;
        tile_dialect::driver::link_amdgcn(&object, &linked)
            .map_err(|message| format!("{name}: ld.lld failed: {message}"))?;
        std::fs::read(&linked).map_err(|error| format!("{}: {error}", linked.display()))
    };
    let threads = std::thread::available_parallelism().map_or(1, |count| count.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<std::result::Result<Vec<u8>, String>>> = (0..assembly.len()).map(|_| None).collect();
    let done = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(assembly.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if index >= assembly.len() {
                        break;
                    }
                    let result = one(index);
                    done.lock().unwrap()[index] = Some(result);
                }
            });
        }
    });
    assembly
        .iter()
        .zip(results)
        .map(|((name, _), result)| Ok((name.clone(), result.unwrap_or(Err(String::new()))?)))
        .collect()
}

/// Runs `cleanup` (the kernel modules' share of the lowering's cleanup), then `backend`, on every
/// unit, on MLIR's threads. The pass managers do not verify after each
/// pass (that was a sixth of the time of 200 kernels for sm_90a): the units are verified once,
/// in full, before they are serialized, and after it for SPIR-V, which serializes later. `Err`
/// holds the message of a pipeline that does not parse, or nothing when a pass or the
/// verification failed (its diagnostics are out).
fn compile_units(
    context: &Context,
    units: &mut parts::Units,
    cleanup: &str,
    backend: &str,
) -> std::result::Result<(), Option<String>> {
    let (prepare, serialize) = tile_conversions::pipelines::split_at_serialization(backend);
    let prepare = [cleanup, prepare.as_str()]
        .into_iter()
        .filter(|passes| !passes.trim().is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let run = |passes: &str, container: &mut Module| -> std::result::Result<(), Option<String>> {
        let manager = pass_manager(context, &units_pipeline(passes)).map_err(Some)?;
        manager.enable_verifier(false);
        manager.run(container).map_err(|_| None)
    };
    if !prepare.is_empty() {
        run(&prepare, &mut units.container)?;
    }
    if !units.container.as_operation().verify() {
        return Err(None);
    }
    if let Some(serialize) = serialize {
        run(&serialize, &mut units.container)?;
    }
    Ok(())
}

/// Runs the host code's cleanup ([`HOST_CLEANUP`](tile_conversions::pipelines::HOST_CLEANUP)) on
/// every part, while the kernel modules are out in their units; `Err` as for [`compile_units`].
fn clean_host(context: &Context, parts: &mut parts::Parts) -> std::result::Result<(), Option<String>> {
    let manager = pass_manager(context, &parts.pipeline(tile_conversions::pipelines::HOST_CLEANUP)).map_err(Some)?;
    manager.enable_verifier(false);
    manager.run(&mut parts.container).map_err(|_| None)
}

/// Returns `passes` as a pipeline over each unit of a container of units.
fn units_pipeline(passes: &str) -> String {
    format!("builtin.module(builtin.module({passes}))")
}

/// Compiles the parsed `module` for `target`; `source` names the file it came from, where there
/// is one (errors about the whole input are at its first line).
fn compile_parsed<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    (target, source): (&str, Option<&str>),
    options: Options,
    collector: &Collector,
    started: Instant,
) -> Result<Compilation> {
    let target = Target::parse(target).map_err(|_| Error::UnknownTarget {
        target: target.to_owned(),
    })?;
    // Errors about the whole input are at its first line (the parts' modules are the compiler's,
    // located nowhere).
    let input = source.map_or(module.as_operation().location(), |file| {
        melior::ir::Location::new(context, file, 1, 1)
    });
    // An input without a kernel is a mistake, not "0 kernels": the same error for every caller.
    // A `tile.matmul` becomes kernels in the target's decisions.
    let kernels = ["tile.kernel", "tile.matmul"]
        .iter()
        .any(|name| !tile_dialect::ops::find_ops(module.as_operation(), name).is_empty());
    if !kernels {
        tile_dialect::diagnostics::emit_error(
            input,
            "expects at least one tile.kernel or tile.matmul to compile, but the input has none",
        );
        return Err(Error::NothingToCompile {
            diagnostics: collector.take(),
        });
    }
    if !tile_conversions::host::launches_only(module.as_operation(), target)
        || !no_foreign_gpu_code(module.as_operation(), target)
    {
        return Err(Error::Lowering {
            target: target.name.to_owned(),
            diagnostics: collector.take(),
        });
    }
    // The decisions the target pipelines make before their lowering, for this target (the parts
    // take the module's attributes).
    let target_attribute = melior::ir::attribute::StringAttribute::new(context, target.name);
    melior::ir::operation::OperationMutLike::set_attribute(
        &mut module.as_operation_mut(),
        tile_conversions::target::ATTRIBUTE,
        target_attribute.into(),
    );
    if let Some(bytes) = options.shared_memory_bytes {
        let bytes = melior::ir::attribute::IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(context, 64).into(),
            bytes,
        );
        melior::ir::operation::OperationMutLike::set_attribute(
            &mut module.as_operation_mut(),
            tile_conversions::target::SHARED_MEMORY_BYTES,
            bytes.into(),
        );
    }
    // The module's target facts, checked once where they enter.
    if let Err(message) = Target::of(module.as_operation()) {
        tile_dialect::diagnostics::emit_error(input, &format!("the module {message}"));
        return Err(Error::Lowering {
            target: target.name.to_owned(),
            diagnostics: collector.take(),
        });
    }
    // The module's functions and their kernels, in parts that MLIR's threads lower and compile
    // side by side; back in `module` afterwards, whatever happened.
    // A copy of the program as it came, for the diagnostics of a failed lowering (see
    // `compile_parts`).
    let pristine = unsafe {
        Module::from_option_raw(mlir_sys::mlirModuleFromOperation(mlir_sys::mlirOperationClone(
            module.as_operation().to_raw(),
        )))
    };
    let mut parts = parts::Parts::split(context, module);
    let pristine = pristine.filter(|_| parts.count() > 1);
    let result = compile_parts(context, &mut parts, pristine, (target, options), collector, started);
    parts.merge(module);
    result
}

/// Emits an error at each op of `module` that is another frontend's GPU code (a `gpu.launch`, an
/// outlined `gpu.module` or `gpu.binary`, a `gpu.launch_func` of one) and returns false when there
/// was one. The compiler returns the tile kernels' code only, so such a kernel would be dropped
/// with success; the target's pipeline lowers it beside the tile kernels instead.
fn no_foreign_gpu_code(module: OperationRef, target: &Target) -> bool {
    use tile_ir::gpu;
    let foreign = [
        gpu::LaunchOperation::name(),
        gpu::GPUModuleOperation::name(),
        gpu::BinaryOperation::name(),
        gpu::LaunchFuncOperation::name(),
    ];
    let mut none = true;
    for name in foreign {
        for op in tile_dialect::ops::find_ops(module, name) {
            tile_dialect::diagnostics::emit_error(
                op.location(),
                &format!(
                    "'{name}' op is GPU code outside a tile.kernel, which the compiler does not return (it returns the tile kernels' code only); lower a module that also holds other GPU code with the {pipeline}{{chip={chip}}} pipeline, which lowers both",
                    pipeline = target.pipeline.name(),
                    chip = target.name,
                ),
            );
            none = false;
        }
    }
    none
}

/// Compiles the parts. A lowering that fails in a part stops the parts not yet begun (MLIR's
/// parallel loop gives up at the first failure), so which errors come out would depend on the
/// threads; the lowering then runs again on `pristine`, the whole program, to report exactly the
/// errors a single module gives.
fn compile_parts<'c>(
    context: &'c Context,
    parts: &mut parts::Parts<'c>,
    pristine: Option<Module<'c>>,
    (target, options): (&'static Target, Options),
    collector: &Collector,
    started: Instant,
) -> Result<Compilation> {
    let parsed = started.elapsed();
    let failed = |diagnostics: Vec<Diagnostic>| Error::Lowering {
        target: target.name.to_owned(),
        diagnostics,
    };
    // The cleanup after the lowering runs apart on the kernel modules (in their units, below) and
    // on the host code (in the parts, while the kernel modules are out).
    let lowering = format!(
        "{}, {}",
        tile_conversions::pipelines::decisions(),
        target.lowering.argument
    );
    let lowered_parts = pass_manager(context, &parts.pipeline(&lowering))
        .map_err(|message| internal(message, collector.take()))?
        .run(&mut parts.container);
    if lowered_parts.is_err() {
        let in_parts = collector.take();
        let Some(mut whole) = pristine else {
            return Err(failed(in_parts));
        };
        let lowered_whole = pass_manager(context, &format!("builtin.module({lowering})"))
            .map_err(|message| internal(message, collector.take()))?
            .run(&mut whole);
        let diagnostics = collector.take();
        return Err(failed(if lowered_whole.is_err() { diagnostics } else { in_parts }));
    }
    let lowered = started.elapsed();
    let manifests = tile_conversions::kernels::typed_manifests(&parts.container)
        .map_err(|message| internal(message, collector.take()))?;
    let code_generation_failed = |diagnostics| Error::CodeGeneration {
        target: target.name.to_owned(),
        diagnostics,
    };
    // The kernel modules compile each in a unit of its own, side by side (their cleanup first),
    // and go back into their parts; meanwhile the host code is cleaned up in the parts, without
    // the kernel modules (the verifier is off there: the launches name kernels that are out); then
    // the host code is compiled, part by part.
    let mut units = parts.take_kernel_modules(context);
    let compiled = compile_units(
        context,
        &mut units,
        tile_conversions::pipelines::KERNEL_CLEANUP,
        &(target.backend)(),
    );
    let host_cleaned = compiled.is_ok().then(|| clean_host(context, parts));
    units.put_back();
    if let Some(Err(error)) = host_cleaned {
        return Err(match error {
            Some(message) => internal(message, collector.take()),
            None => code_generation_failed(collector.take()),
        });
    }
    match compiled {
        Err(Some(message)) => return Err(internal(message, collector.take())),
        Err(None) => return Err(code_generation_failed(collector.take())),
        Ok(()) => {}
    }
    if let Some(host) = tile_conversions::pipelines::host_passes(target) {
        pass_manager(context, &parts.pipeline(&host))
            .map_err(|message| internal(message, collector.take()))?
            .run(&mut parts.container)
            .map_err(|_| code_generation_failed(collector.take()))?;
    }
    let module = &parts.container;

    let spirv = target.code == CodeKind::Spirv;
    let amd = target.code == CodeKind::Amdgcn;
    let mut objects: Vec<(String, Code)> = if spirv {
        tile_dialect::driver::spirv_binaries(module)
            .map_err(|message| internal(message, collector.take()))?
            .into_iter()
            .map(|(name, words)| (name, Code::Spirv(words)))
            .collect()
    } else {
        tile_dialect::driver::gpu_binary_objects(module)
            .into_iter()
            .map(|(name, bytes)| {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let code = if amd {
                    Code::Amdgcn {
                        assembly: text,
                        code_object: None,
                    }
                } else {
                    Code::Ptx(text)
                };
                (name, code)
            })
            .collect()
    };
    // gfx942 also gets code objects (.hsaco), made from the assembly of
    // the kernels that have manifests once it has all compiled (whose errors come first).
    if amd {
        let assembly: Vec<(String, &str)> = objects
            .iter()
            .filter(|(name, _)| manifests.iter().any(|(module, _)| module == name))
            .filter_map(|(name, code)| match code {
                Code::Amdgcn { assembly, .. } => Some((name.clone(), assembly.as_str())),
                _ => None,
            })
            .collect();
        let mut made = code_objects(target.name, &assembly).map_err(|message| {
            let mut diagnostics = collector.take();
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                location: None,
                location_text: "code objects".into(),
                message,
                notes: Vec::new(),
            });
            code_generation_failed(diagnostics)
        })?;
        for (name, code) in &mut objects {
            if let Code::Amdgcn { code_object, .. } = code {
                if let Some(position) = made.iter().position(|(object, _)| object == name) {
                    *code_object = Some(made.swap_remove(position).1);
                }
            }
        }
    }
    let generated = started.elapsed();
    let spirv_modules = if spirv && options.spirv_module_text {
        spirv_module_texts(module)
    } else {
        Vec::new()
    };
    let mut kernels = Vec::new();
    for (module_name, manifest) in manifests {
        let position = objects
            .iter()
            .position(|(name, _)| *name == module_name)
            .ok_or_else(|| internal(format!("no code was generated for {module_name}"), collector.take()))?;
        let code = objects.swap_remove(position).1;
        let spirv_module = spirv_modules
            .iter()
            .find(|(name, _)| *name == module_name)
            .map(|(_, text)| text.clone());
        kernels.push(Kernel {
            name: manifest.entry.clone(),
            module: module_name,
            code,
            manifest,
            spirv_module,
        });
    }
    Ok(Compilation {
        kernels,
        diagnostics: collector.take(),
        timings: Timings {
            parse: parsed,
            lowering: lowered - parsed,
            code_generation: generated - lowered,
        },
    })
}

/// Returns the text of every `spirv.module` of `module`, named after the `gpu.module` it came from.
fn spirv_module_texts(module: &Module) -> Vec<(String, String)> {
    tile_dialect::ops::find_ops(module.as_operation(), "spirv.module")
        .into_iter()
        .map(|op| {
            let symbol = tile_dialect::ops::string_attribute(&op, "sym_name").unwrap_or_default();
            (symbol.trim_start_matches("__spv__").to_owned(), parts::local_text(op))
        })
        .collect()
}

#[cfg(test)]
mod tests;
