//! Compiles a tile program for a target with `tile-compiler` and lists its kernels: what a frontend
//! embedding tile does. `tile-embed-example PROGRAM.mlir TARGET` (sm_90a, sm_80, gfx942, spirv,
//! spirv-coopmat); exit status 1 with the located diagnostics when the program does not compile.

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let [_, path, target] = &arguments[..] else {
        eprintln!("usage: tile-embed-example PROGRAM.mlir TARGET");
        std::process::exit(2);
    };
    let compilation = match tile_compiler::compile_file(std::path::Path::new(path), target) {
        Ok(compilation) => compilation,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    for warning in &compilation.diagnostics {
        eprintln!("{warning}");
    }
    for kernel in &compilation.kernels {
        let manifest: &tile_manifest::Manifest = &kernel.manifest;
        println!(
            "{}: {} bytes of .{} for {target}, grid {}, {} bindings",
            kernel.name,
            kernel.code.bytes().len(),
            kernel.code.extension(),
            grid(manifest),
            manifest.bindings.as_ref().map_or(0, Vec::len)
        );
    }
}

/// The manifest's grid: its numbers, or `?` where the host computes a size from the arguments.
fn grid(manifest: &tile_manifest::Manifest) -> String {
    let sizes: Vec<String> = manifest
        .grid
        .iter()
        .map(|size| match size {
            tile_manifest::Expr::Const(blocks) => blocks.to_string(),
            _ => "?".to_owned(),
        })
        .collect();
    sizes.join(" x ")
}
