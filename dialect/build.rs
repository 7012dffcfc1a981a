//! Builds the C++ side of the dialect and the C-API library that shared linking needs.
//!
//! 1. `mlir-tblgen` turns `td/*.td` into op/attribute/enum/dialect classes and the op reference doc,
//!    all written into `OUT_DIR` (generated files are never committed).
//! 2. The thin shim (`shim/*.cpp`) is compiled with LLVM 22's clang++ into `libtile_shim.a`.
//! 3. `bindgen` turns `shim/TileShim.h`, the one declaration of the C boundary, into the Rust
//!    declarations `src/ffi.rs` includes (`OUT_DIR/tile_shim.rs`); MLIR's C types in it are
//!    mlir-sys's, not generated again. Every function the header declares must be defined with C
//!    linkage in `libtile_shim.a`, and every `tileShim*` symbol there declared in the header: the
//!    build fails otherwise (a signature that differs from the header's does not compile in C++,
//!    since every shim source includes it, and the Rust side has no other declaration).
//! 4. `libMLIR-C.so` is linked from Debian's `libMLIRCAPI*.a` archives against `libMLIR.so`, so that
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

    println!("cargo:rerun-if-env-changed=LIBCLANG_PATH");

    run_tablegen(&prefix, &out);
    compile_shim(&prefix, &out);
    let declared = generate_bindings(&prefix, &out);
    check_shim_defines(&prefix, &out, &declared);
    let capi = link_capi_library(&prefix, &out);
    place_next_to_binaries(&capi, &out);

    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-search=native={}", prefix.join("lib").display());
    // lld's ELF driver for `shim/TileLink.cpp` (lld-22's static libraries, from liblld-22-dev; the
    // LLVM they call is libLLVM's, the compression libraries theirs).
    println!("cargo:rustc-link-lib=static=lldELF");
    println!("cargo:rustc-link-lib=static=lldCommon");
    println!("cargo:rustc-link-lib=dylib=z");
    println!("cargo:rustc-link-lib=dylib=zstd");
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

/// The shim's sources. Each includes `TileShim.h`, so a definition whose signature differs from the
/// header's declaration is a compile error (or, outside `extern "C"`, a C++ overload, which leaves
/// the header's function undefined: `check_shim_defines` reports it).
const SHIM_SOURCES: [&str; 8] = [
    "shim/TileDialect.cpp",
    "shim/TileCAPI.cpp",
    "shim/TileOptMain.cpp",
    "shim/TileMath.cpp",
    "shim/TileAssemble.cpp",
    "shim/TileLink.cpp",
    "shim/TileSerialize.cpp",
    "shim/TileVectorToScf.cpp",
];

fn compile_shim(prefix: &Path, out: &Path) {
    for source in SHIM_SOURCES {
        let text = fs::read_to_string(source).expect("read a shim source");
        assert!(
            text.contains("#include \"TileShim.h\""),
            "{source} must include TileShim.h, so that the compiler checks its definitions against it"
        );
    }
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
        .files(SHIM_SOURCES)
        .compile("tile_shim");
}

/// Writes `OUT_DIR/tile_shim.rs` from `shim/TileShim.h` and returns the functions it declares.
fn generate_bindings(prefix: &Path, out: &Path) -> Vec<String> {
    let bindings = bindgen::Builder::default()
        .header("shim/TileShim.h")
        .clang_arg(format!("-I{}", prefix.join("include").display()))
        // Only what the shim header itself declares; MLIR's C API types come from mlir-sys, in scope
        // through the `use` below (a glob: the header may name any of them).
        .allowlist_file(".*/TileShim\\.h")
        .blocklist_file(".*/mlir-c/.*")
        .raw_line("#[allow(unused_imports)]")
        .raw_line("use mlir_sys::*;")
        .merge_extern_blocks(true)
        .layout_tests(false)
        .generate()
        .expect("bindgen parses shim/TileShim.h (libclang from LIBCLANG_PATH: install libclang-22-dev)");
    let file = out.join("tile_shim.rs");
    bindings.write_to_file(&file).expect("write the shim bindings");
    let text = bindings.to_string();
    let declared: Vec<String> = text
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("pub fn "))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .collect();
    assert!(
        declared.iter().any(|name| name == "tileShimSetHooks"),
        "bindgen found no shim functions in shim/TileShim.h"
    );
    declared
}

/// Fails the build when the header and `libtile_shim.a` disagree on the C functions: one declared
/// and not defined with C linkage (a missing definition, or one whose different signature made it a
/// C++ overload), or a `tileShim*` symbol defined and not declared.
fn check_shim_defines(prefix: &Path, out: &Path, declared: &[String]) {
    let output = Command::new(prefix.join("bin/llvm-nm"))
        .args(["--defined-only", "--extern-only", "--format=just-symbols"])
        .arg(out.join("libtile_shim.a"))
        .output()
        .expect("llvm-nm runs (install llvm-22)");
    assert!(output.status.success(), "llvm-nm libtile_shim.a failed");
    let defined: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .filter(|name| name.starts_with("tileShim"))
        .map(str::to_string)
        .collect();
    let missing: Vec<&String> = declared.iter().filter(|name| !defined.contains(name)).collect();
    let undeclared: Vec<&String> = defined.iter().filter(|name| !declared.contains(name)).collect();
    let mut problems = Vec::new();
    if !missing.is_empty() {
        problems.push(format!(
            "shim/TileShim.h declares {missing:?}, which no shim source defines with C linkage \
             (a definition missing, or its signature differs from the header's)"
        ));
    }
    if !undeclared.is_empty() {
        problems.push(format!(
            "libtile_shim.a defines {undeclared:?}, which shim/TileShim.h does not declare"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("; "));
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
    assert!(!archives.is_empty(), "no libMLIRCAPI*.a in {}", lib.display());
    let status = Command::new(prefix.join("bin/clang++"))
        .args(["-shared", "-o"])
        .arg(&library)
        .arg("-Wl,--whole-archive")
        .args(&archives)
        .arg("-Wl,--no-whole-archive")
        .arg(format!("-L{}", lib.display()))
        .args(["-lMLIR", "-lLLVM", "-Wl,--no-undefined", "-Wl,-soname,libMLIR-C.so"])
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
