//! The sm_90a side of generated programs: each program's case for the GPU machine (its kernels'
//! PTX and launch manifests, its inputs, the interpreter's outputs and the tolerance of each
//! comparison), replayed there by `bench/generated_check.py`.

use super::program;

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

/// Returns true when `function` launches `kernel`: its manifest names the host function, or (the
/// GEMM template's tensor-core manifests name none) its entry is `<function>_<n>_kernel`, the
/// name the lowering gives a function's n-th kernel.
fn launched_by(kernel: &tile_compiler::Kernel, function: &str) -> bool {
    match kernel.manifest.host_function.as_deref() {
        Some(host) => host == function,
        None => kernel
            .name
            .strip_prefix(function)
            .and_then(|rest| rest.strip_prefix('_'))
            .and_then(|rest| rest.strip_suffix("_kernel"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
    }
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
/// `tile-run --seed` fills them, and so do arguments only updated atomically; written arguments
/// start as NaN, or 0 for integers) and the
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
    write_case(directory, name, text, summary, input_seed, cpu, &tile_run::tolerance)
}

/// The least tolerance of the outputs of a program whose gemms multiply 8-bit float tiles: Hopper's
/// wgmma sums their products in about 14 bits of mantissa, truncated, and on uniform inputs in
/// [-1, 1) the outputs of a K = 640 product stray up to 1.2e-2 from exact sums (RESULTS run 107;
/// bench.py checks such kernels for equality on integer inputs instead).
const F8_PRODUCT_TOLERANCE: f64 = 3e-2;

/// Whether a gemm of `module` multiplies 8-bit float tiles.
fn multiplies_f8(module: &melior::ir::Module) -> bool {
    use melior::ir::{ShapedTypeLike, ValueLike, operation::OperationLike};
    use tile_dialect::element::Element;
    tile_dialect::ops::find_ops(module.as_operation(), "tile.gemm")
        .iter()
        .any(|gemm| {
            let a = gemm
                .operand(0)
                .ok()
                .and_then(|a| tile_dialect::ops::as_memref(a.r#type()));
            a.is_some_and(|memref| Element::of(memref.element()).is_some_and(Element::is_f8))
        })
}

/// [`write_gpu_case`] with the comparison's tolerance for an output of each element type (at
/// least [`F8_PRODUCT_TOLERANCE`] in a program whose gemms multiply 8-bit float tiles).
fn write_case(
    directory: &std::path::Path,
    name: &str,
    text: &str,
    summary: &str,
    input_seed: u64,
    cpu: bool,
    tolerance: &dyn Fn(tile_dialect::element::Element) -> f64,
) -> Result<CaseOutcome, String> {
    use melior::ir::{BlockLike, Module, RegionLike, operation::OperationLike};
    use serde_json::json;

    let context = tile_run::context();
    let parse = || Module::parse(&context, text).ok_or_else(|| format!("{name}: the program does not parse"));
    let module = parse()?;
    let f8_products = multiplies_f8(&module);
    let tolerance = |element| {
        if f8_products {
            tolerance(element).max(F8_PRODUCT_TOLERANCE)
        } else {
            tolerance(element)
        }
    };
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
        Err(error @ (tile_compiler::Error::Lowering { .. } | tile_compiler::Error::CodeGeneration { .. })) => {
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
            .filter(|kernel| launched_by(kernel, &function.name))
            .collect();
        // A launch of a memory-bound kernel compiles to two: its twin for tensors on 16-byte
        // boundaries and itself, each under a condition on the tensors' addresses.
        let twins = kernels
            .iter()
            .filter(|kernel| {
                kernel
                    .manifest
                    .when
                    .as_ref()
                    .is_some_and(tile_manifest::Expr::reads_addresses)
            })
            .count();
        if kernels.len() - twins / 2 != launches.get(&function.name).copied().unwrap_or(0) {
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
                "tolerance": tolerance(argument.element),
            });
            if argument.input {
                write(&format!("{stem}.in.bin"), inputs[index].clone().bytes_mut())?;
                entry["input"] = json!(format!("{stem}.in.bin"));
            }
            if argument.output {
                if !argument.input {
                    // tile-run's poison: NaN for floats, 0 for integers (see tile_run::buffers).
                    entry["fill"] = json!(if argument.element.is_float() { "nan" } else { "zero" });
                }
                write(&format!("{stem}.interp.bin"), interpreted[index].clone().bytes_mut())?;
                entry["interp"] = json!(format!("{stem}.interp.bin"));
                if let Some(data) = &mut cpu_results {
                    write(&format!("{stem}.cpu.bin"), data[index].bytes_mut())?;
                    entry["cpu"] = json!(format!("{stem}.cpu.bin"));
                }
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

/// Writes the sm_90a cases of generated programs `start..start + count` of `seed` into `directory` (see
/// [`write_gpu_case`]; the inputs of program `i` come from seed `i + 1`, each output's tolerance
/// is the program's, [`super::Program::tolerance`]) and `index.json`, which
/// lists the written cases and the skipped ones with their reasons. Returns (written, skipped,
/// failures): a failure is a program the interpreter (or the CPU reference) could not run.
pub fn write_gpu_cases(
    directory: &std::path::Path,
    seed: u64,
    start: u64,
    count: u64,
    cpu: bool,
    mut progress: impl FnMut(u64, &str),
) -> Result<(usize, usize, Vec<String>), String> {
    std::fs::create_dir_all(directory).map_err(|e| format!("{}: {e}", directory.display()))?;
    let mut log = Cases::default();
    for index in start..start + count {
        let program = program(seed, index);
        let name = format!("s{seed}-{index:05}");
        let tolerance = |element| program.tolerance(element);
        let outcome = write_case(
            directory,
            &name,
            &program.text,
            &program.summary,
            index + 1,
            cpu,
            &tolerance,
        );
        log.record(name, outcome, &program.text, |line| progress(index, line));
        if index % 50 == 49 {
            progress(index, &format!("{} programs prepared", index + 1));
        }
    }
    log.finish(
        directory,
        cpu,
        serde_json::json!({
            "generator": "tile_tests::generate::program",
            "seed": seed,
            "start": start,
            "programs": count,
        }),
    )
}

/// Writes the sm_90a case of each program file of `programs` (named by its file stem; inputs of
/// seed 1, `tile-run --check`'s tolerance by element type) into `directory`, as
/// [`write_gpu_cases`] does for generated programs: any program `tile-run` can replay, checked on
/// the GPU machine against the interpreter. Returns the cases written, skipped and the failures.
pub fn write_program_cases(
    directory: &std::path::Path,
    programs: &[std::path::PathBuf],
    cpu: bool,
    mut progress: impl FnMut(&str),
) -> Result<(usize, usize, Vec<String>), String> {
    std::fs::create_dir_all(directory).map_err(|e| format!("{}: {e}", directory.display()))?;
    let mut log = Cases::default();
    for path in programs {
        let name = path
            .file_stem()
            .map_or_else(|| "program".to_owned(), |stem| stem.to_string_lossy().into_owned());
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let outcome = write_gpu_case(directory, &name, &text, &path.display().to_string(), 1, cpu);
        log.record(name, outcome, &text, &mut progress);
    }
    log.finish(directory, cpu, serde_json::json!({ "generator": "program files" }))
}

/// What a case writer did with each program: the cases written, the skipped ones with their reason
/// (as `index.json` lists them), and the failures with the program's text.
#[derive(Default)]
struct Cases {
    cases: Vec<String>,
    skipped: Vec<serde_json::Value>,
    failures: Vec<String>,
}

impl Cases {
    /// Records program `name` (`text`), whose case `outcome` was, telling `progress` of a skip or a
    /// failure.
    fn record(
        &mut self,
        name: String,
        outcome: Result<CaseOutcome, String>,
        text: &str,
        mut progress: impl FnMut(&str),
    ) {
        match outcome {
            Ok(CaseOutcome::Written) => self.cases.push(name),
            Ok(CaseOutcome::Skipped(reason)) => {
                progress(&format!("{name}: skipped: {reason}"));
                self.skipped.push(serde_json::json!({ "name": name, "reason": reason }));
            }
            Err(message) => {
                progress(&format!("{name}: FAILED: {message}"));
                self.failures.push(format!("{message}\n--- program ---\n{text}"));
                self.skipped
                    .push(serde_json::json!({ "name": name, "reason": format!("preparation failed: {message}") }));
            }
        }
    }

    /// Writes `directory`'s `index.json`: `index` (the writer's own fields) with the target,
    /// whether the CPU reference's results are there (`cpu`), the cases and the skipped programs.
    /// Returns (written, skipped, failures).
    fn finish(
        self,
        directory: &std::path::Path,
        cpu: bool,
        mut index: serde_json::Value,
    ) -> Result<(usize, usize, Vec<String>), String> {
        index["target"] = "sm_90a".into();
        index["cpu_results"] = cpu.into();
        let counts = (self.cases.len(), self.skipped.len());
        index["cases"] = self.cases.into();
        index["skipped"] = self.skipped.into();
        std::fs::write(
            directory.join("index.json"),
            serde_json::to_string_pretty(&index).unwrap_or_default(),
        )
        .map_err(|e| format!("{}: {e}", directory.display()))?;
        Ok((counts.0, counts.1, self.failures))
    }
}
