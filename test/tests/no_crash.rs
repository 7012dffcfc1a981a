//! Sweeps every tile program the repository holds (lit inputs, examples, test programs) through every
//! tile pass: each run must end with status 0 or 1 (a diagnostic), never a crash, an abort or a Rust
//! panic (even a caught one is a bug: it means an internal error reached the user).

mod common;

use std::{path::Path, process::Command};

/// The passes and pipelines every program goes through; `SERIALIZE` in a pipeline's options is
/// `serialize=true` for the examples and test programs and `serialize=false` for the lit inputs:
/// LLVM's optimization and code generation of the kernels took half of the target pipelines' time
/// on the lit inputs, whose kernels are the small ones the programs' kernels contain.
const PASSES: &[&str] = &[
    "--tile-canonicalize",
    "--canonicalize",
    "--convert-tile-to-cpu",
    "--tile-infer-layouts",
    "--tile-plan-pipelines",
    "--convert-tile-to-nvgpu",
    "--pass-pipeline=builtin.module(tile-to-nvvm{chip=sm_90a SERIALIZE})",
    "--pass-pipeline=builtin.module(tile-to-nvvm{chip=sm_80 SERIALIZE})",
    "--convert-tile-to-amdgpu",
    "--pass-pipeline=builtin.module(tile-to-rocdl{chip=gfx942 SERIALIZE})",
    "--convert-tile-to-spirv",
    "--pass-pipeline=builtin.module(tile-to-spirv{chip=spirv-coopmat})",
];

fn programs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for folder in ["lit", "examples", "test/programs"] {
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() && path.file_name().is_some_and(|name| name != "Output") {
                    stack.push(path);
                } else if path.extension().is_some_and(|ext| ext == "mlir") {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_program_crashes_any_pass() {
    let root = common::repo_root();
    let tile_opt = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("tile-opt");
    assert!(tile_opt.exists(), "build tile-opt first (the lit test builds it)");
    // Each run is a process of its own: the machine's cores take them in turn.
    let lit = root.join("lit");
    let jobs: Vec<(std::path::PathBuf, String)> = programs(&root)
        .into_iter()
        .flat_map(|program| {
            let serialize = if program.starts_with(&lit) {
                "serialize=false"
            } else {
                "serialize=true"
            };
            PASSES
                .iter()
                .map(move |pass| (program.clone(), pass.replace("SERIALIZE", serialize)))
        })
        .collect();
    let runs = jobs.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((program, pass)) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let output = Command::new(&tile_opt)
                        .arg(program)
                        .arg("--split-input-file")
                        .arg(pass.as_str())
                        .arg("-o")
                        .arg("/dev/null")
                        .output()
                        .expect("tile-opt runs");
                    let stderr = String::from_utf8_lossy(&output.stderr);
                    let status = output.status.code();
                    if !matches!(status, Some(0) | Some(1))
                        || stderr.contains("Stack dump")
                        || stderr.contains("panicked")
                    {
                        failures.lock().unwrap().push(format!(
                            "{} {pass}: status {status:?}\n{}",
                            program.display(),
                            stderr.lines().take(5).collect::<Vec<_>>().join("\n")
                        ));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(runs > 100, "the sweep found too few programs ({runs} runs)");
    assert!(
        failures.is_empty(),
        "{} crashing runs:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
