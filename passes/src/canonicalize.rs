//! `tile-canonicalize`: the tile ops' canonicalization patterns (see
//! `tile_dialect::canonicalize`) plus folding, without the rest of upstream `-canonicalize`.

use crate::guard::run_guarded;
use melior::{
    ContextRef,
    ir::{operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-canonicalize";

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct Canonicalize;

impl<'c> RunExternalPass<'c> for Canonicalize {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        run_guarded(ARGUMENT, op, pass, |op| {
            tile_dialect::canonicalize::apply(op).map_err(|error| error.to_string())
        });
    }
}

/// Creates the `tile-canonicalize` pass (any op; usually the module).
pub fn create_canonicalize_pass() -> Pass {
    create_external(
        Canonicalize,
        TypeId::create(&PASS_ID),
        "TileCanonicalize",
        ARGUMENT,
        "Apply the tile ops' canonicalization patterns (dead fills, zero-trip loops) and fold",
        "",
        &[tile_dialect::dialect_handle()],
    )
}
