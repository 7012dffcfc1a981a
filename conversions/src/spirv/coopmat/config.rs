//! The cooperative-matrix shape of one GEMM kernel: how 32-wide subgroups split the block tile into
//! 16x16x16 KHR cooperative matrices, how wide the global loads are, and the workgroup-memory plan.
//! Every limit of the target environment is checked here.

use crate::gemm::types::element_of;
use melior::ir::{Value, ValueLike, r#type::MemRefType};
use tile_dialect::{element::Element, ops::memref_shape};

/// Invocations per subgroup: the cooperative-matrix strategy is written for NVIDIA's 32.
pub const SUBGROUP: i64 = 32;
/// Rows, columns and depth of one cooperative matrix (the target environment's one shape).
pub const MATRIX: i64 = 16;
/// Elements of padding after each workgroup-memory row: 16 bytes, so that the rows a cooperative
/// load reads at once fall in different banks and stay 16-byte aligned.
pub const ROW_PADDING: i64 = 8;
/// Workgroup memory a workgroup may use: NVIDIA's Vulkan driver gives 48 KiB.
pub const MAX_SHARED_BYTES: i64 = 49_152;

/// The resolved configuration of one cooperative-matrix GEMM kernel.
#[derive(Debug)]
pub struct CoopConfig {
    /// Block tile rows.
    pub bm: i64,
    /// Block tile columns.
    pub bn: i64,
    /// K depth of one main-loop step.
    pub bk: i64,
    /// Invocations per workgroup.
    pub threads: i64,
    /// Subgroups along M and along N.
    pub subgroups: (i64, i64),
    /// The per-subgroup tile (rows, columns).
    pub subgroup_tile: (i64, i64),
    /// Elements per global load of A and of B (4, 2 or 1: what the tensors' rows allow).
    pub widths: (i64, i64),
    /// Result element type.
    pub output: Element,
    /// B is given as NxK.
    pub transpose_b: bool,
    /// Workgroup memory: the A and B tiles and one 16x16 f32 staging matrix per subgroup (and the
    /// row exchange, with row reductions).
    pub shared_bytes: i64,
    /// Row reductions exchange partial rows between the subgroups along N in workgroup memory.
    pub row_exchange: bool,
}

impl CoopConfig {
    /// The workgroup rows the subgroups along N exchange partial row reductions through.
    pub fn exchange_type(&self) -> String {
        format!("memref<{}x{}xf32, #spirv.storage_class<Workgroup>>", self.subgroups.1, self.bm)
    }

    /// Adds the row exchange a kernel with row reductions needs (when several subgroups share a
    /// row), checking the workgroup-memory limit again.
    pub fn with_row_reductions(mut self) -> Result<Self, String> {
        if self.subgroups.1 > 1 {
            self.row_exchange = true;
            self.shared_bytes += self.subgroups.1 * self.bm * 4;
            if self.shared_bytes > MAX_SHARED_BYTES {
                return Err(format!(
                    "needs {} bytes of workgroup memory with the row exchange of its reductions, but spirv-coopmat gives a workgroup at most {MAX_SHARED_BYTES}; use a smaller K tile",
                    self.shared_bytes
                ));
            }
        }
        Ok(self)
    }

    /// Cooperative matrices per subgroup (along M, along N).
    pub fn matrices(&self) -> (i64, i64) {
        (self.subgroup_tile.0 / MATRIX, self.subgroup_tile.1 / MATRIX)
    }

    /// The B tile as stored: KxN, or NxK with `transpose_b` (the global layout either way).
    pub fn b_tile(&self) -> (i64, i64) {
        if self.transpose_b { (self.bn, self.bk) } else { (self.bk, self.bn) }
    }

    /// Row lengths of the A and B tiles in workgroup memory (padded).
    pub fn workgroup_rows(&self) -> (i64, i64) {
        (self.bk + ROW_PADDING, self.b_tile().1 + ROW_PADDING)
    }

    /// Loads per invocation and step for the A and the B tile.
    pub fn loads_per_thread(&self) -> (i64, i64) {
        (
            self.bm * self.bk / self.widths.0 / self.threads,
            self.bn * self.bk / self.widths.1 / self.threads,
        )
    }
}

/// The widest load (4, 2 or 1 elements) that divides the global rows (`row_length`, the tensor's
/// last size), the tile rows (`tile_row`), and deals `tile_elements` out evenly to `threads`.
fn load_width(row_length: i64, tile_row: i64, tile_elements: i64, threads: i64) -> Option<i64> {
    [4, 2, 1].into_iter().find(|width| {
        row_length % width == 0 && tile_row % width == 0 && (tile_elements / width) % threads == 0
    })
}

/// The static row length of global tensor `value`, or an error naming what SPIR-V needs.
fn static_row_length(value: Value, role: &str) -> Result<i64, String> {
    let memref = MemRefType::try_from(value.r#type()).map_err(|_| format!("expects {role} to be a memref"))?;
    let sizes = tile_dialect::ops::static_sizes(memref);
    if sizes.len() != 2 || sizes.iter().any(Option::is_none) {
        return Err(format!(
            "expects {role} to have a static 2-D shape on spirv-coopmat (storage buffers are bound as sized arrays), but got {}",
            value.r#type()
        ));
    }
    Ok(sizes[1].unwrap_or(1))
}

/// Splits the 32-wide subgroups of a workgroup over an `bm`x`bn` accumulator of 16x16 matrices,
/// keeping the subgroup tiles as square as the tile allows: (subgroups along M, along N).
pub fn subgroup_split(threads: i64, bm: i64, bn: i64) -> Result<(i64, i64), String> {
    let subgroups = threads / SUBGROUP;
    let mut splits: Vec<(i64, i64)> = (1..=subgroups)
        .filter(|sm| subgroups % sm == 0)
        .map(|sm| (sm, subgroups / sm))
        .collect();
    splits.sort_by_key(|(sm, sn)| ((bm / sm) - (bn / sn)).abs());
    splits
        .into_iter()
        .find(|(sm, sn)| bm % (sm * MATRIX) == 0 && bn % (sn * MATRIX) == 0)
        .ok_or_else(|| {
            format!(
                "expects a {bm}x{bn} tile that {subgroups} subgroups can split into 16x16 cooperative matrices on spirv-coopmat; use multiples of {} rows and columns",
                MATRIX * subgroups
            )
        })
}

/// Resolves the configuration; `Err` says which limit breaks and what would fit.
pub fn configure(
    threads: i64,
    a: (Value, Value),
    b_global: Value,
    accumulator: Value,
    output: Value,
    transpose_b: bool,
) -> Result<CoopConfig, String> {
    let (a_global, a_tile) = a;
    if threads % SUBGROUP != 0 || !(SUBGROUP..=1024).contains(&threads) {
        return Err(format!(
            "expects a multiple of {SUBGROUP} invocations (32-wide subgroups) up to 1024 on spirv-coopmat, but got {threads}"
        ));
    }
    match element_of(a_tile) {
        Some(Element::F16) => {}
        Some(other) => {
            return Err(format!(
                "expects f16 inputs for 16x16x16 cooperative matrices on spirv-coopmat, but got {other} (the target environment has f16 x f16 -> f32 only; use f16)"
            ));
        }
        None => return Err("expects a matrix input type".into()),
    }
    if element_of(accumulator) != Some(Element::F32) {
        return Err("expects an f32 accumulator for cooperative matrices on spirv-coopmat".into());
    }
    let output_element = element_of(output).ok_or("expects a result element type")?;
    if !matches!(output_element, Element::F16 | Element::F32) {
        return Err(format!(
            "expects an f16 or f32 result on spirv-coopmat, but got {output_element}"
        ));
    }
    let [bm, bk] = memref_shape(a_tile)[..] else {
        return Err("expects a 2-D A tile".into());
    };
    let [_, bn] = memref_shape(accumulator)[..] else {
        return Err("expects a 2-D accumulator".into());
    };
    let (sm, sn) = subgroup_split(threads, bm, bn)?;
    if bk % MATRIX != 0 {
        return Err(format!(
            "expects the tile's K ({bk}) to be a multiple of {MATRIX} for 16x16x16 cooperative matrices on spirv-coopmat"
        ));
    }
    let a_row = static_row_length(a_global, "A")?;
    let b_row = static_row_length(b_global, "B")?;
    static_row_length(output, "the result")?;
    let b_tile_row = if transpose_b { bk } else { bn };
    let widths = match (
        load_width(a_row, bk, bm * bk, threads),
        load_width(b_row, b_tile_row, bk * bn, threads),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            return Err(format!(
                "expects the A ({bm}x{bk}) and B tiles to deal out evenly to {threads} invocations on spirv-coopmat; use a tile with a multiple of {threads} elements"
            ));
        }
    };
    let staging = sm * sn * MATRIX * MATRIX * 4;
    let b_rows = if transpose_b { bn } else { bk };
    let shared_bytes = (bm * (bk + ROW_PADDING) + b_rows * (b_tile_row + ROW_PADDING)) * 2 + staging;
    if shared_bytes > MAX_SHARED_BYTES {
        return Err(format!(
            "needs {shared_bytes} bytes of workgroup memory ({bm}x{bk} A and {bk}x{bn} B tiles with rows padded by {ROW_PADDING}, {staging} bytes of staging for the epilogue), but spirv-coopmat (NVIDIA's Vulkan driver) gives a workgroup at most {MAX_SHARED_BYTES}; use a smaller K tile"
        ));
    }
    Ok(CoopConfig {
        bm,
        bn,
        bk,
        threads,
        subgroups: (sm, sn),
        subgroup_tile: (bm / sm, bn / sn),
        widths,
        output: output_element,
        transpose_b,
        shared_bytes,
        row_exchange: false,
    })
}
