//! Regressions the program generator found, minimized into `test/programs/`: each runs on the
//! reference interpreter, the CPU reference and Vulkan (lavapipe), every output element compared
//! with the interpreter's (`tile_tests::generate::check`), and compiles for every target.

mod common;

use tile_tests::generate::{
    Program,
    check::{Verdict, check},
};

/// Checks `file` (in `test/programs/`) on the CPU reference and Vulkan against the interpreter,
/// and compiles it for every target; `accumulation` sets the tolerance (see `Program::tolerance`).
fn regression(file: &str, accumulation: usize) {
    let path = common::repo_root().join("test/programs").join(file);
    let text = std::fs::read_to_string(&path).expect("the program");
    let program = Program {
        text,
        summary: file.into(),
        gemms: 0,
        pipelined: 0,
        accumulation,
        inputs: None,
    };
    let device = tile_run::Vulkan::new().expect("a Vulkan device (lavapipe)");
    let outcome = check(&program, &path, 1, Some(&device)).expect("the interpreter runs it");
    assert!(
        matches!(outcome.cpu, Verdict::Pass(_)),
        "CPU: {:?}",
        outcome.cpu
    );
    assert!(
        matches!(outcome.vulkan, Verdict::Pass(_)),
        "Vulkan: {:?}",
        outcome.vulkan
    );
    for target in ["sm_90a", "gfx942", "spirv", "spirv-coopmat"] {
        let compiled = tile_compiler::compile_file(&path, target);
        assert!(
            compiled.is_ok(),
            "{file} for {target}: {}",
            compiled.err().map(|e| e.to_string()).unwrap_or_default()
        );
    }
}

/// A column reduction of a 32x24 fragment on 32 threads: the inferred slice layout put two
/// columns in one slot of one thread and failed its own verifier on every target.
#[test]
fn column_reduction_of_24_columns_on_32_threads() {
    regression("column_reduce_24.mlir", 32);
}
