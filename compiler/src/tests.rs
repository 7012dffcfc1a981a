use super::*;
// The README example names the crates as a user does.
use crate as tile_compiler;

const SOFTMAX: &str = include_str!("../../test/programs/row_softmax.mlir");

const BAD: &str = "func.func @bad(%n: index) {\n  tile.kernel grid(%n) threads(100) (%bx) {\n  }\n  return\n}\n";

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
    assert!(kernel.spirv_module.as_deref().unwrap().starts_with("spirv.module"));
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
        diagnostic.message.contains("threads to be a positive multiple of 32"),
        "{diagnostic}"
    );
    assert!(
        error
            .to_string()
            .starts_with("bad.mlir: cannot be compiled\nbad.mlir:2:3: error:"),
        "{error}"
    );
}

/// The entry of the C API and the Python package: text MLIR 22's parser would crash on is an error
/// at it (`tile_dialect::parser_guard`), in the caller's file name.
#[test]
fn dense_arrays_of_index_are_located_errors_not_crashes() {
    let source = "!i = index\nfunc.func @f() attributes {a = array<!i: 1>} {\n  return\n}\n";
    let error = compile_source(source, "user.mlir", "spirv").unwrap_err();
    assert!(matches!(error, Error::Parse { .. }), "{error}");
    assert_eq!(
        error.diagnostics()[0].location,
        Some(SourceLocation {
            file: "user.mlir".into(),
            line: 2,
            column: 38
        })
    );
    assert!(error.to_string().contains("got 'index'"), "{error}");
}

/// Nesting deeper than MLIR's recursion has stack for (20,000 regions aborted the tools) is an error
/// at the brace that goes too deep.
#[test]
fn deep_nesting_is_a_located_error_not_a_crash() {
    let levels = 20_000;
    let mut source = "func.func @f(%c: i1) {\n".to_owned();
    source += &"scf.if %c {\n".repeat(levels);
    source += &"}\n".repeat(levels + 1);
    let error = compile_source(&source, "deep.mlir", "sm_90a").unwrap_err();
    assert!(matches!(error, Error::Parse { .. }), "{error}");
    let limit = tile_dialect::parser_guard::MAX_NESTING;
    assert_eq!(
        error.diagnostics()[0].location,
        Some(SourceLocation {
            file: "deep.mlir".into(),
            line: limit as u32 + 1,
            column: 11
        })
    );
    assert!(error.to_string().contains("deeper than 1000 levels"), "{error}");
}

#[test]
fn unknown_targets_and_missing_files_are_errors() {
    let error = compile_source(SOFTMAX, "row_softmax.mlir", "sm_75").unwrap_err();
    assert!(
        error.to_string().starts_with("unknown target sm_75: expected sm_90a"),
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
                println!("{}: {} bytes of PTX, grid {:?}", kernel.name, ptx.len(), manifest.grid);
                std::fs::write(format!("{}.json", kernel.name), manifest.to_json()).unwrap();
            }
        }
        Err(error) => panic!("{error}"), // the summary, then each located diagnostic
    }
    // README-END
    // The kernel and its twin for 16-byte aligned tensors (tile-specialize-alignment).
    for name in ["softmax_0_kernel.json", "softmax_1_kernel.json"] {
        std::fs::remove_file(name).unwrap();
    }
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

/// The examples a target refuses, each with the reason its error gives: the 8-bit floats and host
/// values that are not constants on spirv-coopmat, tiles beyond the target's workgroup memory.
const REFUSED_EXAMPLES: [(&str, &str, &str); 13] = [
    ("block_sparse_attention", "gfx942", "bytes of workgroup memory"),
    ("flash_mla_decode", "gfx942", "bytes of workgroup memory"),
    ("linear_attention", "gfx942", "bytes of workgroup memory"),
    ("block_sparse_attention", "spirv-coopmat", "bytes of workgroup memory"),
    ("linear_attention", "spirv-coopmat", "bytes of workgroup memory"),
    ("flash_decoding", "spirv-coopmat", "bytes of workgroup memory"),
    ("flash_attention_bwd", "gfx942", "bytes of workgroup memory"),
    ("flash_attention_bwd", "spirv-coopmat", "makes an atomic addf of f32"),
    (
        "blockscaled_fp8_gemm",
        "sm_80",
        "which sm_80 has no matrix instruction for",
    ),
    ("blockscaled_fp8_gemm", "spirv-coopmat", "uses f8E4M3FN"),
    (
        "flash_attention",
        "spirv-coopmat",
        "bytes of workgroup memory for its tiles",
    ),
    (
        "flash_mla_decode",
        "spirv-coopmat",
        "bytes of workgroup memory for its tiles",
    ),
    (
        "gemm_dynamic",
        "spirv-coopmat",
        "reads a host value that is not a constant",
    ),
];

/// Compiles every example for `target`: compile_file fails with an internal error when a manifest
/// does not round-trip; any other failure must be one of the refusals listed, for its reason (a
/// target that learns to compile one may succeed). Returns the kernels compiled.
fn every_example_manifest_is_held_whole_on(target: &str) -> usize {
    let mut compiled = 0;
    for entry in std::fs::read_dir("../examples").unwrap() {
        let path = entry.unwrap().path();
        // The embedding templates are folders.
        if path.extension().is_none_or(|extension| extension != "mlir") {
            continue;
        }
        let example = path.file_stem().unwrap().to_str().unwrap().to_owned();
        match compile_file(&path, target) {
            Ok(compilation) => compiled += compilation.kernels.len(),
            Err(error @ Error::Lowering { .. }) => {
                let reason = REFUSED_EXAMPLES
                    .iter()
                    .find(|(refused, on, _)| *refused == example && *on == target)
                    .map(|(_, _, reason)| *reason);
                assert!(
                    reason.is_some_and(|reason| error.to_string().contains(reason)),
                    "{example} on {target}: {error}"
                );
            }
            Err(error) => panic!("{example} on {target}: {error}"),
        }
    }
    compiled
}

/// One test a target, so that the test threads share the compilations, each with the fewest
/// kernels it must compile (37, 34, 29 and 17 do today).
macro_rules! every_example_manifest_is_held_whole {
    ($($test:ident: $target:literal, at least $kernels:literal;)+) => {$(
        #[test]
        fn $test() {
            let compiled = every_example_manifest_is_held_whole_on($target);
            assert!(compiled >= $kernels, "{compiled}");
        }
    )+};
}

every_example_manifest_is_held_whole! {
    every_example_manifest_is_held_whole_by_the_schema_on_sm_90a: "sm_90a", at least 30;
    every_example_manifest_is_held_whole_by_the_schema_on_sm_80: "sm_80", at least 30;
    every_example_manifest_is_held_whole_by_the_schema_on_gfx942: "gfx942", at least 25;
    every_example_manifest_is_held_whole_by_the_schema_on_spirv_coopmat: "spirv-coopmat", at least 15;
}

#[test]
fn every_test_program_compiles_on_sm_90a() {
    // Epilogue tensors passed as memrefs, N-D tensor maps.
    for entry in std::fs::read_dir("../test/programs").unwrap() {
        let path = entry.unwrap().path();
        if let Err(error) = compile_file(&path, "sm_90a") {
            panic!("{}: {error}", path.display());
        }
    }
}

/// `count` kernels in host functions `f0`, `f1`, ... of which every third calls the next one, so
/// that the parts the compile call splits the module into must keep callers with their callees.
fn many_kernels(count: usize) -> String {
    let gemm = include_str!("../../examples/gemm_relu.mlir");
    let mut source = String::new();
    for index in 0..count {
        let function = gemm.replace("@gemm_relu", &format!("@f{index}"));
        if index % 3 == 0 && index + 1 < count {
            let call = format!(
                "  func.call @f{}(%A, %B, %C) : (memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096x4096xf16>) -> ()\n  return\n}}",
                index + 1
            );
            let end = function.rfind("  return\n}").unwrap();
            source.push_str(&function[..end]);
            source.push_str(&call);
        } else {
            source.push_str(&function);
        }
        source.push('\n');
    }
    source
}

#[test]
fn many_kernels_compile_in_parts_named_and_ordered_as_in_the_whole_module() {
    let source = many_kernels(13);
    for target in ["sm_90a", "spirv"] {
        let context = context();
        let mut module = Module::parse(&context, &source).unwrap();
        let compilation = compile_module(&context, &mut module, target).unwrap();
        let names: Vec<&str> = compilation.kernels.iter().map(|kernel| kernel.name.as_str()).collect();
        let expected: Vec<String> = (0..13).map(|index| format!("f{index}_{index}_kernel")).collect();
        assert_eq!(names, expected, "{target}");
        // Every part's ops are back in the module, which verifies (the runtime declarations each
        // part made are kept once).
        assert!(module.as_operation().verify(), "{target}");
        let text = module.as_operation().to_string();
        assert!(
            !text.contains(tile_conversions::kernels::KERNEL_OFFSET_ATTRIBUTE),
            "{target}"
        );
        let top_level_modules = text.lines().filter(|line| line.starts_with("  module")).count();
        assert_eq!(top_level_modules, 0, "{target}: {text}");
    }
}

#[test]
fn the_parts_give_the_same_code_as_one_module() {
    // Each kernel of a module split in parts against the same kernel compiled alone: the same
    // PTX but for the kernel's number in its symbols.
    let split = compile_source(&many_kernels(5), "many.mlir", "sm_90a").unwrap();
    let gemm = include_str!("../../examples/gemm_relu.mlir");
    for index in 0..5 {
        let single = gemm.replace("@gemm_relu", &format!("@f{index}"));
        let alone = compile_source(&single, "one.mlir", "sm_90a").unwrap();
        let Code::Ptx(ptx) = &alone.kernels[0].code else {
            panic!("not PTX")
        };
        let Code::Ptx(in_parts) = &split.kernels[index].code else {
            panic!("not PTX")
        };
        let renumbered = ptx.replace(&format!("f{index}_0_"), &format!("f{index}_{index}_"));
        assert_eq!(&renumbered, in_parts, "kernel {index}");
    }
}

#[test]
fn a_failed_lowering_reports_every_kernels_errors_whatever_the_parts() {
    // Twelve functions with a host memref in a GPU memory space: each is an error at its function
    // when the kernels are lowered. The parts stop at the first failure, so the errors are those of the whole module,
    // in program order, every time.
    let tiny = include_str!("../../test/programs/tiny_scale.mlir");
    let source: String = (0..12)
        .map(|index| {
            tiny.replace("@tiny_scale", &format!("@f{index}"))
                .replace("%Y: memref<128xf32>)", "%Y: memref<128xf32>, %Z: memref<4xf32, 1>)")
        })
        .collect();
    for _ in 0..3 {
        let error = compile_source(&source, "many.mlir", "sm_90a").unwrap_err();
        let lines: Vec<u32> = error
            .diagnostics()
            .iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error)
            .map(|diagnostic| diagnostic.location.as_ref().unwrap().line)
            .collect();
        let expected: Vec<u32> = (0..12).map(|index| 2 + 17 * index).collect();
        assert_eq!(lines, expected, "{error}");
    }
}

#[test]
fn an_input_without_a_kernel_is_an_error_for_every_caller() {
    // The tool, the library and the C API (which calls the library) refuse it alike, located at
    // the input's first line.
    let host_only = "func.func @host_only(%X: memref<8xf32>) {\n  return\n}\n";
    for source in [host_only, ""] {
        let error = compile_source(source, "host.mlir", "spirv").unwrap_err();
        assert!(matches!(error, Error::NothingToCompile { .. }), "{error}");
        let diagnostic = &error.diagnostics()[0];
        assert_eq!(
            diagnostic.location,
            Some(SourceLocation {
                file: "host.mlir".into(),
                line: 1,
                column: 1
            })
        );
        assert_eq!(
            diagnostic.message,
            "expects at least one tile.kernel or tile.matmul to compile, but the input has none"
        );
    }
    let context = context();
    let mut module = melior::ir::Module::parse(&context, host_only).unwrap();
    let error = compile_module(&context, &mut module, "sm_90a").unwrap_err();
    assert!(matches!(error, Error::NothingToCompile { .. }), "{error}");
}

#[test]
fn foreign_gpu_code_is_refused_at_it_not_dropped() {
    // The library returns the tile kernels' code only: another frontend's kernel beside them would
    // be lost with success, so it is an error at the gpu.launch, for the tool and the C API alike.
    let tiny = include_str!("../../test/programs/tiny_scale.mlir");
    let foreign = "func.func @other(%A: memref<64xf32>) {\n  %c1 = arith.constant 1 : index\n  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n    gpu.terminator\n  }\n  return\n}\n";
    let source = format!("{foreign}{tiny}");
    for target in ["sm_90a", "gfx942", "spirv"] {
        let error = compile_source(&source, "mixed.mlir", target).unwrap_err();
        assert!(matches!(error, Error::Lowering { .. }), "{error}");
        let diagnostic = &error.diagnostics()[0];
        assert_eq!(
            diagnostic.location,
            Some(SourceLocation {
                file: "mixed.mlir".into(),
                line: 3,
                column: 3
            })
        );
        assert!(
            diagnostic
                .message
                .starts_with("'gpu.launch' op is GPU code outside a tile.kernel"),
            "{diagnostic}"
        );
    }
}
