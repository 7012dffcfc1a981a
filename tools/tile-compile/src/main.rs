//! `tile-compile INPUT.mlir --target sm_90a|gfx942|spirv|spirv-coopmat -o DIR`: per kernel, its code
//! (`.ptx` for NVIDIA; AMDGCN assembly `.s` for AMD, plus an HSA code object `.hsaco` where lld-22 is
//! installed; a SPIR-V binary `.spv` for Vulkan) and a `.json` launch manifest, everything a launcher
//! needs to run the kernels without MLIR.
//!
//! The passes: the target's lowering (`convert-tile-to-nvgpu`, ...), `inline`, `canonicalize`, `cse`,
//! then the target's upstream passes (see `tile_conversions::pipelines`), run apart so that the
//! launch manifests can be read in between.

use tile_dialect::driver::pass_manager;
use std::{path::PathBuf, process::ExitCode, time::Instant};

struct Options {
    input: String,
    target: String,
    output: PathBuf,
    timing: bool,
}

const USAGE: &str = "usage: tile-compile INPUT.mlir --target sm_90a|gfx942|spirv|spirv-coopmat -o DIR [--timing]";

fn parse_options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut input, mut target, mut output, mut timing) = (None, None, None, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = args.next(),
            "-o" => output = args.next().map(PathBuf::from),
            "--timing" => timing = true,
            "-h" | "--help" => return Err(USAGE.into()),
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => input = Some(arg),
        }
    }
    Ok(Options {
        input: input.ok_or(USAGE)?,
        target: target.ok_or(format!("--target is required\n{USAGE}"))?,
        output: output.ok_or(format!("-o DIR is required\n{USAGE}"))?,
        timing,
    })
}

/// What one target compiles with: our lowering, the upstream passes after it, and the extension of
/// the code it writes (PTX, or AMDGCN assembly).
struct Target {
    lowering: &'static str,
    backend: String,
    extension: &'static str,
}

/// Returns the code of every kernel module after the backend: (module name, text or binary).
fn kernel_objects(
    module: &melior::ir::Module,
    extension: &str,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    if extension != "spv" {
        return Ok(tile_dialect::driver::gpu_binary_objects(module));
    }
    Ok(tile_dialect::driver::spirv_binaries(module)?
        .into_iter()
        .map(|(name, words)| (name, words.iter().flat_map(|word| word.to_le_bytes()).collect()))
        .collect())
}

fn target(name: &str) -> Result<Target, String> {
    let (lowering, backend) = tile_conversions::pipelines::chip_passes(name).ok_or_else(|| {
        format!(
            "unknown target {name}: expected {} (sm_90a: TMA, mbarrier, wgmma; gfx942: LDS, mfma; spirv: loops shared by a workgroup's threads; spirv-coopmat: KHR cooperative matrices)",
            tile_conversions::pipelines::chips().join(", ")
        )
    })?;
    let extension = match name {
        _ if name.starts_with("sm_") => "ptx",
        _ if name.starts_with("gfx") => "s",
        _ => "spv",
    };
    Ok(Target { lowering, backend: backend.into(), extension })
}

/// The linker MLIR's ROCDL serialization looks for, at `<toolkit>/llvm/bin/ld.lld`.
const LLD: &str = "/usr/lib/llvm-22/bin/ld.lld";

/// Returns the text of `module` with its locations, so that a copy parsed from it reports errors
/// where the input had them.
fn located_text(module: &melior::ir::Module) -> Result<String, String> {
    use melior::ir::operation::{OperationLike, OperationPrintingFlags};
    module
        .as_operation()
        .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
        .map_err(|error| format!("internal error: the lowered module does not print: {error}"))
}

/// Serializes each lowered AMD kernel module of `lowered` (a module's [`located_text`]) to an HSA
/// code object (`backend` with `format=bin`, on a copy, linked by lld through a toolkit directory
/// that holds only it). None where lld is missing: the assembly is written either way.
fn code_objects(
    context: &melior::Context,
    lowered: &str,
    backend: &str,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    if !std::path::Path::new(LLD).exists() {
        return Ok(Vec::new());
    }
    let toolkit = std::env::temp_dir().join(format!("tile-compile-toolkit-{}", std::process::id()));
    let linker = toolkit.join("llvm/bin");
    std::fs::create_dir_all(&linker).map_err(|error| format!("{}: {error}", linker.display()))?;
    let link = linker.join("ld.lld");
    if !link.exists() {
        std::os::unix::fs::symlink(LLD, &link).map_err(|error| format!("{}: {error}", link.display()))?;
    }
    let result = (|| {
        let mut copy = melior::ir::Module::parse(context, lowered)
            .ok_or("internal error: the lowered module does not parse again")?;
        let binary = backend.replace("format=isa", &format!("format=bin toolkit={}", toolkit.display()));
        pass_manager(context, &format!("builtin.module({binary})"))?
            .run(&mut copy)
            .map_err(|_| "making the code objects failed (see the errors above)".to_string())?;
        Ok(tile_dialect::driver::gpu_binary_objects(&copy))
    })();
    let _ = std::fs::remove_dir_all(&toolkit);
    result
}

fn run(options: &Options) -> Result<usize, String> {
    let started = Instant::now();
    let target = target(&options.target)?;
    let context = tile_conversions::context();
    context.attach_diagnostic_handler(|diagnostic| {
        eprintln!(
            "{}",
            tile_dialect::diagnostics::format_diagnostic(&diagnostic)
        );
        true
    });

    let mut module =
        tile_dialect::driver::parse_file(&context, &options.input).ok_or_else(|| {
            format!(
                "{}: cannot be compiled (see the errors above)",
                options.input
            )
        })?;
    let parsed = started.elapsed();
    if tile_dialect::ops::find_ops(module.as_operation(), "tile.kernel").is_empty() {
        tile_dialect::diagnostics::emit_error(
            melior::ir::Location::new(&context, &options.input, 1, 1),
            "expects at least one tile.kernel to compile, but the input has none",
        );
        return Err(format!("{}: nothing to compile", options.input));
    }

    let lowering = pass_manager(
        &context,
        &format!("builtin.module({}, inline, canonicalize, cse)", target.lowering),
    )?;
    lowering.run(&mut module).map_err(|_| {
        format!(
            "{}: lowering for {} failed (see the errors above)",
            options.input, options.target
        )
    })?;
    let lowered = started.elapsed();

    let manifests = tile_conversions::kernels::manifests(&module);
    // gfx942 also gets a code object (.hsaco) where an LLVM linker is installed (lld-22), made
    // from the lowered module once the assembly has compiled (whose errors come first).
    let lowered_text = if options.target == "gfx942" {
        Some(located_text(&module)?)
    } else {
        None
    };
    let backend_manager = pass_manager(&context, &format!("builtin.module({})", target.backend))?;
    backend_manager.run(&mut module).map_err(|_| {
        format!(
            "{}: code generation for {} failed (see the errors above)",
            options.input, options.target
        )
    })?;
    let code_objects = match &lowered_text {
        Some(lowered) => code_objects(&context, lowered, &target.backend)?,
        None => Vec::new(),
    };
    let generated = started.elapsed();

    std::fs::create_dir_all(&options.output)
        .map_err(|error| format!("{}: {error}", options.output.display()))?;
    let objects = kernel_objects(&module, target.extension)?;
    for (module_name, manifest) in &manifests {
        let entry = manifest
            .split("\"entry\": \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or(module_name);
        let ptx = objects
            .iter()
            .find(|(name, _)| name == module_name)
            .map(|(_, ptx)| ptx)
            .ok_or_else(|| format!("no PTX was generated for {module_name}"))?;
        let write = |extension: &str, contents: &[u8]| {
            let path = options.output.join(format!("{entry}.{extension}"));
            std::fs::write(&path, contents).map_err(|error| format!("{}: {error}", path.display()))
        };
        write(target.extension, ptx)?;
        write("json", manifest.as_bytes())?;
        if let Some((_, object)) = code_objects.iter().find(|(name, _)| name == module_name) {
            write("hsaco", object)?;
        }
    }
    if options.timing {
        eprintln!(
            "tile-compile: parse {:.1} ms, tile lowering {:.1} ms, upstream to code {:.1} ms, total {:.1} ms",
            parsed.as_secs_f64() * 1e3,
            (lowered - parsed).as_secs_f64() * 1e3,
            (generated - lowered).as_secs_f64() * 1e3,
            generated.as_secs_f64() * 1e3
        );
    }
    Ok(manifests.len())
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(count) => {
            println!(
                "{}: {count} kernel(s) for {} written to {}",
                options.input,
                options.target,
                options.output.display()
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
