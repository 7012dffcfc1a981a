//! Runs the Python package's tests (`python/tests`, no GPU needed: compiling with the cache,
//! loading, the launcher's argument checks) against the libraries of this build profile.

mod common;

use std::process::Command;

#[test]
fn python_package_tests_pass() {
    let root = common::repo_root();
    let exe = std::env::current_exe().expect("test binary path");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(&root)
        .args(["build", "-p", "tile-launch", "-p", "tile-plugin"]);
    if bin.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "building the launcher and the plugin failed"
    );
    let output = Command::new("python3")
        .current_dir(&root)
        .env("TILE_LIB_DIR", &bin)
        .args(["-m", "unittest", "discover", "-s", "python/tests", "-v"])
        .output()
        .expect("python3 runs");
    let report = String::from_utf8_lossy(&output.stderr);
    println!("{report}");
    assert!(output.status.success(), "the Python package's tests failed (see above)");
}
