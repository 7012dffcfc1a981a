//! The C header `launch/include/tile-c/TileLaunch.h`: a C program compiled against it and linked
//! with `libtile_launch.so` runs (dry-run kernels, no GPU), the header declares exactly the
//! functions `capi.rs` exports, its `TileLaunchArg` has the Rust layout, and it compiles as C++.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::Command,
};
use tile_launch::capi::TileLaunchArg;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder of this profile's `libtile_launch.so` (`target/<profile>`), built here: `cargo
/// test` builds the crate's library for its tests as an rlib only, so on a clean checkout the
/// shared library is not there yet.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf();
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build.current_dir(crate_dir()).args(["build", "-p", "tile-launch"]);
    if dir.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "building libtile_launch.so failed"
    );
    assert!(
        dir.join("libtile_launch.so").exists(),
        "{} has no libtile_launch.so",
        dir.display()
    );
    dir
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_c_program_compiles_links_and_runs_against_the_header() {
    let scratch = tempfile::tempdir().unwrap();
    let program = scratch.path().join("c_header");
    let lib = library_dir();
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(crate_dir().join("tests/c_header.c"))
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(format!("-L{}", lib.display()))
        .arg("-ltile_launch")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&program));
    let output = run(&mut Command::new(&program));
    let layout = format!(
        "layout: {} {} {} {} {} {} {} {}",
        size_of::<TileLaunchArg>(),
        std::mem::offset_of!(TileLaunchArg, kind),
        std::mem::offset_of!(TileLaunchArg, element),
        std::mem::offset_of!(TileLaunchArg, address),
        std::mem::offset_of!(TileLaunchArg, rank),
        std::mem::offset_of!(TileLaunchArg, shape),
        std::mem::offset_of!(TileLaunchArg, strides),
        std::mem::offset_of!(TileLaunchArg, value),
    );
    let expected = [
        layout.as_str(),
        "load spirv: refused, softmax_0_kernel: a kernel compiled for spirv is not launched through CUDA",
        "another compiler: refused, expects a kernel compiled by tile COMPILER, but got one compiled by tile 0.0.0; compile the kernel again",
        "check: 0",
        "check f16: 1, argument 1 (binding 1 of softmax_0_kernel): expects element type f32, but got f16",
        "dry run: loaded, device 0",
        "run: 0",
        "prepared run: 0",
        "prepare 24x32: refused, argument 0 (binding 0 of softmax_0_kernel): expects shape 24x64, but got 24x32",
        "run 24x32: 1, argument 0 (binding 0 of softmax_0_kernel): expects shape 24x64, but got 24x32",
        "prepared run after destroy: 0",
        "gemm: device 1, prepared",
        "gemm run: 0, last error \"\"",
        "gemm run unaligned: 1, argument 1 (B of gemm_0_kernel): expects a 16-byte aligned address, but got 0x600008",
    ]
    .join("\n")
    .replace("COMPILER", tile_manifest::COMPILER_VERSION);
    assert_eq!(output.trim_end(), expected);
}

#[test]
fn the_header_compiles_as_cpp() {
    let scratch = tempfile::tempdir().unwrap();
    let source = scratch.path().join("header.cpp");
    std::fs::write(
        &source,
        "#include \"tile-c/TileLaunch.h\"\nint main() { return tileLaunchLastError() == nullptr; }\n",
    )
    .unwrap();
    run(Command::new("c++")
        .args([
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
        ])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(&source));
}

/// The `tileLaunch*` names in `text` followed by `(`: declarations in the header, definitions in
/// the Rust source (`fn tileLaunchX(`).
fn functions(text: &str, prefix: &str) -> BTreeSet<String> {
    text.match_indices(prefix)
        .filter_map(|(start, _)| {
            let name: String = text[start + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            text[start + prefix.len() + name.len()..]
                .starts_with('(')
                .then(|| format!("tileLaunch{name}"))
        })
        .collect()
}

#[test]
fn the_header_declares_exactly_the_exported_functions() {
    let header = std::fs::read_to_string(crate_dir().join("include/tile-c/TileLaunch.h")).unwrap();
    let source = std::fs::read_to_string(crate_dir().join("src/capi.rs")).unwrap();
    let exported = functions(&source, "extern \"C\" fn tileLaunch");
    let declared = functions(&header, " *tileLaunch")
        .union(&functions(&header, " tileLaunch"))
        .cloned()
        .collect::<BTreeSet<_>>();
    assert!(exported.len() >= 11, "{exported:?}");
    assert_eq!(declared, exported);
}
