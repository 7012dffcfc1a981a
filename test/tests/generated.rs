//! Differential runs of generated programs (`tile_tests::generate`): 30 valid programs (row
//! programs and GEMM kernels: gemms in either orientation, pipelined K loops over ragged N-D
//! tensors, chained gemms, epilogues reading other tensors), each run on the reference
//! interpreter, the CPU reference and Vulkan (lavapipe), every output element compared with the
//! interpreter's. Each runs in a `tile-fuzz --check-one` child. Longer:
//! `target/release/tile-fuzz --generate 1000 --seed N --jobs 2`.

mod common;

use std::time::Duration;
use tile_tests::generate::check::Verdict;

const SEED: u64 = 11;
const PROGRAMS: u64 = 30;

#[test]
fn generated_programs_agree_with_the_interpreter() {
    let bin = common::build_tools(&["tile-tests"]);
    let mut failures = Vec::new();
    let (mut gemms, mut pipelined, mut vulkan_runs) = (0, 0, 0);
    for index in 0..PROGRAMS {
        let (program, result) = tile_tests::check_generated(&bin, SEED, index, Duration::from_secs(600));
        gemms += usize::from(program.gemms > 0);
        pipelined += usize::from(program.pipelined > 0);
        if let Ok(outcome) = &result {
            vulkan_runs += usize::from(matches!(outcome.vulkan, Verdict::Pass(_)));
            // The CPU reference takes every program.
            if let Verdict::Skipped(why) = &outcome.cpu {
                failures.push(format!("program {index}: the CPU reference skipped it: {why}"));
            }
        }
        failures.extend(tile_tests::failure_report(SEED, index, &program, &result));
    }
    assert!(
        failures.is_empty(),
        "{} of {PROGRAMS} generated programs failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The mix covers both families, and most programs run on Vulkan (those with bf16 tiles or float
    // atomics are refused there).
    assert!(
        gemms >= 10 && pipelined >= 5 && gemms < PROGRAMS as usize,
        "{gemms} gemm programs, {pipelined} pipelined"
    );
    assert!(vulkan_runs >= 18, "only {vulkan_runs} programs ran on Vulkan");
    eprintln!(
        "generated: {PROGRAMS} programs of seed {SEED} ({gemms} with gemms, {pipelined} pipelined) agree with the interpreter"
    );
}
