//! Matmul programs: one `tile.matmul` in a host function, the compiler choosing the kernels. Sizes
//! are ragged (no tile divides most of them), each static or known at run time (the check gives
//! run-time sizes 256), so that the size classes of every target are reached: decode rows (M at
//! most 64), few tiles with a K long enough for sm_90a's split twin (K 1100), many tiles; a third
//! of them batched.

use super::Program;
use crate::fuzz::Rng;
use std::fmt::Write;
use tile_dialect::element::Element;

/// Generates a matmul program.
pub fn program(rng: &mut Rng) -> Program {
    let input = *rng.pick(&[Element::F16, Element::BF16]);
    let output = *rng.pick(&[Element::F16, Element::BF16, Element::F32]);
    let transpose_b = rng.below(2) == 0;
    // One in six on 8-bit floats (decided on a fork), B then as N x K (wgmma reads them K-major).
    let input = match rng.fork(0xF8).below(6) {
        0 => *rng.fork(0xF9).pick(&[Element::F8E4M3FN, Element::F8E5M2]),
        _ => input,
    };
    let transpose_b = transpose_b || input.bytes() == 1;
    let mut size = |choices: &[usize]| {
        let value = *rng.pick(choices);
        (rng.below(3) == 0).then_some(value)
    };
    // `None`: known at run time.
    let m = size(&[1, 16, 40, 64, 65, 130]);
    let n = size(&[8, 24, 100, 130, 257]);
    let k = size(&[8, 16, 72, 130, 300, 1100]);
    // One in three is batched (a static batch of 2 or 3, so that run-time sizes stay small): B with
    // a batch of its own, or one B for every batch.
    let batched = (rng.below(3) == 0).then(|| (*rng.pick(&[2usize, 3]), rng.below(2) == 0));
    let text_of = |size: Option<usize>| size.map_or("?".to_string(), |value| value.to_string());
    let tensor = |batch: Option<usize>, rows: Option<usize>, columns: Option<usize>, element: Element| {
        let batch = batch.map_or(String::new(), |batch| format!("{batch}x"));
        format!("memref<{batch}{}x{}x{element}>", text_of(rows), text_of(columns))
    };
    let batch = batched.map(|(batch, _)| batch);
    let b_batch = batched.filter(|(_, own)| *own).map(|(batch, _)| batch);
    let a = tensor(batch, m, k, input);
    let b = if transpose_b {
        tensor(b_batch, n, k, input)
    } else {
        tensor(b_batch, k, n, input)
    };
    let c = tensor(batch, m, n, output);
    let flag = if transpose_b { " {transpose_b}" } else { "" };
    let mut text = String::new();
    writeln!(text, "func.func @generated(%A: {a}, %B: {b}, %C: {c}) {{").ok();
    writeln!(text, "  tile.matmul %A, %B, %C{flag} : {a}, {b}, {c}").ok();
    writeln!(text, "  return").ok();
    writeln!(text, "}}").ok();
    let dynamic = 256;
    Program {
        text,
        summary: format!(
            "matmul {}x{}x{} {input} -> {output}{}{}",
            text_of(m),
            text_of(n),
            text_of(k),
            if transpose_b { ", B as NxK" } else { "" },
            match batched {
                Some((batch, true)) => format!(", {batch} batches"),
                Some((batch, false)) => format!(", {batch} batches of one B"),
                None => String::new(),
            }
        ),
        gemms: 1,
        pipelined: 1,
        accumulation: k.unwrap_or(dynamic),
        inputs: Some(input),
        chained: false,
    }
}
