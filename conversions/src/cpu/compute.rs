//! Rules for the compute ops: `tile.gemm`, `tile.reduce` and `tile.scan` as plain loop nests, in the
//! accumulator's type; `tile.matmul` (host code) as one, summed in f32. Obviously right rather than
//! fast: this is the reference the GPU lowerings are checked against.

use super::{
    builder::{At, Binary, Builder},
    data::{convert, element_type},
};
use melior::ir::{
    BlockLike, Type, Value,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::ops::{ReductionKind, integer_attribute, memref_shape, reduction_kind};
use tile_dialect::positions::OperationAt;
use tile_ir::arith;

// ---- tile.gemm ----------------------------------------------------------------------------------

/// Lowers `tile.gemm`: `C[m, n] += op(A)[m, k] * op(B)[k, n]` for every m, n, k.
pub fn lower_gemm<'c>(b: &Builder<'c>, gemm: OperationRef<'c, '_>) {
    let at = At::before(gemm);
    let [a, bb, c] = [0, 1, 2].map(|index| gemm.operand_at(index).expect("verified gemm"));
    let (transpose_a, transpose_b) = (gemm.has_attribute("transpose_a"), gemm.has_attribute("transpose_b"));
    let c_shape = memref_shape(c);
    let a_shape = memref_shape(a);
    let k_size = if transpose_a { a_shape[0] } else { a_shape[1] };
    // Each (m, n) is independent; the K loop of one output element stays sequential, in increasing
    // k. It runs as chunks of steps with the chunk as the inner loop: the same order of additions,
    // and an inner loop with a small constant trip count, which GPU compilers unroll. (Mesa's
    // lavapipe also caps the loop iterations of one invocation at 65535, all loops together, and
    // silently leaves the loops past that: unrolled chunks keep big GEMMs under it.)
    let acc_type = element_type(c);
    // K step `first + step` of a chunk starting at `first`: C[m, n] += A[m, k] B[k, n] at `body`.
    let product = |body: At<'c, '_>, ivs: &[Value<'c, '_>], first: Value<'c, '_>, step: Value<'c, '_>| {
        let k = b.addi(body, first, step);
        let (m, n) = (ivs[0], ivs[1]);
        let a_value = b.load(body, a, &if transpose_a { [k, m] } else { [m, k] });
        let b_value = b.load(body, bb, &if transpose_b { [n, k] } else { [k, n] });
        let a_value = convert(b, body, a_value, acc_type);
        let b_value = convert(b, body, b_value, acc_type);
        let product = b.multiply(body, a_value, b_value);
        let old = b.load(body, c, &[m, n]);
        let sum = b.add(body, old, product);
        b.store(body, sum, c, &[m, n]);
    };
    if b.threads.is_some() {
        // On a GPU the chunks loop encloses each thread's loop over its elements of C: that loop's
        // trip count is the thread's private slots, which backends unroll whole (Mesa's NIR
        // always unrolls a loop whose trip count is the length of a private array it indexes, so
        // that the array lives in registers), and a K loop inside would be unrolled with it,
        // slots x K bodies: lavapipe's LLVM 15 did not finish compiling 25 x 64 of them in minutes
        // (seed 16161, case 2671). Outside, the unrolled body is slots x chunk. Every element
        // still adds its products in increasing k, and each chunk's loop deals out the same
        // elements, so one barrier after them all suffices. Chunks of 8, and the rest of K (K mod
        // 8) as one last chunk: a K with no small divisor (65) in chunks of 1 made 8 times the
        // loop trips and ran past lavapipe's cap (seed 37373, case 3456).
        let chunk = k_size.min(8);
        let chunks = b.index(at, k_size / chunk);
        let chunk_size = b.index(at, chunk);
        let (chunk_body, chunk_index) = b.loop_nest(at, &[chunks]);
        let (mine, ivs) = b.own_nest(chunk_body, &c_shape);
        let (body, step) = b.loop_nest(mine, &[chunk_size]);
        product(body, &ivs, b.muli(body, chunk_index[0], chunk_size), step[0]);
        if k_size % chunk != 0 {
            let done = b.index(at, k_size / chunk * chunk);
            let (mine, ivs) = b.own_nest(at, &c_shape);
            let rest = b.index(mine, k_size % chunk);
            let (body, step) = b.loop_nest(mine, &[rest]);
            product(body, &ivs, done, step[0]);
        }
        b.barrier(at);
    } else {
        let chunk = [8, 4, 2, 1].into_iter().find(|chunk| k_size % chunk == 0).unwrap_or(1);
        let (outer, ivs) = b.parallel_nest(at, &c_shape);
        let chunks = b.index(outer, k_size / chunk);
        let chunk_size = b.index(outer, chunk);
        let (body, reduction) = b.loop_nest(outer, &[chunks, chunk_size]);
        product(body, &ivs, b.muli(body, reduction[0], chunk_size), reduction[1]);
    }
}

// ---- tile.matmul -------------------------------------------------------------------------------

/// Lowers `tile.matmul` (host code, on whole global tensors) to a loop nest at its place:
/// `C[i, j] = round(sum over k of A[i, k] * B'[k, j])` with `B'` B, or B transposed with
/// `transpose_b`; the inputs are widened to f32, the products summed in an f32 value carried
/// by the K loop in increasing k, and the sum rounded once to C's element type. Batched (A and C
/// 3-D, batch dimension first), an outer loop over the batch `b` computes `C[b] = A[b] * B'`, with
/// `B'` from `B[b]` when B is 3-D and from B itself (one for every batch) when it is 2-D.
pub fn lower_matmul<'c>(b: &Builder<'c>, matmul: OperationRef<'c, '_>) {
    let at = At::before(matmul);
    let [a, bb, c] = [0, 1, 2].map(|index| matmul.operand_at(index).expect("verified matmul"));
    let transpose_b = matmul.has_attribute("transpose_b");
    // The first matrix dimension of each operand: 1 past a batch dimension.
    let batched = memref_shape(a).len() == 3;
    let b_batched = memref_shape(bb).len() == 3;
    let (ac, bo) = (usize::from(batched), usize::from(b_batched));
    let (b_k, b_n) = if transpose_b { (bo + 1, bo) } else { (bo, bo + 1) };
    // Each size from the first operand that knows it statically, else read at run time (the
    // verifier checked that the static ones agree).
    let size = |candidates: [(Value<'c, '_>, usize); 2]| {
        candidates
            .iter()
            .find_map(|(memref, dim)| {
                let size = memref_shape(*memref)[*dim];
                (size >= 0).then(|| b.index(at, size))
            })
            .unwrap_or_else(|| b.dim(at, candidates[0].0, candidates[0].1 as i64))
    };
    let batch = batched.then(|| size([(a, 0), (c, 0)]));
    let m = size([(a, ac), (c, ac)]);
    let n = size([(c, ac + 1), (bb, b_n)]);
    let k = size([(a, ac + 1), (bb, b_k)]);
    let f32_type = Type::float32(b.context);
    let extents: Vec<_> = batch.into_iter().chain([m, n]).collect();
    let (outer, ivs) = b.loop_nest(at, &extents);
    // The batch index (when batched) followed by i, j.
    let (batch_index, i, j) = (&ivs[..ac], ivs[ac], ivs[ac + 1]);
    let b_batch_index = &batch_index[..bo];
    let zero = b.constant(outer, f32_type, 0.0);
    let (start, one) = (b.index(outer, 0), b.index(outer, 1));
    let (step, kk, sum) = b.for_loop_carrying(outer, [start, k, one], zero);
    let a_indices: Vec<_> = batch_index.iter().copied().chain([i, kk]).collect();
    let b_matrix = if transpose_b { [j, kk] } else { [kk, j] };
    let b_indices: Vec<_> = b_batch_index.iter().copied().chain(b_matrix).collect();
    let a_value = b.load(step, a, &a_indices);
    let b_value = b.load(step, bb, &b_indices);
    let a_value = convert(b, step, a_value, f32_type);
    let b_value = convert(b, step, b_value, f32_type);
    let product = b.multiply(step, a_value, b_value);
    let next = b.add(step, sum, product);
    b.yield_value(step, next);
    let k_loop = step.block.parent_operation().expect("the K loop");
    let total: Value = k_loop.result_at(0).expect("the K loop's sum").into();
    let rounded = convert(b, outer, total, element_type(c));
    let c_indices: Vec<_> = batch_index.iter().copied().chain([i, j]).collect();
    b.store(outer, rounded, c, &c_indices);
}

// ---- tile.reduce --------------------------------------------------------------------------------

/// Lowers `tile.reduce`: for every index of `dst`, combine `src` along `dim` (starting from the
/// kind's identity when `clear`, from what `dst` holds otherwise).
pub fn lower_reduce<'c>(b: &Builder<'c>, reduce: OperationRef<'c, '_>) {
    let at = At::before(reduce);
    let Reduction {
        src,
        dst,
        dim,
        kind,
        clear,
        ty,
        src_shape,
        kept,
    } = Reduction::of(reduce);
    let (outer, kept_ivs) = b.parallel_nest(at, &kept);
    if clear {
        let start = b.constant(outer, ty, identity(kind));
        b.store(outer, start, dst, &kept_ivs);
    }
    let extent = b.index(outer, src_shape[dim]);
    let (inner, reduced) = b.loop_nest(outer, &[extent]);
    let mut src_indices = kept_ivs.clone();
    src_indices.insert(dim, reduced[0]);
    let value = b.load(inner, src, &src_indices);
    let value = reduction_input(b, inner, kind, value, ty);
    accumulate(b, inner, kind, value, dst, &kept_ivs);
}

// ---- tile.scan ----------------------------------------------------------------------------------

/// Lowers `tile.scan`: a loop a line along `dim` carrying the running combination, which it stores
/// before (exclusive) or after (inclusive) combining the element in. The element is read before
/// anything is written at its index, so `dst` may be `src`; no iteration reads what another wrote.
pub fn lower_scan<'c, 'a>(b: &Builder<'c>, scan: OperationRef<'c, 'a>) {
    let (src, dst) = (
        scan.operand_at(0).expect("verified scan"),
        scan.operand_at(1).expect("verified scan"),
    );
    let plan = Scan::of(scan);
    let dim = plan.dim;
    scan_lines(b, At::before(scan), &plan, [src, dst], |_, ivs, index| {
        let mut indices = ivs.to_vec();
        indices.insert(dim, index);
        indices
    });
}

/// A `tile.scan`'s kind, dimension, shape and element type.
pub(crate) struct Scan<'c> {
    pub kind: ReductionKind,
    pub exclusive: bool,
    pub dim: usize,
    pub shape: Vec<i64>,
    pub ty: Type<'c>,
}

impl<'c> Scan<'c> {
    /// Reads a verified `tile.scan`.
    pub fn of(scan: OperationRef<'c, '_>) -> Self {
        let dst = scan.operand_at(1).expect("verified scan");
        Scan {
            kind: reduction_kind(&scan).expect("verified scan"),
            exclusive: scan.has_attribute("exclusive"),
            dim: integer_attribute(&scan, "dim").expect("verified scan") as usize,
            shape: memref_shape(dst),
            ty: element_type(dst),
        }
    }
}

/// The loops of a scan: the lines along `scan.dim` dealt out as a tile op's iterations (a barrier
/// after them on a GPU), each a loop carrying the running combination, which it stores before
/// (exclusive) or after (inclusive) combining the element in, read from `src` and written to
/// `dst` at the indices `place` gives (at a position, the line's indices and the index along it).
/// The element is read before anything is written at its index, so `dst` may be `src`.
pub(crate) fn scan_lines<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    scan: &Scan<'c>,
    [src, dst]: [Value<'c, 'a>; 2],
    place: impl Fn(At<'c, 'a>, &[Value<'c, 'a>], Value<'c, 'a>) -> Vec<Value<'c, 'a>>,
) {
    let mut lines = scan.shape.clone();
    let length = lines.remove(scan.dim);
    let (line, ivs) = b.parallel_nest(at, &lines);
    let start = b.constant(line, scan.ty, identity(scan.kind));
    let (zero, extent, one) = (b.index(line, 0), b.index(line, length), b.index(line, 1));
    let (step, index, running) = b.for_loop_carrying(line, [zero, extent, one], start);
    let indices = place(step, &ivs, index);
    let value = b.load(step, src, &indices);
    let combined = b.binary(step, combiner(scan.kind).0, running, value);
    b.store(step, if scan.exclusive { running } else { combined }, dst, &indices);
    b.yield_value(step, combined);
}

/// A `tile.reduce`'s operands and attributes.
pub(crate) struct Reduction<'c, 'a> {
    pub src: Value<'c, 'a>,
    pub dst: Value<'c, 'a>,
    pub dim: usize,
    pub kind: ReductionKind,
    pub clear: bool,
    /// The destination's element type, which the reduction computes in.
    pub ty: Type<'c>,
    pub src_shape: Vec<i64>,
    /// The source's shape without `dim`: the destination's.
    pub kept: Vec<i64>,
}

impl<'c, 'a> Reduction<'c, 'a> {
    /// Reads a verified `tile.reduce`.
    pub fn of(reduce: OperationRef<'c, 'a>) -> Self {
        let src = reduce.operand_at(0).expect("verified reduce");
        let dst = reduce.operand_at(1).expect("verified reduce");
        let dim = integer_attribute(&reduce, "dim").expect("verified reduce") as usize;
        let src_shape = memref_shape(src);
        let kept = src_shape
            .iter()
            .enumerate()
            .filter(|(d, _)| *d != dim)
            .map(|(_, size)| *size)
            .collect();
        Reduction {
            src,
            dst,
            dim,
            kind: reduction_kind(&reduce).expect("verified reduce"),
            clear: reduce
                .attribute("clear")
                .map(|attr| melior::ir::attribute::BoolAttribute::try_from(attr).map_or(true, |flag| flag.value()))
                .unwrap_or(true),
            ty: element_type(dst),
            src_shape,
            kept,
        }
    }
}

/// The value a reduction of `kind` starts from.
pub(crate) fn identity(kind: ReductionKind) -> f64 {
    match kind {
        ReductionKind::Max => f64::NEG_INFINITY,
        ReductionKind::Min => f64::INFINITY,
        ReductionKind::Sum | ReductionKind::AbsSum | ReductionKind::AbsMax => 0.0,
    }
}

/// The op that combines two values of a reduction of `kind`, and whether elements enter it as
/// absolute values: the one definition every lowering of `tile.reduce` follows.
pub(crate) fn combiner(kind: ReductionKind) -> (Binary, bool) {
    let maximum: Binary = |c, x, y, l| arith::maximumf(c, x, y, l).into();
    let minimum: Binary = |c, x, y, l| arith::minimumf(c, x, y, l).into();
    let sum: Binary = |c, x, y, l| arith::addf(c, x, y, l).into();
    match kind {
        ReductionKind::Max => (maximum, false),
        ReductionKind::AbsMax => (maximum, true),
        ReductionKind::Min => (minimum, false),
        ReductionKind::Sum => (sum, false),
        ReductionKind::AbsSum => (sum, true),
    }
}

/// An element of the source as the reduction combines it: in the destination's type `ty`, and its
/// absolute value for the `abs` kinds.
pub(crate) fn reduction_input<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    kind: ReductionKind,
    value: Value<'c, 'a>,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let value = convert(b, at, value, ty);
    if combiner(kind).1 { b.absf(at, value) } else { value }
}

/// `buffer[indices] = combine(buffer[indices], value)` for a reduction of `kind`.
pub(crate) fn accumulate<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    kind: ReductionKind,
    value: Value<'c, 'a>,
    buffer: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
) {
    let old = b.load(at, buffer, indices);
    let new = b.binary(at, combiner(kind).0, old, value);
    b.store(at, new, buffer, indices);
}
