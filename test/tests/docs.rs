//! The op reference in docs/ is generated from the ODS; this test fails when it is stale.
//! Regenerate with `TILE_BLESS_DOCS=1 cargo test -p tile-tests --test docs`.

mod common;

#[test]
fn op_reference_is_current() {
    let path = common::repo_root().join("docs/TileDialect.md");
    let generated = tile_dialect::GENERATED_OP_REFERENCE;
    if std::env::var_os("TILE_BLESS_DOCS").is_some() {
        std::fs::write(&path, generated).expect("write docs/TileDialect.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/TileDialect.md is stale: regenerate it with `TILE_BLESS_DOCS=1 cargo test -p tile-tests --test docs`"
    );
}
