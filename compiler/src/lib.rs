//! One call from tile IR and a target to every kernel's code and launch manifest.
//!
//! ```text
//! tile IR (text, file or module) ──parse──▶ builtin.module
//!   ──the target's lowering, inline, canonicalize, cse──▶ gpu.modules with tile.manifest  ─┐ manifests read here
//!   ──the target's upstream passes──▶ gpu.binary (PTX / AMDGCN) or spirv.module           │
//!   ──▶ Compilation { kernels: [Kernel { name, code, manifest }], diagnostics } ◀──────────┘
//! ```
//!
//! Invariants: nothing is printed; every MLIR diagnostic raised during the call is collected, with
//! its location, into the [`Compilation`] (warnings) or the [`Error`] (what failed and why). Each
//! kernel's manifest is the typed [`tile_manifest::Manifest`] its lowering wrote. Scratch files live
//! in `tempfile` directories removed when the call returns.
//!
//! `tile-compile` is a thin tool over [`compile_file`]; the C header's `tileCompile` is one over
//! [`compile_source`].

#![deny(missing_docs)]

mod diagnostics;

pub use diagnostics::{Diagnostic, Severity, SourceLocation};
pub use tile_manifest::Manifest;

use diagnostics::Collector;
use melior::{
    Context,
    ir::{Module, operation::OperationLike},
};
use std::{
    fmt,
    path::Path,
    time::{Duration, Instant},
};
use tile_dialect::driver::pass_manager;

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
                "unknown target {target}: expected {} (sm_90a: TMA, mbarrier, wgmma; gfx942: LDS, mfma; spirv: loops shared by a workgroup's threads; spirv-coopmat: KHR cooperative matrices)",
                targets().join(", ")
            )?,
            Error::Parse { source, .. } => write!(f, "{source}: cannot be compiled")?,
            Error::Lowering { target, .. } => write!(f, "lowering for {target} failed")?,
            Error::CodeGeneration { target, .. } => {
                write!(f, "code generation for {target} failed")?
            }
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
    tile_conversions::pipelines::chips()
}

/// The code of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Code {
    /// PTX text (sm_90a).
    Ptx(String),
    /// AMDGCN (gfx942): the assembly, and the HSA code object where lld-22 is installed.
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

/// Compiles the tile program in the file `path` for `target`.
pub fn compile_file(path: &Path, target: &str) -> Result<Compilation> {
    let context = context();
    let collector = Collector::attach(&context, str::to_owned);
    let started = Instant::now();
    let name = path.display().to_string();
    let parsed = std::fs::metadata(path)
        .map_err(|error| error.to_string())
        .and_then(|_| tile_dialect::driver::parse_file(&context, &name).ok_or_else(String::new));
    let mut module = parsed.map_err(|message| parse_error(&name, message, &collector))?;
    compile_parsed(&context, &mut module, target, &collector, started)
}

/// Compiles the tile program `source` for `target`; diagnostics name the file `source_name`.
pub fn compile_source(source: &str, source_name: &str, target: &str) -> Result<Compilation> {
    let context = context();
    // Parsed from a file so that locations carry `source_name`, which replaces the scratch path.
    let scratch = tempfile::tempdir()
        .map_err(|error| internal(format!("a scratch directory: {error}"), Vec::new()))?;
    let file_name = Path::new(source_name)
        .file_name()
        .map_or("input.mlir".into(), |name| name.to_owned());
    let path = scratch.path().join(file_name);
    std::fs::write(&path, source)
        .map_err(|error| internal(format!("{}: {error}", path.display()), Vec::new()))?;
    let scratch_name = path.display().to_string();
    let (from, to) = (scratch_name.clone(), source_name.to_owned());
    let collector = Collector::attach(&context, move |file| {
        if file == from {
            to.clone()
        } else {
            file.to_owned()
        }
    });
    let started = Instant::now();
    let mut module = tile_dialect::driver::parse_file(&context, &scratch_name)
        .ok_or_else(|| parse_error(source_name, String::new(), &collector))?;
    compile_parsed(&context, &mut module, target, &collector, started)
}

/// Compiles `module` (tile IR in `context`, which must hold the dialects and passes of
/// [`context`]) for `target`, lowering it in place: afterwards it holds the target's code.
pub fn compile_module(context: &Context, module: &mut Module, target: &str) -> Result<Compilation> {
    let collector = Collector::attach(context, str::to_owned);
    if !module.as_operation().verify() {
        return Err(parse_error("the module", String::new(), &collector));
    }
    compile_parsed(context, module, target, &collector, Instant::now())
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
    Error::Internal {
        message,
        diagnostics,
    }
}

/// The linker MLIR's ROCDL serialization looks for, at `<toolkit>/llvm/bin/ld.lld`.
const LLD: &str = "/usr/lib/llvm-22/bin/ld.lld";

/// Returns the text of `module` with its locations, so that a copy parsed from it reports errors
/// where the input had them.
fn located_text(module: &Module) -> std::result::Result<String, String> {
    use melior::ir::operation::OperationPrintingFlags;
    module
        .as_operation()
        .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
        .map_err(|error| format!("the lowered module does not print: {error}"))
}

/// Serializes each lowered AMD kernel module of `lowered` (a module's [`located_text`]) to an HSA
/// code object (`backend` with `format=bin`, on a copy, linked by lld through a scratch toolkit
/// directory that holds only it). Empty where lld is missing.
fn code_objects(
    context: &Context,
    lowered: &str,
    backend: &str,
) -> std::result::Result<Vec<(String, Vec<u8>)>, String> {
    if !Path::new(LLD).exists() {
        return Ok(Vec::new());
    }
    let toolkit = tempfile::tempdir().map_err(|error| format!("a scratch directory: {error}"))?;
    let linker = toolkit.path().join("llvm/bin");
    std::fs::create_dir_all(&linker).map_err(|error| format!("{}: {error}", linker.display()))?;
    std::os::unix::fs::symlink(LLD, linker.join("ld.lld"))
        .map_err(|error| format!("{}: {error}", linker.display()))?;
    let mut copy =
        Module::parse(context, lowered).ok_or("the lowered module does not parse again")?;
    let binary = backend.replace(
        "format=isa",
        &format!("format=bin toolkit={}", toolkit.path().display()),
    );
    pass_manager(context, &format!("builtin.module({binary})"))?
        .run(&mut copy)
        .map_err(|_| "making the code objects failed".to_string())?;
    Ok(tile_dialect::driver::gpu_binary_objects(&copy))
}

fn compile_parsed(
    context: &Context,
    module: &mut Module,
    target: &str,
    collector: &Collector,
    started: Instant,
) -> Result<Compilation> {
    let parsed = started.elapsed();
    let (lowering, backend) =
        tile_conversions::pipelines::chip_passes(target).ok_or_else(|| Error::UnknownTarget {
            target: target.to_owned(),
        })?;
    let failed = |diagnostics: Vec<Diagnostic>| Error::Lowering {
        target: target.to_owned(),
        diagnostics,
    };
    // The decisions the target pipelines make before their lowering, for this target.
    let target_attribute = melior::ir::attribute::StringAttribute::new(context, target);
    melior::ir::operation::OperationMutLike::set_attribute(&mut module.as_operation_mut(), tile_conversions::layout::TARGET_ATTRIBUTE, target_attribute.into());
    pass_manager(
        context,
        &format!("builtin.module({}, {lowering}, inline, canonicalize, cse)", tile_conversions::pipelines::decisions()),
    )
    .map_err(|message| internal(message, collector.take()))?
    .run(module)
    .map_err(|_| failed(collector.take()))?;
    let lowered = started.elapsed();
    let manifests = tile_conversions::kernels::typed_manifests(module)
        .map_err(|message| internal(message, collector.take()))?;
    // gfx942 also gets code objects (.hsaco) where lld-22 is installed, made from the lowered
    // module once the assembly has compiled (whose errors come first).
    let lowered_text = if target.starts_with("gfx") {
        Some(located_text(module).map_err(|message| internal(message, collector.take()))?)
    } else {
        None
    };
    let code_generation_failed = |diagnostics| Error::CodeGeneration {
        target: target.to_owned(),
        diagnostics,
    };
    pass_manager(context, &format!("builtin.module({backend})"))
        .map_err(|message| internal(message, collector.take()))?
        .run(module)
        .map_err(|_| code_generation_failed(collector.take()))?;
    let mut code_objects = match &lowered_text {
        Some(lowered) => code_objects(context, lowered, backend).map_err(|message| {
            let mut diagnostics = collector.take();
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                location: None,
                location_text: "code objects".into(),
                message,
                notes: Vec::new(),
            });
            code_generation_failed(diagnostics)
        })?,
        None => Vec::new(),
    };
    let generated = started.elapsed();

    let spirv = target.starts_with("spirv");
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
                let code = if target.starts_with("gfx") {
                    let code_object = code_objects
                        .iter()
                        .position(|(object, _)| *object == name)
                        .map(|position| code_objects.swap_remove(position).1);
                    Code::Amdgcn {
                        assembly: text,
                        code_object,
                    }
                } else {
                    Code::Ptx(text)
                };
                (name, code)
            })
            .collect()
    };
    let spirv_modules = if spirv {
        spirv_module_texts(module)
    } else {
        Vec::new()
    };
    let mut kernels = Vec::new();
    for (module_name, manifest) in manifests {
        let position = objects
            .iter()
            .position(|(name, _)| *name == module_name)
            .ok_or_else(|| {
                internal(
                    format!("no code was generated for {module_name}"),
                    collector.take(),
                )
            })?;
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
            (
                symbol.trim_start_matches("__spv__").to_owned(),
                op.to_string(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests;
