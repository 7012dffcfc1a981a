use super::*;

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
    let Code::Spirv(words) = &kernel.code else { panic!("not SPIR-V: {:?}", kernel.code) };
    assert_eq!(words[0], 0x0723_0203);
    assert_eq!(kernel.code.extension(), "spv");
    assert!(kernel.spirv_module.as_deref().unwrap().starts_with("spirv.module"));
}

#[test]
fn a_program_compiles_to_ptx() {
    let compilation = compile_source(SOFTMAX, "row_softmax.mlir", "sm_90a").unwrap();
    let kernel = &compilation.kernels[0];
    let Code::Ptx(ptx) = &kernel.code else { panic!("not PTX") };
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
        Some(SourceLocation { file: "bad.mlir".into(), line: 2, column: 3 })
    );
    assert!(diagnostic.message.contains("threads to be a positive multiple of 32"), "{diagnostic}");
    assert!(error.to_string().starts_with("bad.mlir: cannot be compiled\nbad.mlir:2:3: error:"), "{error}");
}

#[test]
fn unknown_targets_and_missing_files_are_errors() {
    let error = compile_source(SOFTMAX, "row_softmax.mlir", "sm_80").unwrap_err();
    assert!(error.to_string().starts_with("unknown target sm_80: expected sm_90a"), "{error}");
    let error = compile_file(Path::new("/nonexistent.mlir"), "spirv").unwrap_err();
    assert!(error.to_string().contains("No such file"), "{error}");
}

#[test]
fn a_module_compiles_in_the_callers_context() {
    let context = context();
    let mut module = Module::parse(&context, SOFTMAX).unwrap();
    let compilation = compile_module(&context, &mut module, "gfx942").unwrap();
    let Code::Amdgcn { assembly, .. } = &compilation.kernels[0].code else { panic!("not AMDGCN") };
    assert!(assembly.contains("amdgcn"), "{assembly}");
}
