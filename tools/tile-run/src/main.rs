//! `tile-run INPUT.mlir --target cpu|interp|vulkan|vulkan-coopmat [--check [--against cpu|interp]]
//! [--seed N] [--dynamic-size N]`: runs every host function on seeded random inputs and prints a
//! summary of each output buffer. With `--check`, the target's run is compared element by element
//! with a reference run on the same inputs: the CPU reference, or the interpreter with
//! `--against interp` (the default for `--target cpu`); an element over the type's tolerance is a
//! mismatch only beyond twice the interpreter's error bound of it (`tile_interp::bound`, the
//! rounding the element types allow given the magnitudes of its terms: `tile_run::differs`).

use std::process::ExitCode;
use tile_run::{
    BOUND_FACTOR, CpuProgram, InterpProgram, Vulkan, VulkanProgram, buffer::Buffer, buffer::Random, buffers, compare,
    compare_bounded, context, count_differences, host_functions, tolerance,
};

const USAGE: &str = "usage: tile-run INPUT.mlir [--target cpu|interp|vulkan|vulkan-coopmat] [--check [--against cpu|interp]] [--seed N] [--dynamic-size N]";

fn summary(function: &tile_run::Function, data: &[Buffer]) {
    for (index, (argument, buffer)) in function.arguments.iter().zip(data).enumerate() {
        if !argument.output {
            continue;
        }
        let values: Vec<f64> = (0..buffer.len()).map(|i| buffer.get(i)).collect();
        let unwritten = values.iter().filter(|v| v.is_nan()).count();
        let sum: f64 = values.iter().filter(|v| !v.is_nan()).sum();
        let first: Vec<String> = values.iter().take(4).map(|v| format!("{v:.4}")).collect();
        println!(
            "  output %arg{index} {:?} {}: checksum {sum:.6}, {unwritten} unwritten, first [{}]",
            buffer.shape,
            buffer.element,
            first.join(", ")
        );
    }
}

fn run() -> Result<bool, String> {
    let mut args = std::env::args().skip(1);
    let (mut input, mut target, mut seed, mut dynamic, mut check) = (None, "cpu".to_string(), 1u64, 256usize, false);
    let mut against = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = args.next().ok_or(USAGE)?,
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).ok_or(USAGE)?,
            "--dynamic-size" => dynamic = args.next().and_then(|s| s.parse().ok()).ok_or(USAGE)?,
            "--check" => check = true,
            "--against" => against = Some(args.next().ok_or(USAGE)?),
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => input = Some(arg),
        }
    }
    let input = input.ok_or(USAGE)?;
    let spirv_target = match target.as_str() {
        "cpu" | "interp" | "vulkan" => "spirv",
        "vulkan-coopmat" => "spirv-coopmat",
        _ => {
            return Err(format!(
                "unknown target {target}: expected cpu, interp, vulkan or vulkan-coopmat"
            ));
        }
    };
    // The reference of --check: the CPU reference, or the interpreter (for the CPU reference itself).
    let against = against.unwrap_or_else(|| if target == "cpu" { "interp" } else { "cpu" }.into());
    if !matches!(against.as_str(), "cpu" | "interp") || against == target {
        return Err(format!(
            "cannot check {target} against {against}: expected cpu or interp, other than the target"
        ));
    }
    let vulkan = target.starts_with("vulkan");
    // Undefined behaviour of the program (an access out of bounds, a read of an element nothing
    // wrote, a division by zero, ...) says so on the last line: `tile-fuzz` reads it to tell a
    // mutant that no target can be expected to agree on from a miscompile.
    let interpreter = |error: tile_interp::Error| {
        eprintln!("{}", error.diagnostic());
        if error.is_undefined_behaviour() {
            "the interpreter stopped: the program's behaviour is undefined (see the error above)".to_string()
        } else {
            "the interpreter stopped (see the error above)".to_string()
        }
    };
    let context = context();
    context.attach_diagnostic_handler(|diagnostic| {
        eprintln!("{}", tile_dialect::diagnostics::format_diagnostic(&diagnostic));
        true
    });
    let parse = || tile_dialect::driver::parse_file(&context, &input).ok_or_else(|| format!("{input}: cannot be run"));
    let mut module = parse()?;
    let functions = host_functions(&module)?;
    let (device, gpu_program) = if vulkan {
        let device = Vulkan::new()?;
        (
            Some(device),
            Some(VulkanProgram::compile(&context, &mut module, spirv_target)?),
        )
    } else {
        (None, None)
    };
    let interp_program = if target == "interp" || (check && against == "interp") {
        // From a fresh parse: the Vulkan lowering above rewrites `module` in place.
        Some(InterpProgram::new(&parse()?))
    } else {
        None
    };
    let cpu_program = if target == "cpu" || (check && against == "cpu") {
        let mut cpu_module = parse()?;
        Some(CpuProgram::compile(&context, &mut cpu_module)?)
    } else {
        None
    };
    let mut random = Random::new(seed);
    let mut all_match = true;
    for function in &functions {
        for (index, argument) in function.arguments.iter().enumerate() {
            let bytes = argument
                .shape
                .iter()
                .map(|size| size.unwrap_or(dynamic) as u128)
                .product::<u128>()
                * argument.element.bytes() as u128;
            if bytes > tile_run::MAX_BUFFER_BYTES {
                return Err(format!(
                    "--dynamic-size {dynamic} makes argument {index} of @{} take {bytes} bytes; tile-run fills at most {}",
                    function.name,
                    tile_run::MAX_BUFFER_BYTES
                ));
            }
        }
    }
    for function in &functions {
        let inputs = buffers(function, &mut random, dynamic);
        let mut data = inputs.clone();
        let started = std::time::Instant::now();
        if let (Some(device), Some(program)) = (&device, &gpu_program) {
            program.run(device, &function.name, &mut data)?;
            println!(
                "@{} ran on {} (Vulkan) in {:.1} ms",
                function.name,
                device.name,
                started.elapsed().as_secs_f64() * 1e3
            );
        } else if let (true, Some(program)) = (target == "interp", &interp_program) {
            program.run(&function.name, &mut data).map_err(interpreter)?;
            println!(
                "@{} ran on the interpreter in {:.1} ms",
                function.name,
                started.elapsed().as_secs_f64() * 1e3
            );
        } else if let Some(program) = &cpu_program {
            program.run(&function.name, &mut data)?;
            println!(
                "@{} ran on the CPU reference in {:.1} ms",
                function.name,
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        summary(function, &data);
        if check {
            let mut reference = inputs.clone();
            // The interpreter's error bounds of the outputs, when it is the reference; else
            // computed below only if some element is over the type's tolerance.
            let mut bounds: Option<Vec<Vec<f64>>> = None;
            match (&interp_program, &cpu_program) {
                (Some(program), _) if against == "interp" => {
                    bounds = Some(
                        program
                            .run_bounded(&function.name, &mut reference)
                            .map_err(interpreter)?,
                    )
                }
                (_, Some(program)) => program.run(&function.name, &mut reference)?,
                _ => unreachable!("the reference was built above"),
            }
            let over_tolerance = function.arguments.iter().enumerate().any(|(index, argument)| {
                argument.output
                    && !compare(&data[index], &reference[index], tolerance(argument.element))
                        .1
                        .is_empty()
            });
            if over_tolerance && bounds.is_none() {
                // Judge the difference by the magnitudes of the terms behind each element: ask the
                // interpreter for its bounds (none when it cannot run the program, which then
                // keeps the type's tolerance alone).
                let mut scratch = inputs.clone();
                bounds = InterpProgram::new(&parse()?)
                    .run_bounded(&function.name, &mut scratch)
                    .ok();
            }
            for (index, argument) in function
                .arguments
                .iter()
                .enumerate()
                .filter(|(_, argument)| argument.output)
            {
                let bound = tolerance(argument.element);
                let errors: &[f64] = bounds.as_ref().and_then(|b| b.get(index)).map_or(&[], |b| b);
                let (worst, mismatches) = compare_bounded(&data[index], &reference[index], bound, errors);
                if mismatches.is_empty() {
                    let (beyond, _) = count_differences(&data[index], &reference[index], bound, &[]);
                    let conditioned = if beyond > 0 {
                        format!(
                            "; {beyond} elements beyond it, within {BOUND_FACTOR} times the error bounds of their terms"
                        )
                    } else {
                        String::new()
                    };
                    println!(
                        "  check %arg{index}: match, worst relative error {worst:.3e} (tolerance {bound:.0e}{conditioned})"
                    );
                } else {
                    let (differ, non_finite) = count_differences(&data[index], &reference[index], bound, errors);
                    println!(
                        "  check %arg{index}: MISMATCH, worst relative error {worst:.3e} (tolerance {bound:.0e}): {differ} elements differ, {non_finite} of them where {against} holds NaN or an infinity"
                    );
                }
                for (element, got, expected) in &mismatches {
                    let columns = *data[index].shape.last().unwrap_or(&1);
                    println!(
                        "    at [{}, {}]: {target} {got}, {against} {expected}",
                        element / columns,
                        element % columns
                    );
                }
                all_match &= mismatches.is_empty();
            }
        }
    }
    Ok(all_match)
}

/// Writing to a pipe nobody reads any more (`tile-run ... | head`) ends the process quietly, as Unix tools
/// do. Rust's runtime ignores SIGPIPE, and LLVM's signal handlers, which MLIR installs while it
/// compiles, put that back when they are removed: a print after that failed and panicked.
fn quiet_on_closed_pipes() {
    // SAFETY: resets one signal's action to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    quiet_on_closed_pipes();
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            // A message located in the program (`file:line:col: error: ...`) is a diagnostic already.
            if located(&message) {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Whether `message` starts as a located diagnostic does: `file:line:col: error:`.
fn located(message: &str) -> bool {
    let Some((site, _)) = message.split_once(": error: ") else {
        return false;
    };
    let mut parts = site.rsplitn(3, ':');
    let (column, line) = (parts.next(), parts.next());
    parts.next().is_some_and(|file| !file.is_empty())
        && [column, line]
            .iter()
            .all(|part| part.is_some_and(|part| part.parse::<u64>().is_ok()))
}
