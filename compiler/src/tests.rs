use super::*;
// The README example names the crates as a user does.
use crate as tile_compiler;

const SOFTMAX: &str = include_str!("../../test/programs/row_softmax.mlir");

const BAD: &str =
    "func.func @bad(%n: index) {\n  tile.kernel grid(%n) threads(100) (%bx) {\n  }\n  return\n}\n";

#[test]
fn a_program_compiles_to_spirv_with_its_manifest() {
    let compilation = compile_source(SOFTMAX, "row_softmax.mlir", "spirv").unwrap();
    assert_eq!(compilation.kernels.len(), 1);
    let kernel = &compilation.kernels[0];
    assert_eq!(kernel.name, kernel.manifest.entry);
    assert_eq!(kernel.manifest.target, "spirv");
    assert_eq!(kernel.manifest.version, tile_manifest::SCHEMA_VERSION);
    assert_eq!(kernel.manifest.compiler, tile_manifest::COMPILER_VERSION);
    let Code::Spirv(words) = &kernel.code else {
        panic!("not SPIR-V: {:?}", kernel.code)
    };
    assert_eq!(words[0], 0x0723_0203);
    assert_eq!(kernel.code.extension(), "spv");
    assert!(
        kernel
            .spirv_module
            .as_deref()
            .unwrap()
            .starts_with("spirv.module")
    );
}

#[test]
fn a_program_compiles_to_ptx() {
    let compilation = compile_source(SOFTMAX, "row_softmax.mlir", "sm_90a").unwrap();
    let kernel = &compilation.kernels[0];
    let Code::Ptx(ptx) = &kernel.code else {
        panic!("not PTX")
    };
    assert!(ptx.contains(&format!(".entry {}", kernel.name)), "{ptx}");
    assert!(kernel.manifest.check_loadable("sm_90a").is_ok());
}

#[test]
fn errors_are_collected_with_their_locations() {
    let error = compile_source(BAD, "bad.mlir", "spirv").unwrap_err();
    assert!(matches!(error, Error::Parse { .. }), "{error}");
    let diagnostic = &error.diagnostics()[0];
    assert_eq!(diagnostic.severity, Severity::Error);
    assert_eq!(
        diagnostic.location,
        Some(SourceLocation {
            file: "bad.mlir".into(),
            line: 2,
            column: 3
        })
    );
    assert!(
        diagnostic
            .message
            .contains("threads to be a positive multiple of 32"),
        "{diagnostic}"
    );
    assert!(
        error
            .to_string()
            .starts_with("bad.mlir: cannot be compiled\nbad.mlir:2:3: error:"),
        "{error}"
    );
}

#[test]
fn unknown_targets_and_missing_files_are_errors() {
    let error = compile_source(SOFTMAX, "row_softmax.mlir", "sm_80").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("unknown target sm_80: expected sm_90a"),
        "{error}"
    );
    let error = compile_file(Path::new("/nonexistent.mlir"), "spirv").unwrap_err();
    assert!(error.to_string().contains("No such file"), "{error}");
}

#[test]
fn a_module_compiles_in_the_callers_context() {
    let context = context();
    let mut module = Module::parse(&context, SOFTMAX).unwrap();
    let compilation = compile_module(&context, &mut module, "gfx942").unwrap();
    let Code::Amdgcn { assembly, .. } = &compilation.kernels[0].code else {
        panic!("not AMDGCN")
    };
    assert!(assembly.contains("amdgcn"), "{assembly}");
}

/// The README's Rust example ("Embedding: Rust"), verbatim between the markers; the test below
/// checks that the README still shows this code.
#[test]
fn readme_rust_example() {
    // README-BEGIN
    let source = std::fs::read_to_string("../examples/softmax.mlir").unwrap();
    match tile_compiler::compile_source(&source, "softmax.mlir", "sm_90a") {
        Ok(compilation) => {
            for warning in &compilation.diagnostics {
                eprintln!("{warning}"); // file:line:col: warning: ...
            }
            for kernel in &compilation.kernels {
                let tile_compiler::Code::Ptx(ptx) = &kernel.code else {
                    unreachable!()
                };
                let manifest: &tile_manifest::Manifest = &kernel.manifest;
                println!(
                    "{}: {} bytes of PTX, grid {:?}",
                    kernel.name,
                    ptx.len(),
                    manifest.grid
                );
                std::fs::write(format!("{}.json", kernel.name), manifest.to_json()).unwrap();
            }
        }
        Err(error) => panic!("{error}"), // the summary, then each located diagnostic
    }
    // README-END
    std::fs::remove_file("softmax_0_kernel.json").unwrap();
}

#[test]
fn the_readme_shows_the_tested_rust_example() {
    let tests = include_str!("tests.rs");
    let begin = "    // README-BEGIN\n";
    let start = tests.find(begin).unwrap() + begin.len();
    let end = tests[start..].find("    // README-END").unwrap() + start;
    let example: String = tests[start..end]
        .lines()
        .map(|line| format!("{}\n", line.strip_prefix("    ").unwrap_or(line)))
        .collect();
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(&example),
        "README.md's Rust example differs from this test's:\n{example}"
    );
}

#[test]
fn every_example_manifest_is_held_whole_by_the_schema() {
    // compile_file fails with an internal error when a manifest does not round-trip.
    let mut compiled = 0;
    for entry in std::fs::read_dir("../examples").unwrap() {
        let path = entry.unwrap().path();
        for target in ["sm_90a", "gfx942", "spirv-coopmat"] {
            match compile_file(&path, target) {
                Ok(compilation) => compiled += compilation.kernels.len(),
                Err(error @ Error::Internal { .. }) => panic!("{}: {error}", path.display()),
                Err(_) => {} // a target that cannot take the example says so; not this test's business
            }
        }
    }
    // The test programs on sm_90a: epilogue tensors passed as memrefs, N-D tensor maps.
    for entry in std::fs::read_dir("../test/programs").unwrap() {
        let path = entry.unwrap().path();
        if let Err(error @ Error::Internal { .. }) = compile_file(&path, "sm_90a") {
            panic!("{}: {error}", path.display());
        }
    }
    assert!(compiled >= 15, "{compiled}");
}
