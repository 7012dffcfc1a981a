//! Runs the lit suite (`lit/`) with LLVM 22's lit, against the binaries of this build profile, so that
//! `cargo test` runs every test.

mod common;

use std::process::Command;

/// Returns `target/<profile>`: test binaries live in `target/<profile>/deps/`.
fn profile_dir() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .into()
}

#[test]
fn lit_suite_passes() {
    let root = common::repo_root();
    let bin = profile_dir();
    // `cargo test` builds the test targets; make sure the driver and the plugin of this profile exist
    // and are current.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.current_dir(&root).args([
        "build",
        "-p",
        "tile-opt",
        "-p",
        "tile-compile",
        "-p",
        "tile-run",
        "-p",
        "tile-plugin",
    ]);
    if bin.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "building tile-opt and the plugin failed"
    );

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
    let passed = report
        .lines()
        .find(|line| line.trim_start().starts_with("Passed:"));
    assert!(passed.is_some(), "lit ran no test");
    // Shown in cargo's output even without --nocapture.
    eprintln!("lit suite: {}", passed.unwrap_or_default().trim());
}
