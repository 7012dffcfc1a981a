//! The register epilogue the tensor-core renderers share: each thread's accumulator elements, with
//! their rows and columns in the block tile, go through the program's epilogue segments; between
//! two segments, a row or column reduction that the target completes across lanes (and waves) its
//! own way.

use super::{install::KernelNames, plan::Axis, text::Text};
use crate::cpu::compute::combiner;
use tile_dialect::ops::ReductionKind;

/// One accumulator element a thread holds: its SSA value, its row slot and its column slot (indices
/// into the row and column index values the renderer computed).
pub struct Element {
    /// The current value.
    pub value: String,
    /// Which of the thread's rows it is in.
    pub row: usize,
    /// Which of the thread's columns it is in.
    pub column: usize,
}

impl Element {
    /// The element's slot along `axis`: its row slot for row values, its column slot for columns.
    pub fn slot(&self, axis: Axis) -> usize {
        match axis {
            Axis::Rows => self.row,
            Axis::Columns => self.column,
        }
    }
}

/// Combines the elements of each of the thread's `slots` slots along `axis` (rows or columns)
/// within the thread: one partial value per slot.
pub fn partials(t: &mut Text, kind: ReductionKind, elements: &[Element], axis: Axis, slots: usize) -> Vec<String> {
    let (combine, absolute) = combiner(kind);
    (0..slots)
        .map(|slot| {
            let mut partial: Option<String> = None;
            for element in elements.iter().filter(|element| element.slot(axis) == slot) {
                let input = if absolute {
                    t.let_("a", format!("math.absf {} : f32", element.value))
                } else {
                    element.value.clone()
                };
                partial = Some(match partial {
                    None => input,
                    Some(partial) => t.let_("r", format!("{combine} {partial}, {input} : f32")),
                });
            }
            partial.expect("every slot holds elements")
        })
        .collect()
}

/// Combines `value` with the same value in the lanes `lane ^ offset` for each offset in turn
/// (`gpu.shuffle xor` over `width` lanes): a butterfly over the lanes that share a row.
pub fn butterfly(t: &mut Text, kind: ReductionKind, value: &str, offsets: &[i64], width: i64) -> String {
    let (combine, _) = combiner(kind);
    let width = t.let_("w", format!("arith.constant {width} : i32"));
    let mut value = value.to_owned();
    for offset in offsets {
        let offset = t.let_("o", format!("arith.constant {offset} : i32"));
        let other = t.fresh("sh");
        t.line(format!("{other}:2 = gpu.shuffle xor {value}, {offset}, {width} : f32"));
        value = t.let_("r", format!("{combine} {value}, {other}#0 : f32"));
    }
    value
}

/// Runs the epilogue on `elements`: the single epilogue function, or the segments with the
/// reductions between them (`reduce` turns the elements into one value per row or column slot,
/// complete across the block). `rows` and `columns` are the index values of the slots; `sizes` the kernel's
/// size parameters, as indices; `reads` the block indices and the other tensors the epilogue reads
/// (see [`KernelNames::epilogue_tensors`]; ignored when it reads none).
#[allow(clippy::too_many_arguments)]
pub fn run(
    t: &mut Text,
    names: &KernelNames,
    elements: &mut [Element],
    rows: &[String],
    columns: &[String],
    sizes: &[String],
    reads: (&[String], &[String]),
    mut reduce: impl FnMut(&mut Text, ReductionKind, Axis, &[Element]) -> Vec<String>,
) {
    let segments: Vec<&str> = if names.segments.is_empty() {
        names.epilogue.into_iter().collect()
    } else {
        names.segments.iter().map(String::as_str).collect()
    };
    let mut size_args: String = sizes.iter().map(|size| format!(", {size}")).collect();
    let mut size_types = ", index".repeat(sizes.len());
    if !names.epilogue_tensors.is_empty() {
        let (blocks, tensors) = reads;
        assert_eq!(tensors.len(), names.epilogue_tensors.len(), "one kernel argument per tensor the epilogue reads");
        size_args.extend(blocks.iter().chain(tensors).map(|value| format!(", {value}")));
        size_types.push_str(&", index".repeat(blocks.len()));
        size_types.extend(names.epilogue_tensors.iter().map(|ty| format!(", {ty}")));
    }
    // Segment s sees the values reduced before it: `reduced[r][slot]`, by row or column slot.
    let mut reduced: Vec<(Axis, Vec<String>)> = Vec::new();
    for (segment, function) in segments.iter().enumerate() {
        if segment > 0 {
            let (kind, axis) = names.reductions[segment - 1];
            reduced.push((axis, reduce(t, kind, axis, elements)));
        }
        let reduced_types = ", f32".repeat(reduced.len());
        for element in elements.iter_mut() {
            let row_values: String = reduced.iter().map(|(axis, values)| format!(", {}", values[element.slot(*axis)])).collect();
            element.value = t.let_(
                "v",
                format!(
                    "func.call @{function}({}, {}, {}{row_values}{size_args}) : (f32, index, index{reduced_types}{size_types}) -> f32",
                    element.value, rows[element.row], columns[element.column]
                ),
            );
        }
    }
}

/// Completes rows split across groups of lanes (waves along N, subgroups along N): each group
/// writes its rows (`partial[slot]` at tile row `rows[slot]`) to `exchange[group][row]` in
/// workgroup memory (`exchange_type`, `groups` deep), and after a barrier every thread combines the
/// groups' values. A second barrier lets the next reduction reuse the rows.
#[allow(clippy::too_many_arguments)]
pub fn exchange_rows(
    t: &mut Text,
    kind: ReductionKind,
    partial: &[String],
    rows: &[String],
    group: &str,
    groups: i64,
    exchange: &str,
    exchange_type: &str,
) -> Vec<String> {
    for (value, row) in partial.iter().zip(rows) {
        t.line(format!("memref.store {value}, {exchange}[{group}, {row}] : {exchange_type}"));
    }
    t.line("gpu.barrier");
    let (combine, _) = combiner(kind);
    let complete = rows
        .iter()
        .map(|row| {
            let mut value: Option<String> = None;
            for other in 0..groups {
                let other = t.index(other);
                let part = t.let_("r", format!("memref.load {exchange}[{other}, {row}] : {exchange_type}"));
                value = Some(match value {
                    None => part,
                    Some(value) => t.let_("r", format!("{combine} {value}, {part} : f32")),
                });
            }
            value.expect("at least one group")
        })
        .collect();
    t.line("gpu.barrier");
    complete
}
