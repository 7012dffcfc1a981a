//! `tile-fuzz [--seed N] [--runs N] [--jobs N] [--timeout S] [--minimize N] [--out DIR]`: the
//! mutation fuzzer of `tile_tests::fuzz` over the tools next to this binary (`target/<profile>/`).
//! Prints each distinct failure with its case and seed, and writes it (and its minimized form) to
//! `--out` (default `target/fuzz/`). Mutants that Vulkan and the CPU reference disagree on and
//! whose behaviour the interpreter finds undefined are counted apart as undefined inputs (written,
//! unminimized, to `--out`/undefined/), and so are differences only at elements the CPU reference
//! holds as NaN or an infinity on programs it and the interpreter agree on (Vulkan need not produce
//! those; `--out`/non-finite/). A run is a hang when it uses more than `--timeout` seconds of CPU
//! time (default 60), or none at all for that long; one killed by the wall-clock backstop (ten times
//! that) under its CPU limit is inconclusive, counted apart (`--out`/inconclusive/), never a
//! failure (`tile_tests::watch`). Exit status 1 when any run broke the contract.
//!
//! `tile-fuzz --generate N [--seed N] [--start I] [--jobs N] [--timeout S]` runs generated programs
//! `I..I+N` of the seed instead (`tile_tests::generate`): each on the interpreter, the CPU reference
//! and Vulkan, in a child process (`tile-fuzz --check-one SEED INDEX`, which prints its verdicts),
//! compared element by element with the interpreter's results; it prints every failure with its
//! program and a summary (programs, gemms, pipelined loops, pass/fail/skipped per target, skip
//! reasons). Exit status 1 when a program failed. `tile-fuzz --print SEED INDEX` prints a program. With `--gpu-cases DIR [--with-cpu]` it writes each program's sm_90a case
//! (PTX, manifests, inputs, the interpreter's outputs) into DIR for `bench/generated_check.py` on
//! the GPU machine (`tile_tests::generate::write_gpu_cases`); `tile-fuzz --gpu-cases DIR [--with-cpu]
//! PROGRAM.mlir...` writes the cases of the given program files instead
//! (`tile_tests::generate::write_program_cases`).

use std::{path::PathBuf, process::ExitCode, time::Duration};
use tile_tests::fuzz;

const USAGE: &str = "usage: tile-fuzz [--seed N] [--runs N] [--jobs N] [--timeout S] [--minimize N] [--out DIR] [--only cpu|vulkan|TARGET] | tile-fuzz --generate N [--seed N] [--start I] [--jobs N] [--timeout S] [--gpu-cases DIR [--with-cpu]] | tile-fuzz --gpu-cases DIR [--with-cpu] PROGRAM.mlir... | tile-fuzz --check-one|--print SEED INDEX";

/// Prints what a case writer (`--gpu-cases`) did with `what` (its failures, then a summary) and
/// returns the exit status: 1 when a program failed to prepare.
fn report_cases(
    result: Result<(usize, usize, Vec<String>), String>,
    what: &str,
    directory: &std::path::Path,
) -> ExitCode {
    match result {
        Ok((written, skipped, failures)) => {
            for failure in &failures {
                println!("{failure}\n");
            }
            println!(
                "tile-fuzz: {what}: {written} sm_90a cases written to {}, {skipped} skipped ({} of them failed to prepare)",
                directory.display(),
                failures.len()
            );
            if failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let (mut seed, mut runs, mut jobs, mut timeout, mut budget) = (1u64, 1000u64, 2usize, 60u64, 200usize);
    let mut generate = None;
    let (mut start, mut jobs_given, mut check_one, mut print_only) = (0u64, false, None, false);
    let mut only = None;
    let (mut gpu_cases, mut with_cpu, mut files) = (None, false, Vec::new());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository")
        .to_path_buf();
    let mut out = root.join("target/fuzz");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        let parsed = match arg.as_str() {
            "--seed" => value().parse().map(|v| seed = v).is_ok(),
            "--runs" => value().parse().map(|v| runs = v).is_ok(),
            "--jobs" => value()
                .parse()
                .map(|v| {
                    jobs = v;
                    jobs_given = true;
                })
                .is_ok(),
            "--start" => value().parse().map(|v| start = v).is_ok(),
            "--check-one" | "--print" => {
                let (s, i) = (value().parse(), value().parse());
                print_only = arg == "--print";
                s.ok().zip(i.ok()).map(|pair| check_one = Some(pair)).is_some()
            }
            "--timeout" => value().parse().map(|v| timeout = v).is_ok(),
            "--minimize" => value().parse().map(|v| budget = v).is_ok(),
            "--only" => {
                only = match value().as_str() {
                    "cpu" => Some(fuzz::Tool::RunCpu),
                    "vulkan" => Some(fuzz::Tool::RunVulkanCheck),
                    target => fuzz::TARGETS
                        .iter()
                        .find(|t| **t == target)
                        .map(|t| fuzz::Tool::Compile(t)),
                };
                only.is_some()
            }
            "--generate" => value().parse().map(|v: u64| generate = Some(v)).is_ok(),
            "--gpu-cases" => {
                gpu_cases = Some(PathBuf::from(value()));
                true
            }
            "--with-cpu" => {
                with_cpu = true;
                true
            }
            "--out" => {
                out = PathBuf::from(value());
                true
            }
            file if file.ends_with(".mlir") => {
                files.push(PathBuf::from(file));
                true
            }
            _ => false,
        };
        if !parsed {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    let bin = std::env::current_exe()
        .expect("path")
        .parent()
        .expect("folder")
        .to_path_buf();
    let work = std::env::temp_dir().join(format!("tile-fuzz-{}", std::process::id()));
    if let (Some((seed, index)), true) = (check_one, print_only) {
        let program = tile_tests::generate::program(seed, index);
        // A reader that stops early (`| head`) is no failure of the program.
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "// {}\n{}", program.summary, program.text);
        return ExitCode::SUCCESS;
    }
    if let Some((seed, index)) = check_one {
        // One generated program, checked in this process; the parent reads the verdict lines.
        std::fs::create_dir_all(&work).expect("scratch folder");
        print!("{}", tile_tests::check_one(&work, seed, index));
        let _ = std::fs::remove_dir_all(&work);
        return ExitCode::SUCCESS;
    }
    std::fs::create_dir_all(&work).expect("scratch folder");
    std::fs::create_dir_all(&out).expect("output folder");
    if let (false, Some(directory)) = (files.is_empty(), &gpu_cases) {
        // The sm_90a cases of program files, for bench/generated_check.py on the GPU machine.
        let _ = std::fs::remove_dir_all(directory);
        let result =
            tile_tests::generate::write_program_cases(directory, &files, with_cpu, |line| eprintln!("  {line}"));
        let _ = std::fs::remove_dir_all(&work);
        return report_cases(result, &format!("{} programs", files.len()), directory);
    }
    if let (Some(programs), Some(directory)) = (generate, &gpu_cases) {
        // The sm_90a cases of generated programs, for bench/generated_check.py on the GPU machine.
        let started = std::time::Instant::now();
        let _ = std::fs::remove_dir_all(directory);
        let result = tile_tests::generate::write_gpu_cases(directory, seed, start, programs, with_cpu, |_, line| {
            eprintln!("  {line}");
        });
        let _ = std::fs::remove_dir_all(&work);
        let what = format!(
            "{programs} generated programs of seed {seed} in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        return report_cases(result, &what, directory);
    }
    if let Some(programs) = generate {
        // Differential runs of generated programs instead of mutants.
        let _ = std::fs::remove_dir_all(&work);
        let jobs = if jobs_given { jobs.max(1) } else { 1 };
        let timeout = Duration::from_secs(if timeout == 60 { 600 } else { timeout });
        let summary = generated_run(&bin, seed, start, programs, jobs, timeout);
        return if summary { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    let runner = fuzz::Runner {
        bin,
        work: work.clone(),
        timeout: Duration::from_secs(timeout),
        only,
    };
    let mut seeds = fuzz::corpus(&root);
    fuzz::mark_valid(&runner, &mut seeds);
    let started = std::time::Instant::now();
    eprintln!(
        "tile-fuzz: seed {seed}, {runs} runs over {} seed inputs ({} valid), {jobs} jobs",
        seeds.len(),
        seeds.iter().filter(|seed| seed.valid).count()
    );
    let failures = fuzz::fuzz(&runner, &seeds, seed, runs, jobs, |done| {
        if done % 100 == 0 {
            eprintln!("  {done} runs, {:.0} s", started.elapsed().as_secs_f64());
        }
    });
    // Mutants that targets disagree on and whose behaviour the interpreter finds undefined are
    // counted apart: kept (unminimized) for a look, never failures.
    let (excused, failures): (Vec<_>, Vec<_>) = failures.into_iter().partition(fuzz::Failure::is_excused);
    let (inconclusive, excused): (Vec<_>, Vec<_>) = excused.into_iter().partition(fuzz::Failure::is_inconclusive);
    let (undefined, non_finite): (Vec<_>, Vec<_>) = excused.into_iter().partition(fuzz::Failure::is_undefined_input);
    let distinct = fuzz::distinct(&failures);
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for failure in &undefined {
        *kinds.entry(failure.undefined_kind()).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(kind, count)| format!("{count} {kind}")).collect();
    println!(
        "tile-fuzz: seed {seed}, {runs} runs in {:.0} s ({} succeeded): {} failing runs, {} distinct; {} undefined inputs{}; {} Vulkan differences only at NaN or infinities; {} inconclusive (machine loaded)",
        started.elapsed().as_secs_f64(),
        fuzz::SUCCEEDED.load(std::sync::atomic::Ordering::Relaxed),
        failures.len(),
        distinct.len(),
        undefined.len(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        non_finite.len(),
        inconclusive.len()
    );
    if !inconclusive.is_empty() {
        let folder = out.join("inconclusive");
        let _ = std::fs::create_dir_all(&folder);
        for failure in &inconclusive {
            let path = folder.join(format!("seed{seed}-case{}.mlir", failure.case));
            let header = format!(
                "// {}: killed by the wall-clock backstop under its CPU-time limit: {}\n// from {} (seed {seed}, case {})\n",
                failure.tool.describe(),
                failure.verdict.1,
                failure.origin,
                failure.case
            );
            let _ = std::fs::write(&path, format!("{header}{}", failure.text));
        }
        println!(
            "  inconclusive runs (not failures; rerun them on a quiet machine): {}",
            folder.display()
        );
    }
    if !non_finite.is_empty() {
        let folder = out.join("non-finite");
        let _ = std::fs::create_dir_all(&folder);
        for failure in &non_finite {
            let path = folder.join(format!("seed{seed}-case{}.mlir", failure.case));
            let header = format!(
                "// {}: Vulkan differs only where the CPU reference (which the interpreter agrees with) holds NaN or an infinity:\n// {}\n// from {} (seed {seed}, case {})\n",
                failure.tool.describe(),
                failure.verdict.1.trim(),
                failure.origin,
                failure.case
            );
            let _ = std::fs::write(&path, format!("{header}{}", failure.text));
        }
        println!(
            "  Vulkan differences only at NaN or infinities (not failures): {}",
            folder.display()
        );
    }
    if !undefined.is_empty() {
        let folder = out.join("undefined");
        let _ = std::fs::create_dir_all(&folder);
        for failure in &undefined {
            let path = folder.join(format!("seed{seed}-case{}.mlir", failure.case));
            let header = format!(
                "// {}: Vulkan and the CPU reference differ; the interpreter:\n// {}\n// from {} (seed {seed}, case {})\n",
                failure.tool.describe(),
                failure.verdict.1.chars().take(400).collect::<String>(),
                failure.origin,
                failure.case
            );
            let _ = std::fs::write(&path, format!("{header}{}", failure.text));
        }
        println!(
            "  undefined inputs (not failures; the interpreter's error in each file's header): {}",
            folder.display()
        );
    }
    for failure in &distinct {
        let minimized = if budget > 0 {
            fuzz::minimize(&runner, failure, budget)
        } else {
            failure.text.clone()
        };
        let kind: String = failure
            .verdict
            .0
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = out.join(format!("seed{seed}-case{}-{kind}.mlir", failure.case));
        let header = format!(
            "// {}\n// verdict: {}: {}\n// from {} (seed {seed}, case {})\n",
            failure.tool.describe(),
            failure.verdict.0,
            failure.verdict.1.chars().take(300).collect::<String>(),
            failure.origin,
            failure.case
        );
        let _ = std::fs::write(&path, format!("{header}{minimized}"));
        let note = if failure.verdict.0 == fuzz::VULKAN_DIFFERS {
            " (a miscompile, or undefined behaviour the interpreter does not detect)"
        } else {
            ""
        };
        println!(
            "  {}{note}\n    {}\n    -> {}",
            failure.signature(),
            failure.verdict.1.chars().take(200).collect::<String>(),
            path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Per-target counts of a generated run.
#[derive(Default)]
struct Counts {
    pass: usize,
    fail: usize,
    skipped: usize,
    reasons: std::collections::BTreeMap<String, usize>,
}

impl Counts {
    fn add(&mut self, verdict: &tile_tests::generate::check::Verdict) {
        use tile_tests::generate::check::Verdict;
        match verdict {
            Verdict::Pass(_) => self.pass += 1,
            Verdict::Fail(_) => self.fail += 1,
            Verdict::Skipped(why) => {
                self.skipped += 1;
                // The reason without its location and numbers, so that like refusals count together.
                let message = why.split(" error: ").nth(1).unwrap_or(why);
                let key: String = message
                    .chars()
                    .take(90)
                    .map(|c| if c.is_ascii_digit() { '#' } else { c })
                    .collect();
                *self.reasons.entry(key).or_default() += 1;
            }
        }
    }

    fn line(&self) -> String {
        format!("{} pass, {} fail, {} skipped", self.pass, self.fail, self.skipped)
    }
}

/// Runs generated programs `start..start + programs` of `seed` on `jobs` threads, each program in
/// a child process; prints failures as they come and the summary at the end. Returns true when
/// none failed.
fn generated_run(bin: &std::path::Path, seed: u64, start: u64, programs: u64, jobs: usize, timeout: Duration) -> bool {
    use std::sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    };
    let started = std::time::Instant::now();
    let next = AtomicU64::new(start);
    let end = start + programs;
    #[derive(Default)]
    struct Totals {
        done: u64,
        gemms: usize,
        with_gemm: usize,
        two_gemms: usize,
        pipelined: usize,
        broken: usize,
        failed: Vec<u64>,
        /// The slowest checks: (seconds, index, summary).
        slowest: Vec<(f64, u64, String)>,
        cpu: Counts,
        vulkan: Counts,
        decided: Counts,
    }
    let totals = Mutex::new(Totals::default());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= end {
                        break;
                    }
                    let begun = std::time::Instant::now();
                    let (program, result) = tile_tests::check_generated(bin, seed, index, timeout);
                    let seconds = begun.elapsed().as_secs_f64();
                    let report = tile_tests::failure_report(seed, index, &program, &result);
                    let mut totals = totals.lock().expect("totals");
                    totals.done += 1;
                    totals.slowest.push((seconds, index, program.summary.clone()));
                    totals.slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
                    totals.slowest.truncate(5);
                    totals.gemms += program.gemms;
                    totals.with_gemm += usize::from(program.gemms > 0);
                    totals.two_gemms += usize::from(program.gemms > 1);
                    totals.pipelined += usize::from(program.pipelined > 0);
                    match &result {
                        Ok(outcome) => {
                            totals.cpu.add(&outcome.cpu);
                            totals.vulkan.add(&outcome.vulkan);
                            totals.decided.add(&outcome.decided);
                        }
                        Err(_) => {
                            totals.broken += 1;
                            totals.cpu.fail += 1;
                            totals.vulkan.fail += 1;
                            totals.decided.fail += 1;
                        }
                    }
                    if let Some(report) = report {
                        totals.failed.push(index);
                        println!("{report}\n");
                    }
                    if totals.done % 100 == 0 {
                        eprintln!(
                            "  {} programs, {:.0} s: CPU {}; Vulkan {}",
                            totals.done,
                            started.elapsed().as_secs_f64(),
                            totals.cpu.line(),
                            totals.vulkan.line()
                        );
                    }
                }
            });
        }
    });
    let totals = totals.into_inner().expect("totals");
    let mut failed = totals.failed.clone();
    failed.sort_unstable();
    println!(
        "tile-fuzz: generated programs {start}..{end} of seed {seed} in {:.0} s ({jobs} job(s)): {} programs, {} with a gemm ({} with two, {} gemms in all), {} with a pipelined loop",
        started.elapsed().as_secs_f64(),
        totals.done,
        totals.with_gemm,
        totals.two_gemms,
        totals.gemms,
        totals.pipelined
    );
    println!("  CPU reference vs interpreter: {}", totals.cpu.line());
    println!("  Vulkan (lavapipe) vs interpreter: {}", totals.vulkan.line());
    println!(
        "  sm_90a's loop decisions (tile IR, interpreter) vs interpreter: {}",
        totals.decided.line()
    );
    for (target, counts) in [
        ("CPU", &totals.cpu),
        ("Vulkan", &totals.vulkan),
        ("Decided", &totals.decided),
    ] {
        for (reason, count) in &counts.reasons {
            println!("  {target} skipped {count}x: {reason}");
        }
    }
    for (seconds, index, summary) in &totals.slowest {
        println!("  slow: program {index} took {seconds:.1} s ({summary})");
    }
    if totals.broken > 0 {
        println!(
            "  {} program(s) could not run at all (counted as failures on both targets)",
            totals.broken
        );
    }
    if !failed.is_empty() {
        println!("  failed: {failed:?}");
    }
    failed.is_empty()
}
