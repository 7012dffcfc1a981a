//! The `tile-opt` driver: MLIR's `MlirOptMain` with every upstream dialect and pass plus ours.

use crate::ffi;
use std::ffi::{CString, c_char};

/// Runs `MlirOptMain` on `args` (the program name first) and returns the process exit code. Register
/// the Rust passes (see [`crate::register_pass`]) before calling it. Unless the arguments say
/// otherwise, errors do not print the op they concern (`--mlir-print-op-on-diagnostic=false`): the
/// source line is shown, and a failing `tile.kernel` would otherwise be dumped whole.
pub fn opt_main(args: impl IntoIterator<Item = String>) -> i32 {
    crate::install_hooks();
    let mut args: Vec<String> = args.into_iter().collect();
    if !args.iter().any(|arg| arg.starts_with("--mlir-print-op-on-diagnostic")) {
        args.insert(args.len().min(1), "--mlir-print-op-on-diagnostic=false".into());
    }
    let owned: Vec<CString> = args
        .into_iter()
        .map(|arg| CString::new(arg.replace('\0', "")).unwrap_or_default())
        .collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|arg| arg.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    unsafe { ffi::tileShimOptMain(owned.len() as i32, argv.as_mut_ptr(), Some(check_source)) }
}

/// `tile-opt`'s look at its input before MLIR parses it (see [`crate::parser_guard`]).
unsafe extern "C" fn check_source(
    source: mlir_sys::MlirStringRef,
    offset: *mut usize,
    sink: ffi::TileMessageSink,
    user_data: *mut std::ffi::c_void,
) -> bool {
    let text = unsafe { std::slice::from_raw_parts(source.data as *const u8, source.length) };
    let Ok(Some(refusal)) = crate::diagnostics::catch_panic(|| crate::parser_guard::check(text)) else {
        return true;
    };
    unsafe { *offset = refusal.offset };
    if let Some(sink) = sink {
        unsafe { sink(user_data, melior::StringRef::new(&refusal.message).to_raw()) };
    }
    false
}

/// Parses the file at `path` into a module (diagnostics carry the file name); `None` when it does
/// not parse or verify (the diagnostics say why), or holds text MLIR's parser would crash on (an
/// error at it: see [`crate::parser_guard`]).
pub fn parse_file<'c>(context: &'c melior::Context, path: &str) -> Option<melior::ir::Module<'c>> {
    // Unreadable files are left to MLIR, which says so in its words.
    if let Some(refusal) = std::fs::read(path)
        .ok()
        .and_then(|text| crate::parser_guard::check(&text))
    {
        let location = melior::ir::Location::new(context, path, refusal.line, refusal.column);
        crate::diagnostics::emit_error(location, &refusal.message);
        return None;
    }
    let module =
        unsafe { mlir_sys::mlirModuleCreateParseFromFile(context.to_raw(), melior::StringRef::new(path).to_raw()) };
    if module.ptr.is_null() {
        None
    } else {
        Some(unsafe { melior::ir::Module::from_raw(module) })
    }
}

/// Returns, for every `gpu.binary` op under `module`, its symbol name and the payload of each of its
/// `#gpu.object`s (PTX or assembly text for `format = isa`).
pub fn gpu_binary_objects(module: &melior::ir::Module) -> Vec<(String, Vec<u8>)> {
    use melior::ir::{
        AttributeLike,
        attribute::ArrayAttribute,
        operation::{OperationLike, WalkOrder, WalkResult},
    };
    let mut objects = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.binary") {
            let name = crate::ops::string_attribute(&op, "sym_name").unwrap_or_default();
            if let Some(list) = op
                .attribute("objects")
                .ok()
                .and_then(|attr| ArrayAttribute::try_from(attr).ok())
            {
                for index in 0..list.len() {
                    if let Ok(object) = list.element(index) {
                        let payload = unsafe { mlir_sys::mlirGPUObjectAttrGetObject(object.to_raw()) };
                        let bytes = unsafe { std::slice::from_raw_parts(payload.data as *const u8, payload.length) };
                        objects.push((name.clone(), bytes.to_vec()));
                    }
                }
            }
        }
        WalkResult::Advance
    });
    objects
}

/// Serializes a `spirv.module` op to its SPIR-V binary; `None` when it is not one or does not
/// serialize (the diagnostics say why).
pub fn serialize_spirv(op: melior::ir::operation::OperationRef) -> Option<Vec<u32>> {
    unsafe extern "C" fn collect(user_data: *mut std::ffi::c_void, words: *const u32, count: usize) {
        let binary = unsafe { &mut *(user_data as *mut Vec<u32>) };
        binary.extend_from_slice(unsafe { std::slice::from_raw_parts(words, count) });
    }
    let mut binary = Vec::new();
    let ok = unsafe {
        ffi::tileShimSerializeSpirv(
            op.to_raw(),
            Some(collect),
            &mut binary as *mut Vec<u32> as *mut std::ffi::c_void,
        )
    };
    ok.then_some(binary)
}

/// Replaces the `gpu.module` `module` by a `gpu.binary` of its targets' assembly through their own
/// serialization interfaces (targets the LLVM stage does not take); false, with the error
/// emitted, when it fails.
pub fn serialize_gpu_module_to_assembly(module: melior::ir::operation::OperationRef) -> bool {
    unsafe { ffi::tileShimSerializeGpuModuleToAssembly(module.to_raw()) }
}

/// Replaces the `gpu.module` `module` by a `gpu.binary` of its name and offloading handler holding
/// `objects` (an array of `#gpu.object`s), as the serializers do.
pub fn replace_gpu_module_by_binary(module: melior::ir::operation::OperationRef, objects: melior::ir::Attribute) {
    use melior::ir::attribute::AttributeLike;
    // SAFETY: `module` is a live `gpu.module`, erased here; the caller holds no use of it after.
    unsafe { ffi::tileShimReplaceGpuModuleByBinary(module.to_raw(), objects.to_raw()) }
}

/// The code a GPU target attribute asks the LLVM stage for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuCode {
    /// PTX (`#nvvm.target`).
    Ptx,
    /// AMDGCN assembly for the code-object ABI version given (`#rocdl.target`: 600 is version 6).
    Amdgcn {
        /// The `amdhsa_code_object_version` module flag.
        abi: i32,
    },
}

/// What an `#nvvm.target` or `#rocdl.target` asks of the LLVM stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LlvmTarget {
    /// The code it asks for.
    pub code: GpuCode,
    /// The LLVM target triple (`nvptx64-nvidia-cuda`, `amdgcn-amd-amdhsa`).
    pub triple: String,
    /// The chip (`sm_90a`, `sm_80`, `gfx942`).
    pub chip: String,
    /// LLVM's target features (`+ptx80`).
    pub features: String,
    /// LLVM's optimization level (0-3).
    pub level: i32,
}

/// The fields of `attribute` where it is an `#nvvm.target` or a `#rocdl.target`.
pub fn llvm_target(attribute: melior::ir::Attribute) -> Option<LlvmTarget> {
    use melior::ir::attribute::AttributeLike;
    let empty = || mlir_sys::MlirStringRef {
        data: std::ptr::null(),
        length: 0,
    };
    let (mut triple, mut chip, mut features, mut abi, mut level) = (empty(), empty(), empty(), empty(), 0);
    // SAFETY: the shim points each reference at a string the attribute's context owns, or leaves
    // it empty.
    let text = |string: mlir_sys::MlirStringRef| unsafe { crate::registration::owned_string(string) };
    // SAFETY: the shim reads the attribute and fills the fields only where it is of its kind.
    let code =
        if unsafe { ffi::tileShimNvvmTarget(attribute.to_raw(), &mut triple, &mut chip, &mut features, &mut level) } {
            GpuCode::Ptx
        } else if unsafe {
            ffi::tileShimRocdlTarget(
                attribute.to_raw(),
                &mut triple,
                &mut chip,
                &mut features,
                &mut level,
                &mut abi,
            )
        } {
            // Upstream's default where the attribute's version does not parse.
            GpuCode::Amdgcn {
                abi: text(abi).parse().unwrap_or(600),
            }
        } else {
            return None;
        };
    Some(LlvmTarget {
        code,
        triple: text(triple),
        chip: text(chip),
        features: text(features),
        level,
    })
}

/// Lowers the vector transfers and `vector.print`s in `op` to loops with `convert-vector-to-scf`'s
/// patterns, doing nothing (not even folding) where there are none.
pub fn vector_transfers_to_scf(op: melior::ir::operation::OperationRef) {
    unsafe { ffi::tileShimVectorTransfersToScf(op.to_raw()) }
}

/// Assembles AMDGCN `assembly` for `chip` into an ELF object (LLVM's MC layer, in process: what
/// `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=CHIP -filetype=obj` writes); `Err` holds the
/// assembler's message. Safe to call from several threads at once.
pub fn assemble_amdgcn(assembly: &str, chip: &str) -> Result<Vec<u8>, String> {
    unsafe extern "C" fn collect(user_data: *mut std::ffi::c_void, bytes: *const std::ffi::c_char, count: usize) {
        let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
        if count > 0 {
            out.extend_from_slice(unsafe { std::slice::from_raw_parts(bytes as *const u8, count) });
        }
    }
    let mut out = Vec::new();
    let ok = unsafe {
        ffi::tileShimAssembleAmdgcn(
            melior::StringRef::new(assembly).to_raw(),
            melior::StringRef::new(chip).to_raw(),
            Some(collect),
            &mut out as *mut Vec<u8> as *mut std::ffi::c_void,
        )
    };
    if ok {
        Ok(out)
    } else {
        Err(String::from_utf8_lossy(&out).into_owned())
    }
}

/// Links the ELF object at `object` into an HSA code object at `output` (lld's ELF driver in
/// process: what `ld.lld -shared OBJECT -o OUTPUT` writes); `Err` holds the linker's message.
/// Safe to call from several threads at once (the links take turns).
pub fn link_amdgcn(object: &std::path::Path, output: &std::path::Path) -> Result<(), String> {
    unsafe extern "C" fn collect(user_data: *mut std::ffi::c_void, bytes: *const std::ffi::c_char, count: usize) {
        let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
        if count > 0 {
            out.extend_from_slice(unsafe { std::slice::from_raw_parts(bytes as *const u8, count) });
        }
    }
    let path = |path: &std::path::Path| {
        std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("{}: a path with a NUL byte", path.display()))
    };
    let (object, output) = (path(object)?, path(output)?);
    let mut message = Vec::new();
    let ok = unsafe {
        ffi::tileShimLinkAmdgcn(
            object.as_ptr(),
            output.as_ptr(),
            Some(collect),
            &mut message as *mut Vec<u8> as *mut std::ffi::c_void,
        )
    };
    if ok {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&message).into_owned())
    }
}

/// Returns a pass manager holding the textual pipeline `pipeline` (e.g.
/// `builtin.module(cse, canonicalize)`), or the parser's complaint.
pub fn pass_manager<'c>(context: &'c melior::Context, pipeline: &str) -> Result<melior::pass::PassManager<'c>, String> {
    let manager = melior::pass::PassManager::new(context);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|error| error.to_string())?;
    Ok(manager)
}

/// Serializes every `spirv.module` under `module`, named after the `gpu.module` it came from
/// (`convert-gpu-to-spirv` turns `gpu.module @m` into `spirv.module @__spv__m`).
pub fn spirv_binaries(module: &melior::ir::Module) -> Result<Vec<(String, Vec<u32>)>, String> {
    crate::ops::find_ops(module.as_operation(), "spirv.module")
        .into_iter()
        .map(|op| {
            let symbol = crate::ops::string_attribute(&op, "sym_name").unwrap_or_default();
            let name = symbol.trim_start_matches("__spv__").to_owned();
            let words = serialize_spirv(op).ok_or_else(|| format!("{name}: SPIR-V serialization failed"))?;
            Ok((name, words))
        })
        .collect()
}
