//! `libtile_plugin.so`: one shared library for two audiences.
//!
//! - Stock `mlir-opt --load-dialect-plugin=libtile_plugin.so --load-pass-plugin=libtile_plugin.so`
//!   finds `mlirGetDialectPluginInfo` and `mlirGetPassPluginInfo` here.
//! - C and C++ compilers include `include/tile-c/Tile.h` and call the `tile*` functions.
//!
//! Every exported function is a thin wrapper over the Rust crates and catches panics.

#![deny(missing_docs)]

use mlir_sys::{MlirDialectHandle, MlirDialectRegistry, MlirPass};
use std::ffi::{c_char, c_void};

/// `MLIR_PLUGIN_API_VERSION` of `mlir/Tools/Plugins/*Plugin.h`.
const PLUGIN_API_VERSION: u32 = 1;
const PLUGIN_NAME: &[u8] = b"tile\0";
const PLUGIN_VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// Mirrors `mlir::DialectPluginLibraryInfo`.
#[repr(C)]
pub struct DialectPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_dialect_registry_callbacks: unsafe extern "C" fn(registry: *mut c_void),
}

/// Mirrors `mlir::PassPluginLibraryInfo`.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_registry_callbacks: extern "C" fn(),
}

unsafe extern "C" fn register_dialects(registry: *mut c_void) {
    // `registry` is the `mlir::DialectRegistry &` mlir-opt hands to dialect plugins.
    let _ = tile_dialect::diagnostics::catch_panic(|| unsafe {
        tile_dialect::registration::insert_into_cxx_registry(registry)
    });
}

extern "C" fn register_passes() {
    let _ = tile_dialect::diagnostics::catch_panic(tile_conversions::register_all);
}

/// Returns the dialect-plugin description `mlir-opt --load-dialect-plugin` asks for.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetDialectPluginInfo() -> DialectPluginLibraryInfo {
    DialectPluginLibraryInfo {
        api_version: PLUGIN_API_VERSION,
        plugin_name: PLUGIN_NAME.as_ptr().cast(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_dialect_registry_callbacks: register_dialects,
    }
}

/// Returns the pass-plugin description `mlir-opt --load-pass-plugin` asks for.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: PLUGIN_API_VERSION,
        plugin_name: PLUGIN_NAME.as_ptr().cast(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_pass_registry_callbacks: register_passes,
    }
}

/// Returns the handle of the tile dialect.
#[unsafe(no_mangle)]
pub extern "C" fn tileGetDialectHandle() -> MlirDialectHandle {
    tile_dialect::dialect_handle().to_raw()
}

/// Registers the tile dialect in `registry`.
///
/// # Safety
///
/// `registry` must be a live registry made by `mlirDialectRegistryCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileRegisterDialect(registry: MlirDialectRegistry) {
    let _ = tile_dialect::diagnostics::catch_panic(|| unsafe {
        mlir_sys::mlirDialectHandleInsertDialect(tileGetDialectHandle(), registry)
    });
}

/// Registers every tile pass in MLIR's global pass registry.
#[unsafe(no_mangle)]
pub extern "C" fn tileRegisterPasses() {
    register_passes();
}

/// Creates the `tile-canonicalize` pass; the caller owns it.
#[unsafe(no_mangle)]
pub extern "C" fn tileCreateCanonicalizePass() -> MlirPass {
    tile_passes::create_canonicalize_pass().to_raw()
}
