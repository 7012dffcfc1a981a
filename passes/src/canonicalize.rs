//! `tile-canonicalize`: the tile ops' canonicalization patterns (see
//! `tile_dialect::canonicalize`) plus folding, without the rest of upstream `-canonicalize`.

/// The pass's flag.
pub const ARGUMENT: &str = "tile-canonicalize";

crate::rust_pass! {
    /// Creates the `tile-canonicalize` pass (any op; usually the module).
    pub fn create_canonicalize_pass() {
        argument: ARGUMENT,
        name: "TileCanonicalize",
        description: "Apply the tile ops' canonicalization patterns (dead fills, zero-trip loops) and fold",
        anchor: "",
        dialects: [tile_dialect::dialect_handle()],
        run: |op| tile_dialect::canonicalize::apply(op).map_err(|error| error.to_string()),
    }
}
