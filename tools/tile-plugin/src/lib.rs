//! `libtile_plugin.so`: one shared library for two audiences.
//!
//! - Stock `mlir-opt --load-dialect-plugin=libtile_plugin.so --load-pass-plugin=libtile_plugin.so`
//!   finds `mlirGetDialectPluginInfo` and `mlirGetPassPluginInfo` here.
//! - C and C++ compilers include `include/tile-c/Tile.h` and call the `tile*` functions.
//!
//! Every exported function is a thin wrapper over the Rust crates and catches panics.

#![deny(missing_docs)]

use mlir_sys::{MlirDialectHandle, MlirDialectRegistry, MlirPass, MlirStringRef};
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

/// Creates a context with every dialect, LLVM translation and pass the tile pipelines need
/// (upstream's and tile's, all registered); the caller destroys it (`mlirContextDestroy`).
#[unsafe(no_mangle)]
pub extern "C" fn tileCreateContext() -> mlir_sys::MlirContext {
    let context = tile_conversions::context();
    let raw = context.to_raw();
    // The caller owns it now.
    std::mem::forget(context);
    raw
}

/// Creates the `tile-canonicalize` pass; the caller owns it.
#[unsafe(no_mangle)]
pub extern "C" fn tileCreateCanonicalizePass() -> MlirPass {
    tile_passes::create_canonicalize_pass().to_raw()
}

/// One compiled kernel, as the C accessors hand it out (each buffer NUL-terminated, the
/// terminator not counted).
struct CompiledKernel {
    name: Vec<u8>,
    code: Vec<u8>,
    code_object: Vec<u8>,
    manifest: Vec<u8>,
}

/// The opaque result of `tileCompile`: the kernels, or none, and the formatted diagnostics.
pub struct TileCompilation {
    succeeded: bool,
    kernels: Vec<CompiledKernel>,
    diagnostics: Vec<Vec<u8>>,
}

fn terminated(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.push(0);
    bytes
}

fn string_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: bytes.as_ptr().cast(),
        length: bytes.len().saturating_sub(1),
    }
}

/// Reads a caller's string (empty for a null pointer).
///
/// # Safety
///
/// `text.data` must point to `text.length` readable bytes, or be null.
unsafe fn read_string(text: MlirStringRef) -> String {
    if text.data.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(text.data.cast::<u8>(), text.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn compile(source: &str, source_name: &str, target: &str) -> TileCompilation {
    match tile_compiler::compile_source(source, source_name, target) {
        Ok(compilation) => TileCompilation {
            succeeded: true,
            kernels: compilation
                .kernels
                .iter()
                .map(|kernel| CompiledKernel {
                    name: terminated(kernel.name.clone().into_bytes()),
                    code: terminated(kernel.code.bytes()),
                    code_object: terminated(match &kernel.code {
                        tile_compiler::Code::Amdgcn {
                            code_object: Some(object),
                            ..
                        } => object.clone(),
                        _ => Vec::new(),
                    }),
                    manifest: terminated(kernel.manifest.to_json().into_bytes()),
                })
                .collect(),
            diagnostics: compilation
                .diagnostics
                .iter()
                .map(|d| terminated(d.to_string().into_bytes()))
                .collect(),
        },
        Err(error) => {
            let mut diagnostics: Vec<Vec<u8>> = error
                .diagnostics()
                .iter()
                .map(|d| terminated(d.to_string().into_bytes()))
                .collect();
            // The summary last, so that a program without located errors still says why.
            diagnostics.push(terminated(
                error.to_string().lines().next().unwrap_or_default().as_bytes().to_vec(),
            ));
            TileCompilation {
                succeeded: false,
                kernels: Vec::new(),
                diagnostics,
            }
        }
    }
}

/// Compiles the tile program `source` (diagnostics name it `source_name`) for `target`; never
/// returns null. The caller owns the result and frees it with `tileCompilationDestroy`.
///
/// # Safety
///
/// Each string must point to `length` readable bytes (or be null with length 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompile(
    source: MlirStringRef,
    source_name: MlirStringRef,
    target: MlirStringRef,
) -> *mut TileCompilation {
    let (source, source_name, target) = unsafe { (read_string(source), read_string(source_name), read_string(target)) };
    let compilation = tile_dialect::diagnostics::catch_panic(|| compile(&source, &source_name, &target))
        .unwrap_or_else(|message| TileCompilation {
            succeeded: false,
            kernels: Vec::new(),
            diagnostics: vec![terminated(message.into_bytes())],
        });
    Box::into_raw(Box::new(compilation))
}

/// Returns the compilation behind `compilation`, if any.
///
/// # Safety
///
/// `compilation` must be null or a live result of `tileCompile`.
unsafe fn compilation<'a>(compilation: *const TileCompilation) -> Option<&'a TileCompilation> {
    unsafe { compilation.as_ref() }
}

const EMPTY: &[u8] = b"\0";

/// Returns whether the program compiled.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationSucceeded(result: *const TileCompilation) -> bool {
    unsafe { compilation(result) }.is_some_and(|result| result.succeeded)
}

/// Returns how many kernels the program compiled to.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetNumKernels(result: *const TileCompilation) -> isize {
    unsafe { compilation(result) }.map_or(0, |result| result.kernels.len() as isize)
}

fn kernel_field(result: Option<&TileCompilation>, index: isize, field: fn(&CompiledKernel) -> &[u8]) -> MlirStringRef {
    let kernel = usize::try_from(index).ok().and_then(|index| result?.kernels.get(index));
    string_ref(kernel.map_or(EMPTY, field))
}

/// Returns the entry name of kernel `index` (empty when out of range). The bytes live as long as
/// `result` and are NUL-terminated.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetKernelName(result: *const TileCompilation, index: isize) -> MlirStringRef {
    kernel_field(unsafe { compilation(result) }, index, |kernel| &kernel.name)
}

/// Returns the code of kernel `index`: PTX text (sm_90a), AMDGCN assembly (gfx942) or SPIR-V words
/// in little-endian bytes (spirv, spirv-coopmat). The bytes live as long as `result`.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetKernelCode(result: *const TileCompilation, index: isize) -> MlirStringRef {
    kernel_field(unsafe { compilation(result) }, index, |kernel| &kernel.code)
}

/// Returns the HSA code object of gfx942 kernel `index` (empty for other targets). The bytes live as long as `result`.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetKernelCodeObject(
    result: *const TileCompilation,
    index: isize,
) -> MlirStringRef {
    kernel_field(unsafe { compilation(result) }, index, |kernel| &kernel.code_object)
}

/// Returns the launch manifest (JSON, the `tile-manifest` schema) of kernel `index`. The bytes
/// live as long as `result` and are NUL-terminated.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetKernelManifest(
    result: *const TileCompilation,
    index: isize,
) -> MlirStringRef {
    kernel_field(unsafe { compilation(result) }, index, |kernel| &kernel.manifest)
}

/// Returns how many diagnostics the compilation raised (errors when it failed, warnings otherwise).
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetNumDiagnostics(result: *const TileCompilation) -> isize {
    unsafe { compilation(result) }.map_or(0, |result| result.diagnostics.len() as isize)
}

/// Returns diagnostic `index`, formatted `file:line:col: severity: message` (notes on the lines
/// after). The bytes live as long as `result` and are NUL-terminated.
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationGetDiagnostic(result: *const TileCompilation, index: isize) -> MlirStringRef {
    let result = unsafe { compilation(result) };
    let diagnostic = usize::try_from(index)
        .ok()
        .and_then(|index| result?.diagnostics.get(index));
    string_ref(diagnostic.map_or(EMPTY, Vec::as_slice))
}

/// Frees a result of `tileCompile` (null is ignored).
///
/// # Safety
///
/// `result` must be null or a live result of `tileCompile`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileCompilationDestroy(result: *mut TileCompilation) {
    if !result.is_null() {
        drop(unsafe { Box::from_raw(result) });
    }
}
