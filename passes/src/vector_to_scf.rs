//! `tile-vector-to-scf`: upstream's `convert-vector-to-scf` (default options) where it has work.
//!
//! Upstream's pass runs its pattern sets with the greedy driver over the whole module, folding
//! every op it visits, also when the module holds no vector transfer: 6% of the compilation of an
//! sm_90a GEMM kernel, whose lowering emits `vector.load`s and `vector.store`s only. This pass
//! applies the same patterns, in the same order, when the op holds a `vector.transfer_read`,
//! `vector.transfer_write` or `vector.print` (another frontend's `gpu.launch` body may), and leaves
//! the IR untouched otherwise (`dialect/shim/TileVectorToScf.cpp`). The PTX of the 108 example,
//! test and benchmark programs is the same as with upstream's pass.

/// The pass's flag.
pub const ARGUMENT: &str = "tile-vector-to-scf";

crate::rust_pass! {
    /// Creates `tile-vector-to-scf` (on any op; the NVIDIA and AMD backends run it on each unit).
    pub fn create_vector_to_scf_pass() {
        argument: ARGUMENT,
        name: "TileVectorToScf",
        description: "convert-vector-to-scf (default options) on ops that hold a vector transfer or vector.print; nothing, not even folding, on the others",
        anchor: "",
        dialects: tile_dialect::registration::vector_to_scf_dialects(),
        run: |op| {
            tile_dialect::driver::vector_transfers_to_scf(op);
            Ok(())
        },
    }
}
