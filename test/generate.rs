//! A seeded generator of valid tile programs, for differential testing: every program it writes is
//! run by `tile-run` on the CPU reference and on Vulkan (lavapipe), and the two must agree element by
//! element (`tile-run --target vulkan --check`). Where `tile-run --target interp` exists (the
//! independent interpreter, [`interp_available`]), its checksums must agree with the CPU's too.
//!
//! A program: one host function over an f32 input `X` (M x N, M possibly ragged: not a multiple of
//! the block's rows, so copies clip), outputs `Y` (M x N) and `R` (M); one kernel whose blocks each
//! take BM rows. The block copies its rows into a fragment (directly or through a shared tile),
//! applies one to four random stages (elementwise `tile.parallel` chains of arith and math ops the
//! CPU and SPIR-V targets both build; a `tile.reduce` of any kind along the rows, broadcast back in
//! a `tile.parallel`, or compared with each element to select one), copies the rows out and reduces them into `R`.

use crate::fuzz::Rng;
use std::fmt::Write;

/// One generated program and what it is made of (for messages).
#[derive(Clone, Debug)]
pub struct Program {
    /// The MLIR text.
    pub text: String,
    /// A one-line description: shape, threads, stages.
    pub summary: String,
}

const KINDS: &[&str] = &["sum", "max", "min", "absmax", "abssum"];

/// Returns a float literal in [-2, 2] with two decimals.
fn literal(rng: &mut Rng) -> String {
    format!("{:.2}", (rng.below(401) as f64 - 200.0) / 100.0)
}

/// Writes an elementwise chain on `%v` into `body`, returning the name of its result. Values stay
/// bounded (tanh before exp), so both targets compute in the same range.
fn chain(
    rng: &mut Rng,
    body: &mut String,
    prefix: &str,
    input: &str,
    extra: Option<&str>,
) -> String {
    let mut current = input.to_string();
    let steps = 1 + rng.below(4);
    for step in 0..steps {
        let name = format!("%{prefix}{step}");
        let line = match rng.below(if extra.is_some() { 10 } else { 9 }) {
            0 => format!("{name} = arith.addf {current}, %k{} : f32", rng.below(4)),
            1 => format!("{name} = arith.mulf {current}, %k{} : f32", rng.below(4)),
            2 => format!(
                "{name} = arith.maximumf {current}, %k{} : f32",
                rng.below(4)
            ),
            3 => format!(
                "{name} = arith.minimumf {current}, %k{} : f32",
                rng.below(4)
            ),
            4 => format!("{name} = arith.negf {current} : f32"),
            5 => format!("{name} = math.tanh {current} : f32"),
            6 => {
                let squashed = format!("{name}t");
                writeln!(body, "      {squashed} = math.tanh {current} : f32").ok();
                format!("{name} = math.exp {squashed} : f32")
            }
            7 => {
                let magnitude = format!("{name}a");
                writeln!(body, "      {magnitude} = math.absf {current} : f32").ok();
                format!("{name} = math.sqrt {magnitude} : f32")
            }
            8 => {
                let magnitude = format!("{name}a");
                let denominator = format!("{name}d");
                writeln!(body, "      {magnitude} = math.absf {current} : f32").ok();
                writeln!(
                    body,
                    "      {denominator} = arith.addf {magnitude}, %one : f32"
                )
                .ok();
                format!(
                    "{name} = arith.divf %k{}, {denominator} : f32",
                    rng.below(4)
                )
            }
            _ => {
                let other = extra.unwrap_or(&current);
                let squashed = format!("{name}s");
                writeln!(body, "      {squashed} = math.tanh {other} : f32").ok();
                format!("{name} = arith.subf {current}, {squashed} : f32")
            }
        };
        writeln!(body, "      {line}").ok();
        current = name;
    }
    current
}

/// Generates program `index` of `seed`.
pub fn program(seed: u64, index: u64) -> Program {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ index);
    let rows = *rng.pick(&[2usize, 4, 8, 16]);
    let columns = *rng.pick(&[8usize, 16, 32, 64]);
    let grid = 1 + rng.below(3);
    let ragged = grid > 1 && rng.below(3) == 0;
    let total = if ragged {
        rows * grid - 1 - rng.below(rows - 1)
    } else {
        rows * grid
    };
    let threads = *rng.pick(&[32usize, 64, 128]);
    let through_shared = rng.below(3) == 0;
    let f = format!("memref<{rows}x{columns}xf32, #tile.fragment>");
    let r = format!("memref<{rows}xf32, #tile.fragment>");
    let s = format!("memref<{rows}x{columns}xf32, #gpu.address_space<workgroup>>");
    let x = format!("memref<{total}x{columns}xf32>");
    let y = format!("memref<{total}xf32>");

    let mut text = String::new();
    writeln!(text, "// generated: seed {seed}, program {index}").ok();
    writeln!(text, "func.func @generated(%X: {x}, %Y: {x}, %R: {y}) {{").ok();
    writeln!(text, "  %c0 = arith.constant 0 : index").ok();
    writeln!(text, "  %grid = arith.constant {grid} : index").ok();
    writeln!(text, "  %rows = arith.constant {rows} : index").ok();
    writeln!(text, "  %one = arith.constant 1.0 : f32").ok();
    for k in 0..4 {
        writeln!(text, "  %k{k} = arith.constant {} : f32", literal(&mut rng)).ok();
    }
    writeln!(
        text,
        "  tile.kernel grid(%grid) threads({threads}) (%bx) {{"
    )
    .ok();
    writeln!(text, "    %F = tile.alloc_fragment : {f}").ok();
    writeln!(text, "    %r = tile.alloc_fragment : {r}").ok();
    writeln!(text, "    %row = arith.muli %bx, %rows : index").ok();
    if through_shared {
        writeln!(text, "    %S = tile.alloc_shared : {s}").ok();
        writeln!(text, "    tile.copy %X[%row, %c0], %S : {x}, {s}").ok();
        writeln!(text, "    tile.copy %S, %F : {s}, {f}").ok();
    } else {
        writeln!(text, "    tile.copy %X[%row, %c0], %F : {x}, {f}").ok();
    }
    let stages = 1 + rng.below(4);
    let mut names = Vec::new();
    for stage in 0..stages {
        match rng.below(5) {
            0 | 1 => {
                names.push("map");
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                let result = chain(&mut rng, &mut text, &format!("e{stage}_"), "%v", None);
                writeln!(text, "      memref.store {result}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
            2 | 3 => {
                let kind = *rng.pick(KINDS);
                names.push(kind);
                writeln!(text, "    tile.reduce <{kind}> %F, %r dim(1) : {f}, {r}").ok();
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                writeln!(text, "      %m = memref.load %r[%i] : {r}").ok();
                let result = chain(&mut rng, &mut text, &format!("b{stage}_"), "%v", Some("%m"));
                writeln!(text, "      memref.store {result}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
            _ => {
                // A comparison with the row's statistic selects between the two.
                let kind = *rng.pick(KINDS);
                names.push("select");
                writeln!(text, "    tile.reduce <{kind}> %F, %r dim(1) : {f}, {r}").ok();
                writeln!(text, "    tile.parallel (%i, %j) in ({rows}, {columns}) {{").ok();
                writeln!(text, "      %v = memref.load %F[%i, %j] : {f}").ok();
                writeln!(text, "      %m = memref.load %r[%i] : {r}").ok();
                let scaled = chain(&mut rng, &mut text, &format!("s{stage}_"), "%m", None);
                writeln!(
                    text,
                    "      %gt{stage} = arith.cmpf ogt, %v, {scaled} : f32"
                )
                .ok();
                writeln!(
                    text,
                    "      %w{stage} = arith.select %gt{stage}, %v, {scaled} : f32"
                )
                .ok();
                writeln!(text, "      memref.store %w{stage}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
        }
    }
    writeln!(text, "    tile.copy %F, %Y[%row, %c0] : {f}, {x}").ok();
    let last = *rng.pick(KINDS);
    writeln!(text, "    tile.reduce <{last}> %F, %r dim(1) : {f}, {r}").ok();
    writeln!(text, "    tile.copy %r, %R[%row] : {r}, {y}").ok();
    writeln!(text, "  }}").ok();
    writeln!(text, "  return").ok();
    writeln!(text, "}}").ok();
    let summary = format!(
        "{total}x{columns} in {grid} block(s) of {rows} rows, {threads} threads{}{}, stages [{}], then <{last}>",
        if ragged { ", ragged" } else { "" },
        if through_shared {
            ", through shared memory"
        } else {
            ""
        },
        names.join(", ")
    );
    Program { text, summary }
}

/// Returns true when `tile-run` in `bin` has the interpreter target (`--target interp`): the hook
/// for the independent interpreter, compared with the CPU reference once it lands.
pub fn interp_available(bin: &std::path::Path, scratch: &std::path::Path) -> bool {
    let input = scratch.join("interp-probe.mlir");
    std::fs::write(
        &input,
        "func.func @probe(%X: memref<4xf32>) {\n  return\n}\n",
    )
    .is_ok()
        && std::process::Command::new(bin.join("tile-run"))
            .arg(&input)
            .args(["--target", "interp"])
            .output()
            .is_ok_and(|output| output.status.success())
}

/// Returns the checksum of each output a `tile-run` run printed, in order.
pub fn checksums(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|line| line.split("checksum ").nth(1))
        .filter_map(|rest| rest.split(',').next()?.trim().parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_reproducible_and_differ() {
        assert_eq!(program(1, 3).text, program(1, 3).text);
        assert_ne!(program(1, 3).text, program(1, 4).text);
    }

    #[test]
    fn checksums_are_read_from_tile_run_output() {
        let out = "@f ran\n  output %arg1 [4, 4] f32: checksum 1.500000, 0 unwritten, first [1]\n";
        assert_eq!(checksums(out), [1.5]);
    }
}
