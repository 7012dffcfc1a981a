//! Points the `tile` dialect's generation (`src/lib.rs`) at the dialect's own ODS files: the proc macro
//! reads the include directory from an environment variable, which this sets for the crate's build.

use std::path::Path;

fn main() {
    let td = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dialect/td");
    let td = td.canonicalize().expect("dialect/td next to ir/");
    println!("cargo:rerun-if-changed={}", td.display());
    println!("cargo:rustc-env=TILE_TD_DIR={}", td.display());
}
