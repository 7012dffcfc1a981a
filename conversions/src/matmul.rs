//! `tile-expand-matmuls`, the first of every target's decisions: each `tile.matmul` (a product of
//! whole global tensors in host code) becomes the GEMM kernel a kernel author would write for the
//! target, with the tiling chosen here from the target's [`Rule`]:
//!
//! ```text
//! tile.kernel grid(ceil(N / columns), ceil(M / rows)[, batch]) threads(threads) (%bx, %by[, %bz]) {
//!   A's tile rows x depth, B's depth x columns (columns x depth with transpose_b), shared
//!   an f32 accumulator rows x columns, filled with zero
//!   tile.pipelined %kt = 0 to ceil(K / depth) stages(stages) [tile.schedule = {split = S}] {
//!     copy A's and B's tiles at step %kt; tile.gemm
//!   }
//!   copy the accumulator to C's tile (clipped at C's edges, converted to C's element type)
//! }
//! ```
//!
//! A batched product (A and C with a batch dimension first) gets a grid plane a batch, and its
//! copies the batch index first (B's too where it has a batch of its own); its tiles count every
//! batch's.
//!
//! The choice, by output shape (sizes in elements, `tiles` the output tiles of a tiling):
//!
//! 1. **Narrow products** (M at most the rule's `narrow.rows`, decode-shaped; or at most twice
//!    that where the wide tiling's tiles are few, below): the narrow tiling, so that no
//!    tensor-core rows multiply padding; its deeper ring keeps a long K in flight. Where the
//!    target has a smaller one (`narrow_one_wave`, sm_90a: 64x64) whose tiles fill at most one
//!    wave of the multiprocessors, that one: twice the blocks stream B (RESULTS run 312b, an
//!    H100: 64x4096x4096 0.94x cuBLAS, 0.89x on 64x128 split in two).
//! 2. **Few tiles** (the wide tiling's tiles fewer than three quarters of the multiprocessors,
//!    where the target counts them): the smaller `few_tiles` tiling, which gives more blocks.
//! 3. Otherwise the **wide** tiling, the one that reaches the tensor cores' peak on large products
//!    (sm_90a: 128x256, made persistent by `tile-persistent-kernels` when the sizes are static,
//!    its loop asking for it where a size is known at run time and the grid is 2-D: RESULTS run
//!    214, 4096^3 1.008x cuBLAS persistent, 0.948x one tile a block), or where the target has
//!    one, the **balanced** tiling (sm_90a: 128x192, persistent alike) where the wide
//!    tiling's last wave would idle: its waves of tiles take at most 9/10 of the wide tiling's
//!    (3001x2056: 264 tiles of 128x192 fill 2 waves of 132 multiprocessors where 216 of 128x256
//!    fill 1.6 of 2).
//!
//! 4. **Rows off 128-byte lines** (static sizes; A's rows, or B's, not a multiple of 128 bytes:
//!    5000 f16 columns, say): TMA's boxes over such rows cost about twice the L2 traffic and the
//!    loads bound the kernel, so the rule's **large** tilings (sm_90a: 192x256 on three
//!    warpgroups, 256x192 on two), which load fewer bytes a flop, compete with the wide and the
//!    balanced one by the bytes their waves load (RESULTS run 233: 3001x2056x1544 0.96x cuBLAS on
//!    256x192, 0.77x on 128x192; 5000^3 0.82x on 192x256, 0.73x on 128x256). Each also competes
//!    on clusters of two blocks that share their B tiles (`multicast = 2`: a walker is a pair of
//!    grid rows, 66 at once, each block loading half of B's columns; run 258: 5000^3 0.86x on
//!    192x256, 3001x2056x1544 0.97x on 256x192).
//!
//! 5. **A last row of few rows** (static sizes, many tiles): where the last row of the chosen
//!    tiling's tiles holds no more rows than the narrow tiling's and pushes the other tiles into
//!    one more wave ([`row_tail`]: 5000 rows in tiles of 192 leave 8, whose 20 tiles make a fifth
//!    wave of 4.2), the rows of whole tiles get that tiling's kernel and the last rows a narrow
//!    kernel of their own.
//!
//! Where every size is static, that is the kernel (or the two), and `tile-split-k` later splits K
//! across clusters by its own rule when the tiles leave half of the chip idle. Where a size is known
//! only at run time, each class becomes its own kernel under an `scf.if` on the sizes, which the
//! launcher evaluates (each kernel's manifest `when`); on targets with clusters a class whose
//! tiles would leave half the multiprocessors idle, with at least `split` x
//! [`crate::pipeline::split_k::MIN_STEPS`] steps of K, gets a twin split in `split` (RESULTS run
//! 213: split in 2 was the best kernel for the four decode-shaped products of issue 35's sweep,
//! tile-wise kernels for every other), and many tiles on rows off 128-byte lines get the last
//! large tiling one tile a block (run 235: 0.83-0.97x cuBLAS on the sweep's three such shapes;
//! its persistent kernels lose 20-35%). A dynamic matmul thus compiles to up to nine kernels (the
//! narrow class in both of its tilings where the sizes leave the wave test open); classes that
//! the static sizes rule out are not built (a weight of 11008 columns has more than
//! 66 tiles of 128 columns at any row count: no split twins; a static K and N of whole 128-byte
//! rows: no large class).
//!
//! The tilings are facts of each target (its file in [`crate::target`]), the best of the
//! measured ones (RESULTS: runs 195, 205, 213 on the H200).

use crate::cpu::builder::{At, Builder};
use crate::target::Target;
use melior::{
    Context,
    ir::{
        BlockLike, ShapedTypeLike, Type, Value, ValueLike,
        attribute::IntegerAttribute,
        block::BlockRef,
        operation::{OperationLike, OperationRef},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    diagnostics::emit_error,
    ops::{self, find_ops, with_context},
};
use tile_ir::tile;

/// The pass's flag.
pub const ARGUMENT: &str = "tile-expand-matmuls";

tile_passes::rust_pass! {
    /// Creates the `tile-expand-matmuls` pass (on `builtin.module`).
    pub fn create_expand_matmuls_pass() {
        argument: ARGUMENT,
        name: "TileExpandMatmuls",
        description: "Replace each tile.matmul by GEMM kernels tiled for the module's target: one kernel where the sizes are static, one per size class under an scf.if the launcher evaluates where they are known at run time",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = Target::of(module)?;
            with_context(module, |context| expand_module(context, module, target))
        },
    }
}

/// One kernel shape: the output tile (`rows` x `columns`), the K step (`depth`), the block's
/// threads and the ring's depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// The output tile's rows (of M).
    pub rows: i64,
    /// The output tile's columns (of N).
    pub columns: i64,
    /// The K step: A's tile is rows x depth, B's depth x columns.
    pub depth: i64,
    /// The block's threads.
    pub threads: i64,
    /// The ring's depth (`tile.pipelined`'s stages).
    pub stages: i64,
}

impl Tiling {
    /// A `rows` x `columns` output tile, K steps of `depth`, on `threads` threads with a ring of
    /// `stages`.
    pub const fn new(rows: i64, columns: i64, depth: i64, threads: i64, stages: i64) -> Self {
        Self {
            rows,
            columns,
            depth,
            threads,
            stages,
        }
    }
}

/// How a target tiles a `tile.matmul` (the module comment has the choice).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// For products with many output tiles.
    pub wide: Tiling,
    /// Where the wide tiling's tiles are fewer than [`FEW_TILES_SHARE`] of the multiprocessors, on targets that count
    /// them (`None`: the wide tiling).
    pub few_tiles: Option<Tiling>,
    /// For products of at most `rows` rows, where the target has a narrower tile than `wide`.
    pub narrow: Option<Tiling>,
    /// For narrow products whose tiles of this tiling fill at most one wave of the
    /// multiprocessors (targets that count them): smaller tiles than `narrow`'s, so that twice
    /// the blocks stream B, each half the columns.
    pub narrow_one_wave: Option<Tiling>,
    /// The split of K across a cluster for few tiles of run-time sizes (targets with clusters).
    pub split: Option<i64>,
    /// A narrower tiling than `wide` for many tiles of ragged sizes, on targets that count their
    /// multiprocessors: chosen where its waves of tiles take at most [`BALANCED_SHARE`] of the
    /// wide tiling's ([`wave_cost`]), the wide tiling's last wave leaving much of the chip idle.
    pub balanced: Option<Tiling>,
    /// Larger tiles than `wide` (fewer bytes loaded a flop), for static products whose operands'
    /// rows are not whole 128-byte lines: TMA's boxes over such rows cost about twice the L2
    /// traffic and the loads bound the kernel (RESULTS runs 226-233), so among these, `wide` and
    /// `balanced` the tiling whose waves load the fewest bytes is taken ([`lines_cost`]), the
    /// first of these on a tie.
    pub large: [Option<Tiling>; 2],
}

/// How much less time (tenths) a balanced tiling's waves must take than the wide tiling's for it
/// to be chosen: the cost model counts tile area and waves only, so a near tie stays wide (its
/// tiles reuse each loaded row over more columns).
pub const BALANCED_SHARE: (i64, i64) = (9, 10);

/// The share of the multiprocessors below which the wide tiling's tiles are few (the smaller
/// `few_tiles` tiling then gives more blocks): a wave nearly full of wide tiles runs faster than
/// twice as many smaller ones (RESULTS run 260: 2048x2048x8192's 128 tiles of 128x256 1.00x
/// cuBLAS, 128x128 0.85x; 128x28672x4096's 112 tiles 0.99x, 0.94x; 256x4096x14336's 32 tiles
/// 0.47x, 0.94x).
pub const FEW_TILES_SHARE: (i64, i64) = (3, 4);

/// The kernel of one size class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kind {
    tiling: Tiling,
    split: Option<i64>,
    /// The loop's schedule asks for a persistent kernel (many tiles of run-time sizes).
    persistent: bool,
    /// The loop's schedule asks for clusters of this many blocks (consecutive grid rows) that
    /// load their B tiles once for all (`multicast`).
    multicast: Option<i64>,
}

impl Kind {
    /// The kernel of `tiling` with its loop whole.
    fn whole(tiling: Tiling) -> Self {
        Self {
            tiling,
            split: None,
            persistent: false,
            multicast: None,
        }
    }

    /// The kernel of `tiling` for many tiles: persistent where the target makes persistent
    /// kernels (TMA rings), a size is known at run time only and the grid is 2-D (static sizes
    /// are `tile-persistent-kernels`' own choice).
    fn many(tiling: Tiling, product: &Product, target: &Target) -> Self {
        Self {
            persistent: target.tma && !product.all_static() && product.batch.is_none(),
            ..Self::whole(tiling)
        }
    }
}

/// A size of the product: known at compile time or a host value.
#[derive(Clone, Copy)]
enum Size<'c, 'a> {
    Known(i64),
    Run(Value<'c, 'a>),
}

impl<'c, 'a> Size<'c, 'a> {
    /// The size as an `index` value at `at` (a constant where it is known).
    fn value(self, builder: &Builder<'c>, at: At<'c, 'a>) -> Value<'c, 'a> {
        match self {
            Size::Known(value) => builder.index(at, value),
            Size::Run(value) => value,
        }
    }
}

/// A host condition: decided at compile time or a host `i1`.
enum Test<'c, 'a> {
    Known(bool),
    Run(Value<'c, 'a>),
}

/// One matmul, or a part of its rows: its tensors and sizes, and where its host code goes.
#[derive(Clone, Copy)]
struct Product<'c, 'a> {
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    c: Value<'c, 'a>,
    transpose_b: bool,
    /// The rows of the part (of A and C) from `first_row` on.
    m: Size<'c, 'a>,
    n: Size<'c, 'a>,
    k: Size<'c, 'a>,
    /// The part's first row: 0 but for the last rows a product of static sizes leaves to a
    /// kernel of their own ([`row_tail`]).
    first_row: i64,
    /// The batch size of a batched product (A and C 3-D), and whether B has a batch of its own.
    batch: Option<(Size<'c, 'a>, bool)>,
    /// The target's rule, its K steps in bytes of A's element (8-bit inputs take twice the
    /// elements a step that 16-bit ones do: the same rows of 128 bytes).
    rule: Rule,
}

impl Product<'_, '_> {
    /// Whether every size (and the batch) is known at compile time.
    fn all_static(&self) -> bool {
        [self.m, self.n, self.k]
            .into_iter()
            .chain(self.batch.map(|(batch, _)| batch))
            .all(|size| matches!(size, Size::Known(_)))
    }
}

fn expand_module<'c>(context: &'c Context, module: OperationRef<'c, '_>, target: &Target) -> Result<(), String> {
    let mut failed = false;
    for matmul in find_ops(module, tile::MatmulOperation::name()) {
        if let Err(message) = expand(context, matmul, target) {
            emit_error(matmul.location(), &format!("'tile.matmul' op {message}"));
            failed = true;
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

/// Replaces `matmul` by its kernels.
fn expand<'c, 'a>(context: &'c Context, matmul: OperationRef<'c, 'a>, target: &Target) -> Result<(), String> {
    let builder = Builder {
        context,
        location: matmul.location(),
        threads: None,
    };
    let at = At::before(matmul);
    let operand = |index| {
        matmul
            .operand_at(index)
            .ok_or_else(|| tile_dialect::positions::missing("operand", index))
    };
    let (a, b, c) = (operand(0)?, operand(1)?, operand(2)?);
    let transpose_b = matmul.has_attribute("transpose_b");
    // Each size from whichever tensor states it, else from the tensor at run time; a tensor's
    // matrix is its trailing two dimensions (a batched one has the batch first).
    let rank = |tensor: Value<'c, 'a>| memref_type(tensor).rank();
    let size = |sources: &[(Value<'c, 'a>, usize)]| {
        sources
            .iter()
            .find_map(|&(tensor, dim)| ops::static_sizes(memref_type(tensor)).get(dim).copied().flatten())
            .map(Size::Known)
            .unwrap_or_else(|| Size::Run(builder.dim(at, sources[0].0, sources[0].1 as i64)))
    };
    let (row, column) = (rank(a) - 2, rank(a) - 1);
    let (b_row, b_column) = (rank(b) - 2, rank(b) - 1);
    let (b_k, b_n) = if transpose_b {
        (b_column, b_row)
    } else {
        (b_row, b_column)
    };
    let b_batched = rank(b) == 3;
    let element = tile_dialect::element::Element::of(memref_type(a).element());
    let eight_bit = element.is_some_and(|element| element.bytes() == 1);
    // wgmma reads 8-bit operands K-major only: B as N x K.
    if eight_bit && target.tma && !transpose_b {
        return Err(format!(
            "expects B as NxK (transpose_b) for 8-bit inputs on {}: wgmma reads 8-bit operands K-major only (give the weight as a linear layer stores it)",
            target.name
        ));
    }
    let widened = |tiling: Tiling| Tiling {
        depth: if eight_bit { tiling.depth * 2 } else { tiling.depth },
        ..tiling
    };
    let rule = target.matmul;
    let rule = Rule {
        wide: widened(rule.wide),
        few_tiles: rule.few_tiles.map(widened),
        narrow: rule.narrow.map(widened),
        narrow_one_wave: rule.narrow_one_wave.map(widened),
        balanced: rule.balanced.map(widened),
        large: rule.large.map(|tiling| tiling.map(widened)),
        ..rule
    };
    let product = Product {
        a,
        b,
        c,
        transpose_b,
        m: size(&[(a, row), (c, row)]),
        n: size(&[(c, column), (b, b_n)]),
        k: size(&[(a, column), (b, b_k)]),
        first_row: 0,
        batch: (rank(a) == 3).then(|| {
            let mut sources = vec![(a, 0), (c, 0)];
            sources.extend(b_batched.then_some((b, 0)));
            (size(&sources), b_batched)
        }),
        rule,
    };
    let rule = &product.rule;
    // Decode rows; and up to twice as many where the wide tiling's tiles are few: the narrow
    // tiling's deeper ring over two row tiles beats the few-tiles tiling there (RESULTS run 260:
    // 128x4096x14336 0.99x cuBLAS on 64x128 with a ring of 8, 0.91x on 128x128; at 256 rows 0.75x
    // against 0.94x).
    let narrow = rule.narrow.map(|tiling| {
        let decode = less_equal(&builder, at, product.m, tiling.rows);
        let twice = less_equal(&builder, at, product.m, 2 * tiling.rows);
        let few = few_wide_tiles(&builder, at, &product, target);
        (tiling, either(&builder, at, decode, both(&builder, at, twice, few)))
    });
    match narrow {
        Some((tiling, test)) => branch(
            &builder,
            at,
            test,
            |at| emit_narrow(&builder, at, &product, target, tiling),
            |at| emit_wide_classes(&builder, at, &product, target),
        )?,
        None => emit_wide_classes(&builder, at, &product, target)?,
    }
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(matmul);
    Ok(())
}

/// The narrow class: the narrow tiling, or where the target has [`Rule::narrow_one_wave`] and its
/// tiles fill at most one wave of the multiprocessors, that one (decided here for static sizes, by
/// the launcher for run-time ones).
fn emit_narrow<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    narrow: Tiling,
) -> Result<(), String> {
    let multiprocessors = target.multiprocessors.as_ref().map(|chip| chip.count);
    let (Some(smaller), Some(multiprocessors)) = (product.rule.narrow_one_wave, multiprocessors) else {
        return emit_class(builder, at, product, target, narrow);
    };
    // The class holds at most twice the narrow tiling's rows: with N (and the batch) static, the
    // most tiles it can have may decide the test.
    let batches = match product.batch {
        None => Some(1),
        Some((Size::Known(batch), _)) => Some(batch),
        Some((Size::Run(_), _)) => None,
    };
    let most_tiles = match (product.n, batches) {
        (Size::Known(n), Some(batches)) => {
            Some(ceil(2 * narrow.rows, smaller.rows) * ceil(n, smaller.columns) * batches)
        }
        _ => None,
    };
    let one_wave = if fewest_tiles(product, smaller) > multiprocessors {
        Test::Known(false)
    } else if most_tiles.is_some_and(|most| most <= multiprocessors) {
        Test::Known(true)
    } else {
        less_equal(builder, at, tiles(builder, at, product, smaller), multiprocessors)
    };
    branch(
        builder,
        at,
        one_wave,
        |at| emit_class(builder, at, product, target, smaller),
        |at| emit_class(builder, at, product, target, narrow),
    )
}

/// The classes past the narrow one: few tiles (where the target counts multiprocessors), wide.
fn emit_wide_classes<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
) -> Result<(), String> {
    let rule = &product.rule;
    let wide = Kind::whole(rule.wide);
    let multiprocessors = target.multiprocessors.as_ref().map(|chip| chip.count);
    let (Some(few_tiles), Some(multiprocessors)) = (rule.few_tiles, multiprocessors) else {
        return emit_kernel(builder, at, product, wide);
    };
    let few = few_wide_tiles(builder, at, product, target);
    branch(
        builder,
        at,
        few,
        |at| emit_class(builder, at, product, target, few_tiles),
        |at| emit_many(builder, at, product, target, multiprocessors),
    )
}

/// Whether the wide tiling's tiles are few: fewer than [`FEW_TILES_SHARE`] of the target's
/// multiprocessors (never on a target that does not count them or has no few-tiles tiling).
fn few_wide_tiles<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
) -> Test<'c, 'a> {
    let rule = &product.rule;
    let (Some(_), Some(multiprocessors)) = (rule.few_tiles, target.multiprocessors.as_ref()) else {
        return Test::Known(false);
    };
    let (share, whole) = FEW_TILES_SHARE;
    let bound = ceil(multiprocessors.count * share, whole);
    if fewest_tiles(product, rule.wide) >= bound {
        return Test::Known(false);
    }
    less_than(builder, at, tiles(builder, at, product, rule.wide), bound)
}

/// The time of `tiling`'s output tiles on `multiprocessors` in the model [`Rule::balanced`] is
/// chosen by: its waves (a wave runs a tile on every multiprocessor, the last maybe on fewer)
/// times the area of a tile, each element of a tile taking the same time in either tiling.
fn wave_cost<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    tiling: Tiling,
    multiprocessors: i64,
) -> Size<'c, 'a> {
    let waves = ceil_div(builder, at, tiles(builder, at, product, tiling), multiprocessors);
    multiply(builder, at, waves, Size::Known(tiling.rows * tiling.columns))
}

/// Whether an operand's rows (A's of K elements; B's of N, or of K given as N x K) are not
/// whole 128-byte lines: decided here where the sizes are static, by the launcher (the rows' bytes
/// modulo 128) where they are known at run time.
fn off_lines<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, product: &Product<'c, 'a>) -> Test<'c, 'a> {
    let bytes = |value: Value| crate::support::element_of(value).map_or(0, |element| element.bytes() as i64);
    let b_rows = if product.transpose_b { product.k } else { product.n };
    let mut off = Test::Known(false);
    for (elements, operand) in [(product.k, product.a), (b_rows, product.b)] {
        let bytes = bytes(operand);
        let this = match elements {
            _ if bytes == 0 => Test::Known(false),
            Size::Known(elements) => Test::Known(elements * bytes % 128 != 0),
            Size::Run(elements) => {
                let pitch = builder.muli(at, elements, builder.index(at, bytes));
                let rest = builder.remui(at, pitch, builder.index(at, 128));
                Test::Run(builder.compare(at, "ne", rest, builder.index(at, 0)))
            }
        };
        off = either(builder, at, off, this);
    }
    off
}

/// The bytes `tiling`'s waves load in the model [`Rule::large`] is chosen by: its waves times a
/// tile's rows and columns (each tile loads its rows of A and columns of B over all of K), for
/// static sizes. On clusters of `blocks` that share their B tiles (`Multicast`), a walker is a
/// cluster and takes `blocks` grid rows at once, and each block loads its part of the columns.
fn lines_cost(product: &Product, tiling: Tiling, multiprocessors: i64, multicast: Option<Multicast>) -> i64 {
    let blocks = multicast.map_or(1, |multicast| multicast.blocks);
    waves(product, tiling, multiprocessors, multicast) * (tiling.rows + tiling.columns / blocks)
}

/// The waves of `tiling`'s tiles (their fewest, for run-time sizes) on `multiprocessors`, or on
/// clusters of `blocks` that share their B tiles (`Multicast`: a walker is a cluster and takes
/// `blocks` grid rows at once, `at_once` of them at a time).
fn waves(product: &Product, tiling: Tiling, multiprocessors: i64, multicast: Option<Multicast>) -> i64 {
    let Some(Multicast { blocks, at_once }) = multicast else {
        return ceil(fewest_tiles(product, tiling), multiprocessors);
    };
    let rows = match product.m {
        Size::Known(m) => ceil(m, tiling.rows),
        Size::Run(_) => 1,
    };
    let walked = fewest_tiles(product, tiling) / rows * ceil(rows, blocks);
    ceil(walked, at_once)
}

/// Clusters of `blocks` consecutive grid rows that load their B tiles once for all, of which the
/// target runs `at_once` at a time.
#[derive(Clone, Copy)]
struct Multicast {
    blocks: i64,
    at_once: i64,
}

/// The clusters [`fewest_lines`] weighs: pairs of blocks, where the target runs them.
fn pairs(target: &Target) -> Option<Multicast> {
    let at_once = target.clusters.as_ref()?.at_once_of(2)?;
    target.tma.then_some(Multicast { blocks: 2, at_once })
}

/// The tiling of a static product whose operands' rows are not whole 128-byte lines
/// ([`Rule::large`]): among the larger tilings, the wide and the balanced one, each alone or on
/// clusters of two blocks that share their B tiles (where the target has them and the grid is
/// 2-D), the one whose waves load the fewest bytes (the first of equals: no cluster). `None` for
/// other products, or a target without larger tilings.
fn fewest_lines<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    multiprocessors: i64,
) -> Option<(Tiling, Option<Multicast>)> {
    let large: Vec<Tiling> = product.rule.large.into_iter().flatten().collect();
    if large.is_empty() || !product.all_static() || !matches!(off_lines(builder, at, product), Test::Known(true)) {
        return None;
    }
    let clusters = [None, pairs(target).filter(|_| product.batch.is_none())];
    clusters
        .into_iter()
        .flat_map(|multicast| {
            large
                .iter()
                .copied()
                .chain([product.rule.wide])
                .chain(product.rule.balanced)
                .map(move |tiling| (tiling, multicast))
        })
        .min_by_key(|(tiling, multicast)| lines_cost(product, *tiling, multiprocessors, *multicast))
}

/// The kernel for many tiles: the wide tiling, or the balanced one where its waves cost at most
/// [`BALANCED_SHARE`] of the wide tiling's (decided here for static sizes, by the launcher for
/// run-time ones).
fn emit_many<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    multiprocessors: i64,
) -> Result<(), String> {
    if let Some((tiling, multicast)) = fewest_lines(builder, at, product, target, multiprocessors) {
        let kind = Kind {
            multicast: multicast.map(|multicast| multicast.blocks),
            ..Kind::many(tiling, product, target)
        };
        return emit_many_kernel(builder, at, product, target, kind);
    }
    // Sizes known at run time: where the rows are off 128-byte lines, the last larger tiling one
    // tile a block (their persistent kernels lose 20-35%: RESULTS run 233; the tile-wise 256x192
    // kernel measured 0.83-0.97x cuBLAS on the sweep's three such shapes, run 235).
    let large = product.rule.large.into_iter().flatten().last();
    if let (Some(large), false) = (large, product.all_static()) {
        let off = off_lines(builder, at, product);
        if !matches!(off, Test::Known(false)) {
            return branch(
                builder,
                at,
                off,
                |at| emit_kernel(builder, at, product, Kind::whole(large)),
                |at| emit_wide_or_balanced(builder, at, product, target, multiprocessors),
            );
        }
    }
    emit_wide_or_balanced(builder, at, product, target, multiprocessors)
}

/// The wide tiling, or the balanced one where its waves cost at most [`BALANCED_SHARE`] of the
/// wide tiling's.
fn emit_wide_or_balanced<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    multiprocessors: i64,
) -> Result<(), String> {
    let wide = Kind::many(product.rule.wide, product, target);
    let Some(balanced) = product.rule.balanced else {
        return emit_many_kernel(builder, at, product, target, wide);
    };
    let (share, whole) = BALANCED_SHARE;
    let balanced_cost = multiply(
        builder,
        at,
        wave_cost(builder, at, product, balanced, multiprocessors),
        Size::Known(whole),
    );
    let wide_cost = multiply(
        builder,
        at,
        wave_cost(builder, at, product, product.rule.wide, multiprocessors),
        Size::Known(share),
    );
    let test = compare(builder, at, balanced_cost, wide_cost, "ule", |x, y| x <= y);
    branch(
        builder,
        at,
        test,
        |at| emit_many_kernel(builder, at, product, target, Kind::many(balanced, product, target)),
        |at| emit_many_kernel(builder, at, product, target, wide),
    )
}

/// Builds the kernel of `kind` for many tiles; where [`row_tail`] leaves a static product's last
/// rows to a kernel of their own, the kernel of `kind` over the rows of whole tiles, then the
/// narrow tiling's over the rest.
fn emit_many_kernel<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    kind: Kind,
) -> Result<(), String> {
    let Some(RowTail {
        whole_tiles,
        tail,
        narrow,
    }) = row_tail(product, target, kind)
    else {
        return emit_kernel(builder, at, product, kind);
    };
    emit_kernel(builder, at, &whole_tiles, kind)?;
    emit_kernel(builder, at, &tail, Kind::whole(narrow))
}

/// A static product split by [`row_tail`]: the rows of whole tiles, the last rows, and the narrow
/// tiling the last rows take.
struct RowTail<'c, 'a> {
    whole_tiles: Product<'c, 'a>,
    tail: Product<'c, 'a>,
    narrow: Tiling,
}

/// Where a static product's last row of `kind`'s tiles holds no more rows than the narrow
/// tiling's (5000 rows in tiles of 192 leave 8), and its tiles push the others into one more
/// wave: the product split there. That row of tiles would
/// cost a wave of whole tiles' time; as a decode-shaped product of its own (which `tile-split-k`
/// may split) it costs about the time of reading B once.
fn row_tail<'c, 'a>(product: &Product<'c, 'a>, target: &Target, kind: Kind) -> Option<RowTail<'c, 'a>> {
    let narrow = product.rule.narrow?;
    let multiprocessors = target.multiprocessors.as_ref()?.count;
    let (Size::Known(m), true, None) = (product.m, product.all_static(), product.batch) else {
        return None;
    };
    let rows = m - m % kind.tiling.rows;
    if rows == 0 || m - rows > narrow.rows || rows == m {
        return None;
    }
    let multicast = match kind.multicast {
        Some(blocks) => Some(Multicast {
            blocks,
            at_once: target.clusters.as_ref()?.at_once_of(blocks)?,
        }),
        None => None,
    };
    let whole_tiles = Product {
        m: Size::Known(rows),
        ..*product
    };
    let saves_a_wave = waves(&whole_tiles, kind.tiling, multiprocessors, multicast)
        < waves(product, kind.tiling, multiprocessors, multicast);
    let tail = Product {
        m: Size::Known(m - rows),
        first_row: product.first_row + rows,
        ..*product
    };
    saves_a_wave.then_some(RowTail {
        whole_tiles,
        tail,
        narrow,
    })
}

/// The kernel of one class in `tiling`, and where the sizes are known at run time and the target
/// splits K across clusters, its split twin for few tiles and a long K.
fn emit_class<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    target: &Target,
    tiling: Tiling,
) -> Result<(), String> {
    let whole = Kind::whole(tiling);
    let all_static = product.all_static();
    let multiprocessors = target.multiprocessors.as_ref().map(|chip| chip.count);
    let (Some(split), Some(multiprocessors), false) = (product.rule.split, multiprocessors, all_static) else {
        return emit_kernel(builder, at, product, whole);
    };
    let tiles = tiles(builder, at, product, tiling);
    let few = match fewest_tiles(product, tiling) > multiprocessors / 2 {
        true => Test::Known(false),
        false => less_equal(builder, at, tiles, multiprocessors / 2),
    };
    let steps = ceil_div(builder, at, product.k, tiling.depth);
    let long = greater_equal(builder, at, steps, split * crate::pipeline::split_k::MIN_STEPS);
    let test = both(builder, at, few, long);
    branch(
        builder,
        at,
        test,
        |at| {
            emit_kernel(
                builder,
                at,
                product,
                Kind {
                    split: Some(split),
                    ..whole
                },
            )
        },
        |at| emit_kernel(builder, at, product, whole),
    )
}

/// Builds the kernel of `kind` at `at`.
fn emit_kernel<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    product: &Product<'c, 'a>,
    kind: Kind,
) -> Result<(), String> {
    let context = builder.context;
    let location = builder.location;
    let Tiling {
        rows,
        columns,
        depth,
        threads,
        stages,
    } = kind.tiling;
    let host_value = |size: Size<'c, 'a>| size.value(builder, at);
    let mut grid = vec![
        host_value(ceil_div(builder, at, product.n, columns)),
        host_value(ceil_div(builder, at, product.m, rows)),
    ];
    // A batch a grid plane.
    grid.extend(product.batch.map(|(batch, _)| host_value(batch)));
    let steps = host_value(ceil_div(builder, at, product.k, depth));
    let kernel = builder.insert(
        at,
        ops::kernel(
            context,
            &grid,
            threads,
            ops::body_block(context, grid.len(), location),
            location,
        )
        .map_err(failed)?,
    );
    let body = first_block(kernel);
    let inside = At::before(body.terminator().expect("the kernel's tile.yield"));
    let (bx, by): (Value, Value) = (
        body.argument_at(0).expect("x").into(),
        body.argument_at(1).expect("y").into(),
    );
    // The batch's index first, where the tensor has a batch dimension.
    let batch: Option<Value> = product.batch.map(|_| body.argument_at(2).expect("z").into());
    let indexed = |batched: bool, offsets: [Value<'c, 'a>; 2]| -> Vec<Value<'c, 'a>> {
        batch.filter(|_| batched).into_iter().chain(offsets).collect()
    };
    let b_batched = product.batch.is_some_and(|(_, own)| own);
    let element = memref_type(product.a).element();
    let b_shape = if product.transpose_b {
        [columns, depth]
    } else {
        [depth, columns]
    };
    let allocate = |op: melior::ir::Operation<'c>| builder.value(inside, op);
    let a_tile =
        allocate(ops::alloc_shared(ops::shared_type(context, &[rows, depth], element), location).map_err(failed)?);
    let b_tile = allocate(ops::alloc_shared(ops::shared_type(context, &b_shape, element), location).map_err(failed)?);
    let f32 = Type::float32(context);
    let accumulator =
        allocate(ops::alloc_fragment(ops::fragment_type(context, &[rows, columns], f32), location).map_err(failed)?);
    let zero = builder.constant(inside, f32, 0.0);
    builder.insert(inside, ops::fill(accumulator, zero, location).map_err(failed)?);
    let row = builder.muli(inside, by, builder.index(inside, rows));
    let row = match product.first_row {
        0 => row,
        first => builder.addi(inside, builder.index(inside, first), row),
    };
    let column = builder.muli(inside, bx, builder.index(inside, columns));
    let start = builder.index(inside, 0);
    let main = builder.insert(
        inside,
        ops::pipelined(
            context,
            start,
            steps,
            None,
            stages,
            ops::body_block(context, 1, location),
            location,
        )
        .map_err(failed)?,
    );
    if let Some(split) = kind.split {
        let split = IntegerAttribute::new(IntegerType::new(context, 64).into(), split).into();
        crate::pipeline::plan::set_schedule_entry(main, "split", Some(split));
    }
    if kind.persistent {
        let asked = melior::ir::attribute::BoolAttribute::new(context, true).into();
        crate::pipeline::plan::set_schedule_entry(main, "persistent", Some(asked));
    }
    if let Some(blocks) = kind.multicast {
        let blocks = crate::attributes::integer(context, 64, blocks);
        crate::pipeline::plan::set_schedule_entry(main, "multicast", Some(blocks));
    }
    let step_block = first_block(main);
    let step = At::before(step_block.terminator().expect("the loop's tile.yield"));
    let kt: Value = step_block.argument_at(0).expect("the step").into();
    let offset = builder.muli(step, kt, builder.index(step, depth));
    let b_offsets = if product.transpose_b {
        [column, offset]
    } else {
        [offset, column]
    };
    builder.insert(
        step,
        ops::copy(context, product.a, &indexed(true, [row, offset]), a_tile, &[], location).map_err(failed)?,
    );
    builder.insert(
        step,
        ops::copy(
            context,
            product.b,
            &indexed(b_batched, b_offsets),
            b_tile,
            &[],
            location,
        )
        .map_err(failed)?,
    );
    builder.insert(
        step,
        ops::gemm(
            context,
            [a_tile, b_tile, accumulator],
            false,
            product.transpose_b,
            location,
        )
        .map_err(failed)?,
    );
    builder.insert(
        inside,
        ops::copy(
            context,
            accumulator,
            &[],
            product.c,
            &indexed(true, [row, column]),
            location,
        )
        .map_err(failed)?,
    );
    Ok(())
}

fn failed(error: impl std::fmt::Display) -> String {
    error.to_string()
}

fn memref_type<'c>(value: Value<'c, '_>) -> MemRefType<'c> {
    ops::as_memref(value.r#type()).expect("verified: tensors are memrefs")
}

fn first_block<'c, 'a>(op: OperationRef<'c, 'a>) -> BlockRef<'c, 'a> {
    op.body().expect("a body block")
}

/// `x / y` rounded up.
fn ceil(x: i64, y: i64) -> i64 {
    (x + y - 1) / y
}

/// `size / divisor` rounded up.
fn ceil_div<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, size: Size<'c, 'a>, divisor: i64) -> Size<'c, 'a> {
    match size {
        Size::Known(value) => Size::Known(ceil(value, divisor)),
        Size::Run(value) => Size::Run(builder.ceildivui(at, value, builder.index(at, divisor))),
    }
}

/// The output tiles of `tiling` (of every batch).
fn tiles<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, product: &Product<'c, 'a>, tiling: Tiling) -> Size<'c, 'a> {
    let rows = ceil_div(builder, at, product.m, tiling.rows);
    let columns = ceil_div(builder, at, product.n, tiling.columns);
    let matrix = multiply(builder, at, rows, columns);
    match product.batch {
        Some((batch, _)) => multiply(builder, at, matrix, batch),
        None => matrix,
    }
}

/// `x * y`.
fn multiply<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, x: Size<'c, 'a>, y: Size<'c, 'a>) -> Size<'c, 'a> {
    match (x, y) {
        (Size::Known(x), Size::Known(y)) => Size::Known(x * y),
        (x, y) => Size::Run(builder.muli(at, x.value(builder, at), y.value(builder, at))),
    }
}

/// The fewest output tiles of `tiling` the product can have with at least one row and column: a
/// class whose test needs fewer is not built (a product with no rows or columns does no work in
/// any class's kernel).
fn fewest_tiles(product: &Product, tiling: Tiling) -> i64 {
    let least = |size: Size, tile: i64| match size {
        Size::Known(value) => ceil(value, tile),
        Size::Run(_) => 1,
    };
    let batches = product.batch.map_or(1, |(batch, _)| least(batch, 1));
    least(product.m, tiling.rows) * least(product.n, tiling.columns) * batches
}

/// `size` against `bound` by `predicate` (an unsigned `arith.cmpi`), decided here where both
/// are known (`holds`).
fn compare<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    size: Size<'c, 'a>,
    bound: Size<'c, 'a>,
    predicate: &str,
    holds: fn(i64, i64) -> bool,
) -> Test<'c, 'a> {
    match (size, bound) {
        (Size::Known(value), Size::Known(bound)) => Test::Known(holds(value, bound)),
        (size, bound) => Test::Run(builder.compare(at, predicate, size.value(builder, at), bound.value(builder, at))),
    }
}

fn less_equal<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, size: Size<'c, 'a>, bound: i64) -> Test<'c, 'a> {
    compare(builder, at, size, Size::Known(bound), "ule", |x, y| x <= y)
}

fn less_than<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, size: Size<'c, 'a>, bound: i64) -> Test<'c, 'a> {
    compare(builder, at, size, Size::Known(bound), "ult", |x, y| x < y)
}

fn greater_equal<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, size: Size<'c, 'a>, bound: i64) -> Test<'c, 'a> {
    compare(builder, at, size, Size::Known(bound), "uge", |x, y| x >= y)
}

/// `first || second`.
fn either<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, first: Test<'c, 'a>, second: Test<'c, 'a>) -> Test<'c, 'a> {
    match (first, second) {
        (Test::Known(true), _) | (_, Test::Known(true)) => Test::Known(true),
        (Test::Known(false), other) | (other, Test::Known(false)) => other,
        (Test::Run(x), Test::Run(y)) => Test::Run(builder.ori(at, x, y)),
    }
}

fn both<'c, 'a>(builder: &Builder<'c>, at: At<'c, 'a>, first: Test<'c, 'a>, second: Test<'c, 'a>) -> Test<'c, 'a> {
    match (first, second) {
        (Test::Known(false), _) | (_, Test::Known(false)) => Test::Known(false),
        (Test::Known(true), other) | (other, Test::Known(true)) => other,
        (Test::Run(x), Test::Run(y)) => Test::Run(builder.andi(at, x, y)),
    }
}

/// Builds `then` where `test` holds and `otherwise` where it does not: one of them where the test
/// is decided at compile time, both under an `scf.if` where it is not.
fn branch<'c, 'a>(
    builder: &Builder<'c>,
    at: At<'c, 'a>,
    test: Test<'c, 'a>,
    then: impl FnOnce(At<'c, 'a>) -> Result<(), String>,
    otherwise: impl FnOnce(At<'c, 'a>) -> Result<(), String>,
) -> Result<(), String> {
    match test {
        Test::Known(true) => then(at),
        Test::Known(false) => otherwise(at),
        Test::Run(condition) => {
            let (then_at, else_at) = builder.if_else(at, condition);
            then(then_at)?;
            otherwise(else_at)
        }
    }
}
