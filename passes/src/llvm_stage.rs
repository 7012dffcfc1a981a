//! The LLVM stage of GPU kernels, in Rust over inkwell: a `gpu.module` whose one target is an
//! `#nvvm.target` or a `#rocdl.target` is translated to LLVM IR (MLIR's C API), given the data
//! layout and triple of the target machine for its (triple, chip, features, level) and, for
//! AMDGCN, the code-object version its target asks for (the `amdhsa_code_object_version` flag),
//! optimized by LLVM's `default<On>` pipeline (the level the target asks for, with loop unrolling,
//! interleaving and vectorization and SLP vectorization: what upstream's
//! `makeOptimizingTransformer` builds), and emitted as assembly (PTX, AMDGCN) by that machine.
//! Each thread makes a machine once per (triple, chip, features, level) and keeps it (MLIR's
//! worker threads live as long as the process): upstream makes one per module, and for AMDGCN a
//! new machine builds its subtarget and its register-alias cache again, a fixed cost per kernel.
//!
//! The result is the `gpu.binary` upstream's `gpu-module-to-binary{format=isa}` writes, with the
//! same assembly, except that the objects' properties hold no `LLVMIRToISATimeInMs` (a timing that
//! made the printed IR differ between runs). Upstream links ROCm's device libraries into a module
//! that calls them (where it finds ROCm); tile's kernels call none (`tile-math-to-rocdl` lowers
//! their math, `tile-check-external-calls` refuses other calls), and a module that does is refused
//! here, naming the functions.

use inkwell::{
    OptimizationLevel,
    context::{AsContextRef, Context},
    module::{FlagBehavior, Module},
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple},
};
use melior::ir::{
    Attribute, Identifier,
    attribute::{ArrayAttribute, AttributeLike, DictionaryAttribute, IntegerAttribute},
    operation::{OperationLike, OperationRef},
    r#type::IntegerType,
};
use std::{cell::RefCell, collections::HashMap};
use tile_dialect::driver::{GpuCode, LlvmTarget};

unsafe extern "C" {
    // MLIR's C API (libMLIR-C): translates a module-like op (here a `gpu.module`) to an LLVM module
    // in `context`; null when it does not translate (the diagnostics say why).
    fn mlirTranslateModuleToLLVMIR(
        module: mlir_sys::MlirOperation,
        context: inkwell::llvm_sys::prelude::LLVMContextRef,
    ) -> inkwell::llvm_sys::prelude::LLVMModuleRef;
}

/// The `gpu.object` format of assembly (`gpu::CompilationTarget::Assembly`).
const ASSEMBLY_FORMAT: u32 = 2;

/// Prefixes of ROCm device-library functions (what upstream's ROCDL serializer links in for).
const DEVICE_LIBRARY_PREFIXES: [&str; 2] = ["__ocml_", "__ockl_"];

thread_local! {
    /// This thread's target machines, by (triple, chip, features, level).
    static MACHINES: RefCell<HashMap<LlvmTarget, TargetMachine>> = RefCell::new(HashMap::new());
}

fn level(level: i32) -> OptimizationLevel {
    match level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// Runs `work` with this thread's machine for `target`, made on first use.
fn with_machine<T>(target: &LlvmTarget, work: impl FnOnce(&TargetMachine) -> Result<T, String>) -> Result<T, String> {
    MACHINES.with(|machines| {
        let mut machines = machines.borrow_mut();
        if !machines.contains_key(target) {
            let config = InitializationConfig::default();
            match target.code {
                GpuCode::Ptx => Target::initialize_nvptx(&config),
                GpuCode::Amdgcn { .. } => Target::initialize_amd_gpu(&config),
            }
            let triple = TargetTriple::create(&target.triple);
            let llvm_target = Target::from_triple(&triple).map_err(|error| error.to_string())?;
            let machine = llvm_target
                .create_target_machine(
                    &triple,
                    &target.chip,
                    &target.features,
                    level(target.level),
                    RelocMode::Default,
                    CodeModel::Default,
                )
                .ok_or_else(|| format!("no LLVM target machine for {} {}", target.triple, target.chip))?;
            machines.insert(target.clone(), machine);
        }
        work(&machines[target])
    })
}

/// The assembly of `module` (a `gpu.module`) for `target` (see the module's doc).
pub fn assembly(module: OperationRef, target: &LlvmTarget) -> Result<String, String> {
    if !(0..=3).contains(&target.level) {
        return Err(format!("Invalid optimization level: {}.", target.level));
    }
    let context = Context::create();
    // SAFETY: the op is a live `gpu.module`; the LLVM module made in `context` is owned by `llvm`
    // below and dropped before `context` is.
    let raw = unsafe { mlirTranslateModuleToLLVMIR(module.to_raw(), (&context).as_ctx_ref()) };
    if raw.is_null() {
        return Err("the module does not translate to LLVM IR".into());
    }
    let llvm: Module = unsafe { Module::new(raw) };
    with_machine(target, |machine| {
        llvm.set_data_layout(&machine.get_target_data().get_data_layout());
        llvm.set_triple(&machine.get_triple());
        if let GpuCode::Amdgcn { abi } = target.code {
            let library: Vec<String> = llvm
                .get_functions()
                .filter(|function| function.count_basic_blocks() == 0)
                .filter_map(|function| function.get_name().to_str().ok().map(str::to_owned))
                .filter(|name| DEVICE_LIBRARY_PREFIXES.iter().any(|prefix| name.starts_with(prefix)))
                .collect();
            if !library.is_empty() {
                return Err(format!(
                    "calls ROCm device-library functions ({}), which the LLVM stage does not link: lower the math ops to ROCDL instead (tile-math-to-rocdl)",
                    library.join(", ")
                ));
            }
            let version = context.i32_type().const_int(abi as u64, false);
            llvm.add_basic_value_flag("amdhsa_code_object_version", FlagBehavior::Error, version);
        }
        let options = PassBuilderOptions::create();
        options.set_loop_unrolling(true);
        options.set_loop_interleaving(true);
        options.set_loop_vectorization(true);
        options.set_loop_slp_vectorization(true);
        llvm.run_passes(&format!("default<O{}>", target.level), machine, options)
            .map_err(|error| format!("Could not optimize LLVM IR: {error}"))?;
        let assembly = machine
            .write_to_memory_buffer(&llvm, FileType::Assembly)
            .map_err(|error| format!("Could not emit assembly: {error}"))?;
        Ok(String::from_utf8_lossy(assembly.as_slice()).into_owned())
    })
}

/// Replaces `module` (a `gpu.module` whose one target is `target_attribute`) by a `gpu.binary` of
/// the same name holding its assembly, as upstream's serialization writes it: PTX objects with the
/// optimization level among their properties, AMDGCN objects with none.
pub fn serialize(module: OperationRef, target_attribute: Attribute, target: &LlvmTarget) -> Result<(), String> {
    let text = assembly(module, target)?;
    let context = module.context();
    let context = unsafe { context.to_ref() };
    let properties = match target.code {
        GpuCode::Ptx => {
            let level = IntegerAttribute::new(IntegerType::new(context, 32).into(), target.level as i64);
            DictionaryAttribute::new(context, &[(Identifier::new(context, "O"), level.into())]).to_raw()
        }
        GpuCode::Amdgcn { .. } => mlir_sys::MlirAttribute { ptr: std::ptr::null() },
    };
    // SAFETY: the attributes live in the module's context; the string is copied into it.
    let object = unsafe {
        Attribute::from_raw(mlir_sys::mlirGPUObjectAttrGet(
            context.to_raw(),
            target_attribute.to_raw(),
            ASSEMBLY_FORMAT,
            melior::StringRef::new(&text).to_raw(),
            properties,
        ))
    };
    tile_dialect::driver::replace_gpu_module_by_binary(module, ArrayAttribute::new(context, &[object]).into());
    Ok(())
}
