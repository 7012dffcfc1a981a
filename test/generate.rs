//! A seeded generator of valid tile programs, for differential testing: every program it writes is
//! run by `tile-run` on the CPU reference and on Vulkan (lavapipe), and the two must agree element by
//! element (`tile-run --target vulkan --check`). Where `tile-run --target interp` exists (the
//! independent interpreter, [`interp_available`]), its checksums must agree with the CPU's too.
//!
//! A program: one host function over an f32 input `X` (M x N, M possibly ragged: not a multiple of
//! the block's rows, so copies clip), outputs `Y` (M x N) and `R` (M); one kernel whose blocks each
//! take BM rows. The block copies its rows into a fragment (directly or through a shared tile),
//! applies one to four random stages (elementwise `tile.parallel` chains of arith and math ops the
//! CPU and SPIR-V targets both build; a `tile.reduce` of any kind along the rows, broadcast back in
//! a `tile.parallel`, or compared with each element to select one), copies the rows out and reduces them into `R`.

use crate::fuzz::Rng;
use std::fmt::Write;

/// One generated program and what it is made of (for messages).
#[derive(Clone, Debug)]
pub struct Program {
    /// The MLIR text.
    pub text: String,
    /// A one-line description: shape, threads, stages.
    pub summary: String,
}

const KINDS: &[&str] = &["sum", "max", "min", "absmax", "abssum"];

/// Returns a float literal in [-2, 2] with two decimals.
fn literal(rng: &mut Rng) -> String {
    format!("{:.2}", (rng.below(401) as f64 - 200.0) / 100.0)
}

/// Writes an elementwise chain on `%v` into `body`, returning the name of its result. Values stay
/// bounded (tanh before exp), so both targets compute in the same range.
fn chain(
    rng: &mut Rng,
    body: &mut String,
    prefix: &str,
    input: &str,
    extra: Option<&str>,
) -> String {
    let mut current = input.to_string();
    let steps = 1 + rng.below(4);
    for step in 0..steps {
        let name = format!("%{prefix}{step}");
        let line = match rng.below(if extra.is_some() { 10 } else { 9 }) {
            0 => format!("{name} = arith.addf {current}, %k{} : f32", rng.below(4)),
            1 => format!("{name} = arith.mulf {current}, %k{} : f32", rng.below(4)),
            2 => format!(
                "{name} = arith.maximumf {current}, %k{} : f32",
                rng.below(4)
            ),
            3 => format!(
                "{name} = arith.minimumf {current}, %k{} : f32",
                rng.below(4)
            ),
            4 => format!("{name} = arith.negf {current} : f32"),
            5 => format!("{name} = math.tanh {current} : f32"),
            6 => {
                let squashed = format!("{name}t");
                writeln!(body, "      {squashed} = math.tanh {current} : f32").ok();
                format!("{name} = math.exp {squashed} : f32")
            }
            7 => {
                let magnitude = format!("{name}a");
                writeln!(body, "      {magnitude} = math.absf {current} : f32").ok();
                format!("{name} = math.sqrt {magnitude} : f32")
            }
            8 => {
                let magnitude = format!("{name}a");
                let denominator = format!("{name}d");
                writeln!(body, "      {magnitude} = math.absf {current} : f32").ok();
                writeln!(
                    body,
                    "      {denominator} = arith.addf {magnitude}, %one : f32"
                )
                .ok();
                format!(
                    "{name} = arith.divf %k{}, {denominator} : f32",
                    rng.below(4)
                )
            }
            _ => {
                let other = extra.unwrap_or(&current);
                let squashed = format!("{name}s");
                writeln!(body, "      {squashed} = math.tanh {other} : f32").ok();
                format!("{name} = arith.subf {current}, {squashed} : f32")
            }
        };
        writeln!(body, "      {line}").ok();
        current = name;
    }
    current
}

/// Generates program `index` of `seed`.
pub fn program(seed: u64, index: u64) -> Program {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ index);
    let rows = *rng.pick(&[2usize, 4, 8, 16]);
    let columns = *rng.pick(&[8usize, 16, 32, 64]);
    let grid = 1 + rng.below(3);
    let ragged = grid > 1 && rng.below(3) == 0;
    let total = if ragged {
        rows * grid - 1 - rng.below(rows - 1)
    } else {
        rows * grid
    };
    let threads = *rng.pick(&[32usize, 64, 128]);
    let through_shared = rng.below(3) == 0;
    let f = format!("memref<{rows}x{columns}xf32, #tile.fragment>");
    let r = format!("memref<{rows}xf32, #tile.fragment>");
    let s = format!("memref<{rows}x{columns}xf32, #gpu.address_space<workgroup>>");
    let x = format!("memref<{total}x{columns}xf32>");
    let y = format!("memref<{total}xf32>");

    let mut text = String::new();
    writeln!(text, "// generated: seed {seed}, program {index}").ok();
    writeln!(text, "func.func @generated(%X: {x}, %Y: {x}, %R: {y}) {{").ok();
    writeln!(text, "  %c0 = arith.constant 0 : index").ok();
    writeln!(text, "  %grid = arith.constant {grid} : index").ok();
    writeln!(text, "  %rows = arith.constant {rows} : index").ok();
    writeln!(text, "  %one = arith.constant 1.0 : f32").ok();
    for k in 0..4 {
        writeln!(text, "  %k{k} = arith.constant {} : f32", literal(&mut rng)).ok();
    }
    writeln!(
        text,
        "  tile.kernel grid(%grid) threads({threads}) (%bx) {{"
    )
    .ok();
    writeln!(text, "    %F = tile.alloc_fragment : {f}").ok();
    writeln!(text, "    %r = tile.alloc_fragment : {r}").ok();
    writeln!(text, "    %row = arith.muli %bx, %rows : index").ok();
    if through_shared {
        writeln!(text, "    %S = tile.alloc_shared : {s}").ok();
        writeln!(text, "    tile.copy %X[%row, %c0], %S : {x}, {s}").ok();
        writeln!(text, "    tile.copy %S, %F : {s}, {f}").ok();
    } else {
        writeln!(text, "    tile.copy %X[%row, %c0], %F : {x}, {f}").ok();
    }
    let stages = 1 + rng.below(4);
    let mut names = Vec::new();
    for stage in 0..stages {
        match rng.below(5) {
            0 | 1 => {
                names.push("map");
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                let result = chain(&mut rng, &mut text, &format!("e{stage}_"), "%v", None);
                writeln!(text, "      memref.store {result}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
            2 | 3 => {
                let kind = *rng.pick(KINDS);
                names.push(kind);
                writeln!(text, "    tile.reduce <{kind}> %F, %r dim(1) : {f}, {r}").ok();
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                writeln!(text, "      %m = memref.load %r[%i] : {r}").ok();
                let result = chain(&mut rng, &mut text, &format!("b{stage}_"), "%v", Some("%m"));
                writeln!(text, "      memref.store {result}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
            _ => {
                // A comparison with the row's statistic selects between the two.
                let kind = *rng.pick(KINDS);
                names.push("select");
                writeln!(text, "    tile.reduce <{kind}> %F, %r dim(1) : {f}, {r}").ok();
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                writeln!(text, "      %m = memref.load %r[%i] : {r}").ok();
                let scaled = chain(&mut rng, &mut text, &format!("s{stage}_"), "%m", None);
                writeln!(
                    text,
                    "      %gt{stage} = arith.cmpf ogt, %v, {scaled} : f32"
                )
                .ok();
                writeln!(
                    text,
                    "      %w{stage} = arith.select %gt{stage}, %v, {scaled} : f32"
                )
                .ok();
                writeln!(text, "      memref.store %w{stage}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
        }
    }
    writeln!(text, "    tile.copy %F, %Y[%row, %c0] : {f}, {x}").ok();
    let last = *rng.pick(KINDS);
    writeln!(text, "    tile.reduce <{last}> %F, %r dim(1) : {f}, {r}").ok();
    writeln!(text, "    tile.copy %r, %R[%row] : {r}, {y}").ok();
    writeln!(text, "  }}").ok();
    writeln!(text, "  return").ok();
    writeln!(text, "}}").ok();
    let summary = format!(
        "{total}x{columns} in {grid} block(s) of {rows} rows, {threads} threads{}{}, stages [{}], then <{last}>",
        if ragged { ", ragged" } else { "" },
        if through_shared {
            ", through shared memory"
        } else {
            ""
        },
        names.join(", ")
    );
    Program { text, summary }
}

/// Returns true when `tile-run` in `bin` has the interpreter target (`--target interp`): the hook
/// for the independent interpreter, compared with the CPU reference once it lands.
pub fn interp_available(bin: &std::path::Path, scratch: &std::path::Path) -> bool {
    let input = scratch.join("interp-probe.mlir");
    std::fs::write(
        &input,
        "func.func @probe(%X: memref<4xf32>) {\n  return\n}\n",
    )
    .is_ok()
        && std::process::Command::new(bin.join("tile-run"))
            .arg(&input)
            .args(["--target", "interp"])
            .output()
            .is_ok_and(|output| output.status.success())
}

/// Returns the checksum of each output a `tile-run` run printed, in order.
pub fn checksums(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|line| line.split("checksum ").nth(1))
        .filter_map(|rest| rest.split(',').next()?.trim().parse().ok())
        .collect()
}

/// What became of one generated program in [`write_gpu_case`].
#[derive(Clone, Debug, PartialEq)]
pub enum CaseOutcome {
    /// Its case was written (kernels, inputs, the interpreter's outputs).
    Written,
    /// It cannot be replayed from manifests on the GPU machine, or sm_90a refused it (with a
    /// located error): why, in one line.
    Skipped(String),
}

/// The ops a host function of a replayable case may hold: launches, and the pure integer
/// arithmetic that feeds their grids (which the manifests carry as expressions). Anything else
/// (host control flow, host buffers, calls) is more than "the kernels in order".
fn replayable_host_op(name: &str) -> bool {
    name == "tile.kernel"
        || name == "func.return"
        || name == "memref.dim"
        || name.starts_with("index.")
        || name.starts_with("arith.")
}

/// Returns true when `expr` reads a scalar host argument (a launcher over manifests and the case's
/// buffers has none to give).
fn reads_host_scalar(expr: &tile_manifest::Expr) -> bool {
    match expr {
        tile_manifest::Expr::Argument { .. } => true,
        tile_manifest::Expr::Op { args, .. } => args.iter().any(reads_host_scalar),
        _ => false,
    }
}

/// Writes the sm_90a case of tile program `text` (named `name`) into `directory/name/`: each
/// kernel's PTX and launch manifest (`tile_compiler`, as `tile-compile --target sm_90a` writes
/// them), each host argument's initial contents (inputs uniform in [-1, 1) from `input_seed`, as
/// `tile-run --seed` fills them; written arguments start as NaN, or 0 for integers) and the
/// interpreter's result in each written argument, as raw little-endian row-major files, with
/// `case.json` describing them. With `cpu`, the CPU reference's results too (for dry runs of
/// `bench/generated_check.py` without a GPU). Programs that are not a sequence of launches (host
/// control flow, host buffers) and programs sm_90a refuses are skipped; a program the
/// interpreter or the CPU reference cannot run is an `Err`.
pub fn write_gpu_case(
    directory: &std::path::Path,
    name: &str,
    text: &str,
    summary: &str,
    input_seed: u64,
    cpu: bool,
) -> Result<CaseOutcome, String> {
    use melior::ir::{BlockLike, Module, RegionLike, operation::OperationLike};
    use serde_json::json;

    let context = tile_run::context();
    let parse = || {
        Module::parse(&context, text).ok_or_else(|| format!("{name}: the program does not parse"))
    };
    let module = parse()?;
    let functions = tile_run::host_functions(&module)?;
    // Replayable: each host function launches its kernels one after another, nothing else.
    let mut launches = std::collections::HashMap::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let Some(body) = op.region(0).ok().and_then(|region| region.first_block()) else {
            continue;
        };
        let function = op
            .attribute("sym_name")
            .ok()
            .map(|a| a.to_string().trim_matches('"').to_owned())
            .unwrap_or_default();
        let mut count = 0usize;
        let mut inner = body.first_operation();
        while let Some(host_op) = inner {
            inner = host_op.next_in_block();
            let op_name = host_op.name().as_string_ref().as_str().unwrap_or_default().to_owned();
            if !replayable_host_op(&op_name) {
                return Ok(CaseOutcome::Skipped(format!(
                    "@{function} runs {op_name} on the host (not a sequence of launches)"
                )));
            }
            count += usize::from(op_name == "tile.kernel");
        }
        launches.insert(function, count);
    }
    let compilation = match tile_compiler::compile_source(text, &format!("{name}.mlir"), "sm_90a") {
        Ok(compilation) => compilation,
        Err(
            error @ (tile_compiler::Error::Lowering { .. }
            | tile_compiler::Error::CodeGeneration { .. }),
        ) => {
            let first = error
                .diagnostics()
                .first()
                .map(|d| d.to_string().lines().next().unwrap_or_default().to_owned())
                .unwrap_or_else(|| error.to_string());
            return Ok(CaseOutcome::Skipped(format!("sm_90a refuses it: {first}")));
        }
        Err(error) => return Err(format!("{name}: compiling for sm_90a failed: {error}")),
    };
    let case = directory.join(name);
    std::fs::create_dir_all(&case).map_err(|e| format!("{}: {e}", case.display()))?;
    let write = |file: &str, bytes: &[u8]| {
        std::fs::write(case.join(file), bytes).map_err(|e| format!("{}: {e}", case.join(file).display()))
    };
    write("program.mlir", text.as_bytes())?;
    let interp = tile_run::InterpProgram::new(&module);
    let cpu_program = if cpu {
        let mut cpu_module = parse()?;
        Some(tile_run::CpuProgram::compile(&context, &mut cpu_module)?)
    } else {
        None
    };
    let mut random = tile_run::buffer::Random::new(input_seed);
    let mut described = Vec::new();
    for function in &functions {
        let kernels: Vec<_> = compilation
            .kernels
            .iter()
            .filter(|kernel| kernel.manifest.host_function.as_deref() == Some(&function.name))
            .collect();
        if kernels.len() != launches.get(&function.name).copied().unwrap_or(0) {
            let _ = std::fs::remove_dir_all(&case);
            return Ok(CaseOutcome::Skipped(format!(
                "@{} launches {} kernel(s), but {} manifest(s) name it",
                function.name,
                launches.get(&function.name).copied().unwrap_or(0),
                kernels.len()
            )));
        }
        let mut kernel_names = Vec::new();
        for kernel in &kernels {
            let manifest = &kernel.manifest;
            let arguments = function.arguments.len() as i64;
            let bad_binding = manifest
                .bindings
                .iter()
                .flatten()
                .any(|binding| binding.host_argument < 0 || binding.host_argument >= arguments);
            let host_scalar = manifest.grid.iter().any(reads_host_scalar)
                || manifest.params.iter().flatten().any(|param| match &param.kind {
                    tile_manifest::ParamKind::Scalar { value, .. } => reads_host_scalar(value),
                    tile_manifest::ParamKind::TensorMap { host_argument, .. }
                    | tile_manifest::ParamKind::Memref { host_argument, .. } => {
                        *host_argument < 0 || *host_argument >= arguments
                    }
                });
            if bad_binding || host_scalar || (manifest.bindings.is_none() && manifest.params.is_none()) {
                let _ = std::fs::remove_dir_all(&case);
                return Ok(CaseOutcome::Skipped(format!(
                    "kernel {} binds a buffer that is no host argument, or a host scalar",
                    kernel.name
                )));
            }
            let tile_compiler::Code::Ptx(ptx) = &kernel.code else {
                return Err(format!("{name}: kernel {} has no PTX", kernel.name));
            };
            write(&format!("{}.ptx", kernel.name), ptx.as_bytes())?;
            write(&format!("{}.json", kernel.name), manifest.to_json().as_bytes())?;
            kernel_names.push(kernel.name.clone());
        }
        let inputs = tile_run::buffers(function, &mut random, 256);
        let mut interpreted = inputs.clone();
        interp
            .run(&function.name, &mut interpreted)
            .map_err(|error| format!("{name}: the interpreter stopped: {}", error.diagnostic()))?;
        let mut cpu_results = None;
        if let Some(program) = &cpu_program {
            let mut data = inputs.clone();
            program.run(&function.name, &mut data)?;
            cpu_results = Some(data);
        }
        let mut arguments = Vec::new();
        for (index, argument) in function.arguments.iter().enumerate() {
            let stem = format!("{}.arg{index}", function.name);
            let mut entry = json!({
                "element": argument.element.to_string(),
                "shape": inputs[index].shape,
                "written": argument.output,
                "tolerance": tile_run::tolerance(argument.element),
            });
            if argument.output {
                // tile-run's poison: NaN for floats, 0 for integers (see tile_run::buffers).
                entry["fill"] = json!(if argument.element.is_float() { "nan" } else { "zero" });
                write(&format!("{stem}.interp.bin"), interpreted[index].clone().bytes_mut())?;
                entry["interp"] = json!(format!("{stem}.interp.bin"));
                if let Some(data) = &mut cpu_results {
                    write(&format!("{stem}.cpu.bin"), data[index].bytes_mut())?;
                    entry["cpu"] = json!(format!("{stem}.cpu.bin"));
                }
            } else {
                write(&format!("{stem}.in.bin"), inputs[index].clone().bytes_mut())?;
                entry["input"] = json!(format!("{stem}.in.bin"));
            }
            arguments.push(entry);
        }
        described.push(json!({
            "name": function.name,
            "kernels": kernel_names,
            "arguments": arguments,
        }));
    }
    let index = json!({
        "name": name,
        "summary": summary,
        "input_seed": input_seed,
        "functions": described,
    });
    write(
        "case.json",
        serde_json::to_string_pretty(&index).unwrap_or_default().as_bytes(),
    )?;
    Ok(CaseOutcome::Written)
}

/// Writes the sm_90a cases of generated programs `0..count` of `seed` into `directory` (see
/// [`write_gpu_case`]; the inputs of program `i` come from seed `i + 1`) and `index.json`, which
/// lists the written cases and the skipped ones with their reasons. Returns (written, skipped,
/// failures): a failure is a program the interpreter (or the CPU reference) could not run.
pub fn write_gpu_cases(
    directory: &std::path::Path,
    seed: u64,
    count: u64,
    cpu: bool,
    mut progress: impl FnMut(u64, &str),
) -> Result<(usize, usize, Vec<String>), String> {
    std::fs::create_dir_all(directory).map_err(|e| format!("{}: {e}", directory.display()))?;
    let (mut cases, mut skipped, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for index in 0..count {
        let program = program(seed, index);
        let name = format!("s{seed}-{index:05}");
        match write_gpu_case(directory, &name, &program.text, &program.summary, index + 1, cpu) {
            Ok(CaseOutcome::Written) => cases.push(name.clone()),
            Ok(CaseOutcome::Skipped(reason)) => {
                progress(index, &format!("{name}: skipped: {reason}"));
                skipped.push(serde_json::json!({ "name": name, "reason": reason }));
            }
            Err(message) => {
                progress(index, &format!("{name}: FAILED: {message}"));
                failures.push(format!("{message}\n--- program ---\n{}", program.text));
                skipped.push(serde_json::json!({ "name": name, "reason": format!("preparation failed: {message}") }));
            }
        }
        if index % 50 == 49 {
            progress(index, &format!("{} programs prepared", index + 1));
        }
    }
    let index = serde_json::json!({
        "generator": "tile_tests::generate::program",
        "seed": seed,
        "programs": count,
        "target": "sm_90a",
        "cpu_results": cpu,
        "cases": cases,
        "skipped": skipped,
    });
    std::fs::write(
        directory.join("index.json"),
        serde_json::to_string_pretty(&index).unwrap_or_default(),
    )
    .map_err(|e| format!("{}: {e}", directory.display()))?;
    Ok((cases.len(), skipped.len(), failures))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_reproducible_and_differ() {
        assert_eq!(program(1, 3).text, program(1, 3).text);
        assert_ne!(program(1, 3).text, program(1, 4).text);
    }

    #[test]
    fn checksums_are_read_from_tile_run_output() {
        let out = "@f ran\n  output %arg1 [4, 4] f32: checksum 1.500000, 0 unwritten, first [1]\n";
        assert_eq!(checksums(out), [1.5]);
    }
}
