//! The differential check of one generated program, in this process: the reference interpreter
//! runs it on seeded inputs (the oracle), then the CPU reference and Vulkan (lavapipe) run it on
//! the same inputs, and every element of every output must agree with the interpreter's within
//! [`Program::tolerance`]. A target that refuses the program with a located error (bf16 or too
//! much shared memory on SPIR-V) is skipped, with the error as the reason; a program the
//! interpreter cannot run (or that does not verify) is a failure of the program itself.
//!
//! `tile-fuzz --generate` runs each check in a child process (`tile-fuzz --check-one`), so that a
//! crash or a hang is a failure of that program, not of the run; the child prints one
//! [`Outcome::line`] per target.

use super::Program;
use std::{cell::RefCell, path::Path, rc::Rc};

/// What became of one program on one target.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every output element agrees with the interpreter's; the worst relative error.
    Pass(f64),
    /// Why not: the first differing elements, or the failed compilation or run.
    Fail(String),
    /// The target refused the program with a located error: the error.
    Skipped(String),
}

impl Verdict {
    /// Returns the verdict's word: `pass`, `FAIL` or `skipped`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Pass(_) => "pass",
            Verdict::Fail(_) => "FAIL",
            Verdict::Skipped(_) => "skipped",
        }
    }
}

/// The verdicts of one program on the CPU reference, on Vulkan, and after sm_90a's loop
/// decisions.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The CPU reference against the interpreter.
    pub cpu: Verdict,
    /// Vulkan (lavapipe, the plain SPIR-V strategy) against the interpreter.
    pub vulkan: Verdict,
    /// The program as sm_90a's loop decisions rewrite it in tile IR (layouts, split and
    /// persistent kernels, rings with producer warpgroups), on the interpreter, against the
    /// interpreter on the program.
    pub decided: Verdict,
}

/// The passes that decide a target's loops before its lowering, in tile IR: matmuls' kernels,
/// layouts, split and persistent kernels, each loop's plan and its rings (the module's
/// `tile.target` says whose).
pub const DECISIONS: &str = "builtin.module(tile-expand-matmuls, tile-infer-layouts, tile-split-k, tile-persistent-kernels, tile-plan-pipelines, tile-expand-pipelines)";

impl Outcome {
    /// Returns the outcome as three lines, `CPU <word> <detail>`, `VULKAN <word> <detail>` and
    /// `DECIDED <word> <detail>` (details on one line), which [`Outcome::parse`] reads back.
    pub fn lines(&self) -> String {
        let line = |target: &str, verdict: &Verdict| {
            let detail = match verdict {
                Verdict::Pass(worst) => format!("{worst:e}"),
                Verdict::Fail(why) | Verdict::Skipped(why) => why.replace('\n', " | "),
            };
            format!("{target} {} {detail}\n", verdict.word())
        };
        format!(
            "{}{}{}",
            line("CPU", &self.cpu),
            line("VULKAN", &self.vulkan),
            line("DECIDED", &self.decided)
        )
    }

    /// Reads the outcome from a child's output; `None` when a line is missing.
    pub fn parse(output: &str) -> Option<Self> {
        let verdict = |target: &str| {
            let line = output
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{target} ")))?;
            let (word, detail) = line.split_once(' ').unwrap_or((line, ""));
            Some(match word {
                "pass" => Verdict::Pass(detail.parse().unwrap_or(0.0)),
                "skipped" => Verdict::Skipped(detail.to_owned()),
                _ => Verdict::Fail(detail.to_owned()),
            })
        };
        Some(Self {
            cpu: verdict("CPU")?,
            vulkan: verdict("VULKAN")?,
            decided: verdict("DECIDED")?,
        })
    }
}

/// Compares every output of `function` in `data` with the interpreter's `reference`, whose error
/// `bounds` (one list per argument) excuse differences that the magnitudes of an element's terms
/// allow ([`tile_run::compare_bounded`]).
fn compare(
    program: &Program,
    function: &tile_run::Function,
    data: &[tile_run::buffer::Buffer],
    reference: &[tile_run::buffer::Buffer],
    bounds: &[Vec<f64>],
) -> Verdict {
    let mut worst: f64 = 0.0;
    for (index, argument) in function.arguments.iter().enumerate().filter(|(_, a)| a.output) {
        let bound = program.tolerance(argument.element);
        let (error, mismatches) = tile_run::compare_bounded(&data[index], &reference[index], bound, &bounds[index]);
        worst = worst.max(error);
        if !mismatches.is_empty() {
            let shape = &reference[index].shape;
            let at = |element: usize| {
                let mut rest = element;
                let mut indices = vec![0; shape.len()];
                for (dim, size) in shape.iter().enumerate().rev() {
                    indices[dim] = rest % size;
                    rest /= size;
                }
                format!("{indices:?}")
            };
            let first: Vec<String> = mismatches
                .iter()
                .map(|(element, got, expected)| format!("{} got {got}, interpreter {expected}", at(*element)))
                .collect();
            return Verdict::Fail(format!(
                "output %arg{index} ({}, tolerance {bound:.1e}): worst relative error {error:.3e}; {}",
                argument.element,
                first.join("; ")
            ));
        }
    }
    Verdict::Pass(worst)
}

/// Checks `program`, written at `path`, on inputs from `input_seed` (see the module docs); `Err`
/// when the program itself cannot be run (it does not verify, or the interpreter stops).
/// `vulkan` is the device to run on (`None`: Vulkan is skipped, no device).
pub fn check(
    program: &Program,
    path: &Path,
    input_seed: u64,
    vulkan: Option<&tile_run::Vulkan>,
) -> Result<Outcome, String> {
    let context = tile_run::context();
    let messages: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = messages.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut()
            .push(tile_dialect::diagnostics::format_diagnostic(&diagnostic));
        true
    });
    let errors = || {
        let all = messages.borrow();
        let errors: Vec<&String> = all.iter().filter(|m| m.contains("error")).collect();
        let chosen = if errors.is_empty() {
            all.iter().collect()
        } else {
            errors
        };
        chosen
            .iter()
            .map(|m| m.lines().next().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let path_text = path.to_string_lossy().into_owned();
    let parse = || tile_dialect::driver::parse_file(&context, &path_text);
    let module = parse().ok_or_else(|| format!("the program does not parse or verify: {}", errors()))?;
    let functions = tile_run::host_functions(&module).map_err(|e| format!("{e}: {}", errors()))?;
    let interp = tile_run::InterpProgram::new(&module);
    let cpu = {
        let mut module = parse().ok_or("the program does not parse again")?;
        tile_run::CpuProgram::compile(&context, &mut module).map_err(|e| format!("{e}: {}", errors()))
    };
    // sm_90a's decisions, in tile IR: a refusal (a schedule the target cannot build) is the
    // program's, located; a pass failing otherwise is a failure.
    messages.borrow_mut().clear();
    let decided = {
        let mut module = parse().ok_or("the program does not parse again")?;
        let target = melior::ir::attribute::StringAttribute::new(&context, "sm_90a");
        melior::ir::operation::OperationMutLike::set_attribute(
            &mut module.as_operation_mut(),
            "tile.target",
            target.into(),
        );
        let manager = tile_dialect::driver::pass_manager(&context, DECISIONS)?;
        manager.run(&mut module).map(|_| module).map_err(|_| errors())
    };
    messages.borrow_mut().clear();
    let gpu = vulkan.map(|_| {
        let mut module = parse().ok_or("the program does not parse again")?;
        tile_run::VulkanProgram::compile(&context, &mut module, "spirv").map_err(|e| format!("{e}: {}", errors()))
    });
    let mut random = tile_run::buffer::Random::new(input_seed);
    let mut outcome = Outcome {
        cpu: Verdict::Pass(0.0),
        vulkan: match (&gpu, vulkan) {
            (_, None) => Verdict::Skipped("no Vulkan device".into()),
            // A refusal must be located in the program; anything else is a failure.
            (Some(Err(refusal)), _) if refusal.contains(".mlir:") => Verdict::Skipped(refusal.clone()),
            (Some(Err(refusal)), _) => {
                Verdict::Fail(format!("SPIR-V compilation failed without a located error: {refusal}"))
            }
            _ => Verdict::Pass(0.0),
        },
        decided: match &decided {
            Ok(_) => Verdict::Pass(0.0),
            Err(refusal) if refusal.contains(".mlir:") && refusal.contains("error") => {
                Verdict::Skipped(refusal.clone())
            }
            Err(failure) => Verdict::Fail(format!(
                "sm_90a's loop decisions failed without a located error: {failure}"
            )),
        },
    };
    let decided = decided.ok().map(|module| {
        let program = tile_run::InterpProgram::new(&module);
        (module, program)
    });
    if let Err(why) = &cpu {
        outcome.cpu = Verdict::Fail(format!("the CPU reference cannot compile it: {why}"));
    }
    for function in &functions {
        let inputs = tile_run::buffers(function, &mut random, 256);
        let mut reference = inputs.clone();
        let bounds = interp
            .run_bounded(&function.name, &mut reference)
            .map_err(|error| format!("the interpreter stopped: {}", error.diagnostic()))?;
        let merge = |verdict: &mut Verdict, new: Verdict| {
            if let (Verdict::Pass(old), Verdict::Pass(worst)) = (&*verdict, &new) {
                *verdict = Verdict::Pass(old.max(*worst));
            } else if matches!(verdict, Verdict::Pass(_)) {
                *verdict = new;
            }
        };
        if let (Ok(program_cpu), Verdict::Pass(_)) = (&cpu, &outcome.cpu) {
            let mut data = inputs.clone();
            let verdict = match program_cpu.run(&function.name, &mut data) {
                Ok(()) => compare(program, function, &data, &reference, &bounds),
                Err(why) => Verdict::Fail(format!("the CPU run failed: {why}")),
            };
            merge(&mut outcome.cpu, verdict);
        }
        if let (Some((_, decided)), Verdict::Pass(_)) = (&decided, &outcome.decided) {
            let mut data = inputs.clone();
            let verdict = match decided.run(&function.name, &mut data) {
                Ok(()) => compare(program, function, &data, &reference, &bounds),
                Err(error) => Verdict::Fail(format!(
                    "the interpreter stopped on the decided program: {}",
                    error.diagnostic()
                )),
            };
            merge(&mut outcome.decided, verdict);
        }
        if let (Some(Ok(program_gpu)), Some(device), Verdict::Pass(_)) = (&gpu, vulkan, &outcome.vulkan) {
            let mut data = inputs.clone();
            let verdict = match program_gpu.run(device, &function.name, &mut data) {
                Ok(()) => compare(program, function, &data, &reference, &bounds),
                Err(why) => Verdict::Fail(format!("the Vulkan run failed: {why}")),
            };
            merge(&mut outcome.vulkan, verdict);
        }
    }
    Ok(outcome)
}
