//! Attention programs: a FlashAttention forward kernel, the online softmax that issue 32's kernels
//! share. One block per (query block, head) over [heads, sequence, head dim] tensors of a ragged
//! sequence; the block copies its queries into a shared tile, then a `tile.pipelined` loop over key
//! blocks (FlashAttention-2's order; in some programs FlashAttention-3's, the first K
//! and last V through the ring: a step issues P V of the previous block, one step more) computes
//! S = Q K^T into a fragment, masks the keys past the
//! sequence (and past the query, when causal: the loop then stops at the diagonal block), takes the
//! row maximum (`tile.reduce <max>` onto the running one), the exponentials and their row sums
//! (a reduction between the two gemms), rescales the accumulator, converts S to the input type (a
//! fragment that is the second gemm's A operand in registers, or a shared tile) and adds P V.
//! About one in six takes f8E4M3FN Q, K and V (V given transposed, as wgmma reads 8-bit operands
//! K-major) on one warpgroup of 64 rows, P rounded to f8E4M3FN (by a saturating copy in half of
//! them): on sm_90a a shared P or one in registers exchanged within lane quads.
//! After the loop the rows are divided by their sums and leave in f32 or the input type.
//!
//! Sizes are bounded as the GEMM family's: tiles and the fragments the plain strategy may keep in
//! workgroup memory within lavapipe's 32 KiB.

use super::Program;
use crate::fuzz::Rng;
use std::fmt::Write;
use tile_dialect::element::Element;

macro_rules! w {
    ($text:expr, $($arg:tt)*) => {{
        let _ = writeln!($text, $($arg)*);
    }};
}

/// Generates an attention program from `rng`.
pub fn program(rng: &mut Rng) -> Program {
    let element = if rng.below(4) == 0 { "bf16" } else { "f16" };
    let output = if rng.below(2) == 0 { "f32" } else { element };
    let dim = *rng.pick(&[16usize, 32, 64]);
    let (bm, bn) = (*rng.pick(&[16usize, 32, 64]), *rng.pick(&[16usize, 32, 64]));
    let mut stages = 1 + rng.below(3);
    // 8-bit floats (decided on a fork, so that the other programs stay what they were): wgmma's
    // K of 32 bytes in both gemms (head dim 32; key blocks of 32: the bound below halves 64, whose
    // S fragment would not fit) and 64 rows a warpgroup, which that bound keeps.
    let fp8 = rng.fork(0xF8A7).below(6) == 0;
    let (element, output, dim, mut bn, mut bm) = match fp8 {
        true => (
            "f8E4M3FN",
            if output == "f32" { "f32" } else { "f16" },
            32,
            bn.max(32),
            64,
        ),
        false => (element, output, dim, bn, bm),
    };
    let bytes_per = if fp8 { 1 } else { 2 };
    // Shared tiles (Q, and K and V per stage) and the f32 fragments S and O within 28 KiB.
    let bytes =
        |bm: usize, bn: usize, stages: usize| bytes_per * (bm * dim + 2 * stages * bn * dim) + 4 * (bm * bn + bm * dim);
    while bytes(bm, bn, stages) > 28 * 1024 {
        if stages > 1 {
            stages -= 1;
        } else if bn > if fp8 { 32 } else { 16 } {
            bn /= 2;
        } else {
            bm /= 2;
        }
    }
    // The mma layouts split the block's rows over its warps, 16 rows a warp at least (8-bit
    // floats: one warpgroup).
    let threads = match fp8 {
        true => 128,
        false => 32 * (1 + rng.below(bm / 16).min(3)),
    };
    let heads = 1 + rng.below(2);
    let q_blocks = 1 + rng.below(3);
    let seq = if rng.below(2) == 0 {
        bm * q_blocks - rng.below(bm.min(q_blocks * bm - 1))
    } else {
        bm * q_blocks
    };
    let causal = rng.below(3) == 0;
    let p_shared = rng.below(3) == 0;
    // A persistent kernel (non-causal: the loop's bounds are the same for every block): on sm_90a
    // the blocks walk the (query block, head) items, each item's Q copied once into a ring of its
    // own; the other targets warn and run one item a block. It takes a block the per-op rules
    // lower (a warpgroup of 64 rows) and a ring, in tiles that stay within the bound above.
    let persistent = !causal && rng.below(4) == 0 && !fp8;
    // O divided by the rows' sums with `arcp` in half the programs (a reciprocal a row, then
    // multiplies, as the attention generator writes it); decided on a fork, so that the other
    // choices of a seed stay what they were.
    let reciprocal = rng.fork(0xA2C9).below(2) == 0;
    // FlashAttention-3's order through the ring alone (one in four programs; on a fork): step j
    // issues S of key block j and P V of block j - 1 (P zero before the loop, V's block clamped at
    // 0), one step more than the key blocks (causal: than the block's, up to the diagonal), the
    // last step's keys all masked; persistent too (each item's P zeroed at its first step).
    let ring_ends = rng.fork(0x9E4D).below(4) == 0;
    // An 8-bit P rounded by a saturating copy in half the fp8 programs (on a fork): P stays at
    // most 1, so the copy's results are those of the plain one, by another lowering.
    let saturate = fp8 && rng.fork(0x5A7E).below(2) == 0;
    let (bm, bn, dim, stages, threads) = match persistent {
        true => (64, bn.min(32), dim.min(32), 2, 128),
        false => (bm, bn, dim, stages, threads),
    };
    let q_blocks = seq.div_ceil(bm);
    let k_blocks = seq.div_ceil(bn);
    let scale = std::f64::consts::LOG2_E / (dim as f64).sqrt();

    let tensor = |element: &str| format!("memref<{heads}x{seq}x{dim}x{element}>");
    let (t_in, t_out) = (tensor(element), tensor(output));
    // V, and the tile of it a step reads: transposed (head dim x keys) for 8-bit floats.
    let t_v = match fp8 {
        true => format!("memref<{heads}x{dim}x{seq}x{element}>"),
        false => t_in.clone(),
    };
    let tile = |rows: usize, columns: usize, element: &str| {
        format!("memref<{rows}x{columns}x{element}, #gpu.address_space<workgroup>>")
    };
    let fragment = |shape: &str, element: &str| format!("memref<{shape}x{element}, #tile.fragment>");
    let (qs, kvs) = (tile(bm, dim, element), tile(bn, dim, element));
    let vs = if fp8 { tile(dim, bn, element) } else { kvs.clone() };
    let s = fragment(&format!("{bm}x{bn}"), "f32");
    let p = if p_shared {
        tile(bm, bn, element)
    } else {
        fragment(&format!("{bm}x{bn}"), element)
    };
    let acc = fragment(&format!("{bm}x{dim}"), "f32");
    let out = fragment(&format!("{bm}x{dim}"), output);
    let row = fragment(&bm.to_string(), "f32");

    let mut text = String::new();
    w!(
        text,
        "func.func @generated(%Q: {t_in}, %K: {t_in}, %V: {t_v}, %O: {t_out}) {{"
    );
    w!(text, "  %c0 = arith.constant 0 : index");
    w!(text, "  %c1 = arith.constant 1 : index");
    w!(text, "  %qblocks = arith.constant {q_blocks} : index");
    w!(text, "  %kblocks = arith.constant {k_blocks} : index");
    w!(text, "  %heads = arith.constant {heads} : index");
    w!(text, "  %bm = arith.constant {bm} : index");
    w!(text, "  %bn = arith.constant {bn} : index");
    w!(text, "  %seq = arith.constant {seq} : index");
    w!(text, "  %zero = arith.constant 0.0 : f32");
    w!(text, "  %ninf = arith.constant 0xFF800000 : f32");
    w!(text, "  %scale = arith.constant {scale:e} : f32");
    w!(text, "  %nscale = arith.constant {:e} : f32", -scale);
    if ring_ends {
        w!(text, "  %zero_p = arith.constant 0.0 : {element}");
    }
    w!(
        text,
        "  tile.kernel grid(%qblocks, %heads) threads({threads}) (%bq, %bh) {{"
    );
    w!(text, "    %Qs = tile.alloc_shared : {qs}");
    w!(text, "    %Ks = tile.alloc_shared : {kvs}");
    w!(text, "    %Vs = tile.alloc_shared : {vs}");
    w!(text, "    %S = tile.alloc_fragment : {s}");
    if p_shared {
        w!(text, "    %P = tile.alloc_shared : {p}");
    } else {
        w!(text, "    %P = tile.alloc_fragment : {p}");
    }
    w!(text, "    %Acc = tile.alloc_fragment : {acc}");
    for name in ["m", "mp", "l", "rs"] {
        w!(text, "    %{name} = tile.alloc_fragment : {row}");
    }
    // (A persistent kernel's allocations come before its loop: its epilogue runs inside it.)
    if persistent {
        w!(text, "    %Out = tile.alloc_fragment : {out}");
    }
    w!(text, "    %q0 = arith.muli %bq, %bm : index");
    w!(text, "    tile.copy %Q[%bh, %q0, %c0], %Qs : {t_in}, {qs}");
    w!(text, "    tile.fill %Acc, %zero : {acc}");
    w!(text, "    tile.fill %m, %ninf : {row}");
    w!(text, "    tile.fill %l, %zero : {row}");
    let blocks = if causal {
        // Key blocks up to the diagonal: min(kblocks, ceil((q0 + bm) / bn)).
        w!(text, "    %qend = arith.addi %q0, %bm : index");
        w!(text, "    %diag = arith.ceildivui %qend, %bn : index");
        w!(text, "    %bound = arith.minui %diag, %kblocks : index");
        "%bound"
    } else {
        "%kblocks"
    };
    let bound = if ring_ends {
        w!(text, "    tile.fill %P, %zero_p : {p}");
        if causal {
            w!(text, "    %steps = arith.addi %bound, %c1 : index");
        } else {
            // A persistent kernel's step count is a constant.
            w!(text, "    %steps = arith.constant {} : index", k_blocks + 1);
        }
        "%steps"
    } else {
        blocks
    };
    let schedule = if persistent {
        " attributes {tile.schedule = {persistent = true}}"
    } else {
        ""
    };
    w!(
        text,
        "    tile.pipelined %j = %c0 to {bound} stages({stages}){schedule} {{"
    );
    w!(text, "      %k0 = arith.muli %j, %bn : index");
    let kv = if ring_ends {
        w!(text, "      %jp = arith.subi %j, %c1 : index");
        w!(text, "      %jv = arith.maxsi %jp, %c0 : index");
        w!(text, "      %kv0 = arith.muli %jv, %bn : index");
        "%kv0"
    } else {
        "%k0"
    };
    w!(text, "      tile.copy %K[%bh, %k0, %c0], %Ks : {t_in}, {kvs}");
    match fp8 {
        true => w!(text, "      tile.copy %V[%bh, %c0, {kv}], %Vs : {t_v}, {vs}"),
        false => w!(text, "      tile.copy %V[%bh, {kv}, %c0], %Vs : {t_in}, {kvs}"),
    }
    w!(text, "      tile.fill %S, %zero : {s}");
    w!(text, "      tile.gemm %Qs, %Ks, %S {{transpose_b}} : {qs}, {kvs}, {s}");
    let transpose = if fp8 { " {transpose_b}" } else { "" };
    if ring_ends {
        w!(text, "      tile.gemm %P, %Vs, %Acc{transpose} : {p}, {vs}, {acc}");
    }
    // Keys past the sequence (whose rows the copy filled with zeros), and causally past the query.
    w!(text, "      tile.parallel (%i, %k) in ({bm}, {bn}) {{");
    w!(text, "        %key = arith.addi %k0, %k : index");
    w!(text, "        %outside = arith.cmpi uge, %key, %seq : index");
    let masked = if causal {
        w!(text, "        %query = arith.addi %q0, %i : index");
        w!(text, "        %future = arith.cmpi ugt, %key, %query : index");
        w!(text, "        %either = arith.ori %outside, %future : i1");
        "%either"
    } else {
        "%outside"
    };
    w!(text, "        %sv = memref.load %S[%i, %k] : {s}");
    w!(text, "        %mv = arith.select {masked}, %ninf, %sv : f32");
    w!(text, "        memref.store %mv, %S[%i, %k] : {s}");
    w!(text, "      }}");
    w!(text, "      tile.copy %m, %mp : {row}, {row}");
    w!(
        text,
        "      tile.reduce <max> %S, %m dim(1) {{clear = false}} : {s}, {row}"
    );
    w!(text, "      tile.parallel (%i, %k) in ({bm}, {bn}) {{");
    w!(text, "        %sv = memref.load %S[%i, %k] : {s}");
    w!(text, "        %mi = memref.load %m[%i] : {row}");
    w!(text, "        %shift = arith.mulf %mi, %nscale : f32");
    w!(text, "        %x = math.fma %sv, %scale, %shift : f32");
    w!(text, "        %e = math.exp2 %x : f32");
    w!(text, "        memref.store %e, %S[%i, %k] : {s}");
    w!(text, "      }}");
    w!(text, "      tile.reduce <sum> %S, %rs dim(1) : {s}, {row}");
    w!(text, "      tile.parallel (%i) in ({bm}) {{");
    w!(text, "        %old = memref.load %mp[%i] : {row}");
    w!(text, "        %new = memref.load %m[%i] : {row}");
    w!(text, "        %diff = arith.subf %old, %new : f32");
    w!(text, "        %x = arith.mulf %diff, %scale : f32");
    w!(text, "        %c = math.exp2 %x : f32");
    w!(text, "        %li = memref.load %l[%i] : {row}");
    w!(text, "        %r = memref.load %rs[%i] : {row}");
    w!(text, "        %n = math.fma %li, %c, %r : f32");
    w!(text, "        memref.store %n, %l[%i] : {row}");
    w!(text, "        memref.store %c, %mp[%i] : {row}");
    w!(text, "      }}");
    w!(text, "      tile.parallel (%i, %d) in ({bm}, {dim}) {{");
    w!(text, "        %o = memref.load %Acc[%i, %d] : {acc}");
    w!(text, "        %c = memref.load %mp[%i] : {row}");
    w!(text, "        %r = arith.mulf %o, %c : f32");
    w!(text, "        memref.store %r, %Acc[%i, %d] : {acc}");
    w!(text, "      }}");
    let saturating = if saturate { " saturate" } else { "" };
    w!(text, "      tile.copy %S, %P{saturating} : {s}, {p}");
    if !ring_ends {
        w!(text, "      tile.gemm %P, %Vs, %Acc{transpose} : {p}, {vs}, {acc}");
    }
    w!(text, "    }}");
    if !persistent {
        w!(text, "    %Out = tile.alloc_fragment : {out}");
    }
    w!(text, "    tile.parallel (%i, %d) in ({bm}, {dim}) {{");
    w!(text, "      %o = memref.load %Acc[%i, %d] : {acc}");
    w!(text, "      %li = memref.load %l[%i] : {row}");
    let flags = if reciprocal { " fastmath<arcp>" } else { "" };
    w!(text, "      %r = arith.divf %o, %li{flags} : f32");
    if output == "f32" {
        w!(text, "      memref.store %r, %Out[%i, %d] : {out}");
    } else {
        w!(text, "      %t = arith.truncf %r : f32 to {output}");
        w!(text, "      memref.store %t, %Out[%i, %d] : {out}");
    }
    w!(text, "    }}");
    w!(text, "    tile.copy %Out, %O[%bh, %q0, %c0] : {out}, {t_out}");
    w!(text, "  }}");
    w!(text, "  return");
    w!(text, "}}");
    let inputs = match element {
        "bf16" => Element::BF16,
        "f8E4M3FN" => Element::F8E4M3FN,
        _ => Element::F16,
    };
    Program {
        text,
        summary: format!(
            "attention {heads}x{seq}x{dim} {element} -> {output}, {bm}x{bn} blocks, {threads} threads, {stages} stages{}{}{}{}{}",
            if causal { ", causal" } else { "" },
            if ring_ends { ", ring ends" } else { "" },
            if saturate { ", P saturating" } else { "" },
            if p_shared { ", P shared" } else { "" },
            if persistent { ", persistent" } else { "" }
        ),
        gemms: 2,
        pipelined: 1,
        accumulation: seq + dim,
        inputs: Some(inputs),
        chained: true,
    }
}
