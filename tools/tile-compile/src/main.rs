//! `tile-compile INPUT.mlir --target sm_90a|sm_80|gfx942|spirv|spirv-coopmat -o DIR [--emit code|spirv-module] [--shared-memory BYTES] [--timing]`:
//! per kernel, its code (`.ptx` for NVIDIA; AMDGCN assembly `.s` for AMD, plus an HSA code object
//! `.hsaco`; a SPIR-V binary `.spv` for Vulkan) and a `.json` launch
//! manifest, everything a launcher needs to run the kernels without MLIR. `--emit spirv-module`
//! writes each kernel's `spirv.module` as text (`.spirv.mlir`) instead.
//!
//! A thin tool over `tile_compiler::compile_file`, which holds the passes.

use std::{path::PathBuf, process::ExitCode};

/// mimalloc allocates for the whole process: built with its `override` feature, the binary
/// exports `malloc`, `free` and the rest, which MLIR's and LLVM's shared libraries then call too
/// (their allocations are most of a compilation's). glibc's malloc spent a tenth of the CPU time of
/// 200 kernels in its own bookkeeping (`_int_malloc`, `unlink_chunk`, `malloc_consolidate`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What to write per kernel.
#[derive(Clone, Copy, PartialEq)]
enum Emit {
    /// The code and the manifest.
    Code,
    /// The `spirv.module` text (SPIR-V targets).
    SpirvModule,
}

struct Options {
    input: String,
    target: String,
    output: PathBuf,
    emit: Emit,
    timing: bool,
    shared_memory_bytes: Option<i64>,
}

const USAGE: &str = "usage: tile-compile INPUT.mlir --target sm_90a|sm_80|gfx942|spirv|spirv-coopmat -o DIR [--emit code|spirv-module] [--shared-memory BYTES] [--timing]";

fn parse_options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut input, mut target, mut output, mut emit, mut timing) = (None, None, None, Emit::Code, false);
    let mut shared_memory_bytes = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = args.next(),
            "-o" => output = args.next().map(PathBuf::from),
            "--timing" => timing = true,
            "--shared-memory" => {
                let value = args.next();
                shared_memory_bytes = Some(value.as_deref().and_then(|bytes| bytes.parse::<i64>().ok()).ok_or_else(
                    || {
                        format!(
                            "--shared-memory expects the bytes of workgroup memory a block may use on the device, but got {}\n{USAGE}",
                            value.as_deref().unwrap_or("nothing")
                        )
                    },
                )?);
            }
            "--emit" => {
                emit = match args.next().as_deref() {
                    Some("code") => Emit::Code,
                    Some("spirv-module") => Emit::SpirvModule,
                    other => {
                        return Err(format!(
                            "--emit expects code or spirv-module, but got {}\n{USAGE}",
                            other.unwrap_or("nothing")
                        ));
                    }
                }
            }
            "-h" | "--help" => return Err(USAGE.into()),
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => input = Some(arg),
        }
    }
    Ok(Options {
        input: input.ok_or(USAGE)?,
        target: target.ok_or(format!("--target is required\n{USAGE}"))?,
        output: output.ok_or(format!("-o DIR is required\n{USAGE}"))?,
        emit,
        timing,
        shared_memory_bytes,
    })
}

fn run(options: &Options) -> Result<usize, String> {
    if options.emit == Emit::SpirvModule && !options.target.starts_with("spirv") {
        return Err(format!(
            "--emit spirv-module needs a SPIR-V target, but got {}",
            options.target
        ));
    }
    // The spirv.module texts only where they are written: printing them is not free.
    let keep = tile_compiler::Options {
        spirv_module_text: options.emit == Emit::SpirvModule,
        shared_memory_bytes: options.shared_memory_bytes,
    };
    let compilation =
        tile_compiler::compile_file_with(options.input.as_ref(), &options.target, keep).map_err(|error| {
            // The diagnostics first, as compilers print them; then the summary.
            for diagnostic in error.diagnostics() {
                eprintln!("{diagnostic}");
            }
            match error {
                tile_compiler::Error::Parse { .. } => {
                    format!("{}: cannot be compiled (see the errors above)", options.input)
                }
                tile_compiler::Error::Lowering { .. } => {
                    format!(
                        "{}: lowering for {} failed (see the errors above)",
                        options.input, options.target
                    )
                }
                tile_compiler::Error::NothingToCompile { .. } => format!("{}: nothing to compile", options.input),
                tile_compiler::Error::CodeGeneration { .. } => {
                    format!(
                        "{}: code generation for {} failed (see the errors above)",
                        options.input, options.target
                    )
                }
                other => other.to_string().lines().next().unwrap_or_default().to_owned(),
            }
        })?;
    for diagnostic in &compilation.diagnostics {
        eprintln!("{diagnostic}");
    }
    std::fs::create_dir_all(&options.output).map_err(|error| format!("{}: {error}", options.output.display()))?;
    for kernel in &compilation.kernels {
        let write = |extension: &str, contents: &[u8]| {
            let path = options.output.join(format!("{}.{extension}", kernel.name));
            std::fs::write(&path, contents).map_err(|error| format!("{}: {error}", path.display()))
        };
        if options.emit == Emit::SpirvModule {
            write(
                "spirv.mlir",
                kernel.spirv_module.as_deref().unwrap_or_default().as_bytes(),
            )?;
            continue;
        }
        write(kernel.code.extension(), &kernel.code.bytes())?;
        write("json", kernel.manifest.to_json().as_bytes())?;
        if let tile_compiler::Code::Amdgcn {
            code_object: Some(object),
            ..
        } = &kernel.code
        {
            write("hsaco", object)?;
        }
    }
    if options.timing {
        let timings = compilation.timings;
        eprintln!(
            "tile-compile: parse {:.1} ms, tile lowering {:.1} ms, upstream to code {:.1} ms, total {:.1} ms",
            timings.parse.as_secs_f64() * 1e3,
            timings.lowering.as_secs_f64() * 1e3,
            timings.code_generation.as_secs_f64() * 1e3,
            (timings.parse + timings.lowering + timings.code_generation).as_secs_f64() * 1e3
        );
    }
    Ok(compilation.kernels.len())
}

/// Turns transparent huge pages off for this process. mimalloc asks for them on its arenas
/// (`madvise`), and the kernel then zeroes 2 MiB at the first touch of each, again after each purge:
/// the compilations' short-lived LLVM contexts use a fraction of what gets zeroed. 20 gfx942
/// kernels: 0.25 -> 0.11 s of system time, user time unchanged (RESULTS, 2026-12-01, part 6).
fn without_huge_pages() {
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and changes only this flag.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Writing to a pipe nobody reads any more (`tile-compile ... | head -0`) ends the process quietly, as Unix tools
/// do. Rust's runtime ignores SIGPIPE, and LLVM's signal handlers, which MLIR installs while it
/// compiles, put that back when they are removed: a print after that failed and panicked.
fn quiet_on_closed_pipes() {
    // SAFETY: resets one signal's action to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    without_huge_pages();
    quiet_on_closed_pipes();
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
