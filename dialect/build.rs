//! Builds the C++ side of the dialect and the C-API library that shared linking needs.
//!
//! 1. `mlir-tblgen` turns `td/*.td` into op/attribute/enum/dialect classes and the op reference doc,
//!    all written into `OUT_DIR` (generated files are never committed).
//! 2. The thin shim (`shim/*.cpp`) is compiled with LLVM 22's clang++ into `libtile_shim.a`.
//! 3. `libMLIR-C.so` is linked from Debian's `libMLIRCAPI*.a` archives against `libMLIR.so`, so that
//!    every process holds exactly one MLIR, and copied next to the binaries (`target/<profile>/`),
//!    where the rpath set in `.cargo/config.toml` finds it.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

const LLVM_PREFIX: &str = "/usr/lib/llvm-22";

/// (generator, output file) pairs run over `td/TileOps.td`, which includes every other `.td`.
const TABLEGEN_OUTPUTS: &[(&str, &str)] = &[
    ("-gen-dialect-decls", "TileDialect.h.inc"),
    ("-gen-dialect-defs", "TileDialect.cpp.inc"),
    ("-gen-enum-decls", "TileEnums.h.inc"),
    ("-gen-enum-defs", "TileEnums.cpp.inc"),
    ("-gen-attrdef-decls", "TileAttrs.h.inc"),
    ("-gen-attrdef-defs", "TileAttrs.cpp.inc"),
    ("-gen-op-decls", "TileOps.h.inc"),
    ("-gen-op-defs", "TileOps.cpp.inc"),
    ("-gen-dialect-doc", "TileDialect.md"),
];

fn main() {
    let prefix = PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or(LLVM_PREFIX.into()));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in ["td", "shim"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");

    run_tablegen(&prefix, &out);
    compile_shim(&prefix, &out);
    let capi = link_capi_library(&prefix, &out);
    place_next_to_binaries(&capi, &out);

    println!("cargo:rustc-link-search=native={}", out.display());
    println!(
        "cargo:rustc-link-search=native={}",
        prefix.join("lib").display()
    );
}

fn run_tablegen(prefix: &Path, out: &Path) {
    let include = prefix.join("include");
    for (generator, file) in TABLEGEN_OUTPUTS {
        let status = Command::new(prefix.join("bin/mlir-tblgen"))
            .arg(generator)
            .arg("--dialect=tile")
            .arg(format!("-I{}", include.display()))
            .arg("-Itd")
            .arg("td/TileOps.td")
            .arg("-o")
            .arg(out.join(file))
            .status()
            .expect("mlir-tblgen runs (install mlir-22-tools)");
        assert!(status.success(), "mlir-tblgen {generator} failed");
    }
}

fn compile_shim(prefix: &Path, out: &Path) {
    let clang = prefix.join("bin/clang++");
    cc::Build::new()
        .cpp(true)
        .compiler(&clang)
        .std("c++17")
        .include(out)
        .include("shim")
        .include(prefix.join("include"))
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .flag("-fno-exceptions")
        .flag("-Wno-unused-parameter")
        .flag("-fPIC")
        .files([
            "shim/TileDialect.cpp",
            "shim/TileCAPI.cpp",
            "shim/TileOptMain.cpp",
            "shim/TileMath.cpp",
        ])
        .compile("tile_shim");
}

/// Links `libMLIR-C.so` once per `OUT_DIR`: about two seconds, then reused.
fn link_capi_library(prefix: &Path, out: &Path) -> PathBuf {
    let library = out.join("libMLIR-C.so");
    if library.exists() {
        return library;
    }
    let lib = prefix.join("lib");
    let mut archives: Vec<PathBuf> = fs::read_dir(&lib)
        .expect("the LLVM 22 library folder exists (install libmlir-22-dev)")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("libMLIRCAPI") && name.ends_with(".a"))
        })
        .collect();
    archives.sort();
    assert!(
        !archives.is_empty(),
        "no libMLIRCAPI*.a in {}",
        lib.display()
    );
    let status = Command::new(prefix.join("bin/clang++"))
        .args(["-shared", "-o"])
        .arg(&library)
        .arg("-Wl,--whole-archive")
        .args(&archives)
        .arg("-Wl,--no-whole-archive")
        .arg(format!("-L{}", lib.display()))
        .args([
            "-lMLIR",
            "-lLLVM",
            "-Wl,--no-undefined",
            "-Wl,-soname,libMLIR-C.so",
        ])
        // Its own search path for libMLIR.so: an executable's RUNPATH does not reach the
        // dependencies of the libraries it loads.
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .status()
        .expect("clang++ runs");
    assert!(status.success(), "linking libMLIR-C.so failed");
    library
}

/// Copies the library to `target/<profile>/`, three folders above `OUT_DIR`.
fn place_next_to_binaries(library: &Path, out: &Path) {
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let target = profile_dir.join("libMLIR-C.so");
        let stale = match (fs::metadata(library), fs::metadata(&target)) {
            (Ok(source), Ok(existing)) => source.len() != existing.len(),
            _ => true,
        };
        if stale {
            fs::copy(library, &target).expect("copy libMLIR-C.so next to the binaries");
        }
    }
}
