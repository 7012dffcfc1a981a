//! The cooperative-matrix facts the rules ([`super::rules`]) and the layout
//! inference share: the subgroup width and matrix shape of the target environment, the row padding
//! of operand tiles in workgroup memory, the workgroup-memory limit, and how subgroups split a tile.

/// Invocations per subgroup: the cooperative-matrix strategy is written for NVIDIA's 32.
pub const SUBGROUP: i64 = 32;
/// Rows, columns and depth of one cooperative matrix (the target environment's one shape).
pub const MATRIX: i64 = 16;
/// Elements of padding after each workgroup-memory row: 16 bytes, so that the rows a cooperative
/// load reads at once fall in different banks and stay 16-byte aligned.
pub const ROW_PADDING: i64 = 8;
/// Workgroup memory a workgroup may use: NVIDIA's Vulkan driver gives 48 KiB.
pub const MAX_SHARED_BYTES: i64 = 49_152;

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
