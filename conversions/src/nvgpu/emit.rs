//! Renders the Hopper kernel of one [`GemmPlan`] as upstream `gpu`/`nvgpu`/`nvvm` IR.
//!
//! The kernel is a TMA + mbarrier ring of `stages` shared buffers feeding warpgroup MMAs. Steps `g`
//! count on across the tiles a block walks (one, or many when persistent: see `walk.rs`):
//!
//! ```text
//! prologue:  leader thread: expect_tx + TMA loads of steps 0 .. S-1 (the whole ring)
//! per tile:  loop it: g = tile's first step + it
//!              all:    wait full[g%S] (phase parity (g/S)%2); wgmma.fence; wgmma m64nNk16 x (BK/16)
//!                      per 64-row tile; commit; wait_group 1 (step g-1 retired); barrier
//!              leader: refill stage (g-1)%S with step g-1+S (this tile's or the next one's)
//!            wait_group 0
//!            epilogue: accumulator registers -> epilogue functions (row and column reductions
//!                      between them) -> convert -> swizzled staging boxes -> TMA stores, in rounds
//!                      when the staging tile lies beside the ring (`staging.rs`)
//! ```
//!
//! The text uses only typed upstream ops; values of the tile program (tile origins, epilogue bodies)
//! come from the outlined functions of `outline.rs`.

use super::config::{HopperConfig, SharedLayout, output_element_bytes};
use super::staging::{box_of, stage_addresses};
use super::walk::{Walk, pick_tile};
use crate::gemm::{
    epilogue::{self, Element},
    plan::Axis,
    install::KernelNames,
    plan::Scalar,
    text::Text,
};
use std::fmt::Write;

/// Scalars of the main loop the emitter needs.
pub struct LoopShape {
    /// Induction variable value of iteration 0.
    pub lower: i64,
    /// Step of the induction variable.
    pub step: i64,
    /// Upper bound (exclusive): a constant or kernel parameter.
    pub upper: Scalar,
}

const WS: &str = "#gpu.address_space<workgroup>";

/// The shared-memory type of one TMA box of `rows` x `inner` elements in a tensor with `leading`
/// dimensions before those two (the box has extent 1 there).
pub(crate) fn box_type(leading: usize, rows: i64, inner: i64, element: &str) -> String {
    format!("memref<{}{rows}x{inner}x{element}, {WS}>", "1x".repeat(leading))
}

pub(crate) fn tensor_map(leading: usize, rows: i64, inner: i64, element: &str, swizzle: &str) -> String {
    format!(
        "!nvgpu.tensormap.descriptor<tensor = {}, swizzle = {swizzle}, l2promo = l2promo_128b, oob = zero, interleave = none>",
        box_type(leading, rows, inner, element)
    )
}

/// The TMA coordinates (innermost first) of a box at column `inner` and row `row` of a tensor whose
/// `leading` first offsets are the helper results `origin#first..`: the tile's two, then the
/// leading ones from the innermost out.
fn coordinates(inner: &str, row: &str, origin: &str, first: usize, leading: usize) -> String {
    let mut list = vec![inner.to_owned(), row.to_owned()];
    list.extend((first..first + leading).rev().map(|result| format!("{origin}#{result}")));
    list.join(", ")
}

pub(crate) fn swizzle_name(span: i64) -> &'static str {
    match span {
        128 => "swizzle_128b",
        64 => "swizzle_64b",
        32 => "swizzle_32b",
        _ => "none",
    }
}

/// The accumulator of one 64-row wgmma tile: N/2 f32 registers per thread.
fn accumulator_type(bn: i64) -> String {
    format!(
        "!llvm.struct<({})>",
        vec!["f32"; (bn / 2) as usize].join(", ")
    )
}

/// Returns the tensor-map descriptor types of A, B and C.
pub fn tensor_map_types(config: &HopperConfig) -> [String; 3] {
    let input = config.input.name();
    let b = config.b;
    let [la, lb, lc] = config.leading;
    [
        tensor_map(
            la,
            config.a.box_rows,
            config.a.box_inner,
            input,
            swizzle_name(config.a.swizzle),
        ),
        tensor_map(lb, b.box_rows, b.box_inner, input, swizzle_name(b.swizzle)),
        tensor_map(lc, config.bm, config.c.box_cols, config.output.name(), swizzle_name(config.c.swizzle)),
    ]
}

/// Returns the wgmma descriptor's constant part for `layout` (everything but the start address).
fn descriptor_constant(layout: SharedLayout) -> i64 {
    let (leading, stride) = if layout.k_major {
        (16, 8 * layout.swizzle)
    } else {
        (layout.box_rows * 128, 1024)
    };
    ((leading >> 4) << 16) | ((stride >> 4) << 32) | (layout.descriptor_swizzle() << 62)
}

/// Renders the whole `gpu.module` (with `helpers`, the outlined functions, inside it).
#[allow(clippy::too_many_arguments)]
pub fn render_module(
    config: &HopperConfig,
    names: &KernelNames,
    loop_shape: &LoopShape,
    block_dims: usize,
    params: usize,
    threads: i64,
    helpers: &str,
) -> String {
    let mut t = Text::new();
    let input = config.input.name();
    let output = config.output.name();
    let [map_a, map_b, map_c] = tensor_map_types(config);
    let bars = format!(
        "!nvgpu.mbarrier.group<memorySpace = {WS}, num_barriers = {}>",
        config.stages
    );
    let smem = format!("memref<?xi8, {WS}>");
    let acc = accumulator_type(config.bn);
    let [la, lb, lc] = config.leading;
    let a_tile = box_type(la, config.a.box_rows, config.a.box_inner, input);
    let b_box = box_type(lb, config.b.box_rows, config.b.box_inner, input);
    let c_box = box_type(lc, config.bm, config.c.box_cols, output);
    // The load-origin helper's results: A's origin (its leading offsets, row, column), then B's.
    let b_first = la + 2;

    // Entry: tensor maps, thread and block ids, barriers, the aligned shared-memory base.
    let tma_a = t.let_(
        "tma_a",
        format!("builtin.unrealized_conversion_cast %map_a : !llvm.ptr to {map_a}"),
    );
    let tma_b = t.let_(
        "tma_b",
        format!("builtin.unrealized_conversion_cast %map_b : !llvm.ptr to {map_b}"),
    );
    let tma_c = t.let_(
        "tma_c",
        format!("builtin.unrealized_conversion_cast %map_c : !llvm.ptr to {map_c}"),
    );
    let c0 = t.index(0);
    let c1 = t.index(1);
    let tid = t.let_("tid", "gpu.thread_id x");
    let launched: Vec<String> = ["x", "y", "z"][..block_dims]
        .iter()
        .map(|dim| t.let_("bid", format!("gpu.block_id {dim}")))
        .collect();
    // Kernel parameters (host-computed sizes) arrive as i64.
    let sizes: Vec<String> = (0..params)
        .map(|index| {
            t.let_(
                "size",
                format!("arith.index_cast %param{index} : i64 to index"),
            )
        })
        .collect();
    let leader = t.let_("leader", format!("arith.cmpi eq, {tid}, {c0} : index"));
    let barriers = t.let_("bars", format!("nvgpu.mbarrier.create -> {bars}"));
    t.line(format!("scf.if {leader} {{"));
    for stage in 0..config.stages {
        let s = t.index(stage);
        t.line(format!(
            "nvgpu.mbarrier.init {barriers}[{s}], {c1} : {bars}"
        ));
    }
    t.line(format!("nvgpu.tma.prefetch.descriptor {tma_a} : {map_a}"));
    t.line(format!("nvgpu.tma.prefetch.descriptor {tma_b} : {map_b}"));
    t.line("}");
    t.line("gpu.barrier");
    let dynamic = t.let_("smem", format!("gpu.dynamic_shared_memory : {smem}"));
    let base = t.let_(
        "base",
        format!("memref.extract_aligned_pointer_as_index {dynamic} : {smem} -> index"),
    );
    let c1024 = t.index(1024);
    let rem = t.let_("rem", format!("arith.remui {base}, {c1024} : index"));
    let gap = t.let_("gap", format!("arith.subi {c1024}, {rem} : index"));
    let pad = t.let_("pad", format!("arith.remui {gap}, {c1024} : index"));
    let aligned = t.let_("aligned", format!("arith.addi {base}, {pad} : index"));

    // Loads one iteration's A and B tiles into one stage (emitted inside a leader-only region).
    let emit_load = |t: &mut Text, iteration: &str, stage: &str, blocks: &[String]| {
        let origin = names.call_load_origin(t, iteration, (loop_shape.lower, loop_shape.step), blocks, &sizes);
        let stage_bytes = t.index(config.stage_bytes);
        let stage_offset = t.let_("soff", format!("arith.muli {stage}, {stage_bytes} : index"));
        let a_offset = t.let_("aoff", format!("arith.addi {pad}, {stage_offset} : index"));
        let tx = t.index((config.bm * config.bk + config.bk * config.bn) * 2);
        t.line(format!(
            "nvgpu.mbarrier.arrive.expect_tx {barriers}[{stage}], {tx} : {bars}"
        ));
        let a_view = t.let_(
            "a_view",
            format!("memref.view {dynamic}[{a_offset}][] : {smem} to {a_tile}"),
        );
        let (a_row, a_col) = (format!("{origin}#{la}"), format!("{origin}#{}", la + 1));
        if config.a.k_major {
            let at = coordinates(&a_col, &a_row, &origin, 0, la);
            t.line(format!(
                "nvgpu.tma.async.load {tma_a}[{at}], {barriers}[{stage}] to {a_view} : {map_a}, {bars} -> {a_tile}"
            ));
        } else {
            // A given as KxM: 64-column boxes side by side, one per wgmma m64 tile.
            for box_index in 0..config.a.boxes {
                let box_offset = t.index(box_index * config.a.box_bytes(2));
                let offset = t.let_("aoff", format!("arith.addi {a_offset}, {box_offset} : index"));
                let view = t.let_("a_view", format!("memref.view {dynamic}[{offset}][] : {smem} to {a_tile}"));
                let shift = t.index(box_index * 64);
                let column = t.let_("acol", format!("arith.addi {a_col}, {shift} : index"));
                let at = coordinates(&column, &a_row, &origin, 0, la);
                t.line(format!(
                    "nvgpu.tma.async.load {tma_a}[{at}], {barriers}[{stage}] to {view} : {map_a}, {bars} -> {a_tile}"
                ));
            }
        }
        for box_index in 0..config.b.boxes {
            let offset = config.b_offset + box_index * config.b.box_bytes(2);
            let box_offset = t.index(offset);
            let b_offset = t.let_(
                "boff",
                format!("arith.addi {a_offset}, {box_offset} : index"),
            );
            let b_view = t.let_(
                "b_view",
                format!("memref.view {dynamic}[{b_offset}][] : {smem} to {b_box}"),
            );
            let (b_row, b_col) = (format!("{origin}#{}", b_first + lb), format!("{origin}#{}", b_first + lb + 1));
            let (inner, outer) = if config.b.k_major {
                (b_col, b_row)
            } else {
                let shift = t.index(box_index * 64);
                (t.let_("bcol", format!("arith.addi {b_col}, {shift} : index")), b_row)
            };
            let at = coordinates(&inner, &outer, &origin, b_first, lb);
            t.line(format!(
                "nvgpu.tma.async.load {tma_b}[{at}], {barriers}[{stage}] to {b_view} : {map_b}, {bars} -> {b_box}"
            ));
        }
    };

    // The trip count: known, or ceil((upper - lower) / step) of a host-computed upper bound.
    let (trips, known_trips) = t.trip_count((loop_shape.lower, loop_shape.step, loop_shape.upper), &sizes, &c0);
    let walk = Walk::new(&mut t, config.persistent, &launched, &trips);
    // Prologue: the first S steps fill the ring (those that exist).
    let cap = match (config.persistent, known_trips) {
        (None, Some(count)) => config.stages.min(count),
        _ => config.stages,
    };
    for step in 0..cap {
        let g = t.index(step);
        let guard = if config.persistent.is_none() && known_trips.is_some() {
            leader.clone()
        } else {
            let exists = t.let_("exists", format!("arith.cmpi ult, {g}, {} : index", walk.steps()));
            t.let_("guard", format!("arith.andi {exists}, {leader} : i1"))
        };
        t.line(format!("scf.if {guard} {{"));
        let (iteration, blocks) = walk.step(&mut t, &g, &trips);
        emit_load(&mut t, &iteration, &g, &blocks);
        t.line("}");
    }

    // Per-thread constants of the MMA: this warpgroup's first row, in descriptor units (16 bytes).
    let c128 = t.index(128);
    let warpgroup = t.let_("wg", format!("arith.divui {tid}, {c128} : index"));
    let wg_rows = t.index(config.m_tiles * 64);
    let wg_row = t.let_(
        "wgrow",
        format!("arith.muli {warpgroup}, {wg_rows} : index"),
    );
    let a_row_bytes = t.index(config.bk * 2);
    let wg_a_bytes = t.let_(
        "wgab",
        format!("arith.muli {wg_row}, {a_row_bytes} : index"),
    );

    let c2 = t.index(2);
    let zero = t.let_("zero", format!("llvm.mlir.zero : {acc}"));
    let stages = t.index(config.stages);
    let mt = config.m_tiles as usize;
    // Persistent blocks walk their tiles here; otherwise the block's one tile is the entry's.
    let (blocks, base, next_tile) = walk.open_tile(&mut t, &trips);
    let results = t.fresh("acc");
    let iterator = t.fresh("it");
    let carried: Vec<String> = (0..mt).map(|_| t.fresh("carried")).collect();
    t.line(format!(
        "{results}:{mt} = scf.for {iterator} = {c0} to {trips} step {c1} iter_args({}) -> ({}) {{",
        carried
            .iter()
            .map(|name| format!("{name} = {zero}"))
            .collect::<Vec<_>>()
            .join(", "),
        vec![acc.as_str(); mt].join(", ")
    ));
    // Wait for this step's stage; steps count on across the block's tiles.
    let global = t.let_("g", format!("arith.addi {base}, {iterator} : index"));
    let stage = t.let_("stage", format!("arith.remui {global}, {stages} : index"));
    let round = t.let_("round", format!("arith.divui {global}, {stages} : index"));
    let parity_index = t.let_("par", format!("arith.remui {round}, {c2} : index"));
    let parity = t.let_(
        "parity",
        format!("arith.index_cast {parity_index} : index to i1"),
    );
    let ticks = t.index(10_000_000);
    t.line(format!(
        "nvgpu.mbarrier.try_wait.parity {barriers}[{stage}], {parity}, {ticks} : {bars}"
    ));
    // Descriptors: start address >> 4 in the low 14 bits, the layout constant above.
    let stage_bytes = t.index(config.stage_bytes);
    let stage_offset = t.let_("soff", format!("arith.muli {stage}, {stage_bytes} : index"));
    let stage_base = t.let_(
        "sbase",
        format!("arith.addi {aligned}, {stage_offset} : index"),
    );
    let a_start = t.let_(
        "astart",
        format!("arith.addi {stage_base}, {wg_a_bytes} : index"),
    );
    let b_bytes = t.index(config.b_offset);
    let b_start = t.let_(
        "bstart",
        format!("arith.addi {stage_base}, {b_bytes} : index"),
    );
    let descriptor = |t: &mut Text, start: &str, layout: SharedLayout| {
        let wide = t.let_("addr", format!("arith.index_cast {start} : index to i64"));
        let four = t.i64(4);
        let shifted = t.let_("addr", format!("arith.shrui {wide}, {four} : i64"));
        let mask = t.i64(0x3FFF);
        let field = t.let_("addr", format!("arith.andi {shifted}, {mask} : i64"));
        let constant = t.i64(descriptor_constant(layout));
        t.let_("desc", format!("arith.ori {field}, {constant} : i64"))
    };
    let desc_a = descriptor(&mut t, &a_start, config.a);
    let desc_b = descriptor(&mut t, &b_start, config.b);
    t.line("nvvm.wgmma.fence.aligned");
    // K-major operands step 32 bytes along a swizzled row per k16; MN-major ones 16 rows of 128.
    let a_layout = if config.a.k_major { "row" } else { "col" };
    let a_k_step = if config.a.k_major { 32 } else { 16 * 128 };
    let b_layout = if config.b.k_major { "col" } else { "row" };
    let b_k_step = if config.b.k_major { 32 } else { 16 * 128 };
    let mut updated = carried.clone();
    for k_step in 0..config.bk / 16 {
        let b_offset = t.i64((k_step * b_k_step) >> 4);
        let b = t.let_("db", format!("arith.addi {desc_b}, {b_offset} : i64"));
        for (tile, value) in updated.iter_mut().enumerate() {
            let a_offset = t.i64((tile as i64 * 64 * config.bk * 2 + k_step * a_k_step) >> 4);
            let a = t.let_("da", format!("arith.addi {desc_a}, {a_offset} : i64"));
            *value = t.let_(
                "mma",
                format!(
                    "nvvm.wgmma.mma_async {a}, {b}, {value}, #nvvm.shape<m = 64, n = {}, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<{input}>, #nvvm.wgmma_scale_in<one>, #nvvm.mma_layout<{a_layout}>], B [<{input}>, #nvvm.wgmma_scale_in<one>, #nvvm.mma_layout<{b_layout}>] : {acc} -> {acc}",
                    config.bn
                ),
            );
        }
    }
    t.line("nvvm.wgmma.commit.group.sync.aligned");
    // Keep this step's MMAs in flight; the previous step's are done, in every warpgroup once the
    // barrier passes, so its stage can be refilled with iteration it-1+S.
    t.line("nvvm.wgmma.wait.group.sync.aligned 1");
    t.line("gpu.barrier");
    let ahead = t.index(config.stages - 1);
    let next = t.let_("next", format!("arith.addi {global}, {ahead} : index"));
    let started = t.let_(
        "started",
        format!("arith.cmpi uge, {global}, {c1} : index"),
    );
    let has_next = t.let_(
        "hasnext",
        format!("arith.cmpi ult, {next}, {} : index", walk.steps()),
    );
    let wanted = t.let_("refill", format!("arith.andi {has_next}, {started} : i1"));
    let refill = t.let_("refill", format!("arith.andi {wanted}, {leader} : i1"));
    t.line(format!("scf.if {refill} {{"));
    let freed = t.let_("freed", format!("arith.subi {global}, {c1} : index"));
    let freed_stage = t.let_("nstage", format!("arith.remui {freed}, {stages} : index"));
    // The step S-1 ahead is in this tile or the next one when a tile has at least S-1 steps: pick
    // between the two tiles' coordinates, computed once a tile, instead of recomputing the tile
    // order on the leader's critical path every step.
    let (iteration, next_blocks) = match (&next_tile, known_trips) {
        (Some(next_tile), Some(count)) if config.stages - 1 <= count => {
            pick_tile(&mut t, &iterator, &ahead, &trips, &blocks, next_tile)
        }
        (Some(next_tile), None) => {
            // Whether a tile has S-1 steps is known at run time only: a uniform branch.
            let fits = t.let_("fits", format!("arith.cmpi uge, {trips}, {ahead} : index"));
            let picked = t.fresh("picked");
            let count = blocks.len() + 1;
            t.line(format!("{picked}:{count} = scf.if {fits} -> ({}) {{", vec!["index"; count].join(", ")));
            let (iteration, coordinates) = pick_tile(&mut t, &iterator, &ahead, &trips, &blocks, next_tile);
            t.line(format!("scf.yield {iteration}, {} : {}", coordinates.join(", "), vec!["index"; count].join(", ")));
            t.line("} else {");
            let (iteration, coordinates) = walk.step(&mut t, &next, &trips);
            t.line(format!("scf.yield {iteration}, {} : {}", coordinates.join(", "), vec!["index"; count].join(", ")));
            t.line("}");
            (format!("{picked}#0"), (1..count).map(|index| format!("{picked}#{index}")).collect())
        }
        _ => walk.step(&mut t, &next, &trips),
    };
    emit_load(&mut t, &iteration, &freed_stage, &next_blocks);
    t.line("}");
    t.line(format!(
        "scf.yield {} : {}",
        updated.join(", "),
        vec![acc.as_str(); mt].join(", ")
    ));
    t.line("}");
    t.line("nvvm.wgmma.wait.group.sync.aligned 0");

    // Epilogue: each thread holds, per 64-row tile and 8-column block, rows r and r+8 and two
    // adjacent columns (the wgmma accumulator layout).
    let in_warpgroup = t.let_("inwg", format!("arith.remui {tid}, {c128} : index"));
    let c32 = t.index(32);
    let warp = t.let_("warp", format!("arith.divui {in_warpgroup}, {c32} : index"));
    let lane = t.let_("lane", format!("arith.remui {tid}, {c32} : index"));
    let c4 = t.index(4);
    let lane_row = t.let_("lrow", format!("arith.divui {lane}, {c4} : index"));
    let lane_quad = t.let_("lquad", format!("arith.remui {lane}, {c4} : index"));
    let col_base = t.let_("cbase", format!("arith.muli {lane_quad}, {c2} : index"));
    let c16 = t.index(16);
    let warp_row = t.let_("wrow", format!("arith.muli {warp}, {c16} : index"));
    let row_in_wg = t.let_(
        "rbase",
        format!("arith.addi {warp_row}, {lane_row} : index"),
    );
    let row_base = t.let_("rbase", format!("arith.addi {row_in_wg}, {wg_row} : index"));
    let staging = t.index(config.staging_offset());
    let staging_start = t.let_("staging", format!("arith.addi {pad}, {staging} : index"));
    let c_flat = format!("memref<{}x{output}, {WS}>", config.staged_boxes * config.bm * config.c.box_cols);
    let c_view = t.let_(
        "c_view",
        format!("memref.view {dynamic}[{staging_start}][] : {smem} to {c_flat}"),
    );
    let out_bytes = output_element_bytes(config.output);
    // The thread's accumulator elements, (m-tile, 8-column block, row half, column in pair), with
    // their rows and columns in the block tile, through the epilogue.
    let mut positions = Vec::new();
    for tile in 0..mt {
        for block in 0..config.bn / 8 {
            for half in 0..2 {
                for lane_col in 0..2 {
                    positions.push((tile, block, half, lane_col));
                }
            }
        }
    }
    let rows: Vec<String> = (0..mt as i64 * 2)
        .map(|tile_half| {
            let shift = t.index((tile_half / 2) * 64 + (tile_half % 2) * 8);
            t.let_("row", format!("arith.addi {row_base}, {shift} : index"))
        })
        .collect();
    let columns: Vec<String> = (0..config.bn / 4)
        .map(|block_col| {
            let shift = t.index((block_col / 2) * 8 + block_col % 2);
            t.let_("col", format!("arith.addi {col_base}, {shift} : index"))
        })
        .collect();
    let row_of = |&(tile, _, half, _): &(usize, i64, i64, i64)| tile * 2 + half as usize;
    let column_of = |&(_, block, _, lane_col): &(usize, i64, i64, i64)| (block * 2 + lane_col) as usize;
    let mut elements: Vec<Element> = positions
        .iter()
        .map(|position| {
            let &(tile, block, half, lane_col) = position;
            let index = block * 4 + half * 2 + lane_col;
            Element {
                value: t.let_("v", format!("llvm.extractvalue {results}#{tile}[{index}] : {acc}")),
                row: row_of(position),
                column: column_of(position),
            }
        })
        .collect();
    // Column reductions finish in shared memory, one row of partial columns per warp.
    let exchange = (config.exchange_bytes > 0).then(|| {
        let warps = threads / 32;
        let ty = format!("memref<{warps}x{}xf32, {WS}>", config.bn);
        let offset = t.index(config.exchange_offset());
        let start = t.let_("xoff", format!("arith.addi {pad}, {offset} : index"));
        let view = t.let_("exchange", format!("memref.view {dynamic}[{start}][] : {smem} to {ty}"));
        let warp = t.let_("gwarp", format!("arith.divui {tid}, {c32} : index"));
        (view, ty, warp, warps)
    });
    // The other tensors the epilogue reads arrive as memrefs after the tensor maps.
    let others: Vec<String> = (0..names.epilogue_tensors.len()).map(|index| format!("%other{index}")).collect();
    epilogue::run(&mut t, names, &mut elements, &rows, &columns, &sizes, (&blocks, &others), |t, kind, axis, elements| match axis {
        // A row of the wgmma accumulator lies in the 4 lanes of one quad: the thread's own
        // elements, then a butterfly over the quad.
        Axis::Rows => epilogue::partials(t, kind, elements, axis, rows.len())
            .iter()
            .map(|partial| epilogue::butterfly(t, kind, partial, &[1, 2], 32))
            .collect(),
        // A column lies in the 8 quads of a warp (lanes 4 apart), then in every warp.
        Axis::Columns => {
            let lane_columns: Vec<String> = epilogue::partials(t, kind, elements, axis, columns.len())
                .iter()
                .map(|partial| epilogue::butterfly(t, kind, partial, &[4, 8, 16], 32))
                .collect();
            let (view, ty, warp, warps) = exchange.as_ref().expect("column reductions have an exchange");
            epilogue::exchange_rows(t, kind, &lane_columns, &columns, warp, *warps, view, ty)
        }
    });
    let elements: Vec<String> = elements.into_iter().map(|element| element.value).collect();
    let staged = stage_addresses(&mut t, config, &rows, &columns, &col_base);
    let box_elements = config.bm * config.c.box_cols;
    let origin = names.call_store_origin(&mut t, &blocks, &sizes);
    // The result goes out `staged_boxes` boxes at a time: wait until the staging tile's previous
    // contents were read by their TMA stores (and, over the ring, until every warpgroup's last
    // MMAs retired), write, make the writes visible to the async proxy, store.
    for round_first in (0..config.c.boxes).step_by(config.staged_boxes as usize) {
        let round = round_first..(round_first + config.staged_boxes).min(config.c.boxes);
        t.line(format!("scf.if {leader} {{"));
        t.line("nvvm.cp.async.bulk.wait_group 0 {read}");
        t.line("}");
        t.line("gpu.barrier");
        for (pair, position) in elements.chunks(2).zip(positions.chunks(2)) {
            let box_index = box_of(config, column_of(&position[0]));
            if !round.contains(&box_index) {
                continue;
            }
            let in_box = staged(&mut t, row_of(&position[0]), column_of(&position[0]));
            let converted: Vec<String> = pair
                .iter()
                .map(|element| {
                    if out_bytes == 2 {
                        t.let_("v", format!("arith.truncf {element} : f32 to {output}"))
                    } else {
                        element.clone()
                    }
                })
                .collect();
            let vector = t.let_(
                "pair",
                format!("vector.from_elements {}, {} : vector<2x{output}>", converted[0], converted[1]),
            );
            let slot = t.index((box_index - round.start) * box_elements);
            let address = t.let_("saddr", format!("arith.addi {in_box}, {slot} : index"));
            t.line(format!(
                "vector.store {vector}, {c_view}[{address}] : {c_flat}, vector<2x{output}>"
            ));
        }
        t.line(
            "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}",
        );
        t.line("gpu.barrier");
        t.line(format!("scf.if {leader} {{"));
        for box_index in round.clone() {
            let slot_bytes = t.index((box_index - round.start) * config.staging_box_bytes());
            let offset = t.let_("coff", format!("arith.addi {staging_start}, {slot_bytes} : index"));
            let view = t.let_("c_box", format!("memref.view {dynamic}[{offset}][] : {smem} to {c_box}"));
            let shift = t.index(box_index * config.c.box_cols);
            let column = t.let_("ccol", format!("arith.addi {origin}#{}, {shift} : index", lc + 1));
            let at = coordinates(&column, &format!("{origin}#{lc}"), &origin, 0, lc);
            t.line(format!(
                "nvgpu.tma.async.store {view} to {tma_c}[{at}] : {c_box} -> {map_c}"
            ));
        }
        t.line("nvvm.cp.async.bulk.commit.group");
        t.line("}");
    }
    walk.close_tile(&mut t);
    t.line(format!("scf.if {leader} {{"));
    t.line("nvvm.cp.async.bulk.wait_group 0 {read}");
    t.line("}");
    t.line("gpu.return");

    let mut module = String::new();
    let _ = writeln!(module, "module attributes {{gpu.container_module}} {{");
    let _ = writeln!(module, "  gpu.module @{} {{", names.module);
    module.push_str(helpers);
    let _ = writeln!(
        module,
        "    gpu.func @{}(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr{}) kernel attributes {{known_block_size = array<i32: {threads}, 1, 1>}} {{",
        names.kernel,
        names
            .epilogue_tensors
            .iter()
            .enumerate()
            .map(|(index, ty)| format!(", %other{index}: {ty}"))
            .chain((0..params).map(|index| format!(", %param{index}: i64")))
            .chain(config.persistent.filter(|persistent| persistent.tiles.is_none()).map(|_| ", %tiles_x: i64, %tiles_y: i64".to_owned()))
            .collect::<String>()
    );
    module.push_str(&t.out);
    let _ = writeln!(module, "    }}\n  }}\n}}");
    module
}

