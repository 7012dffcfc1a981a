//! `tile-fuzz [--seed N] [--runs N] [--jobs N] [--timeout S] [--minimize N] [--out DIR]`: the
//! mutation fuzzer of `tile_tests::fuzz` over the tools next to this binary (`target/<profile>/`).
//! Prints each distinct failure with its case and seed, and writes it (and its minimized form) to
//! `--out` (default `target/fuzz/`). Exit status 1 when any run broke the contract.
//!
//! `tile-fuzz --generate N [--seed N]` runs generated programs on the CPU reference, Vulkan and the
//! interpreter instead; with `--gpu-cases DIR [--with-cpu]` it writes each program's sm_90a case
//! (PTX, manifests, inputs, the interpreter's outputs) into DIR for `bench/generated_check.py` on
//! the GPU machine (`tile_tests::generate::write_gpu_cases`).

use std::{path::PathBuf, process::ExitCode, time::Duration};
use tile_tests::fuzz;

const USAGE: &str = "usage: tile-fuzz [--seed N] [--runs N] [--jobs N] [--timeout S] [--minimize N] [--out DIR] [--only cpu|vulkan|TARGET] | tile-fuzz --generate N [--seed N] [--gpu-cases DIR [--with-cpu]]";

fn main() -> ExitCode {
    let (mut seed, mut runs, mut jobs, mut timeout, mut budget) =
        (1u64, 1000u64, 2usize, 60u64, 200usize);
    let mut generate = None;
    let mut only = None;
    let (mut gpu_cases, mut with_cpu) = (None, false);
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
            "--jobs" => value().parse().map(|v| jobs = v).is_ok(),
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
    std::fs::create_dir_all(&work).expect("scratch folder");
    std::fs::create_dir_all(&out).expect("output folder");
    if let (Some(programs), Some(directory)) = (generate, &gpu_cases) {
        // The sm_90a cases of generated programs, for bench/generated_check.py on the GPU machine.
        let started = std::time::Instant::now();
        let _ = std::fs::remove_dir_all(directory);
        let result = tile_tests::generate::write_gpu_cases(directory, seed, programs, with_cpu, |_, line| {
            eprintln!("  {line}");
        });
        let _ = std::fs::remove_dir_all(&work);
        return match result {
            Ok((written, skipped, failures)) => {
                for failure in &failures {
                    println!("{failure}\n");
                }
                println!(
                    "tile-fuzz: {programs} generated programs of seed {seed} in {:.0} s: {written} sm_90a cases written to {}, {skipped} skipped ({} of them failed to prepare)",
                    started.elapsed().as_secs_f64(),
                    directory.display(),
                    failures.len()
                );
                if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
            }
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(programs) = generate {
        // Differential runs of generated programs instead of mutants.
        let interp = tile_tests::generate::interp_available(&bin, &work);
        let started = std::time::Instant::now();
        let mut failed = 0;
        for index in 0..programs {
            if let Err(report) = tile_tests::check_generated(&bin, &work, seed, index, interp) {
                failed += 1;
                println!(
                    "{report}
"
                );
            }
        }
        println!(
            "tile-fuzz: {programs} generated programs of seed {seed} in {:.0} s (CPU vs Vulkan{}): {failed} failed",
            started.elapsed().as_secs_f64(),
            if interp { " vs interpreter" } else { "" }
        );
        let _ = std::fs::remove_dir_all(&work);
        return if failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
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
    let distinct = fuzz::distinct(&failures);
    println!(
        "tile-fuzz: seed {seed}, {runs} runs in {:.0} s ({} succeeded): {} failing runs, {} distinct",
        started.elapsed().as_secs_f64(),
        fuzz::SUCCEEDED.load(std::sync::atomic::Ordering::Relaxed),
        failures.len(),
        distinct.len()
    );
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
        let note = if failure.to_triage() {
            " (to triage: a miscompile, or a mutant reading a tile it never wrote)"
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
    if failures.iter().all(fuzz::Failure::to_triage) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
