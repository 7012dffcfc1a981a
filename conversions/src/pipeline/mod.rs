//! Software pipelining as tile-level passes with visible IR.
//!
//! | flag | module | does |
//! |------|--------|------|
//! | `tile-plan-pipelines` | [`plan`] (with [`ahead`]) | records each loop's schedule for the module's `tile.target`, and marks the copies issued ahead (`tile.ahead`) |
//! | `tile-expand-pipelines` | [`expand`] | writes a planned loop out as rings of shared tiles, barriers, `tile.copy_async`, `tile.arrive` and `tile.wait` with their slot and phase arithmetic |
//!
//! [`producer`] lowers a `tile.producer` on TMA targets (a warpgroup of its own beside the kernel's threads);
//! [`groups`] lowers rings awaited by cp.async commit groups (`Target::cp_async_rings`).
//! [`rings`] lowers rings and, where nothing runs asynchronously, the asynchronous-copy ops; each GPU
//! lowering lowers the rest ([`mbarriers`] where rings are awaited on them).

pub mod ahead;
pub mod expand;
pub mod groups;
pub mod mbarriers;
pub mod persistent;
pub mod plan;
pub mod producer;
pub mod rings;
pub mod split_k;

/// The unit attribute that marks a copy `tile-expand-pipelines` issues ahead.
pub const AHEAD_ATTRIBUTE: &str = tile_dialect::decisions::AHEAD.name;
/// The deepest ring a loop may get (the barriers a `tile.alloc_barriers` may hold).
pub const MAX_DEPTH: i64 = tile_dialect::MAX_BARRIERS;
/// The unit attribute on the `scf.for` of a loop expanded with `release = "previous"`: its gemm
/// may still run when the next iteration starts (the register rules' wgmma waits carry its group
/// across the back edge and wait for it after the loop).
pub const CARRIES_GEMM_ATTRIBUTE: &str = tile_dialect::decisions::CARRIES_GEMM.name;
/// The unit attribute on the `tile.arrive` that releases the slot the previous iteration read.
pub const RELEASES_PREVIOUS_ATTRIBUTE: &str = tile_dialect::decisions::RELEASES_PREVIOUS.name;
/// The expansion pass's flag.
pub const EXPAND_ARGUMENT: &str = "tile-expand-pipelines";

tile_passes::rust_pass! {
    /// Creates the `tile-expand-pipelines` pass (on `builtin.module`).
    pub fn create_expand_pipelines_pass() {
        argument: EXPAND_ARGUMENT,
        name: "TileExpandPipelines",
        description: "Write each planned tile.pipelined loop out as rings of shared tiles, barriers and asynchronous copies (tile.copy_async, tile.arrive, tile.wait)",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = crate::target::Target::of(module).ok();
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| expand::expand_kernel(context, kernel, target))
        },
    }
}
