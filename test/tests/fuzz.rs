//! A bounded, seeded run of the mutation fuzzer (`tile_tests::fuzz`): 250 mutants of the lit inputs,
//! examples and test programs through `tile-opt`, `tile-compile` (every target) and `tile-run` (CPU,
//! and Vulkan against the CPU), each of which must keep the tools' contract. The longer run is
//! `target/debug/tile-fuzz --seed N --runs 10000` (docs/testing.md).

mod common;

use std::time::Duration;
use tile_tests::fuzz;

/// The seed and the number of cases of the run `cargo test` makes (about a minute in a debug build
/// on two cores).
const SEED: u64 = 2026;
const RUNS: u64 = 250;

#[test]
fn mutants_keep_the_contract() {
    let root = common::repo_root();
    let bin = common::build_tools(&["tile-opt", "tile-compile", "tile-run"]);

    let work = std::env::temp_dir().join(format!("tile-fuzz-test-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("scratch folder");
    let runner = fuzz::Runner {
        bin,
        work: work.clone(),
        timeout: Duration::from_secs(90),
        only: None,
    };
    let mut seeds = fuzz::corpus(&root);
    fuzz::mark_valid(&runner, &mut seeds);
    assert!(
        seeds.iter().filter(|seed| seed.valid).count() > 50,
        "too few valid seed inputs"
    );
    // A mutant that the targets disagree on and whose behaviour the interpreter finds undefined
    // (it reads a tile nothing wrote, ...) is no failure, and neither is a Vulkan difference only at
    // elements the reference holds as NaN or an infinity.
    let (excused, failures): (Vec<_>, Vec<_>) = fuzz::fuzz(&runner, &seeds, SEED, RUNS, 2, |_| {})
        .into_iter()
        .partition(fuzz::Failure::is_excused);
    for failure in &excused {
        eprintln!(
            "{} (case {}, {}): {}",
            failure.verdict.0, failure.case, failure.origin, failure.verdict.1
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    let report: Vec<String> = fuzz::distinct(&failures)
        .iter()
        .map(|failure| {
            format!(
                "case {} ({}): {}\n  {}\n--- mutant ---\n{}",
                failure.case,
                failure.origin,
                failure.signature(),
                failure.verdict.1,
                failure.text
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {RUNS} runs broke the contract (reproduce: target/debug/tile-fuzz --seed {SEED} --runs {RUNS}):\n{}",
        failures.len(),
        report.join("\n\n")
    );
    eprintln!("fuzz: {RUNS} runs of seed {SEED} kept the contract");
}
