//! Renders the gfx942 kernel of one GEMM plan in upstream `gpu`/`amdgpu`/`vector` ops.
//!
//! ```text
//! prefetch:  every thread loads its 8-element vectors of A and B for step 0 (global -> registers;
//!            vectors that reach past a tensor's end are read masked, zeros outside)
//! loop it:   barrier; registers -> LDS (A as rows, B transposed to K-contiguous rows);
//!            barrier; load step it+1 into registers (in flight during the MMAs);
//!            per K slice: ds_read the mfma operands of each wave tile; amdgpu.mfma
//! epilogue:  accumulator lanes -> epilogue function -> convert -> guarded global stores
//! ```
//!
//! Tensors of rank above 2 (batches, heads) are addressed at the tile origin's leading offsets,
//! each checked against its dimension: a tile whose leading index lies outside reads zeros and
//! stores nothing.

use super::config::AmdConfig;
use crate::gemm::{
    epilogue::{self, Element},
    install::KernelNames,
    plan::Scalar,
    text::Text,
};
use std::fmt::Write;

/// The kernel's interface: the global tensors' types and the loop.
pub struct Interface {
    /// Types of A, B and the result, as written in the host function.
    pub globals: [String; 3],
    /// Ranks of A, B and the result (2 to 5): the tiles lie in the last two dimensions, the
    /// helpers' leading offsets index the others.
    pub ranks: [usize; 3],
    /// Block indices the program uses.
    pub block_dims: usize,
    /// Host-computed index parameters.
    pub params: usize,
    /// Lower bound, step, upper bound of the main loop.
    pub main_loop: (i64, i64, Scalar),
}

/// Renders the `gpu.module` holding the kernel (and `helpers`, the outlined functions).
pub fn render_module(
    config: &AmdConfig,
    names: &KernelNames,
    interface: &Interface,
    helpers: &str,
) -> String {
    let mut t = Text::new();
    let input = config.input.name();
    let output = config.output.name();
    let [a_type, b_type, c_type] = &interface.globals;
    // With two LDS buffers, a leading dimension picks the buffer.
    let ring = if config.buffers == 2 { "2x" } else { "" };
    let lds_a = format!("memref<{ring}{}x{}x{input}, 3>", config.bm, config.lds_row);
    let lds_b = format!("memref<{ring}{}x{}x{input}, 3>", config.bn, config.lds_row);
    let at = |buffer: &str, rest: String| if buffer.is_empty() { rest } else { format!("{buffer}, {rest}") };
    let vec8 = format!("vector<8x{input}>");
    let vec4 = format!("vector<4x{input}>");
    let acc = format!("vector<{}xf32>", config.mfma.accumulators);

    let c0 = t.index(0);
    let c1 = t.index(1);
    let tid = t.let_("tid", "gpu.thread_id x");
    let blocks: Vec<String> = ["x", "y", "z"][..interface.block_dims]
        .iter()
        .map(|dim| t.let_("bid", format!("gpu.block_id {dim}")))
        .collect();
    let sizes: Vec<String> = (0..interface.params)
        .map(|index| format!("%param{index}"))
        .collect();
    let pad = t.let_("pad", format!("arith.constant 0.0 : {input}"));
    let c64 = t.index(64);
    let lane = t.binary("remui", &tid, &c64);
    let wave = t.binary("divui", &tid, &c64);
    let waves_n = t.index(config.waves.1);
    let wave_m = t.binary("divui", &wave, &waves_n);
    let wave_n = t.binary("remui", &wave, &waves_n);
    let wave_rows = t.index(config.wave_tile.0);
    let wave_cols = t.index(config.wave_tile.1);
    let wave_row0 = t.binary("muli", &wave_m, &wave_rows);
    let wave_col0 = t.binary("muli", &wave_n, &wave_cols);
    // The rows and columns of a tensor (its last two dimensions), then its leading dimensions.
    let dims = |t: &mut Text, tensor: &str, ty: &str, rank: usize| -> (String, String, Vec<String>) {
        let rows = t.index(rank as i64 - 2);
        let columns = t.index(rank as i64 - 1);
        let matrix = (
            t.let_("dim", format!("memref.dim {tensor}, {rows} : {ty}")),
            t.let_("dim", format!("memref.dim {tensor}, {columns} : {ty}")),
        );
        let leading = (0..rank - 2)
            .map(|dim| {
                let dim = t.index(dim as i64);
                t.let_("dim", format!("memref.dim {tensor}, {dim} : {ty}"))
            })
            .collect();
        (matrix.0, matrix.1, leading)
    };
    let [a_rank, b_rank, c_rank] = interface.ranks;
    let (a_rows, a_cols, a_leading) = dims(&mut t, "%A", a_type, a_rank);
    let (b_rows, b_cols, b_leading) = dims(&mut t, "%B", b_type, b_rank);
    let (c_rows, c_cols, c_leading) = dims(&mut t, "%C", c_type, c_rank);
    let (a_dims, b_dims, c_dims) = ((a_rows, a_cols), (b_rows, b_cols), (c_rows, c_cols));

    let (lower, step, upper) = interface.main_loop;
    let (trips, _) = t.trip_count((lower, step, upper), &sizes, &c0);

    // The 8-element vectors this thread moves: (slot, tile row, tile column) for A and for B, where
    // B's (row, column) is in the global layout (KxN, or NxK with transpose_b).
    let (a_slots, b_slots) = config.vectors_per_thread();
    let threads = t.index(config.threads);
    let slot_position = |t: &mut Text, slot: i64, per_row: i64| -> (String, String) {
        let offset = t.index(slot * config.threads);
        let index = t.binary("addi", &tid, &offset);
        let _ = &threads;
        let width = t.index(per_row);
        let row = t.binary("divui", &index, &width);
        let column_vector = t.binary("remui", &index, &width);
        let eight = t.index(8);
        let column = t.binary("muli", &column_vector, &eight);
        (row, column)
    };
    let b_global_row_width = if config.transpose_b {
        config.bk / 8
    } else {
        config.bn / 8
    };

    // Global -> registers for iteration `iteration`: returns the vectors, A's then B's.
    let load = |t: &mut Text, iteration: &str| -> Vec<String> {
        let origin = names.call_load_origin(t, iteration, (lower, step), &blocks, &sizes);
        let mut vectors = Vec::new();
        // An N-D tensor's leading offsets (helper results `first..`) and whether all lie inside.
        let leading_origin = |t: &mut Text, first: usize, dims: &[String]| -> (Vec<String>, Option<String>) {
            let indices: Vec<String> = (first..first + dims.len()).map(|result| format!("{origin}#{result}")).collect();
            let mut inside: Option<String> = None;
            for (index, dim) in indices.iter().zip(dims) {
                let fits = t.let_("in", format!("arith.cmpi ult, {index}, {dim} : index"));
                inside = Some(match inside {
                    Some(previous) => t.let_("in", format!("arith.andi {previous}, {fits} : i1")),
                    None => fits,
                });
            }
            (indices, inside)
        };
        let (a_lead, a_lead_in) = leading_origin(t, 0, &a_leading);
        let (b_lead, b_lead_in) = leading_origin(t, a_rank, &b_leading);
        let mut read = |t: &mut Text,
                        tensor: &str,
                        ty: &str,
                        dims: &(String, String),
                        (lead, lead_in): (&[String], &Option<String>),
                        origin_row: String,
                        origin_col: String,
                        row: &str,
                        col: &str| {
            let r = t.binary("addi", &origin_row, row);
            let c = t.binary("addi", &origin_col, col);
            let eight = t.index(8);
            let end = t.binary("addi", &c, &eight);
            let row_in = t.let_("in", format!("arith.cmpi ult, {r}, {} : index", dims.0));
            let col_in = t.let_("in", format!("arith.cmpi ule, {end}, {} : index", dims.1));
            let inside = t.let_("in", format!("arith.andi {row_in}, {col_in} : i1"));
            let indices = lead.iter().cloned().chain([r, c]).collect::<Vec<_>>().join(", ");
            let value = t.fresh("vec");
            let Some(lead_in) = lead_in else {
                t.line(format!("{value} = scf.if {inside} -> ({vec8}) {{"));
                let fast = t.let_(
                    "vec",
                    format!("vector.load {tensor}[{indices}] : {ty}, {vec8}"),
                );
                t.line(format!("scf.yield {fast} : {vec8}"));
                t.line("} else {");
                let masked = t.let_(
                    "vec",
                    format!("vector.transfer_read {tensor}[{indices}], {pad} : {ty}, {vec8}"),
                );
                t.line(format!("scf.yield {masked} : {vec8}"));
                t.line("}");
                vectors.push(value);
                return;
            };
            // N-D: the masked read clips the columns only; a row or leading index outside its
            // dimension reads zeros without touching memory (the next head's rows, or past the end).
            let all_in = t.let_("in", format!("arith.andi {inside}, {lead_in} : i1"));
            let row_lead_in = t.let_("in", format!("arith.andi {row_in}, {lead_in} : i1"));
            t.line(format!("{value} = scf.if {all_in} -> ({vec8}) {{"));
            let fast = t.let_("vec", format!("vector.load {tensor}[{indices}] : {ty}, {vec8}"));
            t.line(format!("scf.yield {fast} : {vec8}"));
            t.line("} else {");
            let partial = t.fresh("vec");
            t.line(format!("{partial} = scf.if {row_lead_in} -> ({vec8}) {{"));
            let masked = t.let_("vec", format!("vector.transfer_read {tensor}[{indices}], {pad} : {ty}, {vec8}"));
            t.line(format!("scf.yield {masked} : {vec8}"));
            t.line("} else {");
            let zeros = t.let_("vec", format!("vector.broadcast {pad} : {input} to {vec8}"));
            t.line(format!("scf.yield {zeros} : {vec8}"));
            t.line("}");
            t.line(format!("scf.yield {partial} : {vec8}"));
            t.line("}");
            vectors.push(value);
        };
        let (a_row, a_col) = (format!("{origin}#{}", a_rank - 2), format!("{origin}#{}", a_rank - 1));
        let (b_row, b_col) = (format!("{origin}#{}", a_rank + b_rank - 2), format!("{origin}#{}", a_rank + b_rank - 1));
        for slot in 0..a_slots {
            let (row, col) = slot_position(t, slot, config.bk / 8);
            read(t, "%A", a_type, &a_dims, (&a_lead, &a_lead_in), a_row.clone(), a_col.clone(), &row, &col);
        }
        for slot in 0..b_slots {
            let (row, col) = slot_position(t, slot, b_global_row_width);
            read(t, "%B", b_type, &b_dims, (&b_lead, &b_lead_in), b_row.clone(), b_col.clone(), &row, &col);
        }
        vectors
    };

    // Registers -> LDS: A row-major; B as K-contiguous rows (transposed unless B is already NxK).
    let store = |t: &mut Text, buffer: &str, vectors: &[String]| {
        for (slot, vector) in vectors[..a_slots as usize].iter().enumerate() {
            let (row, col) = slot_position(t, slot as i64, config.bk / 8);
            t.line(format!(
                "vector.store {vector}, %lds_a[{}] : {lds_a}, {vec8}",
                at(buffer, format!("{row}, {col}"))
            ));
        }
        for (slot, vector) in vectors[a_slots as usize..].iter().enumerate() {
            let (row, col) = slot_position(t, slot as i64, b_global_row_width);
            if config.transpose_b {
                t.line(format!(
                    "vector.store {vector}, %lds_b[{}] : {lds_b}, {vec8}",
                    at(buffer, format!("{row}, {col}"))
                ));
            } else {
                for element in 0..8 {
                    let value = t.let_(
                        "x",
                        format!("vector.extract {vector}[{element}] : {input} from {vec8}"),
                    );
                    let shift = t.index(element);
                    let n = t.binary("addi", &col, &shift);
                    t.line(format!(
                        "memref.store {value}, %lds_b[{}] : {lds_b}",
                        at(buffer, format!("{n}, {row}"))
                    ));
                }
            }
        }
    };

    // The MMAs: lane l reads row l % size of its tile, K elements 4 * (l / size) .. + 4.
    let size = t.index(config.mfma.size);
    let lane_row = t.binary("remui", &lane, &size);
    let lane_k_group = t.binary("divui", &lane, &size);
    let four = t.index(4);
    let lane_k = t.binary("muli", &lane_k_group, &four);
    let mut prefetch = load(&mut t, &c0);
    if config.buffers == 2 {
        // Step 0 goes to buffer 0 before the loop; the loop carries step 1's registers.
        let first = t.index(0);
        store(&mut t, &first, &prefetch);
        t.line("amdgpu.lds_barrier");
        let one = t.index(1);
        let exists = t.let_("more", format!("arith.cmpi ult, {one}, {trips} : index"));
        let vec_types = vec![vec8.as_str(); prefetch.len()].join(", ");
        let second = t.fresh("second");
        t.line(format!("{second}:{} = scf.if {exists} -> ({vec_types}) {{", prefetch.len()));
        let loaded = load(&mut t, &one);
        t.line(format!("scf.yield {} : {vec_types}", loaded.join(", ")));
        t.line("} else {");
        t.line(format!("scf.yield {} : {vec_types}", prefetch.join(", ")));
        t.line("}");
        prefetch = (0..prefetch.len()).map(|i| format!("{second}#{i}")).collect();
    }
    let (tiles_m, tiles_n) = config.tiles();
    let accumulators = (tiles_m * tiles_n) as usize;
    let zero = t.let_("zero", format!("arith.constant dense<0.0> : {acc}"));
    let results = t.fresh("res");
    let iterator = t.fresh("it");
    let carried_acc: Vec<String> = (0..accumulators).map(|_| t.fresh("acc")).collect();
    let carried_vec: Vec<String> = (0..prefetch.len()).map(|_| t.fresh("pre")).collect();
    let mut inits: Vec<String> = carried_acc
        .iter()
        .map(|name| format!("{name} = {zero}"))
        .collect();
    inits.extend(
        carried_vec
            .iter()
            .zip(&prefetch)
            .map(|(name, value)| format!("{name} = {value}")),
    );
    let mut types: Vec<&str> = vec![acc.as_str(); accumulators];
    types.extend(vec![vec8.as_str(); prefetch.len()]);
    let total = types.len();
    t.line(format!(
        "{results}:{total} = scf.for {iterator} = {c0} to {trips} step {c1} iter_args({}) -> ({}) {{",
        inits.join(", "),
        types.join(", ")
    ));
    let next = t.binary("addi", &iterator, &c1);
    let has_next = t.let_("more", format!("arith.cmpi ult, {next}, {trips} : index"));
    let vec_types = vec![vec8.as_str(); prefetch.len()].join(", ");
    // Loads step `step` into registers when it exists; the carried registers otherwise.
    let fetch = |t: &mut Text, exists: &str, step: &str| -> String {
        let fetched = t.fresh("next");
        t.line(format!("{fetched}:{} = scf.if {exists} -> ({vec_types}) {{", prefetch.len()));
        let loaded = load(t, step);
        t.line(format!("scf.yield {} : {vec_types}", loaded.join(", ")));
        t.line("} else {");
        t.line(format!("scf.yield {} : {vec_types}", carried_vec.join(", ")));
        t.line("}");
        fetched
    };
    let (fetched, reading) = if config.buffers == 2 {
        // Two buffers: the MMAs of step it read buffer it % 2 while the registers (step it+1) go to
        // the other; one barrier a step, after which both are safe to swap.
        let two = t.index(2);
        let reading = t.binary("remui", &iterator, &two);
        let writing = t.binary("remui", &next, &two);
        (String::new(), (reading, writing, has_next.clone()))
    } else {
        // One buffer: wait until every wave is done reading it, refill it, wait for the writes;
        // the next step's loads are in flight during the MMAs.
        t.line("amdgpu.lds_barrier");
        store(&mut t, "", &carried_vec);
        t.line("amdgpu.lds_barrier");
        (fetch(&mut t, &has_next, &next), (String::new(), String::new(), String::new()))
    };
    let (reading, writing, has_next) = reading;
    // The MMAs read the operands loaded above the loop's header.
    let mut updated = carried_acc.clone();
    for slice in 0..config.bk / config.mfma.k {
        let slice_k = t.index(slice * config.mfma.k);
        let k = t.binary("addi", &slice_k, &lane_k);
        let a_operands: Vec<String> = (0..tiles_m)
            .map(|tm| {
                let shift = t.index(tm * config.mfma.size);
                let base = t.binary("addi", &wave_row0, &shift);
                let row = t.binary("addi", &base, &lane_row);
                t.let_(
                    "a",
                    format!("vector.load %lds_a[{}] : {lds_a}, {vec4}", at(&reading, format!("{row}, {k}"))),
                )
            })
            .collect();
        let b_operands: Vec<String> = (0..tiles_n)
            .map(|tn| {
                let shift = t.index(tn * config.mfma.size);
                let base = t.binary("addi", &wave_col0, &shift);
                let row = t.binary("addi", &base, &lane_row);
                t.let_(
                    "b",
                    format!("vector.load %lds_b[{}] : {lds_b}, {vec4}", at(&reading, format!("{row}, {k}"))),
                )
            })
            .collect();
        for (tm, a_operand) in a_operands.iter().enumerate() {
            for (tn, b_operand) in b_operands.iter().enumerate() {
                let slot = tm * tiles_n as usize + tn;
                updated[slot] = t.let_(
                    "mma",
                    format!(
                        "amdgpu.mfma {s}x{s}x{k} {} * {} + {} blgp = none : {vec4}, {vec4}, {acc}",
                        a_operand,
                        b_operand,
                        updated[slot],
                        s = config.mfma.size,
                        k = config.mfma.k
                    ),
                );
            }
        }
    }
    let fetched = if config.buffers == 2 {
        t.line(format!("scf.if {has_next} {{"));
        store(&mut t, &writing, &carried_vec);
        t.line("}");
        let two = t.index(2);
        let after = t.binary("addi", &iterator, &two);
        let exists = t.let_("more", format!("arith.cmpi ult, {after}, {trips} : index"));
        let fetched = fetch(&mut t, &exists, &after);
        t.line("amdgpu.lds_barrier");
        fetched
    } else {
        fetched
    };
    let fetched_values: Vec<String> = (0..prefetch.len())
        .map(|i| format!("{fetched}#{i}"))
        .collect();
    t.line(format!(
        "scf.yield {}, {} : {}",
        updated.join(", "),
        fetched_values.join(", "),
        types.join(", ")
    ));
    t.line("}");

    // Epilogue. 32x32: accumulator v of lane l is row 8*(v/4) + 4*(l/32) + v%4, column l%32;
    // 16x16: row 4*(l/16) + v, column l%16.
    let origin = names.call_store_origin(&mut t, &blocks, &sizes);
    let group_rows = t.binary("muli", &lane_k_group, &four);
    // Row slot (tm, v) and column slot tn of the wave tile, as tile-relative indices.
    let accumulators_per_tile = config.mfma.accumulators;
    let rows: Vec<String> = (0..tiles_m * accumulators_per_tile)
        .map(|slot| {
            let (tm, v) = (slot / accumulators_per_tile, slot % accumulators_per_tile);
            let within = if config.mfma.size == 32 { 8 * (v / 4) + v % 4 } else { v };
            let row_shift = t.index(tm * config.mfma.size + within);
            let row_base = t.binary("addi", &wave_row0, &row_shift);
            t.binary("addi", &row_base, &group_rows)
        })
        .collect();
    let columns: Vec<String> = (0..tiles_n)
        .map(|tn| {
            let col_shift = t.index(tn * config.mfma.size);
            let col_base = t.binary("addi", &wave_col0, &col_shift);
            t.binary("addi", &col_base, &lane_row)
        })
        .collect();
    let mut elements = Vec::new();
    for tm in 0..tiles_m {
        for tn in 0..tiles_n {
            let slot = (tm * tiles_n + tn) as usize;
            for v in 0..accumulators_per_tile {
                elements.push(Element {
                    value: t.let_("r", format!("vector.extract {results}#{slot}[{v}] : f32 from {acc}")),
                    row: (tm * accumulators_per_tile + v) as usize,
                    column: tn as usize,
                });
            }
        }
    }
    // A row of an mfma tile lies in the `size` lanes that share lane / size; a row of the block
    // tile also spans the waves along N, which exchange their partial rows through LDS.
    let offsets: Vec<i64> = std::iter::successors(Some(1), |offset| Some(offset * 2))
        .take_while(|offset| *offset < config.mfma.size)
        .collect();
    epilogue::run(&mut t, names, &mut elements, &rows, &columns, &sizes, (&[], &[]), |t, kind, axis, elements| {
        debug_assert_eq!(axis, crate::gemm::plan::Axis::Rows, "column reductions take the plain strategy (resolve)");
        let lane_rows: Vec<String> = epilogue::partials(t, kind, elements, axis, rows.len())
            .iter()
            .map(|partial| epilogue::butterfly(t, kind, partial, &offsets, 64))
            .collect();
        if config.waves.1 == 1 {
            return lane_rows;
        }
        epilogue::exchange_rows(t, kind, &lane_rows, &rows, &wave_n, config.waves.1, "%lds_rows", &config.lds_rows_type())
    });
    // An N-D result: its leading offsets, checked once against their dimensions.
    let c_lead: Vec<String> = (0..c_rank - 2).map(|result| format!("{origin}#{result}")).collect();
    let mut c_lead_in: Option<String> = None;
    for (index, dim) in c_lead.iter().zip(&c_leading) {
        let fits = t.let_("in", format!("arith.cmpi ult, {index}, {dim} : index"));
        c_lead_in = Some(match c_lead_in {
            Some(previous) => t.let_("in", format!("arith.andi {previous}, {fits} : i1")),
            None => fits,
        });
    }
    epilogue::store_guarded(
        &mut t,
        &elements,
        &rows,
        &columns,
        epilogue::Placement { origin: &origin, leading: &c_lead, leading_inside: c_lead_in.as_deref() },
        (&c_dims.0, &c_dims.1),
        output,
        ("%C", c_type),
    );
    t.line("gpu.return");

    let mut module = String::new();
    let _ = writeln!(module, "module attributes {{gpu.container_module}} {{");
    let _ = writeln!(module, "  gpu.module @{} {{", names.module);
    module.push_str(helpers);
    let params: String = (0..interface.params)
        .map(|index| format!(", %param{index}: index"))
        .collect();
    let _ = writeln!(
        module,
        "    gpu.func @{}(%A: {a_type}, %B: {b_type}, %C: {c_type}{params}) workgroup(%lds_a: {lds_a}, %lds_b: {lds_b}{}) kernel attributes {{known_block_size = array<i32: {}, 1, 1>}} {{",
        names.kernel,
        if config.row_exchange { format!(", %lds_rows: {}", config.lds_rows_type()) } else { String::new() },
        config.threads
    );
    module.push_str(&t.out);
    let _ = writeln!(module, "    }}\n  }}\n}}");
    module
}
