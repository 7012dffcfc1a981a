//! Where the thread's accumulator elements go in the result's staging tile: boxes of one swizzle
//! span a row, with TMA's swizzle, so that the accumulator's 8-row stores hit 8 bank groups.

use super::config::{HopperConfig, output_element_bytes};
use crate::gemm::text::Text;

/// The staging box that column `column` (an index into the epilogue's `columns`: 8-column block
/// `column / 2`) lies in.
pub(super) fn box_of(config: &HopperConfig, column: usize) -> i64 {
    (column as i64 / 2) * 8 / config.c.box_cols
}

/// Returns a function from (row, column) of the thread's accumulator elements (indices into `rows`
/// and `columns`) to the element's index within its staging box (see [`box_of`]), laid out as
/// [`StagingLayout`](super::config::StagingLayout) says: each row's 16-byte chunks permuted by
/// TMA's swizzle (byte bits 4.. XOR bits 7.. within the box).
pub(super) fn stage_addresses<'r>(
    t: &mut Text,
    config: &'r HopperConfig,
    rows: &'r [String],
    columns: &'r [String],
    col_base: &str,
) -> impl Fn(&mut Text, usize, usize) -> String + 'r {
    let layout = config.c;
    let bytes = output_element_bytes(config.output);
    // The XOR term depends on the row only: ((row * span) >> 7) mod (span / 16), in 16-byte units.
    let row_terms: Vec<(String, Option<String>)> = rows
        .iter()
        .map(|row| {
            let cols = t.index(layout.box_cols);
            let start = t.let_("srow", format!("arith.muli {row}, {cols} : index"));
            if layout.swizzle == 0 {
                return (start, None);
            }
            let span = t.index(layout.swizzle);
            let line = t.let_("sline", format!("arith.muli {row}, {span} : index"));
            let c128 = t.index(128);
            let period = t.let_("sline", format!("arith.divui {line}, {c128} : index"));
            let chunks = t.index(layout.swizzle / 16);
            let phase = t.let_("sphase", format!("arith.remui {period}, {chunks} : index"));
            let c16 = t.index(16);
            let xor = t.let_("sxor", format!("arith.muli {phase}, {c16} : index"));
            (start, Some(xor))
        })
        .collect();
    let col_base = col_base.to_owned();
    move |t: &mut Text, row: usize, column: usize| {
        let (start, xor) = &row_terms[row];
        let Some(xor) = xor else {
            return t.let_("saddr", format!("arith.addi {start}, {} : index", columns[column]));
        };
        // Columns are col_base + a constant below 8 * (block + 1): the box is a constant.
        let box_index = box_of(config, column);
        let shift = t.index((column as i64 / 2) * 8 + column as i64 % 2 - box_index * layout.box_cols);
        let within = t.let_("scol", format!("arith.addi {col_base}, {shift} : index"));
        let width = t.index(bytes);
        let byte = t.let_("sbyte", format!("arith.muli {within}, {width} : index"));
        let swizzled = t.let_("sbyte", format!("arith.xori {byte}, {xor} : index"));
        let element = t.let_("scol", format!("arith.divui {swizzled}, {width} : index"));
        t.let_("saddr", format!("arith.addi {start}, {element} : index"))
    }
}
