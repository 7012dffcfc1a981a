//! `tile-opt`: MLIR's `mlir-opt` driver (every upstream dialect, pass and flag) plus the tile dialect
//! and the tile passes.

fn main() {
    tile_conversions::register_all();
    std::process::exit(tile_dialect::driver::opt_main(std::env::args()));
}
