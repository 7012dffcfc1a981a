//! GEMM programs: one kernel whose blocks each compute an M x N tile of `Y = epilogue(op(A) op(B))`
//! over global tensors of ragged sizes (the last M, N and K tiles clip: reads past the ends give
//! zeros, writes there are dropped), in one of four shapes:
//! - `single`: one gemm in a `tile.pipelined` K loop (or straight-line when K fits one tile);
//! - `dual`: two gemms in the loop sharing A, two accumulators, combined in the epilogue (a
//!   gated product, as in a SwiGLU block);
//! - `sum`: two products accumulated into one fragment in the loop (A1 B1 + A2 B2);
//! - `chain`: after the loop the first result, through an elementwise epilogue and converted to
//!   the input type (a fragment, or a shared tile), is the A operand of a second gemm with a second
//!   weight tile (an MLP block); the block covers the whole hidden dimension.
//!
//! A is a shared tile, a fragment copied from global memory, or a fragment copied from the shared
//! tile; A and B in either orientation (`transpose_a`, `transpose_b`). Tile sizes mix those tensor
//! cores take (M = 64, K a multiple of 16) with those they do not (M = 16, N = 24, K = 8), so the
//! sm_90a case writer sees both the tensor-core path and its fallbacks; a 64-row chain through a
//! shared P runs on 256 threads (two warpgroups splitting N). Leading dimensions (3-D
//! and 4-D A, B and Y) are indexed by the grid's z (split into batch and head for 4-D). Epilogue
//! stages: elementwise chains, a bias vector and a residual tile loaded from global tensors at
//! clamped indices, a residual copied into a fragment with clipping, row and column reductions of
//! every kind (with `clear = false` onto a filled vector too) broadcast back.
//!
//! Sizes are bounded so that lavapipe runs every kernel, and quickly: on-chip tiles within 24 KiB
//! (its limit is 32 KiB; the plain strategy may keep fragments in workgroup memory), per-thread loop
//! iterations well under the 65535 it allows an invocation, N = 24 and fragment A operands only in
//! sizes it compiles in about a second (see [`Plan::fits`]).

use super::{Program, chain, literal, rows::KINDS};
use crate::fuzz::Rng;
use std::fmt::Write;
use tile_dialect::element::Element;

macro_rules! w {
    ($text:expr, $($arg:tt)*) => {{
        let _ = writeln!($text, $($arg)*);
    }};
}

/// How the A operand reaches the gemm.
#[derive(Clone, Copy, PartialEq)]
enum AOperand {
    Shared,
    /// Copied from global memory straight into a fragment.
    Fragment,
    /// Copied into a shared tile, then into a fragment.
    SharedThenFragment,
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Single,
    Dual,
    Sum,
    Chain,
}

/// The random choices of one program.
struct Plan {
    element: &'static str,
    output: &'static str,
    threads: usize,
    m: usize,
    n: usize,
    k: usize,
    transpose_a: bool,
    transpose_b: bool,
    a: AOperand,
    shape: Shape,
    stages: Option<usize>,
    k_tiles: usize,
    k_total: usize,
    m_blocks: usize,
    m_total: usize,
    n_blocks: usize,
    n_total: usize,
    /// Chain: the second gemm's N tile, its blocks, its global size, B2 transposed, P in shared.
    n2: usize,
    n2_blocks: usize,
    n2_total: usize,
    transpose_b2: bool,
    p_shared: bool,
    /// Leading dimensions of A and Y (B too when `b_batched`).
    lead: Vec<usize>,
    b_batched: bool,
}

fn ragged(rng: &mut Rng, tile: usize, blocks: usize) -> usize {
    if rng.below(2) == 0 {
        tile * blocks - 1 - rng.below(tile - 1)
    } else {
        tile * blocks
    }
}

impl Plan {
    fn pick(rng: &mut Rng) -> Self {
        let shape = *rng.pick(&[Shape::Single, Shape::Single, Shape::Dual, Shape::Sum, Shape::Chain]);
        let m = *rng.pick(&[16usize, 32, 64, 64]);
        let n = *rng.pick(&[8usize, 16, 24, 32, 64]);
        let k = *rng.pick(&[8usize, 16, 16, 32, 64]);
        let k_tiles = 1 + rng.below(4);
        let k_total = ragged(rng, k, k_tiles);
        let m_blocks = 1 + rng.below(2);
        let n_blocks = if shape == Shape::Chain { 1 } else { 1 + rng.below(2) };
        let lead = match rng.below(6) {
            0 | 1 => vec![1 + rng.below(3)],
            2 => vec![1 + rng.below(2), 1 + rng.below(3)],
            _ => Vec::new(),
        };
        let n2 = *rng.pick(&[8usize, 16, 24, 32]);
        let n2_blocks = 1 + rng.below(2);
        let element = match rng.below(8) {
            0 | 1 => "bf16",
            2 => "i8",
            _ => "f16",
        };
        // i8 products sum into an i32 accumulator that the epilogue converts to f32 (one or two
        // products into it: the single and sum shapes), with K in steps of 32 as the i8 tensor-core
        // instructions take it.
        let integer = element == "i8";
        let shape = if integer && !matches!(shape, Shape::Single | Shape::Sum) {
            Shape::Single
        } else {
            shape
        };
        let k = if integer { *rng.pick(&[32usize, 64]) } else { k };
        let k_total = if integer { ragged(rng, k, k_tiles) } else { k_total };
        Plan {
            element,
            output: ["f32", "f32", if integer { "f16" } else { element }][rng.below(3)],
            threads: *rng.pick(&[32usize, 64, 128, 128]),
            m,
            n,
            k,
            transpose_a: rng.below(3) == 0,
            transpose_b: rng.below(2) == 0,
            a: *rng.pick(&[
                AOperand::Shared,
                AOperand::Shared,
                AOperand::Shared,
                AOperand::Fragment,
                AOperand::SharedThenFragment,
            ]),
            shape,
            stages: (k_tiles > 1 || rng.below(2) == 0).then(|| 1 + rng.below(4)),
            k_tiles,
            k_total,
            m_blocks,
            m_total: ragged(rng, m, m_blocks),
            n_blocks,
            n_total: ragged(rng, n, n_blocks),
            n2,
            n2_blocks,
            n2_total: ragged(rng, n2, n2_blocks),
            transpose_b2: rng.below(2) == 0,
            p_shared: rng.below(3) == 0,
            b_batched: !lead.is_empty() && rng.below(2) == 0,
            lead,
        }
    }

    /// Whether the gemms multiply i8 tiles (into an i32 accumulator).
    fn integer(&self) -> bool {
        self.element == "i8"
    }

    /// Bytes of the on-chip tiles the loop and the chain use (epilogue tiles come on top: a
    /// residual fragment and the reduction vectors, bounded by M x N x 4 + a little).
    fn bytes(&self) -> usize {
        let input = if self.integer() { 1 } else { 2 };
        let (m, n, k) = (self.m, self.n, self.k);
        let a = m * k * input * if self.a == AOperand::SharedThenFragment { 2 } else { 1 };
        let b = k * n * input;
        // i8: the i32 accumulator and its f32 conversion.
        let c = m * n * 4 * if self.integer() { 2 } else { 1 };
        let epilogue = m * n * 4 + 4 * (m + n);
        match self.shape {
            Shape::Single => a + b + c + epilogue,
            Shape::Dual => a + 2 * b + 2 * c + epilogue,
            Shape::Sum => 2 * a + 2 * b + c + epilogue,
            Shape::Chain => a + b + c + m * n * input + n * self.n2 * input + m * self.n2 * 4 * 2,
        }
    }

    /// Multiply-adds one thread does, over the kernel (lavapipe stops an invocation's loops after
    /// 65535 iterations in all).
    fn iterations(&self) -> usize {
        let per_step = self.m * self.n * self.k;
        let products = match self.shape {
            Shape::Single => per_step * self.k_tiles,
            Shape::Dual | Shape::Sum => 2 * per_step * self.k_tiles,
            Shape::Chain => per_step * self.k_tiles + self.m * self.n2 * self.n,
        };
        products / self.threads
    }

    fn fits(&self) -> bool {
        // A fragment A operand has no register rule without tensor cores: the plain strategy reads
        // it at computed indices from a copy on every thread, which lavapipe runs slowly (seconds
        // for a 64x16 operand on 64 threads), so such operands stay small and on 128 threads.
        let fragment_a = self.a != AOperand::Shared || (self.shape == Shape::Chain && !self.p_shared);
        let small_a = self.m * self.k.max(if self.shape == Shape::Chain { self.n } else { 0 }) <= 512;
        // lavapipe compiles kernels whose per-thread loops divide by 24 (N = 24) very slowly at
        // most sizes (LLVM 15 in llvmpipe unrolls them and splits the result at every barrier:
        // minutes for a 64x24x64 gemm on 64 threads; the code is valid and correct), so N = 24
        // comes only in the sizes it compiles in about a second: M = 16 on 128 threads.
        let n24 = self.n == 24 || (self.shape == Shape::Chain && self.n2 == 24);
        let small_n24 = self.m == 16 && self.threads == 128 && self.k <= 16;
        self.bytes() <= 24 * 1024
            && self.iterations() <= 12_000
            && (!fragment_a || (self.threads == 128 && small_a))
            && (!n24 || small_n24)
    }
}

fn shared(shape: [usize; 2], element: &str) -> String {
    format!(
        "memref<{}x{}x{element}, #gpu.address_space<workgroup>>",
        shape[0], shape[1]
    )
}

fn fragment(shape: &[usize], element: &str) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("memref<{}x{element}, #tile.fragment>", dims.join("x"))
}

fn global(shape: &[usize], element: &str) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("memref<{}x{element}>", dims.join("x"))
}

/// A global tensor of the kernel: its name, its type, its leading offsets, and whether the last of
/// those lies between the tile's rows and columns (a (batch, sequence, head, channel) tensor).
struct Tensor {
    name: String,
    ty: String,
    lead: Vec<String>,
    middle: bool,
}

impl Tensor {
    fn at(&self, rest: [&str; 2]) -> String {
        let rest = rest.map(str::to_string);
        format!("%{}[{}]", self.name, between(&self.lead, rest, self.middle).join(", "))
    }

    /// The copy's ` dims [..]` where the tile does not lie in the tensor's trailing dimensions.
    fn dims(&self) -> String {
        if self.middle {
            format!(" dims [{}, {}]", self.lead.len() - 1, self.lead.len() + 1)
        } else {
            String::new()
        }
    }
}

/// `lead` then `tile`, or with `middle` the last of `lead` between the tile's two.
fn between<T: Clone>(lead: &[T], [rows, columns]: [T; 2], middle: bool) -> Vec<T> {
    match lead.split_last() {
        Some((last, outer)) if middle => {
            let mut all = outer.to_vec();
            all.extend([rows, last.clone(), columns]);
            all
        }
        _ => {
            let mut all = lead.to_vec();
            all.extend([rows, columns]);
            all
        }
    }
}

/// Generates a GEMM program from `rng`.
pub fn program(rng: &mut Rng) -> Program {
    let mut plan = Plan::pick(rng);
    while !plan.fits() {
        plan = Plan::pick(rng);
    }
    // A 64-row chain through a shared P on 128 threads runs on 256 instead: two warpgroups that
    // split N (wgmma on sm_90a), P stored into its shared tile by the threads (after the pick, so
    // that a seed's other programs stay what they were).
    if plan.shape == Shape::Chain && plan.p_shared && plan.a == AOperand::Shared && plan.m == 64 && plan.threads == 128
    {
        plan.threads = 256;
    }
    // Quantized weights (W4A16): B stored as signed 4-bit integers, copied into a 4-bit shared
    // tile and widened, scaled, into the 16-bit tile the gemm reads. Decided on a fork, so that
    // the programs a seed gave before stay as they were; B's packed dimension is made even.
    let quantized = plan.element != "i8" && plan.shape == Shape::Single && rng.fork(0x4B17).below(3) == 0;
    // 8-bit float weights (an fp8 checkpoint's B): stored as f8E4M3FN or f8E5M2, copied into an
    // 8-bit shared tile and widened, scaled, into the 16-bit tile the gemm reads. On a fork of
    // their own, among the programs the 4-bit fork left alone.
    let eight_bit_weights =
        !quantized && plan.element != "i8" && plan.shape == Shape::Single && rng.fork(0xF8E5).below(4) == 0;
    let weights = if quantized {
        Some("i4")
    } else if eight_bit_weights {
        Some(if rng.fork(0xF8E4).below(2) == 0 {
            "f8E4M3FN"
        } else {
            "f8E5M2"
        })
    } else {
        None
    };
    if quantized {
        let total = if plan.transpose_b {
            &mut plan.k_total
        } else {
            &mut plan.n_total
        };
        *total += *total % 2;
    }
    // The forms tile-split-k and the persistent rewrite take: a pipelined loop whose gemms read
    // shared operands.
    let rewritable = plan.stages.is_some() && plan.a == AOperand::Shared && plan.shape != Shape::Chain;
    // A K loop split across a cluster's blocks (`split = 2` in its schedule; sm_90a splits it,
    // the other targets run it whole): asked for on a fork where tile-split-k takes the loop, its
    // steps even; the accumulators start at zero below.
    let split = rewritable && plan.k_tiles % 2 == 0 && rng.fork(0x5917).below(3) == 0;
    // Clusters of two blocks sharing B's tiles (`multicast = 2`; sm_90a makes the kernel persistent
    // on pairs of grid rows, multicasting B; the other targets warn and run it as written): on a
    // fork of its own, where the persistent rewrite takes the loop (on a 2-D grid).
    let multicast = !split && rewritable && plan.lead.is_empty() && rng.fork(0x3C57).below(4) == 0;
    // A kernel that bounds its own blocks (a grouped GEMM's row tiles counted on the device): its
    // work guarded by `%by < rows`, the rows summed by a loop over a small i32 table, and its loop
    // asking for a persistent kernel (sm_90a walks the rows below the bound only; the other targets
    // warn and run it as written). On a fork of its own, where the persistent rewrite takes the
    // loop (the forms the multicast fork takes).
    let guarded = !split && !multicast && rewritable && plan.lead.is_empty() && rng.fork(0x6A2D).below(4) == 0;
    let p = &plan;
    let e = p.element;
    let chain_shape = p.shape == Shape::Chain;
    let (out_blocks, out_total) = if chain_shape {
        (p.n2_blocks, p.n2_total)
    } else {
        (p.n_blocks, p.n_total)
    };
    let lead_names: Vec<String> = match p.lead.len() {
        0 => Vec::new(),
        1 => vec!["%bz".into()],
        _ => vec!["%lb".into(), "%lh".into()],
    };
    // Tiles across the middle of the tensors (`dims`): the last leading dimension between the rows
    // and columns. Decided on a fork, so that the programs a seed gave before stay as they were.
    let middle = !p.lead.is_empty() && rng.fork(0xD135).below(3) == 0;
    let with_lead = |dims: [usize; 2]| -> Vec<usize> { between(&p.lead, dims, middle) };
    let a_dims = if p.transpose_a {
        [p.k_total, p.m_total]
    } else {
        [p.m_total, p.k_total]
    };
    let b_dims = if p.transpose_b {
        [p.n_total, p.k_total]
    } else {
        [p.k_total, p.n_total]
    };
    let b_global = |name: &str| Tensor {
        name: name.into(),
        ty: global(
            &if p.b_batched {
                with_lead(b_dims)
            } else {
                b_dims.to_vec()
            },
            weights.unwrap_or(e),
        ),
        lead: if p.b_batched { lead_names.clone() } else { Vec::new() },
        middle: middle && p.b_batched,
    };
    let a_global = |name: &str| Tensor {
        name: name.into(),
        ty: global(&with_lead(a_dims), e),
        lead: lead_names.clone(),
        middle,
    };
    let mut arguments: Vec<Tensor> = vec![a_global("A"), b_global("B")];
    match p.shape {
        Shape::Dual => arguments.push(b_global("B2")),
        Shape::Sum => {
            arguments.push(a_global("A2"));
            arguments.push(b_global("B2"));
        }
        Shape::Chain => {
            let dims = if p.transpose_b2 {
                [p.n2_total, p.n_total]
            } else {
                [p.n_total, p.n2_total]
            };
            arguments.push(Tensor {
                name: "W".into(),
                ty: global(&dims, e),
                lead: Vec::new(),
                middle: false,
            });
        }
        Shape::Single => {}
    }
    // Epilogue stages, chosen now: the tensors they read are arguments.
    let stages: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(9)).collect();
    let residual_element = if rng.below(2) == 0 { "f32" } else { "f16" };
    if stages.contains(&1) {
        arguments.push(Tensor {
            name: "bias".into(),
            ty: global(&[out_total], "f32"),
            lead: Vec::new(),
            middle: false,
        });
    }
    if stages.iter().any(|s| *s == 2 || *s == 3) {
        arguments.push(Tensor {
            name: "R".into(),
            ty: global(&[p.m_total, out_total], residual_element),
            lead: Vec::new(),
            middle: false,
        });
    }
    if guarded {
        arguments.push(Tensor {
            name: "Rows".into(),
            ty: global(&[2], "i32"),
            lead: Vec::new(),
            middle: false,
        });
    }
    let y = Tensor {
        name: "Y".into(),
        ty: global(&with_lead([p.m_total, out_total]), p.output),
        lead: lead_names.clone(),
        middle,
    };
    let signature: Vec<String> = arguments
        .iter()
        .chain([&y])
        .map(|t| format!("%{}: {}", t.name, t.ty))
        .collect();

    let mut text = String::new();
    w!(text, "func.func @generated({}) {{", signature.join(", "));
    w!(text, "  %c0 = arith.constant 0 : index");
    w!(text, "  %one = arith.constant 1.0 : f32");
    for k in 0..4 {
        w!(text, "  %k{k} = arith.constant {} : f32", literal(rng));
    }
    let init = if rng.below(2) == 0 {
        "0.0".to_string()
    } else {
        literal(rng)
    };
    // The split's parts each start from the accumulator's initial value: zero.
    w!(
        text,
        "  %init = arith.constant {} : f32",
        if split { "0.0" } else { &init }
    );
    let integer = p.integer();
    if weights.is_some() {
        w!(text, "  %qscale = arith.constant 0.125 : {e}");
    }
    if integer {
        let init_i = rng.below(3) as i64 * 7 - 7;
        w!(
            text,
            "  %init_i = arith.constant {} : i32",
            if split { 0 } else { init_i }
        );
        w!(text, "  %scale = arith.constant 0.015625 : f32");
    }
    for (name, value) in [
        ("cm", p.m),
        ("cn", p.n),
        ("ck", p.k),
        ("cn2", p.n2),
        ("kt", p.k_tiles),
        ("mlast", p.m_total - 1),
        ("nlast", out_total - 1),
        ("gx", out_blocks),
        ("gy", p.m_blocks),
        ("gz", p.lead.iter().product::<usize>()),
        ("heads", *p.lead.last().unwrap_or(&1)),
    ] {
        w!(text, "  %{name} = arith.constant {value} : index");
    }
    let (grid, ids) = if p.lead.is_empty() {
        ("%gx, %gy", "%bx, %by")
    } else {
        ("%gx, %gy, %gz", "%bx, %by, %bz")
    };
    w!(text, "  tile.kernel grid({grid}) threads({}) ({ids}) {{", p.threads);
    if p.lead.len() == 2 {
        w!(text, "    %lb = arith.divui %bz, %heads : index");
        w!(text, "    %lh = arith.remui %bz, %heads : index");
    }
    if guarded {
        // Rows = (|Rows[0]| + |Rows[1]|) mod (gy + 1): none, some or all of the grid's rows.
        w!(text, "    %g1 = arith.constant 1 : index");
        w!(text, "    %g2 = arith.constant 2 : index");
        w!(text, "    %gz32 = arith.constant 0 : i32");
        w!(
            text,
            "    %rows_sum = scf.for %gi = %c0 to %g2 step %g1 iter_args(%gs = %c0) -> (index) {{"
        );
        w!(text, "      %gv = memref.load %Rows[%gi] : memref<2xi32>");
        w!(text, "      %gneg = arith.subi %gz32, %gv : i32");
        w!(text, "      %gabs = arith.maxsi %gv, %gneg : i32");
        w!(text, "      %gr = arith.index_cast %gabs : i32 to index");
        w!(text, "      %gnext = arith.addi %gs, %gr : index");
        w!(text, "      scf.yield %gnext : index");
        w!(text, "    }}");
        w!(text, "    %gy1 = arith.addi %gy, %g1 : index");
        w!(text, "    %rows = arith.remui %rows_sum, %gy1 : index");
        w!(text, "    %in_rows = arith.cmpi ult, %by, %rows : index");
        w!(text, "    scf.if %in_rows {{");
    }
    w!(text, "    %m0 = arith.muli %by, %cm : index");
    w!(text, "    %n0 = arith.muli %bx, %cn : index");
    w!(text, "    %o0 = arith.muli %bx, %cn2 : index");
    let a_tile = if p.transpose_a { [p.k, p.m] } else { [p.m, p.k] };
    let b_tile = if p.transpose_b { [p.n, p.k] } else { [p.k, p.n] };
    let (st_a, fr_a, st_b) = (shared(a_tile, e), fragment(&a_tile, e), shared(b_tile, e));
    // The accumulators' type: i32 for i8 products (converted to the f32 `c` after the loop).
    let c = fragment(&[p.m, p.n], "f32");
    let acc_type = if integer {
        fragment(&[p.m, p.n], "i32")
    } else {
        c.clone()
    };
    let a_names: Vec<&str> = if p.shape == Shape::Sum {
        vec!["A", "A2"]
    } else {
        vec!["A"]
    };
    let b_names: Vec<&str> = if matches!(p.shape, Shape::Dual | Shape::Sum) {
        vec!["B", "B2"]
    } else {
        vec!["B"]
    };
    for a in &a_names {
        if p.a != AOperand::Fragment {
            w!(text, "    %{a}s = tile.alloc_shared : {st_a}");
        }
        if p.a != AOperand::Shared {
            w!(text, "    %{a}f = tile.alloc_fragment : {fr_a}");
        }
    }
    let st_q = shared(b_tile, weights.unwrap_or(e));
    for b in &b_names {
        w!(text, "    %{b}s = tile.alloc_shared : {st_b}");
        if weights.is_some() {
            w!(text, "    %{b}q = tile.alloc_shared : {st_q}");
        }
    }
    let accumulators: Vec<&str> = if p.shape == Shape::Dual {
        vec!["C", "C2"]
    } else {
        vec!["C"]
    };
    for acc in &accumulators {
        if integer {
            w!(text, "    %{acc}i = tile.alloc_fragment : {acc_type}");
            w!(text, "    tile.fill %{acc}i, %init_i : {acc_type}");
        } else {
            w!(text, "    %{acc} = tile.alloc_fragment : {c}");
            w!(text, "    tile.fill %{acc}, %init : {c}");
        }
    }
    // The K loop: copies, then gemms.
    let indent = if p.stages.is_some() { "      " } else { "    " };
    let k0 = match p.stages {
        Some(stages) => {
            let schedule = if split {
                " attributes {tile.schedule = {split = 2}}"
            } else if multicast {
                " attributes {tile.schedule = {multicast = 2}}"
            } else if guarded {
                " attributes {tile.schedule = {persistent = true}}"
            } else {
                ""
            };
            w!(text, "    tile.pipelined %k = %c0 to %kt stages({stages}){schedule} {{");
            w!(text, "      %kk = arith.muli %k, %ck : index");
            "%kk"
        }
        None => "%c0",
    };
    // A chain's block covers the whole hidden dimension: its first gemm starts at column 0.
    let n_loop = if chain_shape { "%c0" } else { "%n0" };
    let find = |name: &str| arguments.iter().find(|t| t.name == name).expect("an argument");
    let mut gemm_count = 0;
    for (index, a) in a_names.iter().enumerate() {
        let tensor = find(a);
        let at = tensor.at(if p.transpose_a { [k0, "%m0"] } else { ["%m0", k0] });
        let operand = match p.a {
            AOperand::Shared => {
                w!(
                    text,
                    "{indent}tile.copy {at}, %{a}s{} : {}, {st_a}",
                    tensor.dims(),
                    tensor.ty
                );
                format!("%{a}s")
            }
            AOperand::Fragment => {
                w!(
                    text,
                    "{indent}tile.copy {at}, %{a}f{} : {}, {fr_a}",
                    tensor.dims(),
                    tensor.ty
                );
                format!("%{a}f")
            }
            AOperand::SharedThenFragment => {
                w!(
                    text,
                    "{indent}tile.copy {at}, %{a}s{} : {}, {st_a}",
                    tensor.dims(),
                    tensor.ty
                );
                w!(text, "{indent}tile.copy %{a}s, %{a}f : {st_a}, {fr_a}");
                format!("%{a}f")
            }
        };
        let a_type = if p.a == AOperand::Shared { &st_a } else { &fr_a };
        let pairs: Vec<(&str, &str)> = match p.shape {
            Shape::Dual => vec![("B", "C"), ("B2", "C2")],
            Shape::Sum => vec![(b_names[index], "C")],
            _ => vec![("B", "C")],
        };
        for (b, acc) in pairs {
            let tensor = find(b);
            let bt = tensor.at(if p.transpose_b { [n_loop, k0] } else { [k0, n_loop] });
            if let Some(weights) = weights {
                w!(
                    text,
                    "{indent}tile.copy {bt}, %{b}q{} : {}, {st_q}",
                    tensor.dims(),
                    tensor.ty
                );
                w!(
                    text,
                    "{indent}tile.parallel (%qi, %qj) in ({}, {}) {{",
                    b_tile[0],
                    b_tile[1]
                );
                w!(text, "{indent}  %q = memref.load %{b}q[%qi, %qj] : {st_q}");
                if weights == "i4" {
                    w!(text, "{indent}  %qw = arith.sitofp %q : i4 to {e}");
                } else {
                    w!(text, "{indent}  %qw = arith.extf %q : {weights} to {e}");
                }
                w!(text, "{indent}  %qd = arith.mulf %qw, %qscale : {e}");
                w!(text, "{indent}  memref.store %qd, %{b}s[%qi, %qj] : {st_b}");
                w!(text, "{indent}}}");
            } else {
                w!(
                    text,
                    "{indent}tile.copy {bt}, %{b}s{} : {}, {st_b}",
                    tensor.dims(),
                    tensor.ty
                );
            }
            let attributes = match (p.transpose_a, p.transpose_b) {
                (false, false) => "",
                (true, false) => " {transpose_a}",
                (false, true) => " {transpose_b}",
                (true, true) => " {transpose_a, transpose_b}",
            };
            let acc_name = if integer { format!("{acc}i") } else { acc.to_string() };
            w!(
                text,
                "{indent}tile.gemm {operand}, %{b}s, %{acc_name}{attributes} : {a_type}, {st_b}, {acc_type}"
            );
            gemm_count += 1;
        }
    }
    if p.stages.is_some() {
        w!(text, "    }}");
    }
    if integer {
        // The i32 sums, scaled into the f32 accumulator the epilogue reads.
        w!(text, "    %C = tile.alloc_fragment : {c}");
        w!(text, "    tile.parallel (%i, %j) in ({}, {}) {{", p.m, p.n);
        w!(text, "      %q = memref.load %Ci[%i, %j] : {acc_type}");
        w!(text, "      %qf = arith.sitofp %q : i32 to f32");
        w!(text, "      %qs = arith.mulf %qf, %scale : f32");
        w!(text, "      memref.store %qs, %C[%i, %j] : {c}");
        w!(text, "    }}");
    }
    let mut accumulation = p.k_total;
    let mut out = "C".to_string();
    let mut out_columns = p.n;
    let mut notes = Vec::new();
    match p.shape {
        Shape::Dual => {
            // A gated product, C = C * tanh(C2) or C + C2 or max(C, C2).
            w!(text, "    tile.parallel (%i, %j) in ({}, {}) {{", p.m, p.n);
            w!(text, "      %u = memref.load %C[%i, %j] : {c}");
            w!(text, "      %g = memref.load %C2[%i, %j] : {c}");
            match rng.below(3) {
                0 => {
                    w!(text, "      %gt = math.tanh %g : f32");
                    w!(text, "      %uv = arith.mulf %u, %gt : f32");
                }
                1 => w!(text, "      %uv = arith.addf %u, %g : f32"),
                _ => w!(text, "      %uv = arith.maximumf %u, %g : f32"),
            };
            w!(text, "      memref.store %uv, %C[%i, %j] : {c}");
            w!(text, "    }}");
        }
        Shape::Chain => {
            // The first result, through a chain, as the second gemm's A operand.
            w!(text, "    tile.parallel (%i, %j) in ({}, {}) {{", p.m, p.n);
            w!(text, "      %h = memref.load %C[%i, %j] : {c}");
            let result = chain(rng, &mut text, "h", "%h", None);
            w!(text, "      memref.store {result}, %C[%i, %j] : {c}");
            w!(text, "    }}");
            let (p_type, p_name) = if p.p_shared {
                (shared([p.m, p.n], e), "%Ps")
            } else {
                (fragment(&[p.m, p.n], e), "%Pf")
            };
            if p.p_shared {
                w!(text, "    %Ps = tile.alloc_shared : {p_type}");
            } else {
                w!(text, "    %Pf = tile.alloc_fragment : {p_type}");
            }
            w!(text, "    tile.copy %C, {p_name} : {c}, {p_type}");
            let w_tile = if p.transpose_b2 { [p.n2, p.n] } else { [p.n, p.n2] };
            let w_type = shared(w_tile, e);
            let w_at = if p.transpose_b2 { "%W[%o0, %c0]" } else { "%W[%c0, %o0]" };
            w!(text, "    %Ws = tile.alloc_shared : {w_type}");
            w!(text, "    tile.copy {w_at}, %Ws : {}, {w_type}", find("W").ty);
            let o = fragment(&[p.m, p.n2], "f32");
            w!(text, "    %O = tile.alloc_fragment : {o}");
            w!(text, "    tile.fill %O, %init : {o}");
            let attributes = if p.transpose_b2 { " {transpose_b}" } else { "" };
            w!(
                text,
                "    tile.gemm {p_name}, %Ws, %O{attributes} : {p_type}, {w_type}, {o}"
            );
            gemm_count += 1;
            accumulation += p.n;
            out = "O".into();
            out_columns = p.n2;
        }
        _ => {}
    }
    let f = fragment(&[p.m, out_columns], "f32");
    let (n_origin, n_size) = if chain_shape { ("%o0", p.n2) } else { ("%n0", p.n) };
    for (index, stage) in stages.iter().enumerate() {
        // One tile.parallel over the output: `lines` compute `input` from %v, then a chain.
        let body =
            |text: &mut String, rng: &mut Rng, name: &str, input: &str, extra: Option<&str>, lines: &[String]| {
                w!(text, "    tile.parallel (%i, %j) in ({}, {n_size}) {{", p.m);
                w!(text, "      %v = memref.load %{out}[%i, %j] : {f}");
                for line in lines {
                    w!(text, "      {line}");
                }
                let result = chain(rng, text, &format!("{name}{index}_"), input, extra);
                w!(text, "      memref.store {result}, %{out}[%i, %j] : {f}");
                w!(text, "    }}");
            };
        match stage {
            0 => {
                notes.push("map");
                body(&mut text, rng, "e", "%v", None, &[]);
            }
            1 => {
                notes.push("bias");
                let lines = [
                    format!("%bn = arith.addi {n_origin}, %j : index"),
                    "%bc = arith.minui %bn, %nlast : index".into(),
                    format!("%bb = memref.load %bias[%bc] : {}", find("bias").ty),
                    "%vb = arith.addf %v, %bb : f32".into(),
                ];
                body(&mut text, rng, "bias", "%vb", Some("%v"), &lines);
            }
            2 => {
                notes.push("residual load");
                let r = find("R");
                let mut lines = vec![
                    "%rm = arith.addi %m0, %i : index".to_string(),
                    format!("%rn = arith.addi {n_origin}, %j : index"),
                    "%rmc = arith.minui %rm, %mlast : index".into(),
                    "%rnc = arith.minui %rn, %nlast : index".into(),
                ];
                if residual_element == "f32" {
                    lines.push(format!("%rv = memref.load %R[%rmc, %rnc] : {}", r.ty));
                } else {
                    lines.push(format!("%rh = memref.load %R[%rmc, %rnc] : {}", r.ty));
                    lines.push("%rv = arith.extf %rh : f16 to f32".into());
                }
                lines.push("%vr = arith.addf %v, %rv : f32".into());
                body(&mut text, rng, "res", "%vr", Some("%v"), &lines);
            }
            3 => {
                notes.push("residual copy");
                let name = format!("%Rf{index}");
                w!(text, "    {name} = tile.alloc_fragment : {f}");
                w!(
                    text,
                    "    tile.copy %R[%m0, {n_origin}], {name} : {}, {f}",
                    find("R").ty
                );
                let lines = [
                    format!("%rv = memref.load {name}[%i, %j] : {f}"),
                    "%vr = arith.addf %v, %rv : f32".into(),
                ];
                body(&mut text, rng, "rc", "%vr", Some("%v"), &lines);
            }
            4..=6 => {
                // A reduction along the rows (dim 1) or the columns (dim 0), broadcast back.
                let kind = *rng.pick(KINDS);
                let rows = *stage != 6;
                let (length, dim, index_name, label) = if rows {
                    (p.m, 1, "%i", "row")
                } else {
                    (n_size, 0, "%j", "column")
                };
                notes.push(if rows { "row reduce" } else { "column reduce" });
                let vector = fragment(&[length], "f32");
                let name = format!("%red{index}");
                w!(text, "    {name} = tile.alloc_fragment : {vector}");
                let clear = if rng.below(3) == 0 {
                    w!(text, "    tile.fill {name}, %k{} : {vector}", rng.below(4));
                    " {clear = false}"
                } else {
                    ""
                };
                w!(
                    text,
                    "    tile.reduce <{kind}> %{out}, {name} dim({dim}){clear} : {f}, {vector}"
                );
                accumulation += if rows { n_size } else { p.m };
                // v - statistic, as a softmax subtracts the row maximum.
                let lines = [
                    format!("%st = memref.load {name}[{index_name}] : {vector}"),
                    "%vs = arith.subf %v, %st : f32".into(),
                ];
                body(&mut text, rng, label, "%vs", Some("%st"), &lines);
            }
            _ => {
                notes.push("clamp");
                body(&mut text, rng, "c", "%v", Some("%k1"), &[]);
            }
        }
    }
    let y_at = y.at(["%m0", n_origin]);
    if rng.below(4) == 0 {
        let staged = shared([p.m, out_columns], p.output);
        w!(text, "    %Ys = tile.alloc_shared : {staged}");
        w!(text, "    tile.copy %{out}, %Ys : {f}, {staged}");
        w!(text, "    tile.copy %Ys, {y_at}{} : {staged}, {}", y.dims(), y.ty);
    } else {
        // On a fork of its own: a store limited to the rows above a bound (one that cuts some
        // blocks' tiles, or none, or every row of some: negative limits), and on some forks to
        // the columns left of one (sm_90a then stores element by element).
        let mut fork = rng.fork(0x11B7);
        let limits = if fork.below(4) == 0 {
            let rows = fork.below(p.m_total + p.m / 2);
            w!(text, "    %limit_rows_at = arith.constant {rows} : index");
            w!(text, "    %limit_rows = arith.subi %limit_rows_at, %m0 : index");
            if fork.below(3) == 0 {
                let columns = fork.below(out_total + 1);
                w!(text, "    %limit_columns_at = arith.constant {columns} : index");
                w!(
                    text,
                    "    %limit_columns = arith.subi %limit_columns_at, {n_origin} : index"
                );
            } else {
                w!(text, "    %limit_columns = arith.constant {out_columns} : index");
            }
            notes.push("limited store");
            " limits [%limit_rows, %limit_columns]".to_string()
        } else {
            String::new()
        };
        w!(text, "    tile.copy %{out}, {y_at}{limits}{} : {f}, {}", y.dims(), y.ty);
    }
    if guarded {
        w!(text, "    }}");
    }
    w!(text, "  }}");
    w!(text, "  return");
    w!(text, "}}");
    let shape_name = match p.shape {
        Shape::Single => "single",
        Shape::Dual => "dual",
        Shape::Sum => "sum",
        Shape::Chain => "chain",
    };
    let summary = format!(
        "gemm {shape_name} {e}: tile {}x{}x{} over {}x{}x{}{}{}{}, {} threads, A {}{}, {}, epilogue [{}], out {}{}",
        p.m,
        p.n,
        p.k,
        p.m_total,
        p.n_total,
        p.k_total,
        if p.lead.is_empty() {
            String::new()
        } else {
            format!(", leading {:?}{}", p.lead, if middle { " in the middle" } else { "" })
        },
        if chain_shape {
            format!(", then N2 {} over {}", p.n2, p.n2_total)
        } else {
            String::new()
        },
        match (p.b_batched, weights) {
            (false, None) => String::new(),
            (true, None) => ", batched B".into(),
            (false, Some(weights)) => format!(", B in {weights}"),
            (true, Some(weights)) => format!(", batched B in {weights}"),
        },
        p.threads,
        match p.a {
            AOperand::Shared => "shared",
            AOperand::Fragment => "fragment",
            AOperand::SharedThenFragment => "shared then fragment",
        },
        match (p.transpose_a, p.transpose_b) {
            (false, false) => "",
            (true, false) => ", transpose_a",
            (false, true) => ", transpose_b",
            (true, true) => ", transpose_a and _b",
        },
        match p.stages {
            Some(stages) => format!(
                "pipelined {} K tiles in {stages} stages{}",
                p.k_tiles,
                if split {
                    ", split in 2"
                } else if multicast {
                    ", B multicast to clusters of 2"
                } else if guarded {
                    ", rows bounded on the device, persistent"
                } else {
                    ""
                }
            ),
            None => "no loop".into(),
        },
        notes.join(", "),
        p.output,
        if text.contains("%Ys") { " through shared" } else { "" },
    );
    Program {
        text,
        summary,
        gemms: gemm_count,
        pipelined: usize::from(p.stages.is_some()),
        accumulation,
        chained: chain_shape,
        inputs: Some(match e {
            "bf16" => Element::BF16,
            "i8" => Element::I8,
            _ => Element::F16,
        }),
    }
}
