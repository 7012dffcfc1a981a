//! The embedding templates, built and run from a clean folder as a user would: the Rust crate in
//! `examples/embed-rust/` (its own `.cargo/config.toml`, none of the repository's settings in the
//! environment) and the C program in `examples/embed-c/` (its `build.sh`).

mod common;

use std::{path::Path, process::Command};

/// The variables the repository's `.cargo/config.toml` sets, which the outer `cargo test` hands to
/// this test: removed, so that the template's own configuration is what the build reads.
fn configured_variables() -> Vec<String> {
    let config = std::fs::read_to_string(common::repo_root().join(".cargo/config.toml")).unwrap();
    let env = config.split("[env]").nth(1).expect("an [env] table");
    let table = env.split("\n[").next().unwrap_or_default();
    table
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name.trim().to_owned()))
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .collect()
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn the_rust_template_carries_the_repository_build_settings() {
    let root = common::repo_root();
    let ours = std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap();
    let template = std::fs::read_to_string(root.join("examples/embed-rust/.cargo/config.toml")).unwrap();
    assert_eq!(
        ours, template,
        "examples/embed-rust/.cargo/config.toml must be the repository's .cargo/config.toml"
    );
}

#[test]
fn the_rust_template_builds_from_a_clean_folder_and_compiles_a_program() {
    let root = common::repo_root();
    let bin = common::build_tools(&["tile-compile"]);
    let scratch = tempfile::tempdir().unwrap();
    let crate_dir = scratch.path().join("embed-rust");
    copy_folder(&root.join("examples/embed-rust"), &crate_dir);
    // The template points at the repository two folders up; from elsewhere, at its checkout.
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let manifest = manifest.replace("\"../../", &format!("\"{}/", root.display()));
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
    // The repository's lock file pins what the registry cache holds (the build runs offline).
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(&crate_dir)
        .args(["build", "--offline", "--quiet"])
        // The repository's target folder (the profile this test runs in): what the tools' build left
        // there is reused.
        .env("CARGO_TARGET_DIR", bin.parent().unwrap());
    if bin.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    for variable in configured_variables() {
        build.env_remove(variable);
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "the template crate did not build");
    let run = |program: &str, target: &str| {
        Command::new(bin.join("tile-embed-example"))
            .current_dir(&root)
            .args([program, target])
            .output()
            .expect("the template's binary starts")
    };
    let output = run("examples/softmax.mlir", "sm_90a");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("softmax_0_kernel: ")
            && stdout.contains(" bytes of .ptx for sm_90a, grid 1024 x 1 x 1, 2 bindings"),
        "{stdout}"
    );
    // A program the target refuses: the located error, status 1.
    let output = run("examples/gemm_dynamic.mlir", "spirv");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("examples/gemm_dynamic.mlir:17:3: error:"));
}

#[test]
fn the_c_template_builds_with_its_script_and_compiles_a_program() {
    let root = common::repo_root();
    let bin = common::build_tools(&["tile-plugin"]);
    let scratch = tempfile::tempdir().unwrap();
    let folder = scratch.path().join("embed-c");
    copy_folder(&root.join("examples/embed-c"), &folder);
    let program = scratch.path().join("tile-compile-c");
    let status = Command::new("bash")
        .arg(folder.join("build.sh"))
        .arg(&program)
        .env("TILE_ROOT", &root)
        .env("TILE_LIB", &bin)
        .status()
        .expect("bash runs");
    assert!(status.success(), "examples/embed-c/build.sh failed");
    let output = Command::new(&program)
        .current_dir(&root)
        .args(["examples/softmax.mlir", "spirv"])
        .output()
        .expect("the C program starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.starts_with("softmax_0_kernel: ") && stdout.contains(" bytes for spirv, manifest "),
        "{stdout}"
    );
    let output = Command::new(&program)
        .current_dir(&root)
        .args(["examples/gemm_dynamic.mlir", "spirv"])
        .output()
        .expect("the C program starts");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("examples/gemm_dynamic.mlir:17:3: error:"));
}
