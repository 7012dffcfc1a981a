//! The compiler's crates probe ops' operands, results and regions and blocks' arguments through
//! `tile_dialect::positions` (`None` past the end). melior's own accessors answer a position past
//! the end with an error that holds the op printed, and printing an op numbers its whole top-level
//! module: while a split program's parts compile on several threads, that read parts other
//! threads were rewriting (tile-compile crashed or hung about 1 run in 12), and it printed the
//! program each time.

use std::path::{Path, PathBuf};

/// The crates whose code runs inside pass pipelines.
const CRATES: [&str; 4] = ["dialect/src", "conversions/src", "passes/src", "compiler/src"];

/// Receivers of a positional `result` that are not ops: an affine map's results and a function
/// type's.
const NOT_OPS: [&str; 3] = ["signature.result(", "thread.result(", "slot.result("];

fn sources(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// Whether `line` calls one of melior's positional accessors on an op or a block.
fn probes_with_melior(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    let by_name = [".operand(", ".region(", ".argument("]
        .iter()
        .any(|call| code.contains(call));
    // `.result(ty)` also names a typed builder's result type: only positions count.
    let by_position = code.match_indices(".result(").any(|(at, call)| {
        let rest = &code[at + call.len()..];
        let position = rest.split(')').next().unwrap_or_default();
        (position.chars().all(|c| c.is_ascii_digit()) && !position.is_empty())
            || ["index", "i", "position"].contains(&position)
    }) && !NOT_OPS.iter().any(|receiver| code.contains(receiver));
    by_name || by_position
}

#[test]
fn passes_probe_positions_without_printing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for folder in CRATES {
        sources(&root.join(folder), &mut found);
    }
    assert!(found.len() > 100, "read {} files", found.len());
    let mut offenders = Vec::new();
    for path in found {
        if path.ends_with("dialect/src/positions.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if probes_with_melior(line) {
                offenders.push(format!("{}:{}: {}", path.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "use tile_dialect::positions (operand_at, result_at, region_at, argument_at):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scan_finds_melior_probes() {
    assert!(probes_with_melior("let c = gemm.operand(2).ok();"));
    assert!(probes_with_melior("op.result(0).map_err(|e| e.to_string())?"));
    assert!(probes_with_melior("body.argument(index).expect(\"x\")"));
    assert!(!probes_with_melior("let c = gemm.operand_at(2);"));
    assert!(!probes_with_melior(".result(crate::attributes::vector(16, i8_type))"));
    assert!(!probes_with_melior("thread: Expr::from_mlir(thread.result(0).ok()?),"));
    assert!(!probes_with_melior("// op.operand(2) in a comment"));
}
