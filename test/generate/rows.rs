//! Row programs: one host function over an f32 input `X` (M x N, M possibly ragged: not a multiple
//! of the block's rows, so copies clip), outputs `Y` (M x N) and `R` (M); one kernel whose blocks
//! each take BM rows. The block copies its rows into a fragment (directly or through a shared
//! tile), applies one to four random stages (elementwise `tile.parallel` chains of arith and math
//! ops the CPU and SPIR-V targets both build; a `tile.reduce` of any kind along the rows, broadcast
//! back in a `tile.parallel`, or compared with each element to select one; one program in three a
//! `tile.scan` in place along the rows or the columns; one in sixteen a `tile.print` of the rows),
//! copies the rows out and
//! reduces them into `R`. One program in three also sums each block's rows by column and adds the
//! sums to a fourth argument `Z` (N, starting random) with an atomic `tile.copy`, every block into
//! the same elements; or keeps the largest or smallest (`atomic <max>`, `<min>`).

use super::{Program, chain, literal};
use crate::fuzz::Rng;
use std::fmt::Write;

pub(crate) const KINDS: &[&str] = &["sum", "max", "min", "absmax", "abssum"];

/// Generates a row program from `rng`.
pub fn program(rng: &mut Rng) -> Program {
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
    writeln!(text, "func.func @generated(%X: {x}, %Y: {x}, %R: {y}) {{").ok();
    writeln!(text, "  %c0 = arith.constant 0 : index").ok();
    writeln!(text, "  %grid = arith.constant {grid} : index").ok();
    writeln!(text, "  %rows = arith.constant {rows} : index").ok();
    writeln!(text, "  %one = arith.constant 1.0 : f32").ok();
    for k in 0..4 {
        writeln!(text, "  %k{k} = arith.constant {} : f32", literal(rng)).ok();
    }
    writeln!(text, "  tile.kernel grid(%grid) threads({threads}) (%bx) {{").ok();
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
                let result = chain(rng, &mut text, &format!("e{stage}_"), "%v", None);
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
                let result = chain(rng, &mut text, &format!("b{stage}_"), "%v", Some("%m"));
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
                let scaled = chain(rng, &mut text, &format!("s{stage}_"), "%m", None);
                writeln!(text, "      %gt{stage} = arith.cmpf ogt, %v, {scaled} : f32").ok();
                writeln!(text, "      %w{stage} = arith.select %gt{stage}, %v, {scaled} : f32").ok();
                writeln!(text, "      memref.store %w{stage}, %F[%i, %j] : {f}").ok();
                writeln!(text, "    }}").ok();
            }
        }
    }
    // A prefix sum, maximum or minimum in place, along the rows or the columns (exclusive sums
    // only: an exclusive maximum starts at -inf). Decided on a fork, so that the programs a seed
    // gave before stay as they were.
    let mut fork = rng.fork(0x5CA7);
    if fork.below(3) == 0 {
        let kind = *fork.pick(&["sum", "max", "min"]);
        let dim = fork.below(2);
        let exclusive = kind == "sum" && fork.below(2) == 0;
        names.push(if exclusive { "exclusive scan" } else { "scan" });
        let attribute = if exclusive { " {exclusive}" } else { "" };
        writeln!(text, "    tile.scan <{kind}> %F, %F dim({dim}){attribute} : {f}, {f}").ok();
    }
    // One program in sixteen prints its block's rows before they leave (the CPU reference and
    // the interpreter print the same lines; SPIR-V refuses the print at it, so Vulkan skips the
    // program). On a fork of its own, so that the programs a seed gave before stay as they were.
    if rng.fork(0x9217).below(16) == 0 {
        names.push("print");
        writeln!(text, "    tile.print \"rows\", %F : {f}").ok();
    }
    writeln!(text, "    tile.copy %F, %Y[%row, %c0] : {f}, {x}").ok();
    let last = *rng.pick(KINDS);
    writeln!(text, "    tile.reduce <{last}> %F, %r dim(1) : {f}, {r}").ok();
    writeln!(text, "    tile.copy %r, %R[%row] : {r}, {y}").ok();
    // Drawn last, so that the rest of the program is what the seed gave before.
    let atomic = (rng.below(3) == 0).then(|| *rng.pick(&["sum", "max", "min"]));
    if let Some(kind) = atomic {
        text = text.replacen(
            &format!("%R: {y}) {{"),
            &format!("%R: {y}, %Z: memref<{columns}xf32>) {{"),
            1,
        );
        let c = format!("memref<{columns}xf32, #tile.fragment>");
        writeln!(text, "    %col = tile.alloc_fragment : {c}").ok();
        writeln!(text, "    tile.reduce <{kind}> %F, %col dim(0) : {f}, {c}").ok();
        writeln!(
            text,
            "    tile.copy %col, %Z atomic <{kind}> : {c}, memref<{columns}xf32>"
        )
        .ok();
    }
    writeln!(text, "  }}").ok();
    writeln!(text, "  return").ok();
    writeln!(text, "}}").ok();
    let summary = format!(
        "{total}x{columns} in {grid} block(s) of {rows} rows, {threads} threads{}{}, stages [{}], then <{last}>{}",
        if ragged { ", ragged" } else { "" },
        if through_shared { ", through shared memory" } else { "" },
        names.join(", "),
        atomic.map_or(String::new(), |kind| format!(", column <{kind}> into Z atomically"))
    );
    Program {
        text,
        summary,
        gemms: 0,
        pipelined: 0,
        // A column sum adds every row, over all blocks.
        accumulation: columns.max(total),
        inputs: None,
        chained: false,
    }
}
