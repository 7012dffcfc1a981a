//! Helpers the integration tests and `tile-fuzz` share: the mutation fuzzer and the generator of
//! valid programs for differential runs.

pub mod fuzz;
pub mod generate;

/// Runs generated program `index` of `seed` through `tile-run` in `bin` (Vulkan checked against
/// the CPU reference, and the interpreter's checksums against the CPU's where it exists); returns
/// why it failed, if it did.
pub fn check_generated(
    bin: &std::path::Path,
    scratch: &std::path::Path,
    seed: u64,
    index: u64,
    interp: bool,
) -> Result<(), String> {
    let program = generate::program(seed, index);
    let input = scratch.join(format!("generated-{seed}-{index}.mlir"));
    std::fs::write(&input, &program.text).map_err(|error| error.to_string())?;
    let run = |args: &[&str]| {
        std::process::Command::new(bin.join("tile-run"))
            .arg(&input)
            .args(args)
            .output()
            .map_err(|error| error.to_string())
    };
    let describe = |what: &str, output: &std::process::Output| {
        format!(
            "program {index} of seed {seed} ({}): {what}\n{}{}\n--- program ---\n{}",
            program.summary,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            program.text
        )
    };
    let checked = run(&["--target", "vulkan", "--check"])?;
    if !checked.status.success() {
        return Err(describe(
            "Vulkan and the CPU reference disagree, or the run failed",
            &checked,
        ));
    }
    let _ = std::fs::remove_file(&input);
    if interp {
        std::fs::write(&input, &program.text).map_err(|error| error.to_string())?;
        let cpu = run(&["--target", "cpu"])?;
        let interpreted = run(&["--target", "interp"])?;
        let (a, b) = (
            generate::checksums(&String::from_utf8_lossy(&cpu.stdout)),
            generate::checksums(&String::from_utf8_lossy(&interpreted.stdout)),
        );
        let agree = a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| {
                (x - y).abs() <= 1e-3 * x.abs().max(1.0) || (x.is_nan() && y.is_nan())
            });
        let _ = std::fs::remove_file(&input);
        if !interpreted.status.success() || !agree {
            return Err(describe(
                &format!("the interpreter's checksums {b:?} differ from the CPU's {a:?}"),
                &interpreted,
            ));
        }
    }
    Ok(())
}
