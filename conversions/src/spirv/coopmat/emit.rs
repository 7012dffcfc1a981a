//! Renders the cooperative-matrix kernel of one GEMM plan in upstream `gpu` ops
//! (`gpu.subgroup_mma_*`, which `convert-gpu-to-spirv` turns into `spirv.KHR.CooperativeMatrix*`).
//!
//! ```text
//! prefetch:  every invocation loads its slice of A and B for step 0 into registers (rows of 4, 2
//!            or 1 elements; whole vectors through a vector view of the tensor, elements past a
//!            tensor's end as zeros)
//! loop it:   barrier; registers -> workgroup memory; barrier; load step it+1 into registers (in
//!            flight during the MMAs); per 16-deep K slice: load the subgroup's A and B matrices,
//!            multiply-accumulate into its 16x16 f32 accumulators
//! epilogue:  per accumulator: store it to the subgroup's staging matrix, each lane takes 8 of its 256
//!            elements; then the epilogue (row reductions: lane butterflies, and partial rows
//!            exchanged between subgroups in workgroup memory); converted, guarded stores
//! ```
//!
//! Subgroup `s` of the workgroup is invocations `32 s .. 32 s + 31` (the configuration requires
//! 32-wide subgroups, which the launcher checks).

use super::config::{CoopConfig, MATRIX, SUBGROUP};
use crate::gemm::{
    epilogue::{self, Element},
    install::KernelNames,
    plan::Scalar,
    text::Text,
};
use std::fmt::Write;

/// The kernel's interface: the global tensors' types and the loop.
pub struct Interface {
    /// Types of A, B and the result, as written in the host function (static shapes).
    pub globals: [String; 3],
    /// The (rows, row length) of A, B and the result.
    pub shapes: [(i64, i64); 3],
    /// Block indices the program uses.
    pub block_dims: usize,
    /// Lower bound, step and constant upper bound of the main loop.
    pub main_loop: (i64, i64, i64),
    /// The `gpu.module`'s attributes (the target environment), as written after its name.
    pub module_attributes: &'static str,
}

const WORKGROUP: &str = "#spirv.storage_class<Workgroup>";
const ACCUMULATOR: &str = "!gpu.mma_matrix<16x16xf32, \"COp\">";

/// One operand's global-to-workgroup copy: which tensor, its vector view, its shape and tile.
struct Operand<'s> {
    tensor: &'s str,
    vectors: &'s str,
    ty: &'s str,
    vector_ty: String,
    shape: (i64, i64),
    tile_row: i64,
    width: i64,
    loads: i64,
    workgroup: &'s str,
    workgroup_ty: String,
}

/// Renders the `gpu.module` holding the kernel (and `helpers`, the outlined functions).
pub fn render_module(config: &CoopConfig, names: &KernelNames, interface: &Interface, helpers: &str) -> String {
    let mut t = Text::new();
    let [a_type, b_type, c_type] = &interface.globals;
    let (b_rows, b_cols) = config.b_tile();
    let (a_loads, b_loads) = config.loads_per_thread();
    let (a_row, b_row) = config.workgroup_rows();
    let vector_view = |shape: (i64, i64), width: i64| {
        format!("memref<{}x{}xvector<{width}xf16>>", shape.0, shape.1 / width)
    };
    let a = Operand {
        tensor: "%A",
        vectors: "%Av",
        ty: a_type,
        vector_ty: vector_view(interface.shapes[0], config.widths.0),
        shape: interface.shapes[0],
        tile_row: config.bk,
        width: config.widths.0,
        loads: a_loads,
        workgroup: "%lds_a",
        workgroup_ty: format!("memref<{}x{a_row}xf16, {WORKGROUP}>", config.bm),
    };
    let b = Operand {
        tensor: "%B",
        vectors: "%Bv",
        ty: b_type,
        vector_ty: vector_view(interface.shapes[1], config.widths.1),
        shape: interface.shapes[1],
        tile_row: b_cols,
        width: config.widths.1,
        loads: b_loads,
        workgroup: "%lds_b",
        workgroup_ty: format!("memref<{b_rows}x{b_row}xf16, {WORKGROUP}>"),
    };
    let staging_ty = format!(
        "memref<{}x{}xf32, {WORKGROUP}>",
        config.subgroups.0 * config.subgroups.1,
        MATRIX * MATRIX
    );
    for operand in [&a, &b] {
        t.line(format!("{} = memref.alloc() : {}", operand.workgroup, operand.workgroup_ty));
    }
    t.line(format!("%staging = memref.alloc() : {staging_ty}"));
    if config.row_exchange {
        t.line(format!("%exchange = memref.alloc() : {}", config.exchange_type()));
    }

    let c0 = t.index(0);
    let c1 = t.index(1);
    let tid = t.let_("tid", "gpu.thread_id x");
    let blocks: Vec<String> = ["x", "y", "z"][..interface.block_dims]
        .iter()
        .map(|dim| t.let_("bid", format!("gpu.block_id {dim}")))
        .collect();
    let pad = t.let_("pad", "arith.constant 0.0 : f16");
    let subgroup_size = t.index(SUBGROUP);
    let subgroup = t.binary("divui", &tid, &subgroup_size);
    let lane = t.binary("remui", &tid, &subgroup_size);
    let along_n = t.index(config.subgroups.1);
    let subgroup_m = t.binary("divui", &subgroup, &along_n);
    let subgroup_n = t.binary("remui", &subgroup, &along_n);
    let tile_rows = t.index(config.subgroup_tile.0);
    let tile_cols = t.index(config.subgroup_tile.1);
    let row0 = t.binary("muli", &subgroup_m, &tile_rows);
    let col0 = t.binary("muli", &subgroup_n, &tile_cols);
    let (lower, step, upper) = interface.main_loop;
    let (trips, _) = t.trip_count((lower, step, Scalar::Const(upper)), &[], &c0);

    // The position in the tile of this invocation's load `slot`: (row, first column).
    let position = |t: &mut Text, slot: i64, operand: &Operand| -> (String, String) {
        let offset = t.index(slot * config.threads);
        let index = t.binary("addi", &tid, &offset);
        let per_row = t.index(operand.tile_row / operand.width);
        let row = t.binary("divui", &index, &per_row);
        let column_load = t.binary("remui", &index, &per_row);
        let width = t.index(operand.width);
        let column = t.binary("muli", &column_load, &width);
        (row, column)
    };

    // Global -> registers for main-loop iteration `iteration`: the elements, A's then B's.
    let load = |t: &mut Text, iteration: &str| -> Vec<String> {
        let origin = names.call_load_origin(t, iteration, (lower, step), &blocks, &[]);
        // One uniform branch: the whole step inside both tensors (every tile but the last row and
        // column of blocks) loads without per-element checks, so the loads issue back to back.
        let inside: Vec<String> = [(&a, 0, config.bm, config.bk), (&b, 2, b_rows, b_cols)]
            .into_iter()
            .map(|(operand, origin_index, rows, columns)| {
                tile_inside(&mut *t, operand, &format!("{origin}#{origin_index}"), &format!("{origin}#{}", origin_index + 1), (rows, columns))
            })
            .collect();
        let whole = t.let_("in", format!("arith.andi {}, {} : i1", inside[0], inside[1]));
        let count = (a.loads * a.width + b.loads * b.width) as usize;
        let types = vec!["f16"; count].join(", ");
        let elements = t.fresh("x");
        t.line(format!("{elements}:{count} = scf.if {whole} -> ({types}) {{"));
        for fast in [true, false] {
            let mut values = Vec::new();
            for (operand, origin_index) in [(&a, 0), (&b, 2)] {
                for slot in 0..operand.loads {
                    let (row, column) = position(t, slot, operand);
                    let r = t.binary("addi", &format!("{origin}#{origin_index}"), &row);
                    let c = t.binary("addi", &format!("{origin}#{}", origin_index + 1), &column);
                    values.extend(if fast { load_whole(t, operand, &r, &c) } else { load_guarded(t, operand, &r, &c, &pad) });
                }
            }
            t.line(format!("scf.yield {} : {types}", values.join(", ")));
            if fast {
                t.line("} else {");
            }
        }
        t.line("}");
        (0..count).map(|index| format!("{elements}#{index}")).collect::<Vec<_>>()
    };

    // Registers -> workgroup memory, in the global layout of each tile.
    let store = |t: &mut Text, elements: &[String]| {
        let mut next = elements.iter();
        for operand in [&a, &b] {
            for slot in 0..operand.loads {
                let (row, column) = position(t, slot, operand);
                for element in 0..operand.width {
                    let shift = t.index(element);
                    let c = t.binary("addi", &column, &shift);
                    let value = next.next().expect("one element per store");
                    t.line(format!(
                        "memref.store {value}, {}[{row}, {c}] : {}",
                        operand.workgroup, operand.workgroup_ty
                    ));
                }
            }
        }
    };

    let prefetch = load(&mut t, &c0);
    let (matrices_m, matrices_n) = config.matrices();
    let accumulators = (matrices_m * matrices_n) as usize;
    let f0 = t.let_("f", "arith.constant 0.0 : f32");
    let zero = t.let_("zero", format!("gpu.subgroup_mma_constant_matrix {f0} : {ACCUMULATOR}"));
    let results = t.fresh("res");
    let iterator = t.fresh("it");
    let carried_acc: Vec<String> = (0..accumulators).map(|_| t.fresh("acc")).collect();
    let carried: Vec<String> = (0..prefetch.len()).map(|_| t.fresh("pre")).collect();
    let mut inits: Vec<String> = carried_acc.iter().map(|name| format!("{name} = {zero}")).collect();
    inits.extend(carried.iter().zip(&prefetch).map(|(name, value)| format!("{name} = {value}")));
    let mut types = vec![ACCUMULATOR; accumulators];
    types.extend(vec!["f16"; prefetch.len()]);
    t.line(format!(
        "{results}:{} = scf.for {iterator} = {c0} to {trips} step {c1} iter_args({}) -> ({}) {{",
        types.len(),
        inits.join(", "),
        types.join(", ")
    ));
    t.line("gpu.barrier");
    store(&mut t, &carried);
    t.line("gpu.barrier");
    let next = t.binary("addi", &iterator, &c1);
    let has_next = t.let_("more", format!("arith.cmpi ult, {next}, {trips} : index"));
    let fetched = t.fresh("next");
    let element_types = vec!["f16"; prefetch.len()].join(", ");
    t.line(format!("{fetched}:{} = scf.if {has_next} -> ({element_types}) {{", prefetch.len()));
    let loaded = load(&mut t, &next);
    t.line(format!("scf.yield {} : {element_types}", loaded.join(", ")));
    t.line("} else {");
    t.line(format!("scf.yield {} : {element_types}", carried.join(", ")));
    t.line("}");
    let mut updated = carried_acc.clone();
    for slice in 0..config.bk / MATRIX {
        let k = t.index(slice * MATRIX);
        let a_matrices: Vec<String> = (0..matrices_m)
            .map(|tm| {
                let shift = t.index(tm * MATRIX);
                let row = t.binary("addi", &row0, &shift);
                t.let_(
                    "a",
                    format!(
                        "gpu.subgroup_mma_load_matrix %lds_a[{row}, {k}] {{leadDimension = {a_row} : index}} : {} -> !gpu.mma_matrix<16x16xf16, \"AOp\">",
                        a.workgroup_ty
                    ),
                )
            })
            .collect();
        let b_matrices: Vec<String> = (0..matrices_n)
            .map(|tn| {
                let shift = t.index(tn * MATRIX);
                let column = t.binary("addi", &col0, &shift);
                // NxK tiles are read column-major: the transpose of what is stored.
                let (indices, transpose) = if config.transpose_b {
                    (format!("{column}, {k}"), ", transpose")
                } else {
                    (format!("{k}, {column}"), "")
                };
                t.let_(
                    "b",
                    format!(
                        "gpu.subgroup_mma_load_matrix %lds_b[{indices}] {{leadDimension = {b_row} : index{transpose}}} : {} -> !gpu.mma_matrix<16x16xf16, \"BOp\">",
                        b.workgroup_ty
                    ),
                )
            })
            .collect();
        for (tm, a_matrix) in a_matrices.iter().enumerate() {
            for (tn, b_matrix) in b_matrices.iter().enumerate() {
                let slot = tm * matrices_n as usize + tn;
                updated[slot] = t.let_(
                    "mma",
                    format!(
                        "gpu.subgroup_mma_compute {a_matrix}, {b_matrix}, {} : !gpu.mma_matrix<16x16xf16, \"AOp\">, !gpu.mma_matrix<16x16xf16, \"BOp\"> -> {ACCUMULATOR}",
                        updated[slot]
                    ),
                );
            }
        }
    }
    let fetched_values: Vec<String> = (0..prefetch.len()).map(|i| format!("{fetched}#{i}")).collect();
    t.line(format!(
        "scf.yield {}, {} : {}",
        updated.join(", "),
        fetched_values.join(", "),
        types.join(", ")
    ));
    t.line("}");

    // Epilogue: through the subgroup's staging matrix, 8 elements a lane, row-major (lanes 0-15
    // take one row of 16, lanes 16-31 the next).
    let origin = names.call_store_origin(&mut t, &blocks, &[]);
    let sixteen = t.index(MATRIX);
    let lane_row = t.binary("divui", &lane, &sixteen);
    let lane_col = t.binary("remui", &lane, &sixteen);
    let c_rows = t.index(interface.shapes[2].0);
    let c_cols = t.index(interface.shapes[2].1);
    let output = config.output.name();
    let rounds = MATRIX * MATRIX / SUBGROUP;
    // Row slot (tm, round) and column slot tn of the subgroup tile, as tile-relative indices.
    let rows: Vec<String> = (0..matrices_m * rounds)
        .map(|slot| {
            let shift = t.index((slot / rounds) * MATRIX + (slot % rounds) * (SUBGROUP / MATRIX));
            let row = t.binary("addi", &row0, &shift);
            t.binary("addi", &row, &lane_row)
        })
        .collect();
    let columns: Vec<String> = (0..matrices_n)
        .map(|tn| {
            let shift = t.index(tn * MATRIX);
            let column = t.binary("addi", &col0, &shift);
            t.binary("addi", &column, &lane_col)
        })
        .collect();
    let mut elements = Vec::new();
    for tm in 0..matrices_m {
        for tn in 0..matrices_n {
            let slot = (tm * matrices_n + tn) as usize;
            t.line(format!(
                "gpu.subgroup_mma_store_matrix {results}#{slot}, %staging[{subgroup}, {c0}] {{leadDimension = {MATRIX} : index}} : {ACCUMULATOR}, {staging_ty}"
            ));
            t.line("gpu.barrier");
            for round in 0..rounds {
                let base = t.index(round * SUBGROUP);
                let element = t.binary("addi", &lane, &base);
                elements.push(Element {
                    value: t.let_("r", format!("memref.load %staging[{subgroup}, {element}] : {staging_ty}")),
                    row: (tm * rounds + round) as usize,
                    column: tn as usize,
                });
            }
            t.line("gpu.barrier");
        }
    }
    // A row of a 16x16 matrix lies in the 16 lanes that share lane / 16; a row of the block tile
    // also spans the subgroups along N, which exchange their partial rows in workgroup memory.
    epilogue::run(&mut t, names, &mut elements, &rows, &columns, &[], (&[], &[]), |t, kind, axis, elements| {
        debug_assert_eq!(axis, crate::gemm::plan::Axis::Rows, "column reductions take the plain strategy (resolve)");
        let lane_rows: Vec<String> = epilogue::partials(t, kind, elements, axis, rows.len())
            .iter()
            .map(|partial| epilogue::butterfly(t, kind, partial, &[1, 2, 4, 8], SUBGROUP))
            .collect();
        if config.subgroups.1 == 1 {
            return lane_rows;
        }
        let exchange = config.exchange_type();
        epilogue::exchange_rows(t, kind, &lane_rows, &rows, &subgroup_n, config.subgroups.1, "%exchange", &exchange)
    });
    epilogue::store_guarded(&mut t, &elements, &rows, &columns, epilogue::Placement::matrix(&origin), (&c_rows, &c_cols), output, ("%C", c_type));
    t.line("gpu.return");

    let binding = |index: usize| format!("{{spirv.interface_var_abi = #spirv.interface_var_abi<(0, {index})>}}");
    let mut arguments = vec![
        format!("%A: {a_type} {}", binding(0)),
        format!("%B: {b_type} {}", binding(1)),
        format!("%C: {c_type} {}", binding(2)),
    ];
    // The vector views alias the binding of their tensor (Vulkan allows several variables per binding).
    for (operand, index) in [(&a, 0), (&b, 1)] {
        if operand.width > 1 {
            arguments.push(format!("{}: {} {}", operand.vectors, operand.vector_ty, binding(index)));
        }
    }
    let mut module = String::new();
    let _ = writeln!(module, "module attributes {{gpu.container_module}} {{");
    let _ = writeln!(module, "  gpu.module @{} {} {{", names.module, interface.module_attributes);
    module.push_str(helpers);
    let _ = writeln!(
        module,
        "    gpu.func @{}({}) kernel attributes {{spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [{}, 1, 1]>}} {{",
        names.kernel,
        arguments.join(", "),
        config.threads
    );
    module.push_str(&t.out);
    let _ = writeln!(module, "    }}\n  }}\n}}");
    module
}

/// `row < rows && column <cmp> columns`, as an `i1`.
fn in_bounds(t: &mut Text, row: &str, rows: &str, column: &str, columns: &str, cmp: &str) -> String {
    let row_in = t.let_("in", format!("arith.cmpi ult, {row}, {rows} : index"));
    let column_in = t.let_("in", format!("arith.cmpi {cmp}, {column}, {columns} : index"));
    t.let_("in", format!("arith.andi {row_in}, {column_in} : i1"))
}

/// Whether the `extent` (rows, columns) tile at (`row`, `column`) lies inside `operand`'s tensor,
/// starting at a whole vector.
fn tile_inside(t: &mut Text, operand: &Operand, row: &str, column: &str, extent: (i64, i64)) -> String {
    let rows = t.index(operand.shape.0 - extent.0 + 1);
    let columns = t.index(operand.shape.1 - extent.1 + 1);
    if extent.0 > operand.shape.0 || extent.1 > operand.shape.1 {
        return t.let_("in", "arith.constant false");
    }
    let inside = in_bounds(t, row, &rows, column, &columns, "ult");
    let width = t.index(operand.width);
    let misaligned = t.binary("remui", column, &width);
    let zero = t.index(0);
    let aligned = t.let_("in", format!("arith.cmpi eq, {misaligned}, {zero} : index"));
    t.let_("in", format!("arith.andi {inside}, {aligned} : i1"))
}

/// Loads `operand.width` elements of row `r` from column `c` on, known to lie inside the tensor:
/// one vector load (one element load when the width is 1).
fn load_whole(t: &mut Text, operand: &Operand, r: &str, c: &str) -> Vec<String> {
    if operand.width == 1 {
        return vec![t.let_("x", format!("memref.load {}[{r}, {c}] : {}", operand.tensor, operand.ty))];
    }
    let width = t.index(operand.width);
    let column = t.binary("divui", c, &width);
    let vector_type = format!("vector<{}xf16>", operand.width);
    let vector = t.let_("v", format!("memref.load {}[{r}, {column}] : {}", operand.vectors, operand.vector_ty));
    (0..operand.width)
        .map(|lane| t.let_("x", format!("vector.extract {vector}[{lane}] : f16 from {vector_type}")))
        .collect()
}

/// Loads `operand.width` elements of row `r` from column `c` on, one at a time, zeros past the
/// tensor's end.
fn load_guarded(t: &mut Text, operand: &Operand, r: &str, c: &str, pad: &str) -> Vec<String> {
    let rows = t.index(operand.shape.0);
    let columns = t.index(operand.shape.1);
    (0..operand.width)
        .map(|lane| {
            let shift = t.index(lane);
            let column = t.binary("addi", c, &shift);
            let inside = in_bounds(t, r, &rows, &column, &columns, "ult");
            let value = t.fresh("x");
            t.line(format!("{value} = scf.if {inside} -> (f16) {{"));
            let loaded = t.let_("x", format!("memref.load {}[{r}, {column}] : {}", operand.tensor, operand.ty));
            t.line(format!("scf.yield {loaded} : f16"));
            t.line("} else {");
            t.line(format!("scf.yield {pad} : f16"));
            t.line("}");
            value
        })
        .collect()
}
