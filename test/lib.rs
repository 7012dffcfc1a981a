//! Helpers the integration tests and `tile-fuzz` share: the mutation fuzzer and the generator of
//! valid programs for differential runs.

pub mod fuzz;
pub mod generate;
pub mod watch;

use generate::check::{Outcome, Verdict};
use std::{
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

/// Checks generated program `index` of `seed` in this process (`tile-fuzz --check-one`): writes
/// it into `scratch`, runs it on the interpreter, the CPU reference and Vulkan (inputs from seed
/// `index + 1`), and returns the lines to print: the [`Outcome::lines`], or `PROGRAM error ...`
/// when the program itself cannot run.
pub fn check_one(scratch: &Path, seed: u64, index: u64) -> String {
    let program = generate::program(seed, index);
    let path = scratch.join(format!("generated-{seed}-{index}.mlir"));
    if let Err(error) = std::fs::write(&path, &program.text) {
        return format!("PROGRAM error {error}\n");
    }
    let device = tile_run::Vulkan::new().ok();
    let result = generate::check::check(&program, &path, index + 1, device.as_ref());
    let _ = std::fs::remove_file(&path);
    match result {
        Ok(outcome) => outcome.lines(),
        Err(why) => format!("PROGRAM error {}\n", why.replace('\n', " | ")),
    }
}

/// Runs generated program `index` of `seed` through `bin/tile-fuzz --check-one` in a child process
/// (so that a crash or a hang fails this program only), killed as a hang past `timeout` of CPU time
/// ([`watch`]; past ten times it in wall time, inconclusive: both targets skipped). Returns the
/// program and its outcome, or why the child gave none (a crash, a timeout, a program the
/// interpreter cannot run), which fails both targets.
pub fn check_generated(
    bin: &Path,
    seed: u64,
    index: u64,
    timeout: Duration,
) -> (generate::Program, Result<Outcome, String>) {
    let program = generate::program(seed, index);
    let child = Command::new(bin.join("tile-fuzz"))
        .args(["--check-one", &seed.to_string(), &index.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(error) => return (program, Err(format!("tile-fuzz does not start: {error}"))),
    };
    // The pipes are read on threads so that a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).ok();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        text
    });
    let ended = watch::wait(&mut child, timeout);
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    let result = match (ended, Outcome::parse(&stdout)) {
        (watch::Ended::Hang(why), _) => Err(format!("no result: {why} (a hang?)")),
        // Slow because the machine is loaded: neither target failed; both are skipped, with why.
        (watch::Ended::Inconclusive(why), _) => Ok(Outcome {
            cpu: Verdict::Skipped(format!("inconclusive (machine loaded): {why}")),
            vulkan: Verdict::Skipped(format!("inconclusive (machine loaded): {why}")),
            decided: Verdict::Skipped(format!("inconclusive (machine loaded): {why}")),
        }),
        (watch::Ended::Exited(_), Some(outcome)) => Ok(outcome),
        (watch::Ended::Exited(status), None) => {
            let why = stdout
                .lines()
                .find_map(|line| line.strip_prefix("PROGRAM error "))
                .map(str::to_owned)
                .unwrap_or_else(|| format!("the check exited with {status} and no result"));
            let tail: String = stderr
                .lines()
                .rev()
                .take(12)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            Err(if tail.is_empty() { why } else { format!("{why}\n{tail}") })
        }
    };
    (program, result)
}

/// Returns the report of a failed check (what failed, the summary, the program), or `None` when
/// nothing failed.
pub fn failure_report(
    seed: u64,
    index: u64,
    program: &generate::Program,
    result: &Result<Outcome, String>,
) -> Option<String> {
    let what = match result {
        Err(why) => why.clone(),
        Ok(outcome) => {
            let mut failed = Vec::new();
            for (target, verdict) in [
                ("CPU", &outcome.cpu),
                ("Vulkan", &outcome.vulkan),
                ("sm_90a's loop decisions", &outcome.decided),
            ] {
                if let Verdict::Fail(why) = verdict {
                    failed.push(format!("{target}: {why}"));
                }
            }
            if failed.is_empty() {
                return None;
            }
            failed.join("\n")
        }
    };
    Some(format!(
        "program {index} of seed {seed} ({}):\n{what}\n(reproduce: tile-fuzz --check-one {seed} {index})\n--- program ---\n{}",
        program.summary, program.text
    ))
}
