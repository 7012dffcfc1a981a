//! Runs the lit suite (`lit/`) with LLVM 22's lit, against the binaries of this build profile, so that
//! `cargo test` runs every test.

mod common;

use std::process::Command;

#[test]
fn lit_suite_passes() {
    let root = common::repo_root();
    // `cargo test` builds the test targets; make sure the driver and the plugin of this profile exist
    // and are current.
    let bin = common::build_tools(&["tile-opt", "tile-compile", "tile-run", "tile-plugin"]);

    let output = Command::new("/usr/lib/llvm-22/bin/lit")
        .current_dir(&root)
        .arg("-sv")
        .arg(format!("-Dtile_bin_dir={}", bin.display()))
        .arg("lit")
        .output()
        .expect("lit runs (install llvm-22-tools)");
    let report = String::from_utf8_lossy(&output.stdout);
    println!("{report}{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "lit tests failed (see above)");
    // "Passed: N", or "Passed           : N" when lit aligns it with other counts (an expected
    // failure, say).
    let passed = report.lines().find(|line| {
        line.trim_start()
            .strip_prefix("Passed")
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    });
    assert!(passed.is_some(), "lit ran no test");
    // Shown in cargo's output even without --nocapture.
    eprintln!("lit suite: {}", passed.unwrap_or_default().trim());
}
