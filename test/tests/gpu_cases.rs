//! The sm_90a side of the generated-program differential runs, without a GPU: the case writer
//! (`tile_tests::generate::write_gpu_cases`, behind `tile-fuzz --gpu-cases`) and a dry run of
//! `bench/generated_check.py`, which builds every launch from the manifests and compares the CPU
//! reference's results with the interpreter's element by element, as it compares the GPU's on
//! the H200 (row programs and GEMM kernels, each output with the generated program's tolerance). A
//! corrupted result must fail, a worker dying in a case must fail that case only, a
//! program with host control flow is skipped, one of two kernels replays in order, and a kernel of
//! the GEMM template (tensor maps) replays too.

mod common;

use std::{path::Path, process::Command};
use tile_tests::generate::{CaseOutcome, write_gpu_case, write_gpu_cases};

fn check(cases: &Path, crash_in: Option<&str>) -> (bool, String) {
    let mut command = Command::new("python3");
    command
        .arg(common::repo_root().join("bench/generated_check.py"))
        .arg(cases)
        .args(["--dry-run", "cpu", "--quiet"]);
    if let Some(name) = crash_in {
        command.env("TILE_CHECK_CRASH_IN", name);
    }
    let output = command.output().expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

const TWO_KERNELS: &str = r#"
func.func @two(%X: memref<10x16xf32>, %Y: memref<10x16xf32>, %Z: memref<10x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%c4) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<4x16xf32, #tile.fragment>
    %row = arith.muli %bx, %c4 : index
    tile.copy %X[%row, %c0], %F : memref<10x16xf32>, memref<4x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 16) {
      %v = memref.load %F[%i, %j] : memref<4x16xf32, #tile.fragment>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %F[%i, %j] : memref<4x16xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%row, %c0] : memref<4x16xf32, #tile.fragment>, memref<10x16xf32>
  }
  tile.kernel grid(%c2) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.fragment>
    %row = arith.muli %bx, %c4 : index
    %row2 = arith.muli %row, %c2 : index
    tile.copy %Y[%row2, %c0], %F : memref<10x16xf32>, memref<8x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %F[%i, %j] : memref<8x16xf32, #tile.fragment>
      %w = math.tanh %v : f32
      memref.store %w, %F[%i, %j] : memref<8x16xf32, #tile.fragment>
    }
    tile.copy %F, %Z[%row2, %c0] : memref<8x16xf32, #tile.fragment>, memref<10x16xf32>
  }
  return
}
"#;

const HOST_LOOP: &str = r#"
func.func @twice(%X: memref<4x8xf32>, %Y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    tile.kernel grid(%c1) threads(32) (%bx) {
      %F = tile.alloc_fragment : memref<4x8xf32, #tile.fragment>
      tile.copy %X[%c0, %c0], %F : memref<4x8xf32>, memref<4x8xf32, #tile.fragment>
      tile.copy %F, %Y[%c0, %c0] : memref<4x8xf32, #tile.fragment>, memref<4x8xf32>
    }
  }
  return
}
"#;

#[test]
fn generated_cases_for_sm90a_are_written_and_checked() {
    let cases = std::env::temp_dir().join(format!("tile-gpu-cases-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cases);
    let (written, skipped, failures) =
        write_gpu_cases(&cases, 11, 0, 6, true, |_, _| {}).expect("the cases are written");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!((written, skipped), (6, 0));
    let index = std::fs::read_to_string(cases.join("index.json")).expect("index.json");
    assert!(index.contains("\"s11-00005\""), "{index}");
    let case = cases.join("s11-00000");
    for file in [
        "case.json",
        "program.mlir",
        "generated_0_kernel.ptx",
        "generated_0_kernel.json",
        "generated.arg0.in.bin",
        "generated.arg1.interp.bin",
    ] {
        assert!(case.join(file).is_file(), "{file} is missing");
    }
    let (ok, report) = check(&cases, None);
    assert!(ok && report.contains("6 cases, 6 pass, 0 fail, 0 skipped"), "{report}");
    // A GEMM case (program 1: bf16 gemms) carries the program's tolerance for its bf16 output,
    // which grows with K: above the bf16 rounding alone.
    let gemm = std::fs::read_to_string(cases.join("s11-00001/case.json")).expect("case.json");
    let program = tile_tests::generate::program(11, 1);
    let wanted = program.tolerance(tile_dialect::element::Element::BF16);
    let case: serde_json::Value = serde_json::from_str(&gemm).expect("case.json is JSON");
    let tolerances: Vec<f64> = case["functions"][0]["arguments"]
        .as_array()
        .expect("arguments")
        .iter()
        .filter(|argument| argument["written"] == true && argument["element"] == "bf16")
        .filter_map(|argument| argument["tolerance"].as_f64())
        .collect();
    assert!(
        program.summary.starts_with("gemm") && wanted > 1.6e-2 && tolerances == [wanted],
        "{gemm}"
    );

    // A wrong element fails its case, and only it.
    let result = cases.join("s11-00002/generated.arg1.interp.bin");
    let mut bytes = std::fs::read(&result).expect("a result");
    bytes[4..8].copy_from_slice(&7.5f32.to_le_bytes());
    std::fs::write(&result, bytes).expect("written");
    let (ok, report) = check(&cases, None);
    assert!(
        !ok && report.contains("s11-00002: FAIL") && report.contains("6 cases, 5 pass, 1 fail, 0 skipped"),
        "{report}"
    );
    // A worker that dies in a case fails that case; a new one runs the rest.
    let (ok, report) = check(&cases, Some("s11-00004"));
    assert!(
        !ok && report.contains("s11-00004: FAIL") && report.contains("6 cases, 4 pass, 2 fail, 0 skipped"),
        "{report}"
    );

    // Two kernels replay in order; host control flow is skipped, counted in the summary.
    let two = write_gpu_case(&cases, "two", TWO_KERNELS, "two kernels", 3, true).expect("written");
    assert_eq!(two, CaseOutcome::Written);
    let described = std::fs::read_to_string(cases.join("two/case.json")).expect("case.json");
    assert!(
        described.contains("\"two_0_kernel\",\n        \"two_1_kernel\""),
        "{described}"
    );
    // A generated GEMM on wgmma (per-op) is written like any kernel: its manifest names its host
    // function and binds its tensors.
    let gemm = include_str!("../programs/gemm_generated_bf16.mlir");
    let written = write_gpu_case(&cases, "template", gemm, "a generated GEMM", 4, true).expect("written");
    assert_eq!(written, CaseOutcome::Written);
    let manifest = std::fs::read_to_string(cases.join("template/generated_0_kernel.json")).expect("manifest");
    assert!(
        manifest.contains("\"host_function\": \"generated\"") && manifest.contains("\"strategy\": \"registers\""),
        "{manifest}"
    );
    let looped = write_gpu_case(&cases, "looped", HOST_LOOP, "a host loop", 3, true).expect("judged");
    assert!(
        matches!(&looped, CaseOutcome::Skipped(reason) if reason.contains("scf.for")),
        "{looped:?}"
    );
    std::fs::write(
        cases.join("index.json"),
        r#"{"seed": 0, "cases": ["two", "template"], "skipped": [{"name": "looped", "reason": "@twice runs scf.for on the host"}]}"#,
    )
    .expect("index");
    let (ok, report) = check(&cases, None);
    assert!(ok && report.contains("3 cases, 2 pass, 0 fail, 1 skipped"), "{report}");
    let _ = std::fs::remove_dir_all(&cases);
}
