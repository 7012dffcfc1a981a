//! `tile-run INPUT.mlir --target cpu [--seed N] [--dynamic-size N]`: runs every host function on
//! seeded random inputs and prints a summary of each output buffer.

use std::process::ExitCode;
use tile_run::{CpuProgram, buffer::Random, buffers, context, host_functions};

const USAGE: &str =
    "usage: tile-run INPUT.mlir --target cpu|vulkan [--check] [--seed N] [--dynamic-size N]";

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut input, mut target, mut seed, mut dynamic, mut check) =
        (None, "cpu".to_string(), 1u64, 256usize, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = args.next().ok_or(USAGE)?,
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).ok_or(USAGE)?,
            "--dynamic-size" => dynamic = args.next().and_then(|s| s.parse().ok()).ok_or(USAGE)?,
            "--check" => check = true,
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => input = Some(arg),
        }
    }
    let input = input.ok_or(USAGE)?;
    if target != "cpu" || check {
        return Err(format!(
            "{} is not available yet: tile-run runs the CPU reference only (the SPIR-V lowering and the Vulkan runner are not written)",
            if check {
                "--check (Vulkan against the CPU reference)".to_string()
            } else {
                format!("target {target}")
            }
        ));
    }
    let context = context();
    context.attach_diagnostic_handler(|diagnostic| {
        eprintln!(
            "{}",
            tile_dialect::diagnostics::format_diagnostic(&diagnostic)
        );
        true
    });
    let mut module = tile_dialect::driver::parse_file(&context, &input)
        .ok_or_else(|| format!("{input}: cannot be run"))?;
    let functions = host_functions(&module)?;
    let program = CpuProgram::compile(&context, &mut module)?;
    let mut random = Random::new(seed);
    for function in &functions {
        let mut data = buffers(function, &mut random, dynamic);
        let started = std::time::Instant::now();
        program.run(&function.name, &mut data)?;
        println!(
            "@{} ran on the CPU reference in {:.1} ms",
            function.name,
            started.elapsed().as_secs_f64() * 1e3
        );
        for (index, (argument, buffer)) in function.arguments.iter().zip(&data).enumerate() {
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
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
